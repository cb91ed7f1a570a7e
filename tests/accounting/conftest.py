"""Fixtures of the accounting tests: the seeded demo casino (its tray of BJ1 filled with
20 000.00), its staff, and helpers that count a tray and move a slip along."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounting.models import CountKind, Slip, TrayCount
from accounting.selectors import current_gaming_day
from accounting.services import (
    gaming_day_sign,
    slip_issue,
    slip_receive,
    slip_request,
    tray_count_record,
    tray_count_sign,
)
from casino.models import AuditRecord, GamingDayClose
from tables.models import Table
from tests.factories import staff_user
from wallet.models import Account, AccountKind, Transfer

# The demo chip set (the defaults): 1, 5, 25, 100 and 500 EUR.
TRAY = {50_000: 1_000_000, 10_000: 600_000, 2_500: 300_000, 500: 90_000, 100: 10_000}  # 20 000.00


@pytest.fixture
def table(seeded: Any) -> Table:
    return Table.objects.select_related("casino").get(name="BJ1")


@pytest.fixture
def dealer(seeded: Any) -> Any:
    return staff_user("dealer", "dealer-1")


@pytest.fixture
def dealer_two(seeded: Any) -> Any:
    return staff_user("dealer", "dealer-2")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


@pytest.fixture
def pit_boss_two(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-2")


@pytest.fixture
def cashier(seeded: Any) -> Any:
    return staff_user("cashier", "cashier-1")


@pytest.fixture
def operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-1")


@pytest.fixture
def accountant(seeded: Any) -> Any:
    return staff_user("accountant", "accountant-1")


def day_closed(casino: Any, day: Any, pit_boss: Any, accountant: Any) -> GamingDayClose:
    """The gaming day (one that has ended) closed by its two signatures: the pit boss's, then the
    accounting office's."""
    assert gaming_day_sign(casino=casino, day=day, by=pit_boss) is None
    closed = gaming_day_sign(casino=casino, day=day, by=accountant)
    assert closed is not None
    return closed


def day_closed_before_its_end(casino: Any, day: Any, by: Any) -> GamingDayClose:
    """``day`` closed before it ended, as the close signed mid-shift before the rule of
    ``casino.gaming_day_state`` left it in a database (today's close at 14:51 while yesterday
    was open): the row as it was written then."""
    return GamingDayClose.objects.create(
        casino=casino, gaming_day=day, closing=1, closed_at=timezone.now(), closed_by=by
    )


def yesterday(casino: Any) -> dt.date:
    return current_gaming_day(casino) - dt.timedelta(days=1)


def moved_to_day(day: dt.date, *records: Any) -> None:
    """Records of today moved to ``day`` (their gaming day, as the owner could): a day's work
    without waiting for the day to end."""
    for record in records:
        type(record).objects.filter(pk=record.pk).update(gaming_day=day)
        record.gaming_day = day


@pytest.fixture
def bj1_open(table: Table, dealer: Any, pit_boss: Any) -> TrayCount:
    """BJ1 opened: its tray counted by the dealer and signed by the pit boss."""
    return opened(table, dealer, pit_boss)


def counted(table: Table, kind: str, amounts: dict[int, int], dealer: Any, pit_boss: Any) -> TrayCount:
    """A count recorded by the dealer and signed by the pit boss."""
    count = tray_count_record(table=table, kind=kind, amounts=amounts, by=dealer)
    tray_count_sign(count=count, by=pit_boss)
    return count


def opened(table: Table, dealer: Any, pit_boss: Any, amounts: dict[int, int] | None = None) -> TrayCount:
    return counted(table, CountKind.OPENER, amounts or TRAY, dealer, pit_boss)


def received(
    table: Table, kind: str, amounts: dict[int, int], pit_boss: Any, cashier: Any, receiver: Any
) -> Slip:
    slip = slip_request(table=table, kind=kind, amounts=amounts, by=pit_boss)
    slip_issue(slip=slip, by=cashier)
    slip_receive(slip=slip, by=receiver)
    return slip


def tray_balance(table: Table) -> int:
    return Account.objects.get(table=table, kind=AccountKind.TABLE_TRAY).balance_minor


def snapshot() -> dict[str, int]:
    """What a refused command must leave as it was: records, transfers, audit records."""
    from accounting.models import (
        InvestigationResolution,
        SlipCounter,
        SlipSignature,
        TrayCountSignature,
        VarianceInvestigation,
    )

    return {
        "counts": TrayCount.objects.count(),
        "count_signatures": TrayCountSignature.objects.count(),
        "investigations": VarianceInvestigation.objects.count(),
        "resolutions": InvestigationResolution.objects.count(),
        "slips": Slip.objects.count(),
        "slip_signatures": SlipSignature.objects.count(),
        "slip_numbers": sum(SlipCounter.objects.values_list("last_number", flat=True)),
        "closed_days": GamingDayClose.objects.count(),
        "transfers": Transfer.objects.count(),
        "audit": AuditRecord.objects.count(),
    }
