"""Reads of the pit's accounting: the chip set, a table's counts and state, the slips in flight,
the slip report of a year, a gaming day's summary."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Prefetch, QuerySet
from django.utils import timezone

from accounting.gaming_days import Shift, gaming_day_of, schedule_of, shift_of
from accounting.models import (
    DEFAULT_CHIP_VALUES_MINOR,
    AccountingSettings,
    ChipDenomination,
    CountKind,
    DropCount,
    GamingDaySignature,
    InvestigationResolution,
    SignatureRole,
    Slip,
    SlipCounter,
    SlipSignature,
    SlipStep,
    TrayCount,
    TrayCountSignature,
    VarianceInvestigation,
)
from casino.gaming_day_state import (
    DayEvent,
    gaming_day_close_standing,
    gaming_day_closing_number,
    gaming_day_history,
    gaming_days_history,
    gaming_days_open,
)
from casino.gaming_days import gaming_day_bounds
from casino.models import Casino, GamingDayClose
from tables.models import Table
from wallet.models import Account, AccountKind

COUNT_ROLES = (SignatureRole.DEALER, SignatureRole.PIT_BOSS)


def settings_of(casino: Casino) -> AccountingSettings:
    """The casino's accounting settings; the defaults (unsaved) when it has none yet."""
    found = AccountingSettings.objects.filter(casino=casino).first()
    return found if found is not None else AccountingSettings(casino=casino)


def chip_values(casino: Casino) -> list[int]:
    """The values (minor units) of the casino's active chips, highest first; the default chip set
    when none is configured."""
    values = list(
        ChipDenomination.objects.filter(casino=casino, is_active=True)
        .order_by("-value_minor")
        .values_list("value_minor", flat=True)
    )
    if values or ChipDenomination.objects.filter(casino=casino).exists():
        return values
    return sorted(DEFAULT_CHIP_VALUES_MINOR, reverse=True)


def tray_ledger_minor(table: Table) -> int:
    """The table tray's balance in the ledger (0 for a table without a tray account)."""
    account = Account.objects.filter(table=table, kind=AccountKind.TABLE_TRAY).only("balance_minor").first()
    return account.balance_minor if account else 0


def counts_of_table(table: Table) -> QuerySet[TrayCount]:
    return (
        TrayCount.objects.filter(table=table)
        .select_related("counted_by", "corrects")
        .prefetch_related(
            "lines", Prefetch("signatures", queryset=TrayCountSignature.objects.select_related("signer"))
        )
        .order_by("counted_at", "pk")
    )


def count_roles_signed(count: TrayCount) -> set[str]:
    return {signature.role for signature in count.signatures.all()}


def is_count_signed(count: TrayCount) -> bool:
    return count_roles_signed(count) >= set(COUNT_ROLES)


def count_effective(count: TrayCount, counts: list[TrayCount]) -> TrayCount:
    """The count as it stands: its last signed correction (a correction of a correction too),
    else itself."""
    current = count
    by_corrected = {entry.corrects_id: entry for entry in counts if entry.corrects_id is not None}
    while (correction := by_corrected.get(current.pk)) is not None and is_count_signed(correction):
        current = correction
    return current


@dataclass
class TableAccounting:
    """A table's accounting state: open (its last signed count an opener) or closed, its counts
    (oldest first), the count waiting for its second signature, the open investigation, and the
    tray's balance in the ledger against the last count as it stands."""

    table: Table
    is_open: bool
    counts: list[TrayCount]
    pending: TrayCount | None
    last: TrayCount | None
    investigation: VarianceInvestigation | None
    ledger_minor: int
    investigations: list[VarianceInvestigation] = field(default_factory=list)

    @property
    def difference_minor(self) -> int | None:
        return None if self.last is None else self.last.total_minor - self.ledger_minor


def table_accounting(table: Table) -> TableAccounting:
    counts = list(counts_of_table(table))
    signed = [count for count in counts if is_count_signed(count)]
    pending = next((count for count in counts if not is_count_signed(count)), None)
    base = [count for count in signed if count.corrects_id is None]
    last_base = base[-1] if base else None
    investigations = list(
        VarianceInvestigation.objects.filter(table=table)
        .select_related("opener", "closer", "resolution__resolved_by")
        .order_by("-opened_at", "-pk")
    )
    unresolved = next((entry for entry in investigations if not _is_resolved(entry)), None)
    return TableAccounting(
        table=table,
        is_open=last_base is not None and last_base.kind == CountKind.OPENER,
        counts=counts,
        pending=pending,
        last=count_effective(last_base, counts) if last_base else None,
        investigation=unresolved,
        ledger_minor=tray_ledger_minor(table),
        investigations=investigations,
    )


