"""A busy round for the held payouts' tests: one player's three winning hands on two boxes, each
held for a pit boss; and a dealer who may approve payouts (whom four eyes keeps off their own
rounds)."""

from __future__ import annotations

from typing import Any

from casino.models import Table
from tables.models import PayoutLine, Round
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    round_close_betting,
    round_open,
    round_settle,
    table_settings_change,
)
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe


def threshold_set(table: Table, operator: Any, amount_minor: int) -> None:
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": amount_minor}
    )


def busy_round(table: Table, dealer: Any, operator: Any) -> tuple[Any, Round, list[PayoutLine]]:
    """Alice (100.00) plays boxes 1 and 2 for 10.00 each; she splits box 1's eights, and all three
    hands beat the dealer's 17: three "Higher total pays 1:1" lines, each winning 10.00 above a
    threshold of 5.00, held. Lines in order box 1 hand 1, box 1 hand 2, box 2."""
    threshold_set(table, operator, 500)
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    # box 1: 8S 8D (split: TH, JD); box 2: TS 9D; the dealer 7H TC
    stack_shoe(table, dealer, ["8S", "TS", "7H", "8D", "9D", "TC", "TH", "JD"])
    box_take(table=table, box_number=1, actor=as_alice)
    box_take(table=table, box_number=2, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    for box in (1, 2):
        bet_place(
            round_id=round_.pk,
            actor=as_alice,
            box_number=box,
            kind="main",
            stake_minor=1000,
            idempotency_key=f"{box}",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    for box, decision in ((1, "split"), (1, "stand"), (1, "stand"), (2, "stand")):
        decision_make(round_id=round_.pk, actor=as_alice, box_number=box, decision=decision)
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    lines = sorted(
        PayoutLine.objects.filter(round=round_).select_related("bet"),
        key=lambda line: (line.bet.box_number, line.hand),
    )
    assert [
        (line.bet.box_number, line.hand, line.rule, line.net_minor, line.needs_approval) for line in lines
    ] == [
        (1, 0, "7 higher total 1:1", 1000, True),
        (1, 1, "7 higher total 1:1", 1000, True),
        (2, 0, "7 higher total 1:1", 1000, True),
    ]
    assert balance(alice) == (7_000, 0)
    return alice, round_, lines


def boss_dealer(pit_boss: Any) -> Any:
    """A dealer who also holds the pit boss's permissions."""
    boss_dealer = staff_user("dealer", "dealer-2")
    boss_dealer.groups.add(*pit_boss.groups.all())
    return type(boss_dealer).objects.get(pk=boss_dealer.pk)
