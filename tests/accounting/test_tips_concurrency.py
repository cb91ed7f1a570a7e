"""Tips under concurrency: real transactions on PostgreSQL, one thread and one connection each.
A tip and the next round's opening take turns on the table row; two wallet tips of one player
never spend the same money twice."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from accounting.errors import TipsRoundClosedError
from accounting.models import Tip
from accounting.tips import tip_from_player, tip_record
from casino.errors import ServiceError
from casino.models import Table
from tables.models import Round
from tables.services import Actor, round_open
from tests.accounting.tips_support import pool_balance, settled_round, wallet_of
from tests.factories import TerminalFactory, staff_user
from tests.racing import committing_while, no_error

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def bj1(seeded: Any) -> Table:
    return Table.objects.select_related("casino").get(name="BJ1")


def test_the_next_round_waits_for_a_tip_being_recorded(bj1):
    dealer = staff_user("dealer", "dealer-1")
    settled = settled_round(bj1, dealer)
    # the tip holds the table row until it commits; the next round's opening waits for it
    tip, opened = committing_while(
        lambda: tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer)),
        lambda: round_open(table=bj1, actor=Actor.staff(dealer)),
    )
    no_error(tip, opened)
    assert Tip.objects.get().round_id == settled.pk
    assert Round.objects.filter(table=bj1).count() == 2


def test_a_tip_waiting_on_the_next_round_is_refused_once_it_opened(bj1):
    dealer = staff_user("dealer", "dealer-1")
    settled = settled_round(bj1, dealer)
    opened, tip = committing_while(
        lambda: round_open(table=bj1, actor=Actor.staff(dealer)),
        lambda: tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer)),
    )
    assert isinstance(opened, Round)
    assert isinstance(tip, TipsRoundClosedError)
    assert not Tip.objects.exists()


def test_two_wallet_tips_never_spend_the_same_money_twice(bj1):
    dealer = staff_user("dealer", "dealer-1")
    settled = settled_round(bj1, dealer)
    alice = settled.bets.get().player
    assert wallet_of(alice) == 11_000
    terminal = TerminalFactory(casino=bj1.casino, table=bj1)
    barrier = threading.Barrier(2)
    results: list[Any] = [None, None]

    def tip(index: int) -> None:
        try:
            barrier.wait()
            results[index] = tip_from_player(
                table=bj1, amount_minor=6_000, actor=Actor.at_terminal(terminal, alice)
            )
        except ServiceError as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=tip, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    codes = sorted(result.code if isinstance(result, ServiceError) else "tipped" for result in results)
    assert codes == ["insufficient_funds", "tipped"]
    assert (wallet_of(alice), pool_balance(bj1.casino), Tip.objects.count()) == (5_000, 6_000, 1)