def _is_resolved(investigation: VarianceInvestigation) -> bool:
    try:
        return investigation.resolution is not None
    except InvestigationResolution.DoesNotExist:
        return False


def last_closer(table: Table) -> TrayCount | None:
    """The table's last signed closing count as it stands (corrections applied)."""
    counts = list(counts_of_table(table))
    closers = [
        count
        for count in counts
        if count.kind == CountKind.CLOSER and count.corrects_id is None and is_count_signed(count)
    ]
    return count_effective(closers[-1], counts) if closers else None


def denomination_differences(count: TrayCount, other: TrayCount) -> list[dict[str, int]]:
    """Per denomination, the amounts of two counts and their difference (``count - other``)."""
    mine = {line.denomination_minor: line.amount_minor for line in count.lines.all()}
    theirs = {line.denomination_minor: line.amount_minor for line in other.lines.all()}
    return [
        {
            "denomination_minor": value,
            "amount_minor": mine.get(value, 0),
            "other_minor": theirs.get(value, 0),
            "difference_minor": mine.get(value, 0) - theirs.get(value, 0),
        }
        for value in sorted(set(mine) | set(theirs), reverse=True)
    ]


# ---------------------------------------------------------------- slips


def slip_steps(slip: Slip) -> dict[str, SlipSignature]:
    return {signature.step: signature for signature in slip.signatures.all()}


def slip_state(slip: Slip) -> str:
    """The slip's last step: requested, issued, received, void_proposed or voided."""
    steps = slip_steps(slip)
    for step in (SlipStep.VOIDED, SlipStep.RECEIVED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED):
        if step in steps:
            return str(step)
    return str(SlipStep.REQUESTED)


def slips_with_steps() -> QuerySet[Slip]:
    return Slip.objects.select_related("table").prefetch_related(
        "lines", Prefetch("signatures", queryset=SlipSignature.objects.select_related("signer", "transfer"))
    )


OPEN_SLIP_STATES = frozenset({SlipStep.REQUESTED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED})


def slips_open(casino: Casino, *, table: Table | None = None) -> list[Slip]:
    """The slips not yet received nor voided, oldest first."""
    slips = (
        slips_with_steps()
        .filter(casino=casino)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
    )
    if table is not None:
        slips = slips.filter(table=table)
    return list(slips.order_by("year", "number"))


def slips_recent(casino: Casino, *, limit: int = 20) -> list[Slip]:
    return list(slips_with_steps().filter(casino=casino).order_by("-year", "-number")[:limit])


@dataclass(frozen=True)
class SlipReport:
    """A year's slips: each number from 1 to the counter's last, the slip holding it (None for a
    number no slip holds: there should be none), its state; the voids; the unused numbers."""

    year: int
    last_number: int
    rows: list[tuple[int, Slip | None, str]]
    voids: list[Slip]
    unused: list[int]
    totals_minor: dict[str, int]


def slip_report(casino: Casino, year: int) -> SlipReport:
    counter = SlipCounter.objects.filter(casino=casino, year=year).first()
    last_number = counter.last_number if counter else 0
    slips = {slip.number: slip for slip in slips_with_steps().filter(casino=casino, year=year)}
    rows: list[tuple[int, Slip | None, str]] = []
    voids, unused = [], []
    totals = {"fill": 0, "credit": 0}
    for number in range(1, max([last_number, *slips], default=0) + 1):
        slip = slips.get(number)
        if slip is None:
            unused.append(number)
            rows.append((number, None, "unused"))
            continue
        state = slip_state(slip)
        rows.append((number, slip, state))
        if state == SlipStep.VOIDED:
            voids.append(slip)
        elif state == SlipStep.RECEIVED:
            totals[slip.kind] += slip.total_minor
    return SlipReport(
        year=year, last_number=last_number, rows=rows, voids=voids, unused=unused, totals_minor=totals
    )


def slip_years(casino: Casino) -> list[int]:
    return list(SlipCounter.objects.filter(casino=casino).order_by("-year").values_list("year", flat=True))


# ---------------------------------------------------------------- gaming days


