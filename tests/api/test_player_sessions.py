from __future__ import annotations

import datetime as dt
import hashlib
import threading

import pytest
from django.db import connection
from django.utils import timezone

from casino.actors import Actor
from casino.models import AuditRecord, Casino, Pit, Player, PlayerSession, Table, Terminal
from casino.services import terminal_credential_issue, terminal_credential_revoke, terminal_register
from tests.api.conftest import ApiClient, Device, make_device, sign_in
from tests.snapshots import ledger_snapshot, table_snapshot


def test_player_signs_in_and_gets_a_token_bound_to_player_terminal_and_table(bj1_terminal):
    response = ApiClient(bj1_terminal).post(
        "/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"}
    )

    body = response.json()
    session = PlayerSession.objects.get()
    assert response.status_code == 201
    assert body["player"]["display_name"] == "Ági Kovács"
    assert body["table_id"] == bj1_terminal.terminal.table_id
    assert body["terminal_id"] == bj1_terminal.terminal.pk
    assert session.token_digest == hashlib.sha256(body["token"].encode()).hexdigest()
    assert session.expires_at - session.started_at == dt.timedelta(minutes=15)
    assert (
        AuditRecord.objects.filter(action="player.signed_in", object_id=str(session.player_id)).count() == 1
    )


def test_wrong_pin_is_refused_and_the_fifth_locks_the_card(bj1_terminal):
    client = ApiClient(bj1_terminal)

    codes = [
        client.post("/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "9999"}).json()["code"]
        for _ in range(5)
    ]
    right_pin = client.post("/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"})

    assert codes == ["player_sign_in_failed"] * 4 + ["player_locked"]
    assert right_pin.status_code == 401
    assert right_pin["Content-Type"] == "application/problem+json"
    assert right_pin.json()["code"] == "player_locked"
    assert Player.objects.get(card_number="1000000001").locked_until is not None
    assert not PlayerSession.objects.exists()


def test_sign_in_input_is_validated_with_a_message_per_field(bj1_terminal):
    response = ApiClient(bj1_terminal).post("/api/v1/player-sessions/", {"card_number": "", "pin": "12"})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert set(response.json()["errors"]) == {"card_number", "pin"}


def test_card_reader_cannot_sign_players_in(bj1_reader):
    response = ApiClient(bj1_reader).post(
        "/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"}
    )

    assert response.status_code == 403
    assert response.json()["code"] == "not_a_player_terminal"
    assert Player.objects.get(card_number="1000000001").failed_pin_attempts == 0


def test_player_token_only_works_with_the_terminal_it_was_issued_at(agi, bj1_second_terminal):
    elsewhere = ApiClient(bj1_second_terminal, agi.player_token)

    assert agi.get("/api/v1/player-sessions/current/").status_code == 200
    refused = elsewhere.get("/api/v1/player-sessions/current/")
    assert refused.status_code == 401
    assert refused.json()["code"] == "player_token_invalid"


def test_terminal_credential_without_player_token_cannot_act_for_a_player(agi):
    response = ApiClient(agi.device).get("/api/v1/player/balance/")

    assert response.status_code == 401
    assert response.json()["code"] == "player_token_missing"


def test_sign_out_ends_the_token_at_once(agi):
    assert agi.delete("/api/v1/player-sessions/current/").status_code == 204

    response = agi.get("/api/v1/player/balance/")

    assert response.status_code == 401
    assert response.json()["code"] == "player_session_ended"
    assert PlayerSession.objects.get().end_reason == "signed_out"


def test_expired_session_is_refused(agi):
    PlayerSession.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    response = agi.get("/api/v1/player/balance/")

    assert response.status_code == 401
    assert response.json()["code"] == "player_session_expired"


def test_session_expiry_slides_forward_on_use_but_not_past_the_hard_limit(agi):
    PlayerSession.objects.update(expires_at=timezone.now() + dt.timedelta(minutes=5))

    assert agi.get("/api/v1/player/balance/").status_code == 200
    session = PlayerSession.objects.get()
    assert session.expires_at > timezone.now() + dt.timedelta(minutes=14)

    PlayerSession.objects.update(
        expires_at=timezone.now() + dt.timedelta(minutes=1),
        hard_expires_at=timezone.now() + dt.timedelta(minutes=2),
    )
    assert agi.get("/api/v1/player/balance/").status_code == 200
    session = PlayerSession.objects.get()
    assert session.expires_at == session.hard_expires_at


def test_signing_in_again_at_the_terminal_replaces_the_previous_session(agi, bj1_terminal):
    sign_in(bj1_terminal, "1000000002", "2222")

    response = agi.get("/api/v1/player/balance/")

    assert response.status_code == 401
    assert response.json()["code"] == "player_session_ended"
    assert PlayerSession.objects.filter(end_reason="replaced").count() == 1


