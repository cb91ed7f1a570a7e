"""Gaming days and shifts: pure functions of the schedule (Budapest, the day from 06:00, shifts
at 06:00, 14:00 and 22:00), on ordinary days and on the two days a year the clocks change."""

from __future__ import annotations

import datetime as dt

from accounting.gaming_days import Schedule, gaming_day_bounds, gaming_day_of, shift_of, shifts_of_day

SCHEDULE = Schedule(
    time_zone="Europe/Budapest",
    gaming_day_starts_at=dt.time(6, 0),
    shift_starts=(dt.time(14, 0), dt.time(22, 0), dt.time(6, 0)),
)


def utc(*parts: int) -> dt.datetime:
    return dt.datetime(*parts, tzinfo=dt.UTC)


def test_an_instant_before_the_day_start_belongs_to_the_day_before():
    # 05:59 local (CET, +1) on 2026-01-15 is 04:59 UTC; 06:00 local is 05:00 UTC
    assert gaming_day_of(SCHEDULE, utc(2026, 1, 15, 4, 59)) == dt.date(2026, 1, 14)
    assert gaming_day_of(SCHEDULE, utc(2026, 1, 15, 5, 0)) == dt.date(2026, 1, 15)


def test_the_shifts_of_an_ordinary_day_are_numbered_from_the_day_start():
    # given an instant of each shift of 2026-01-15 (local 06:00, 13:59, 14:00, 22:00, 05:59 next day)
    instants = [
        utc(2026, 1, 15, 5, 0),
        utc(2026, 1, 15, 12, 59),
        utc(2026, 1, 15, 13, 0),
        utc(2026, 1, 15, 21, 0),
    ]
    # then
    assert [shift_of(SCHEDULE, moment).number for moment in instants] == [1, 1, 2, 3]
    late = shift_of(SCHEDULE, utc(2026, 1, 16, 4, 59))
    assert (late.gaming_day, late.number) == (dt.date(2026, 1, 15), 3)
    assert [shift.hours for shift in shifts_of_day(SCHEDULE, dt.date(2026, 1, 15))] == [8, 8, 8]


def test_the_night_the_clocks_go_forward_has_a_seven_hour_last_shift_and_a_23_hour_day():
    # 2026-03-29 02:00 CET -> 03:00 CEST, within the night shift of gaming day 2026-03-28
    shifts = shifts_of_day(SCHEDULE, dt.date(2026, 3, 28))
    assert [shift.hours for shift in shifts] == [8, 8, 7]
    assert shifts[2].starts_at == utc(2026, 3, 28, 21, 0)  # 22:00 CET
    assert shifts[2].ends_at == utc(2026, 3, 29, 4, 0)  # 06:00 CEST
    start, end = gaming_day_bounds(SCHEDULE, dt.date(2026, 3, 28))
    assert end - start == dt.timedelta(hours=23)
    # 03:30 CEST (01:30 UTC) is in that night shift, 06:00 CEST (04:00 UTC) starts the next day
    assert (
        shift_of(SCHEDULE, utc(2026, 3, 29, 1, 30)).number,
        gaming_day_of(SCHEDULE, utc(2026, 3, 29, 1, 30)),
    ) == (
        3,
        dt.date(2026, 3, 28),
    )
    morning = shift_of(SCHEDULE, utc(2026, 3, 29, 4, 0))
    assert (morning.gaming_day, morning.number) == (dt.date(2026, 3, 29), 1)
    assert gaming_day_of(SCHEDULE, utc(2026, 3, 29, 3, 59)) == dt.date(2026, 3, 28)


def test_the_night_the_clocks_go_back_has_a_nine_hour_last_shift_and_a_25_hour_day():
    # 2026-10-25 03:00 CEST -> 02:00 CET: local 02:30 happens twice, both in the same night shift
    shifts = shifts_of_day(SCHEDULE, dt.date(2026, 10, 24))
    assert [shift.hours for shift in shifts] == [8, 8, 9]
    start, end = gaming_day_bounds(SCHEDULE, dt.date(2026, 10, 24))
    assert (start, end) == (utc(2026, 10, 24, 4, 0), utc(2026, 10, 25, 5, 0))
    assert end - start == dt.timedelta(hours=25)
    first, second = utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)  # 02:30 CEST, 02:30 CET
    for moment in (first, second):
        shift = shift_of(SCHEDULE, moment)
        assert (shift.gaming_day, shift.number) == (dt.date(2026, 10, 24), 3)
    # 05:59 CET is still the old day; 06:00 CET (05:00 UTC) is the new one
    assert gaming_day_of(SCHEDULE, utc(2026, 10, 25, 4, 59)) == dt.date(2026, 10, 24)
    assert gaming_day_of(SCHEDULE, utc(2026, 10, 25, 5, 0)) == dt.date(2026, 10, 25)


def test_shift_starts_are_ordered_from_the_day_start_and_include_it():
    schedule = Schedule("UTC", dt.time(8, 0), (dt.time(2, 0), dt.time(20, 0)))
    assert schedule.ordered_shift_starts() == (dt.time(8, 0), dt.time(20, 0), dt.time(2, 0))
    assert [shift.hours for shift in shifts_of_day(schedule, dt.date(2026, 5, 1))] == [12, 6, 6]
    assert shift_of(schedule, utc(2026, 5, 2, 3, 0)).number == 3
