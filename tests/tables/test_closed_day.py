"""A closed gaming day takes no write at a table: no round opens in it, no bet is placed, no round
is settled and no player tips from the wallet (``casino.gaming_day_state.gaming_day_writable``,
through ``tables.locking.lock_round``, ``bet_place``, ``round_open``); through the service and
through the dealer's console and the terminal API, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounting.selectors import current_gaming_day
from casino.models import GamingDayClose, Table
from tables.models import Bet, PayoutDecision
from tables.services import Actor, bet_place, decision_make, round_close_betting, round_open, round_settle
from tests.accounting.conftest import day_closed_before_its_end
from tests.api.conftest import ApiClient, make_device, sign_in
from tests.factories import staff_user
from tests.snapshots import ledger_snapshot, table_snapshot
from tests.tables.conftest import alice_betting, at_terminal, funded_player, refused, stack_shoe

pytestmark = pytest.mark.django_db


def _closed_now(table: Table) -> GamingDayClose:
    """The current day closed before its end, as a close signed mid-shift left it."""
    return day_closed_before_its_end(table.casino, current_gaming_day(table.casino), staff_user("accountant"))


def _written() -> tuple[Any, Any]:
    """What a table's command may write (the terminal API's record of a request's answer, which
    a retry with its key gets again, left out)."""
    ledger = ledger_snapshot()
    ledger.pop("idempotency")
    return ledger, table_snapshot()


def test_no_bet_is_placed_in_a_closed_day(table, dealer):
    # given Alice's 10.00 on box 1 of a round in betting, and the day then closed
    _alice, round_ = alice_betting(table, dealer)
    bob = funded_player(table, 10_000, name="Bob Bond")
    _closed_now(table)
    before = _written()
    # when Bob bets behind her box
    refusal = refused(
        "gaming_day_closed",
        bet_place,
        round_id=round_.pk,
        actor=at_terminal(table, bob),
        box_number=1,
        kind="behind",
        stake_minor=500,
        idempotency_key="b",
    )
    # then nothing is written: no bet, no hold, no seat, no audit record
    assert refusal.details["day"] == current_gaming_day(table.casino).isoformat()
    assert _written() == before and Bet.objects.filter(round=round_).count() == 1


def test_no_round_is_settled_and_no_stake_doubled_in_a_closed_day(table, dealer):
    # given Alice's round dealt to her decision (T 7 against the dealer's 9), then the day closed
    alice, round_ = alice_betting(table, dealer)
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    _closed_now(table)
    before = _written()
    # when she doubles, or stands and the dealer settles the round
    refused(
        "gaming_day_closed",
        decision_make,
        round_id=round_.pk,
        actor=at_terminal(table, alice),
        box_number=1,
        decision="double",
    )
    assert _written() == before
    decision_make(round_id=round_.pk, actor=at_terminal(table, alice), box_number=1, decision="stand")
    played = _written()
    refused("gaming_day_closed", round_settle, round_id=round_.pk, actor=Actor.staff(dealer))
    # then no stake is held and nothing is posted: no transfer, no posting, no audit record
    assert _written() == played


def test_no_round_opens_in_a_closed_day_through_the_service_or_the_console(table, dealer):
    from tables.services import dealer_sign_on

    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    _closed_now(table)
    before = _written()
    refused("gaming_day_closed", round_open, table=table, actor=Actor.staff(dealer))
    client = Client()
    client.force_login(dealer)
    url = reverse("floor:console_action", args=["BJ1", "open-betting"])
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = client.post(url, **headers)
        page = response.content.decode()
        assert response.status_code == 409, page[:300]
        assert "is closed: nothing more is written into it.</strong>" in page
    assert _written() == before


def test_the_terminal_api_places_no_bet_and_no_tip_in_a_closed_day(table, dealer):
    # given a round in betting at BJ1 and Ági signed in at its terminal before the day closed
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    agi = ApiClient(device, sign_in(device, "1000000001", "1111"))
    _alice, round_ = alice_betting(table, dealer)
    _closed_now(table)
    before = _written()
    rounds = f"/api/v1/tables/{table.pk}/rounds/{round_.pk}"
    bet = agi.post(
        f"{rounds}/bets/", {"box": 1, "kind": "behind", "stake_minor": 500}, headers={"Idempotency-Key": "b"}
    )
    assert bet.status_code == 409 and bet.json()["code"] == "gaming_day_closed"
    tip = agi.post(
        f"/api/v1/tables/{table.pk}/tips/", {"amount_minor": 100}, headers={"Idempotency-Key": "t"}
    )
    assert tip.status_code == 409 and tip.json()["code"] == "gaming_day_closed"
    assert _written() == before


def test_no_held_payout_is_paid_or_rejected_in_a_closed_day(table, dealer, pit_boss, operator):
    from tables.services import payout_approve, payout_reject
    from tests.floor.test_pit import _held_payout

    # given Alice's win held for a pit boss, then the day closed
    _alice, line = _held_payout(table, dealer, operator)
    _closed_now(table)
    before = _written()
    refused("gaming_day_closed", payout_approve, payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    refused(
        "gaming_day_closed", payout_reject, payout_line_id=line.pk, actor=Actor.staff(pit_boss), reason="x"
    )
    client = Client()
    client.force_login(pit_boss)
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = client.post(
            f"/pit/rounds/{line.round_id}/payouts/",
            {"line": [str(line.pk)], "decision": "approve"},
            **headers,
        )
        if headers:
            assert (
                response.status_code == 409 and 'data-code="gaming_day_closed"' in response.content.decode()
            )
        else:
            assert response.status_code == 302
            assert "(gaming_day_closed)" in client.get(response["Location"]).content.decode()
    # then the payout still waits, and nothing is written (its decision row neither)
    assert _written() == before
    line.refresh_from_db()
    assert line.approval_status == "pending" and not PayoutDecision.objects.filter(line=line).exists()
