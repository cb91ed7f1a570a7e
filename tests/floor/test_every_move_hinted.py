"""No command moves what the dealer console shows without hinting its table: a round played
through the services (the dealer signing on, a configuration change, boxes, the round, bets, the
betting closed, the players' decisions, the settlement, the pit boss's decision on the held
payouts, the next dealer taking over), each call checked: every one moved the console's version,
and each time the table's hint went out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from casino.hints import table_topic
from casino.models import Table
from floor.console import console_version
from tables.services import Actor, dealer_sign_on, payouts_decide
from tests.factories import staff_user
from tests.hints import hinted_by
from tests.tables import payouts_support
from tests.tables.payouts_support import boss_dealer, busy_round

pytestmark = pytest.mark.django_db(transaction=True)

COMMANDS = (
    "table_settings_change",
    "box_take",
    "round_open",
    "bet_place",
    "round_close_betting",
    "decision_make",
    "round_settle",
)


def test_every_command_that_moves_the_console_hints_its_table(
    hints_received: list[tuple[str, str]], seeded: None, monkeypatch: Any
) -> None:
    table = Table.objects.get(name="BJ1")
    moved: list[str] = []
    unhinted: list[str] = []

    def checking(name: str, command: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            before = console_version(table)
            result: list[Any] = []
            topics = hinted_by(hints_received, lambda: result.append(command(*args, **kwargs)))
            if console_version(table) != before:
                moved.append(name)
                if table_topic(table.pk) not in topics:
                    unhinted.append(name)
            return result[0]

        return call

    for name in COMMANDS:
        monkeypatch.setattr(payouts_support, name, checking(name, getattr(payouts_support, name)))
    pit_boss = staff_user("pit_boss", "pit-boss-hinted")
    dealer = boss_dealer(staff_user("pit_boss", "dealer-hinted"))
    checking("dealer_sign_on", dealer_sign_on)(table=table, actor=Actor.staff(dealer))
    _, round_, lines = busy_round(table, dealer, staff_user("operator", "operator-hinted"))
    checking("payouts_decide", payouts_decide)(
        round_id=round_.pk, approve=[line.pk for line in lines], reject=[], actor=Actor.staff(pit_boss)
    )
    relief = staff_user("dealer", "relief-hinted")
    checking("dealer_take_over", dealer_sign_on)(table=table, actor=Actor.staff(relief))

    assert set(moved) == {*COMMANDS, "dealer_sign_on", "payouts_decide", "dealer_take_over"}
    assert unhinted == []
