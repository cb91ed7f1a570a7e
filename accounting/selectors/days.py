"""Gaming days as the day page shows them: the days to close with their signatures, counts and
slips, the closed days with their history, and what keeps a day from closing."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count
from django.utils import timezone

from accounting.gaming_days import Shift, gaming_day_of, schedule_of, shift_of
from accounting.models import DropCount, GamingDaySignature, Slip, SlipStep, TrayCount
from accounting.selectors.counts import is_count_signed
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
