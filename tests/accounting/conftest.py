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
from casino.actors import Actor
from casino.models import Approval, AuditRecord, GamingDayClose, Table
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
    assert gaming_day_sign(casino=casino, day=day, actor=Actor.staff(pit_boss)) is None
    closed = gaming_day_sign(casino=casino, day=day, actor=Actor.staff(accountant))
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
    count = tray_count_record(table=table, kind=kind, amounts=amounts, actor=Actor.staff(dealer))
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    return count


def opened(table: Table, dealer: Any, pit_boss: Any, amounts: dict[int, int] | None = None) -> TrayCount:
    return counted(table, CountKind.OPENER, amounts or TRAY, dealer, pit_boss)


def received(
    table: Table, kind: str, amounts: dict[int, int], pit_boss: Any, cashier: Any, receiver: Any
) -> Slip:
    slip = slip_request(table=table, kind=kind, amounts=amounts, actor=Actor.staff(pit_boss))
    slip_issue(slip=slip, actor=Actor.staff(cashier))
    slip_receive(slip=slip, actor=Actor.staff(receiver))
    return slip


def tray_balance(table: Table) -> int:
    return Account.objects.get(table=table, kind=AccountKind.TABLE_TRAY).balance_minor


def snapshot() -> dict[str, Any]:
    """What a refused command must leave as it was: records, transfers, audit records, the
    four-eyes approvals and their decisions."""
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
        "approvals": list(Approval.objects.order_by("pk").values_list("pk", "status")),
    }


# ---------------------------------------------------------------- records as they were written before


def closer_signed_as_before(table: Table, amounts: dict[int, int], dealer: Any, pit_boss: Any) -> TrayCount:
    """A closer recorded and signed with a slip of the table in flight, as the back office let it
    happen before a closer waited for the table's slips: its rows written as the services wrote
    them then (the checks of today would refuse it)."""
    from django.utils import timezone

    from accounting.gaming_days import schedule_of, shift_of
    from accounting.models import SignatureRole, TrayCountLine, TrayCountSignature
    from accounting.selectors import tray_ledger_minor

    now = timezone.now()
    shift = shift_of(schedule_of(table.casino), now)
    count = TrayCount.objects.create(
        table=table,
        kind=CountKind.CLOSER,
        gaming_day=shift.gaming_day,
        shift=shift.number,
        counted_at=now,
        counted_by=dealer,
        total_minor=sum(amounts.values()),
        ledger_minor=tray_ledger_minor(table),
    )
    TrayCountLine.objects.bulk_create(
        TrayCountLine(count=count, denomination_minor=value, amount_minor=amount)
        for value, amount in amounts.items()
    )
    TrayCountSignature.objects.create(count=count, role=SignatureRole.DEALER, signer=dealer, signed_at=now)
    TrayCountSignature.objects.create(
        count=count, role=SignatureRole.PIT_BOSS, signer=pit_boss, signed_at=now
    )
    return count


def slip_step_as_before(slip: Slip, step: str, signer: Any) -> Any:
    """A slip issued (the chips moved in the ledger) or received at a table that was closed, as the
    back office let it happen before such a slip was refused: its rows as the services wrote them
    then."""
    from django.utils import timezone

    from accounting.models import SignatureRole, SlipKind, SlipSignature, SlipStep
    from wallet.services import table_credit, table_fill

    transfer = None
    role = SignatureRole.DEALER
    if step == SlipStep.ISSUED:
        move = table_fill if slip.kind == SlipKind.FILL else table_credit
        transfer = move(
            table=slip.table,
            amount_minor=slip.total_minor,
            actor=Actor.staff(signer),
            reference_type="accounting.slip",
            reference_id=slip.pk,
        )
        role = SignatureRole.CASHIER
    return SlipSignature.objects.create(
        slip=slip, step=step, role=role, signer=signer, signed_at=timezone.now(), transfer=transfer
    )


class Clock:
    """Django's clock (``timezone.now``) as a test holds it: from ``start``, a second later at
    each reading (records keep their order), and moved on by ``advance``."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start

    def read(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += dt.timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, table: Table) -> Clock:
    """The clock at four hours into the current gaming day (its first shift, in the demo casino's
    schedule), whatever the time the tests run at: every service, the ledger and the audit trail
    read it."""
    from django.utils import timezone

    from accounting.gaming_days import gaming_day_bounds, schedule_of

    schedule = schedule_of(table.casino)
    start, _end = gaming_day_bounds(schedule, table.casino.gaming_day(timezone.now()))
    held = Clock(start + dt.timedelta(hours=4))
    monkeypatch.setattr(timezone, "now", held.read)
    return held
