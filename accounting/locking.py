"""The accounting's locks, each taken through ``casino.locking`` (``row_lock``, ``advisory_lock``).

The order, within the back office's (``casino/locking.py``): the gaming day (a shared advisory
lock for a command that writes into it, exclusive for its closing), then the table row (counts of
one table take turns, as the table's own commands do), then one record (a count, a slip, an
investigation: their rows are insert-only for the application and cannot be row-locked, so each
is locked by an advisory lock on its id), then the slip counter row, then the wallet's accounts
(``wallet.services``) and the audit chain last.
"""

from __future__ import annotations

import datetime as dt

from accounting.models import AccountingSettings, SlipCounter
from casino.locking import advisory_lock, row_lock
from tables.models import Table

GAMING_DAY_LOCK_NAMESPACE = 0x6A3D << 32
COUNT_LOCK_NAMESPACE = 0x7C07 << 32
SLIP_LOCK_NAMESPACE = 0x5119 << 32
INVESTIGATION_LOCK_NAMESPACE = 0x1A7E << 32
# A day's key packs the casino and the day's ordinal (below 10**6 until the year 2738), within the
# 32 bits of a key for casino ids below 4295 (``advisory_lock`` refuses a key beyond them).
DAY_KEYS_PER_CASINO = 1_000_000


def gaming_day_lock(*, casino_id: int, day: dt.date, exclusive: bool = False) -> None:
    """A gaming day's advisory lock: shared by the commands that write into the day, exclusive
    for its closing, so that no write slips in between the closing's checks and its commit."""
    advisory_lock(
        GAMING_DAY_LOCK_NAMESPACE, casino_id * DAY_KEYS_PER_CASINO + day.toordinal(), shared=not exclusive
    )


def gaming_days_lock(*, casino_id: int, days: set[dt.date]) -> None:
    """Several gaming days' shared locks, in date order."""
    for day in sorted(days):
        gaming_day_lock(casino_id=casino_id, day=day)


def table_row_lock(table_id: int) -> Table | None:
    """The table row, locked: the counts of a table take turns. None if there is no such table."""
    return row_lock(Table.objects.select_related("casino").filter(pk=table_id))


def count_lock(count_id: int) -> None:
    advisory_lock(COUNT_LOCK_NAMESPACE, count_id)


def slip_lock(slip_id: int) -> None:
    advisory_lock(SLIP_LOCK_NAMESPACE, slip_id)


def investigation_lock(investigation_id: int) -> None:
    advisory_lock(INVESTIGATION_LOCK_NAMESPACE, investigation_id)


def slip_counter_lock(*, casino_id: int, year: int) -> SlipCounter:
    """The casino's slip counter of ``year``, locked (created first if missing): concurrent
    requests draw their numbers one after the other, each in the transaction of its slip."""
    SlipCounter.objects.get_or_create(casino_id=casino_id, year=year)
    counter = row_lock(SlipCounter.objects.filter(casino_id=casino_id, year=year))
    assert counter is not None  # created above; a counter is never deleted
    return counter


def settings_lock(*, casino_id: int) -> AccountingSettings:
    """The casino's accounting settings, locked (created with the defaults first if missing)."""
    AccountingSettings.objects.get_or_create(casino_id=casino_id)
    settings = row_lock(AccountingSettings.objects.filter(casino_id=casino_id))
    assert settings is not None
    return settings