def test_revoked_terminal_credential_ends_what_its_player_can_do(agi):
    from casino.models import TerminalCredential

    terminal_credential_revoke(
        credential=TerminalCredential.objects.get(terminal=agi.device.terminal),
        actor=Actor.automatic("system"),
    )

    response = agi.get("/api/v1/player/balance/")

    assert response.status_code == 401
    assert response.json()["code"] == "credential_revoked"


def test_balance_and_statement_of_the_signed_in_player(agi):
    balance = agi.get("/api/v1/player/balance/")
    statement = agi.get("/api/v1/player/statement/", limit=10)

    assert balance.status_code == 200
    assert balance.json() == {
        "balance_minor": 500000,
        "held_minor": 0,
        "available_minor": 500000,
        "currency": "EUR",
    }
    lines = statement.json()["lines"]
    assert statement.json()["currency"] == "EUR"
    assert [line["amount_minor"] for line in lines] == [500000]
    assert lines[-1]["balance_after_minor"] == 500000


def test_statement_query_is_validated(agi):
    response = agi.get("/api/v1/player/statement/", limit=0, since="yesterday")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"limit", "since"}


def test_statement_refuses_an_empty_limit_or_since(agi):
    response = agi.get("/api/v1/player/statement/", limit="", since="")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"limit", "since"}


def test_throttle_per_player_answers_429_with_retry_after(agi, settings):
    settings.API_THROTTLE_PLAYER = "3/min"

    statuses = [agi.get("/api/v1/player/balance/").status_code for _ in range(4)]
    refused = agi.get("/api/v1/player/balance/")

    assert statuses == [200, 200, 200, 429]
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0


def test_throttle_per_terminal_counts_every_request_of_the_terminal(bj1_terminal, settings):
    settings.API_THROTTLE_TERMINAL = "2/min"
    client = ApiClient(bj1_terminal)

    statuses = [client.get("/api/v1/terminal/").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


def _terminal_of_another_casino(seeded_table: Table) -> Device:
    other = Casino.objects.create(code="other", name="Other", currency="EUR")
    pit = Pit.objects.create(casino=other, name="P")
    table = Table.objects.create(
        casino=other, pit=pit, name="OX1", game=seeded_table.game, rule_set=seeded_table.rule_set
    )
    terminal = terminal_register(
        casino=other,
        name="T-OX1",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    return Device(terminal, token)


def test_a_terminal_of_another_casino_can_neither_test_a_pin_nor_lock_the_card(bj1_terminal, settings):
    settings.API_THROTTLE_SIGN_IN = ""
    client = ApiClient(_terminal_of_another_casino(Table.objects.get(name="BJ1")))
    before = {**ledger_snapshot(), **table_snapshot()}

    answers = [
        client.post("/api/v1/player-sessions/", {"card_number": "1000000001", "pin": pin})
        for pin in ["1111", "9999", "9999", "9999", "9999", "9999", "1111"]
    ]

    # the right PIN and the wrong ones get the same answer: the card is unknown at that casino
    assert {(answer.status_code, answer.json()["code"]) for answer in answers} == {
        (401, "player_sign_in_failed")
    }
    player = Player.objects.get(card_number="1000000001")
    assert player.locked_until is None and player.failed_pin_attempts == 0
    assert not PlayerSession.objects.exists()
    assert {**ledger_snapshot(), **table_snapshot()} == before  # no audit record either
    # and at home the card still works
    home = ApiClient(bj1_terminal).post(
        "/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"}
    )
    assert home.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_two_sign_ins_at_once_leave_one_open_session(seeded, settings):
    settings.API_THROTTLE_SIGN_IN = ""
    devices = [make_device(f"T-BJ1-race-{index}", Terminal.Kind.PLAYER_TERMINAL, "BJ1") for index in range(2)]
    statuses: list[int] = []
    for _ in range(10):
        barrier = threading.Barrier(2)

        def sign_in_now(device: Device, barrier: threading.Barrier = barrier) -> None:
            try:
                barrier.wait()
                answer = ApiClient(device).post(
                    "/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"}
                )
                statuses.append(answer.status_code)
            finally:
                connection.close()

        threads = [threading.Thread(target=sign_in_now, args=(device,)) for device in devices]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # one player, two terminals: exactly one session stays open, the other ended as replaced
        assert PlayerSession.objects.filter(ended_at__isnull=True).count() == 1
    assert statuses == [201] * 20
    assert PlayerSession.objects.filter(end_reason=PlayerSession.EndReason.REPLACED).count() == 19
