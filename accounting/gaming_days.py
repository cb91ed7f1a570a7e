"""Shifts of a gaming day: pure functions of a casino's schedule and an instant.

Which gaming day an instant belongs to, and the instants a day spans, is the venue's one rule
(``casino.gaming_days``: ``gaming_day_of`` and ``gaming_day_bounds``, used here and named here for
the accounting's modules). Shifts start at local wall-clock times (``"06:00"``, ``"14:00"``,
``"22:00"``), the gaming day's start among them; the last ends with the day, at the next day's
start; the shift spanning a change of the clocks is an hour shorter or longer. A start time that
does not exist on the night the clocks go forward is read as ``zoneinfo`` reads it (with the
offset before the change), and one that happens twice as its first occurrence. No database
access: the schedule is given (``Schedule``), or read from a casino and its settings when they
are at hand.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from accounting.models import DEFAULT_SHIFT_STARTS
from casino.gaming_days import gaming_day_bounds, gaming_day_of, local_instant

__all__ = [
    "Schedule",
    "Shift",
    "gaming_day_bounds",
    "gaming_day_of",
    "schedule_of",
    "shift_of",
    "shift_starts_parse",
    "shifts_of_day",
]

MINUTES_PER_DAY = 24 * 60


@dataclass(frozen=True)
class Schedule:
    """What a casino's gaming days and shifts are made of."""

    time_zone: str
    gaming_day_starts_at: dt.time
    shift_starts: tuple[dt.time, ...]

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    def ordered_shift_starts(self) -> tuple[dt.time, ...]:
        """The shift start times in the order of the gaming day, its own start first."""
        return tuple(sorted(set(self.shift_starts) | {self.gaming_day_starts_at}, key=self._offset))

    def _offset(self, moment: dt.time) -> int:
        start = self.gaming_day_starts_at
        return (moment.hour * 60 + moment.minute - start.hour * 60 - start.minute) % MINUTES_PER_DAY


@dataclass(frozen=True)
class Shift:
    """A shift of a gaming day: its number from 1, and the instants (UTC) it starts and ends at."""

    gaming_day: dt.date
    number: int
    starts_at: dt.datetime
    ends_at: dt.datetime

    @property
    def hours(self) -> float:
        return (self.ends_at - self.starts_at).total_seconds() / 3600


def shift_starts_parse(values: Sequence[str]) -> tuple[dt.time, ...]:
    """``["06:00", "14:00"]`` -> times. Raises ``ValueError`` on anything that is not ``HH:MM``."""
    return tuple(dt.time.fromisoformat(str(value).strip()) for value in values)


def schedule_of(casino: Any) -> Schedule:
    """The schedule of a casino (its time zone and gaming-day start) with its accounting settings'
    shift starts (the defaults when it has none). Reads ``casino.accounting_settings``."""
    from django.core.exceptions import ObjectDoesNotExist

    try:
        starts = casino.accounting_settings.shift_starts
    except ObjectDoesNotExist:
        starts = DEFAULT_SHIFT_STARTS
    return Schedule(
        time_zone=casino.time_zone,
        gaming_day_starts_at=casino.gaming_day_starts_at,
        shift_starts=shift_starts_parse(starts),
    )


def _schedule(source: Schedule | Any) -> Schedule:
    return source if isinstance(source, Schedule) else schedule_of(source)


def shifts_of_day(casino: Schedule | Any, day: dt.date) -> list[Shift]:
    """The shifts of a gaming day in order, each with the instants it starts and ends at."""
    schedule = _schedule(casino)
    zone, day_start = schedule.zone, schedule.gaming_day_starts_at
    starts = [
        local_instant(day if moment >= day_start else day + dt.timedelta(days=1), moment, zone)
        for moment in schedule.ordered_shift_starts()
    ]
    _, day_end = gaming_day_bounds(schedule, day)
    ends = [*starts[1:], day_end]
    return [
        Shift(gaming_day=day, number=index, starts_at=start, ends_at=end)
        for index, (start, end) in enumerate(zip(starts, ends, strict=True), start=1)
    ]


def shift_of(casino: Schedule | Any, instant: dt.datetime) -> Shift:
    """The shift ``instant`` (aware) falls in: the last of its gaming day's shifts to start at or
    before it."""
    schedule = _schedule(casino)
    day = gaming_day_of(schedule, instant)
    shifts = shifts_of_day(schedule, day)
    moment = instant.astimezone(dt.UTC)
    current = shifts[0]
    for shift in shifts:
        if shift.starts_at <= moment:
            current = shift
    return current
