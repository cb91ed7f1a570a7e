from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from casino.actors import Actor
from casino.models import IdempotencyRecord, Player
from tables.models import Bet, Seat
from tests.api.conftest import staff
from tests.snapshots import ledger_snapshot
from wallet.models import Hold
from wallet.selectors import account_balance
from wallet.services import cage_buy_in, cage_cash_out


def bets_url(round_) -> str:
    return f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/bets/"


@pytest.fixture
def agi_on_box_1(agi, bj1_round):
    assert agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/").status_code == 200
    return agi


def test_a_bet_needs_an_idempotency_key(agi_on_box_1, bj1_round):
    response = agi_on_box_1.post(bets_url(bj1_round), {"box": 1, "kind": "main", "stake_minor": 1000})

    assert response.status_code == 400
    assert response.json()["code"] == "idempotency_key_required"
    assert not Bet.objects.exists()


def test_a_retry_returns_the_first_response_and_moves_nothing_twice(agi_on_box_1, bj1_round):
    body = {"box": 1, "kind": "main", "stake_minor": 1000}
    headers = {"Idempotency-Key": "bet-1"}

    first = agi_on_box_1.post(bets_url(bj1_round), body, headers=headers)
    retry = agi_on_box_1.post(bets_url(bj1_round), body, headers=headers)

    assert first.status_code == 201
    assert retry.status_code == 201
    assert retry.json() == first.json()
    assert retry["Idempotency-Replayed"] == "true"
    assert "Idempotency-Replayed" not in first
    assert Bet.objects.count() == 1
    assert Hold.objects.count() == 1
    assert account_balance(Bet.objects.get().player).available_minor == 500000 - 1000


def test_the_same_key_with_another_payload_is_refused_with_422(agi_on_box_1, bj1_round):
    headers = {"Idempotency-Key": "bet-1"}
    agi_on_box_1.post(bets_url(bj1_round), {"box": 1, "kind": "main", "stake_minor": 1000}, headers=headers)

    response = agi_on_box_1.post(
        bets_url(bj1_round), {"box": 1, "kind": "main", "stake_minor": 2000}, headers=headers
    )

    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "idempotency_key_reused"
    assert list(Bet.objects.values_list("stake_minor", flat=True)) == [1000]


def test_a_refusal_is_the_first_response_too(agi_on_box_1, bj1_round):
    headers = {"Idempotency-Key": "too-much"}
    body = {"box": 1, "kind": "main", "stake_minor": 10**9}

    first = agi_on_box_1.post(bets_url(bj1_round), body, headers=headers)
    retry = agi_on_box_1.post(bets_url(bj1_round), body, headers=headers)

    assert first.status_code == 422
    assert first.json()["code"] == "stake_above_table_max"
    assert retry.json() == first.json()
    assert retry["Idempotency-Replayed"] == "true"
    assert not Bet.objects.exists()
    assert not Hold.objects.exists()


def test_a_refusal_after_a_write_leaves_nothing_and_is_replayed(agi_on_box_1, bartek, bj1_round):
    """Bartek's first bet behind writes his seat at the box before his wallet refuses the stake:
    the refusal rolls the whole request back (no seat, no bet, no hold, nothing on the ledger) and
    is stored, so a retry after a top-up still hears it; a new key then succeeds."""
    player = Player.objects.get(card_number="1000000002")
    cashier = staff("cashier")
    cage_cash_out(player=player, amount_minor=250_000 - 300, actor=Actor.staff(cashier))
    assert (
        agi_on_box_1.post(
            bets_url(bj1_round),
            {"box": 1, "kind": "main", "stake_minor": 1000},
            headers={"Idempotency-Key": "a1"},
        ).status_code
        == 201
    )
    before = ledger_snapshot()
    body = {"box": 1, "kind": "behind", "stake_minor": 500}
    headers = {"Idempotency-Key": "behind-1"}

    first = bartek.post(bets_url(bj1_round), body, headers=headers)

    assert first.status_code == 409
    assert first.json()["code"] == "insufficient_funds"
    assert not Seat.objects.filter(player=player).exists()
    assert not Bet.objects.filter(player=player).exists()
    after = ledger_snapshot()
    assert after.pop("idempotency") == [*before.pop("idempotency"), IdempotencyRecord.objects.latest("pk").pk]
    assert after == before

    cage_buy_in(player=player, amount_minor=10_000, actor=Actor.staff(cashier))
    retry = bartek.post(bets_url(bj1_round), body, headers=headers)
    fresh = bartek.post(bets_url(bj1_round), body, headers={"Idempotency-Key": "behind-2"})

    assert retry.json() == first.json()
    assert retry["Idempotency-Replayed"] == "true"
    assert fresh.status_code == 201
    assert Bet.objects.filter(player=player).count() == 1
    assert Seat.objects.filter(player=player).count() == 1


