from __future__ import annotations

import pytest

from tables.models import Bet, PayoutLine, RoundEvent
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    round_close_betting,
    round_open,
    round_settle,
)
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe


@pytest.mark.django_db
def test_a_round_from_open_to_settled(table, dealer):
    # given alice on box 1 and bob behind her, a shoe: alice 10+9, dealer 7 + 10
    alice, bob = funded_player(table, 10_000), funded_player(table, 10_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_alice, as_bob, as_dealer = at_terminal(table, alice), at_terminal(table, bob), Actor.staff(dealer)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=as_dealer)
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="a1"
    )
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=500, idempotency_key="b1"
    )
    assert balance(alice) == (10_000, 1000)
    # when betting closes, alice stands and the round is settled
    round_close_betting(round_id=round_.pk, actor=as_dealer)
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=as_dealer)
    # then both win 1:1 (19 against 17)
    assert balance(alice) == (11_000, 0)
    assert balance(bob) == (10_500, 0)
    assert sorted(PayoutLine.objects.values_list("outcome", "net_minor")) == [("win", 500), ("win", 1000)]
    assert RoundEvent.objects.filter(round=round_).count() > 5
    assert set(Bet.objects.values_list("status", flat=True)) == {"settled"}
