"""Who acts, as the audit trail and the round log keep it: a command sent through the terminal API
names the terminal it came from (and the player signed in on it); a command at the cage names the
cashier, and no terminal."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from casino.actors import Actor
from casino.models import AuditRecord, Player, Terminal
from tables.models import RoundEvent
from tables.services.rounds import round_close_betting
from tests.api.conftest import ApiClient, Device, make_device, sign_in, staff
from tests.api.test_dealer_actions import command, ready_round, table_id

pytestmark = pytest.mark.django_db


def _record(action: str) -> AuditRecord:
    return AuditRecord.objects.get(action=action)


def _who(record: AuditRecord | RoundEvent) -> tuple[int | None, str, str, int | None]:
    return record.actor_id, record.actor_name, record.role, record.terminal_id


def test_a_sign_in_is_audited_with_the_terminal(bj1_terminal: Device) -> None:
    # when Ági signs in at BJ1's terminal
    sign_in(bj1_terminal, "1000000001", "1111")
    # then the record names the terminal, and no staff member
    record = _record("player.signed_in")
    assert (record.actor_id, record.actor_name, record.terminal_id) == (
        None,
        "1000000001",
        bj1_terminal.terminal.pk,
    )


def test_a_bet_names_the_bettor_and_the_terminal_and_its_cancel_is_audited_with_them(
    agi: ApiClient, bj1_round
) -> None:
    # given Ági at BJ1's terminal with box 1
    table = f"/api/v1/tables/{bj1_round.table_id}"
    bets = f"{table}/rounds/{bj1_round.pk}/bets/"
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    terminal = agi.device.terminal if agi.device else None
    assert terminal is not None
    # when she bets, cancels the bet and bets again through the API, and the dealer closes betting
    first = command(agi, bets, "bet-1", {"box": 1, "kind": "main", "stake_minor": 1000}, 201).json()
    cancelled = agi.delete(f"{bets}{first['id']}/", headers={"Idempotency-Key": "cancel-1"})
    assert cancelled.status_code == 200, cancelled.content
    command(agi, bets, "bet-2", {"box": 1, "kind": "main", "stake_minor": 500}, 201)
    round_close_betting(round_id=bj1_round.pk, actor=Actor.staff(staff("dealer")))
    # then the hold's void is audited with her terminal
    assert _who(_record("wallet.holds_voided")) == (None, "player 1000000001", "player", terminal.pk)
    # and the round log names her and her terminal for her bet, the dealer for closing betting
    player = Player.objects.get(card_number="1000000001")
    placed = RoundEvent.objects.get(round=bj1_round, kind="bet_placed")
    assert (*_who(placed), placed.player_id) == (None, "player 1000000001", "player", terminal.pk, player.pk)
    closed = RoundEvent.objects.get(round=bj1_round, kind="betting_closed")
    assert (*_who(closed), closed.player_id) == (staff("dealer").pk, "dealer", "dealer", None, None)


def test_a_tip_from_the_wallet_is_audited_with_the_terminal(agi: ApiClient, bj1_round) -> None:
    # when Ági tips the dealer 2.50 from her wallet at BJ1's terminal
    response = agi.post(
        f"/api/v1/tables/{bj1_round.table_id}/tips/", {"amount_minor": 250}, headers={"Idempotency-Key": "t"}
    )
    assert response.status_code == 201, response.content
    # then the money's record and the tip's both name her terminal
    terminal = agi.device.terminal.pk if agi.device else None
    assert _who(_record("wallet.tip")) == (None, "player 1000000001", "player", terminal)
    assert _who(_record("accounting.tip_recorded")) == (None, "player 1000000001", "player", terminal)


def test_a_settlement_from_the_dealer_terminal_is_audited_with_it(bj1_terminal, bj1_reader) -> None:
    # given a round run by BJ1's dealer terminal: Ági's 20 against the dealer's 17
    dealer_device = make_device("D-BJ1", Terminal.Kind.DEALER_TERMINAL, "BJ1")
    dealer, reader = ApiClient(dealer_device), ApiClient(bj1_reader)
    agi = ApiClient(bj1_terminal, sign_in(bj1_terminal, "1000000001", "1111"))
    opened = ready_round(dealer)
    rounds = f"/api/v1/tables/{table_id()}/rounds/{opened['id']}"
    assert agi.post(f"/api/v1/tables/{table_id()}/boxes/1/take/").status_code == 200
    command(agi, f"{rounds}/bets/", "bet", {"box": 1, "kind": "main", "stake_minor": 1000}, 201)
    command(dealer, f"{rounds}/close-betting/", "close")
    for number, card in enumerate(["TS", "9C", "TH", "8D"]):
        command(reader, f"{rounds}/cards/", f"card-{number}", {"card": card})
    command(agi, f"{rounds}/decisions/", "stand", {"box": 1, "decision": "stand"})
    # when the dealer terminal settles it
    settled = command(dealer, f"{rounds}/settle/", "settle").json()
    assert settled["status"] == "settled"
    # then the ledger's record of the round names the dealer terminal
    assert _who(_record("wallet.round_settled")) == (
        None,
        "terminal D-BJ1",
        "dealer_terminal",
        dealer_device.terminal.pk,
    )


def test_a_cash_out_at_the_cage_names_the_cashier_and_no_terminal(seeded) -> None:
    # when the cashier pays Ági 50.00 out at the cage
    agi = Player.objects.get(card_number="1000000001")
    cashier = staff("cashier")
    client = Client()
    client.force_login(cashier)
    response = client.post(
        f"/cage/players/{agi.pk}/cash-out/",
        {"cash_out-amount": "50", "cash_out-form_token": str(uuid.uuid4())},
    )
    assert response.status_code == 302
    # then the record names the cashier, in their role, and no terminal
    assert _who(_record("wallet.cash_out")) == (cashier.pk, "cashier", "cashier", None)