@dataclass(frozen=True)
class GamingDaySummary:
    """A gaming day as the day page shows it: its current shift (the current day only), its
    standing closing (None while open), the signatures of the closing under way, when it ends,
    its counts and slips, and its history of closings and reopenings."""

    day: dt.date
    shift: Shift | None
    closed: GamingDayClose | None
    open_slips: int
    unsigned_counts: int
    counts: int
    slips: int
    signatures: list[GamingDaySignature] = field(default_factory=list)
    ends_at: dt.datetime | None = None
    has_ended: bool = False
    history: list[DayEvent] = field(default_factory=list)

    @property
    def closes_with_next_signature(self) -> bool:
        """One of the two signatures is in: the next one closes the day."""
        return self.closed is None and len(self.signatures) == 1


def gaming_day_summary(casino: Casino, day: dt.date, *, now: dt.datetime | None = None) -> GamingDaySummary:
    moment = now or timezone.now()
    current = gaming_day_of(schedule_of(casino), moment) == day
    counts = list(
        TrayCount.objects.filter(table__casino=casino, gaming_day=day).prefetch_related("signatures")
    )
    open_slips = (
        Slip.objects.filter(casino=casino, gaming_day=day)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
        .count()
    )
    closed = gaming_day_close_standing(casino.pk, day)
    closing = closed.closing if closed is not None else gaming_day_closing_number(casino.pk, day)
    _starts_at, ends_at = gaming_day_bounds(casino, day)
    return GamingDaySummary(
        day=day,
        shift=shift_of(schedule_of(casino), moment) if current else None,
        closed=closed,
        open_slips=open_slips,
        unsigned_counts=sum(1 for count in counts if not is_count_signed(count)),
        counts=len(counts),
        slips=Slip.objects.filter(casino=casino, gaming_day=day).count(),
        signatures=list(
            GamingDaySignature.objects.filter(casino=casino, gaming_day=day, closing=closing).select_related(
                "signed_by"
            )
        ),
        ends_at=ends_at,
        has_ended=moment >= ends_at,
        history=gaming_day_history(casino.pk, day),
    )


def gaming_days_to_close(
    casino: Casino, *, now: dt.datetime | None = None, limit: int = 7
) -> list[GamingDaySummary]:
    """The open gaming days before the current one, oldest first (the first of them is the one to
    close next; at most ``limit - 1`` of the oldest), then the current day, open or not."""
    moment = now or timezone.now()
    today = casino.gaming_day(moment)
    earlier = gaming_days_open(casino, until=today - dt.timedelta(days=1))[: limit - 1]
    return [gaming_day_summary(casino, day, now=moment) for day in [*earlier, today]]


@dataclass(frozen=True)
class ClosedDay:
    day: dt.date
    close: GamingDayClose
    history: list[DayEvent]


def closed_days(casino: Casino, *, limit: int = 14) -> list[ClosedDay]:
    """The latest closed gaming days (their standing closing), newest first, with their history."""
    closes = list(
        GamingDayClose.objects.filter(casino=casino, reopening__isnull=True)
        .select_related("closed_by")
        .order_by("-gaming_day")[:limit]
    )
    history = gaming_days_history(casino.pk, [close.gaming_day for close in closes])
    return [ClosedDay(close.gaming_day, close, history.get(close.gaming_day, [])) for close in closes]


def current_gaming_day(casino: Casino, now: dt.datetime | None = None) -> dt.date:
    """The gaming day of now (or of ``now``): the venue's one rule, ``Casino.gaming_day``."""
    return casino.gaming_day(now)


def open_work_of_day(casino_id: int, day: dt.date) -> dict[str, Any]:
    """What keeps a gaming day from closing: slips in flight, tray counts and drop box counts
    not yet signed twice."""
    counts = TrayCount.objects.filter(table__casino_id=casino_id, gaming_day=day).prefetch_related(
        "signatures"
    )
    unsigned = [count.pk for count in counts if not is_count_signed(count)]
    slips = list(
        Slip.objects.filter(casino_id=casino_id, gaming_day=day)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
        .values_list("number", flat=True)
    )
    drops = list(
        DropCount.objects.filter(table__casino_id=casino_id, gaming_day=day)
        .annotate(signed=Count("signatures"))
        .filter(signed__lt=2)
        .values_list("pk", flat=True)
    )
    return {"unsigned_counts": unsigned, "open_slips": slips, "unsigned_drop_counts": drops}