def test_keys_are_scoped_per_terminal_and_player(agi_on_box_1, bartek, bj1_round):
    assert bartek.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/2/take/").status_code == 200
    headers = {"Idempotency-Key": "same-key"}

    agi_bet = agi_on_box_1.post(
        bets_url(bj1_round), {"box": 1, "kind": "main", "stake_minor": 1000}, headers=headers
    )
    bartek_bet = bartek.post(
        bets_url(bj1_round), {"box": 2, "kind": "main", "stake_minor": 2000}, headers=headers
    )

    assert agi_bet.status_code == 201
    assert bartek_bet.status_code == 201
    assert Bet.objects.count() == 2


def test_malformed_keys_are_bad_input(agi_on_box_1, bj1_round):
    response = agi_on_box_1.post(
        bets_url(bj1_round),
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "a b"},
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_idempotency_key"


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_run_once_the_others_get_409_or_the_replay(seeded):
    from tests.api.conftest import ApiClient, make_device, open_round, sign_in

    device = make_device("T-BJ1-9", "player_terminal", "BJ1")
    round_ = open_round("BJ1")
    token = sign_in(device, "1000000001", "1111")
    assert ApiClient(device, token).post(f"/api/v1/tables/{round_.table_id}/boxes/1/take/").status_code == 200
    body = {"box": 1, "kind": "main", "stake_minor": 1000}
    barrier = threading.Barrier(8)
    results: list[tuple[int, str]] = []

    def send() -> None:
        client = ApiClient(device, token)
        barrier.wait()
        try:
            response = client.post(bets_url(round_), body, headers={"Idempotency-Key": "race"})
            results.append((response.status_code, response.json().get("code", "")))
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    statuses = sorted(status for status, _ in results)
    assert len(results) == 8
    assert set(statuses) <= {201, 409}
    assert statuses.count(201) >= 1
    assert all(code == "idempotency_in_progress" for status, code in results if status == 409)
    assert Bet.objects.count() == 1
    assert Hold.objects.count() == 1
    assert account_balance(Bet.objects.get().player).held_minor == 1000


@pytest.mark.django_db(transaction=True)
def test_a_duplicate_committed_while_a_refusal_is_being_stored_is_what_both_hear(seeded, monkeypatch):
    # given a bet refused for lack of funds, paused between its rollback and storing its refusal
    import casino.idempotency as casino_idempotency
    from tests.api.conftest import ApiClient, make_device, open_round, sign_in

    device = make_device("T-BJ1-9", "player_terminal", "BJ1")
    round_ = open_round("BJ1")
    token = sign_in(device, "1000000001", "1111")
    player = Player.objects.get(card_number="1000000001")
    cashier = staff("cashier")
    cage_cash_out(player=player, amount_minor=500_000 - 300, actor=Actor.staff(cashier))
    assert ApiClient(device, token).post(f"/api/v1/tables/{round_.table_id}/boxes/1/take/").status_code == 200
    body = {"box": 1, "kind": "main", "stake_minor": 1000}
    paused, release = threading.Event(), threading.Event()
    store = casino_idempotency._refusal_store

    def store_later(**arguments: Any) -> Any:
        paused.set()
        release.wait(10)
        return store(**arguments)

    monkeypatch.setattr(casino_idempotency, "_refusal_store", store_later)
    answers: dict[str, Any] = {}

    def first() -> None:
        try:
            answers["first"] = ApiClient(device, token).post(
                bets_url(round_), body, headers={"Idempotency-Key": "k"}
            )
        finally:
            connection.close()

    thread = threading.Thread(target=first)
    thread.start()
    assert paused.wait(10)

    # when the player tops up and the terminal's retry of the same key runs meanwhile
    cage_buy_in(player=player, amount_minor=10_000, actor=Actor.staff(cashier))
    monkeypatch.setattr(casino_idempotency, "_refusal_store", store)
    second = ApiClient(device, token).post(bets_url(round_), body, headers={"Idempotency-Key": "k"})
    release.set()
    thread.join(30)

    # then the retry placed the bet, and the first request answers with it too: one bet, one record
    assert second.status_code == 201
    first_answer = answers["first"]
    assert first_answer.status_code == 201 and first_answer.json() == second.json()
    assert first_answer["Idempotency-Replayed"] == "true"
    assert Bet.objects.count() == 1 and Hold.objects.count() == 1
    assert IdempotencyRecord.objects.filter(key="k").count() == 1
