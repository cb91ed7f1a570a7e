"""The gaming day of an instant, and the instants a gaming day spans: the one rule of the back
office, from the venue's time zone and gaming-day start (``Casino.time_zone``,
``Casino.gaming_day_starts_at``). Pure functions: no database.

A gaming day runs from the venue's gaming-day start time (local wall clock) to the same time on
the next calendar day, so on a day the clocks change it lasts 23 or 25 hours. A start time that
does not exist on the night the clocks go forward is read as ``zoneinfo`` reads it (with the offset
before the change), and one that happens twice as its first occurrence.

Every write's gaming day comes from here (``Casino.gaming_day``; the accounting's shifts,
``accounting.gaming_days``, build on it); whether that day still takes writes is
``casino.gaming_day_state``.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol
from zoneinfo import ZoneInfo


class DayStart(Protocol):
    """What a gaming day is made of: a casino, or the accounting's ``Schedule``."""

    @property
    def time_zone(self) -> str: ...

    @property
    def gaming_day_starts_at(self) -> dt.time: ...


def gaming_day_of(venue: DayStart, instant: dt.datetime) -> dt.date:
    """The gaming day ``instant`` (aware) belongs to: its local date, one day earlier before the
    gaming day's start time."""
    local = instant.astimezone(ZoneInfo(venue.time_zone))
    if local.time().replace(tzinfo=None) < venue.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def gaming_day_bounds(venue: DayStart, day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The instants (UTC) a gaming day starts at (included) and ends at (excluded): the day's end
    is the next day's start, so its last shift ends then."""
    zone = ZoneInfo(venue.time_zone)
    start = venue.gaming_day_starts_at
    return local_instant(day, start, zone), local_instant(day + dt.timedelta(days=1), start, zone)


def local_instant(day: dt.date, moment: dt.time, zone: ZoneInfo) -> dt.datetime:
    """The instant of a local wall-clock time, in UTC (aware datetimes of one zone compare and
    subtract by their wall clocks in Python, which is wrong across a change of the clocks)."""
    return dt.datetime.combine(day, moment, tzinfo=zone).astimezone(dt.UTC)
