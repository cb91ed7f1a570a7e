"""Slip numbers under concurrent requests: real transactions on PostgreSQL, one thread and one
connection each, released together."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounting.models import DropCount, Slip, SlipCounter, SlipKind
from accounting.selectors import current_gaming_day
from accounting.services import gaming_day_sign, slip_request
from accounting.services_drop import drop_count_record
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Table
from tests.accounting.conftest import opened
from tests.factories import staff_user

pytestmark = pytest.mark.django_db(transaction=True)


def _race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; each result is the return value or the error."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except ServiceError as error:
            results[index] = error
        except Exception as error:  # a deadlock or an integrity error shows in the assertion
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.fixture
def floor(seeded: None) -> tuple[list[Table], Any]:
    tables = list(Table.objects.select_related("casino").order_by("name"))
    pit_boss, dealer = staff_user("pit_boss", "pitboss-race"), staff_user("dealer", "dealer-race")
    for table in tables:
        opened(table, dealer, pit_boss, {100: 100})
    return tables, pit_boss


def test_twenty_concurrent_requests_draw_the_numbers_one_to_twenty_without_a_gap(floor):
    tables, pit_boss = floor

    # when 20 requests for fills at the five tables race each other (the first of the year, so
    # they race to create the year's counter too)
    def request(index: int) -> Callable[[], Any]:
        table = tables[index % len(tables)]
        return lambda: slip_request(
            table=table, kind=SlipKind.FILL, amounts={2_500: 2_500 * (index + 1)}, actor=Actor.staff(pit_boss)
        )

    calls = [request(index) for index in range(20)]
    results = _race(calls)
    # then each got a slip, the numbers are 1..20 and the counter stands at 20
    assert [type(result).__name__ for result in results] == ["Slip"] * 20
    assert sorted(result.number for result in results) == list(range(1, 21))
    assert sorted(Slip.objects.values_list("number", flat=True)) == list(range(1, 21))
    assert list(SlipCounter.objects.values_list("last_number", flat=True)) == [20]
    assert sorted(Slip.objects.values_list("total_minor", flat=True)) == [2_500 * n for n in range(1, 21)]


def test_a_drop_count_racing_the_close_of_its_day_is_either_refused_or_keeps_the_day_open(floor):
    tables, _pit_boss = floor
    casino = tables[0].casino
    day = current_gaming_day(casino) - dt.timedelta(days=1)
    cashier, other = staff_user("cashier", "cashier-race"), staff_user("pit_boss", "pitboss-closer")
    # the accounting office has signed yesterday's close: the pit boss's signature closes it
    assert (
        gaming_day_sign(
            casino=casino, day=day, actor=Actor.staff(staff_user("accountant", "accountant-closer"))
        )
        is None
    )
    results = _race(
        [
            lambda: drop_count_record(
                table=tables[0], gaming_day=day, shift=1, total_minor=2_500, actor=Actor.staff(cashier)
            ),
            lambda: gaming_day_sign(casino=casino, day=day, actor=Actor.staff(other)),
        ]
    )
    codes = sorted(
        result.code if isinstance(result, ServiceError) else type(result).__name__ for result in results
    )
    # the count first: the day has a count to sign and stays open; the close first: the count is
    # refused and nothing of it is written
    assert codes in (["DropCount", "gaming_day_has_open_work"], ["GamingDayClose", "gaming_day_closed"])
    assert DropCount.objects.count() == (1 if "DropCount" in codes else 0)
