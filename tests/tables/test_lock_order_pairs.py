"""Table commands that once waited on each other in opposite orders, made to meet at their locks
(``tests/racing.py``): each pair passes, one after the other, with no deadlock."""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Table, Terminal
from casino.player_sessions import player_session_start
from casino.services import player_create, terminal_register
from tables.models import PayoutLine
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    payout_approve,
    round_close_betting,
    round_open,
    round_settle,
    table_settings_change,
)
from tests.racing import committing_while, no_error
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe

pytestmark = pytest.mark.django_db(transaction=True)


def _payout_waiting(table: Table, dealer: Any, operator: Any) -> tuple[Any, PayoutLine]:
    """Alice's 10.00 main bet won 10.00 (paid 20.00) at a threshold of 5.00: its payout line waits."""
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    alice = funded_player(table, 10_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return alice, PayoutLine.objects.get(round=round_)


def test_a_payout_approval_while_a_player_signs_in_at_its_table_deadlocks_nobody(
    table: Table, dealer: Any, pit_boss: Any, operator: Any
) -> None:
    # given a payout line of BJ1 waiting for a pit boss, and a player about to sign in at BJ1
    alice, line = _payout_waiting(table, dealer, operator)
    terminal = terminal_register(
        casino=table.casino,
        name="T-lock",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    player_create(
        casino=table.casino,
        card_number="5550002",
        display_name="Dora",
        pin="2468",
        actor=Actor.automatic("system"),
    )

    # when the pit boss approves it while the sign-in commits (the audit chain held, its
    # session's key to the table still to check)
    signed_in, approved = committing_while(
        lambda: player_session_start(terminal=terminal, card_number="5550002", pin="2468"),
        lambda: payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss)),
    )

    # then both pass
    no_error(signed_in, approved)
    assert balance(alice) == (11_000, 0)
