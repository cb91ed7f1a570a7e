"""The accounting's locks, each taken through ``casino.locking`` (``row_lock``, ``advisory_lock``).

The order, within the back office's (``casino/locking.py``): the gaming day (the venue's
``casino.locking.gaming_day_lock``, through ``casino.gaming_day_state``: shared for a command that
writes into it, exclusive for its closing), then the table row (counts of
one table take turns, as the table's own commands do), then one record (a count, a slip, an
investigation: their rows are insert-only for the application and cannot be row-locked, so each
is locked by an advisory lock on its id), then the slip counter row, then the wallet's accounts
(``wallet.services``) and the audit chain last.

A command that locks a table's row changes what the table's dealer console shows of its
accounting (a slip in flight, a tip, a count): the lock registers the table's hint
(``casino/hints.py``) for the commit, as ``tables/locking.py`` does for the tables' own commands.
"""

from __future__ import annotations

from accounting.models import AccountingSettings, SlipCounter
from casino.hints import hint, table_topic
from casino.locking import advisory_lock, row_lock
from casino.models import Table

COUNT_LOCK_NAMESPACE = 0x7C07 << 32
SLIP_LOCK_NAMESPACE = 0x5119 << 32
INVESTIGATION_LOCK_NAMESPACE = 0x1A7E << 32


def table_row_lock(table_id: int) -> Table | None:
    """The table row, locked: the counts of a table take turns. None if there is no such table."""
    table = row_lock(Table.objects.select_related("casino").filter(pk=table_id))
    if table is not None:
        hint(table_topic(table.pk))
    return table


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
