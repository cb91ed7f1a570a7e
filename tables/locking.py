"""The tables' row locks: the round, the table, the box, the payout line, the sign-in rows, the
configuration.

Every table command takes its locks through these helpers (and the bet path's two statements of
``tables/sql.py``), in this order: the round (its advisory lock, then its row), the table row or
one configuration row, the terminal row then the player row, the box row, the payout line; then
the wallet's (``wallet/locking.py``: holds, a pending payout, accounts in id order) and the audit
chain last. The whole order, and why every lock is ``FOR NO KEY UPDATE OF`` its own table, is in
``casino/locking.py``.

A command that locks a round, the table, a box or a payout line for writing changes what the table's screens
show: the lock registers the table's hint (``casino/hints.py``) for the commit, so that no command
that moves a table can forget it, and a refusal, rolled back, hints nothing.
"""

from __future__ import annotations

from django.db.models import OuterRef

from casino.hints import hint, table_topics
from casino.locking import advisory_lock, row_lock
from casino.models import RuleSet, RuleSetVersion, Table
from tables.models import (
    Box,
    PayoutLine,
    Round,
    SideBetPaytable,
    SideBetPaytableVersion,
    TableConfigProposal,
    signed_on_dealer,
)

# Namespaces of the advisory lock keys of a round and of a payout line (``advisory_lock``).
ROUND_LOCK_NAMESPACE = 0x7AB1E << 32
PAYOUT_LINE_LOCK_NAMESPACE = 0x9A7 << 32


def lock_round(round_id: int, *, shared: bool = False) -> Round:
    """The round row, with its table, for a command on it.

    Bets (``shared=True``) take the round's PostgreSQL advisory lock in shared mode and read the
    row: many bets run at once. Every other command takes the same lock exclusively, then the
    row (FOR NO KEY UPDATE OF the round only: its table, casino and shoe, read with it, stay
    unlocked; the dealer signed on to the table read with it too, ``table_dealer_id``): it
    waits for the bets in flight, and bets arriving meanwhile queue behind it (the lock manager
    queues fairly, so a stream of bets cannot starve "no more bets", as a row-level FOR SHARE
    could) and then see the new state. A shared read leaves out the engine snapshot and the shoe:
    bets never read them (the shoe's order is kilobytes of JSON). Raises ``Round.DoesNotExist``.
    """
    round_lock_take(round_id, shared=shared)
    if shared:
        shared_round = Round.objects.select_related("table").defer("snapshot").get(pk=round_id)
        hint(*table_topics(shared_round.table))
        return shared_round
    round_ = row_lock(
        Round.objects.select_related("shoe", "table__casino")
        .annotate(signed_on_dealer_id=signed_on_dealer(OuterRef("table_id")))
        .filter(pk=round_id)
    )
    if round_ is None:
        raise Round.DoesNotExist(f"no round {round_id}")
    round_.table.signed_on_dealer_id = round_.signed_on_dealer_id  # type: ignore[attr-defined]
    hint(*table_topics(round_.table))
    return round_


def round_lock_take(round_id: int, *, shared: bool) -> None:
    """The round's advisory lock alone (see ``lock_round``)."""
    advisory_lock(ROUND_LOCK_NAMESPACE, round_id, shared=shared)


def table_lock(table_id: int) -> Table | None:
    """The table row: table-wide commands (opening a round, a shuffle, a configuration change,
    a change of box owners) take turns. Rows referring to the table (a round, a player session,
    a parked payout) still pass their foreign-key check, made at commit. Returns the row as
    locked (None if there is no such table)."""
    table = row_lock(Table.objects.filter(pk=table_id))
    if table is not None:
        hint(*table_topics(table))
    return table


def box_lock(table_id: int, number: int) -> Box | None:
    """The table's box ``number``, locked; None when the table has no such box."""
    box = row_lock(Box.objects.select_related("table").filter(table_id=table_id, number=number))
    if box is not None:
        hint(*table_topics(box.table))
    return box


def payout_line_lock(payout_line_id: int) -> PayoutLine | None:
    """A payout line being decided, under its advisory lock (payout lines are append-only: their
    rows cannot be locked), so that two decisions of it take turns; None if there is no such
    line. Its round and table are not locked."""
    advisory_lock(PAYOUT_LINE_LOCK_NAMESPACE, payout_line_id)
    line = PayoutLine.objects.select_related("round__table").filter(pk=payout_line_id).first()
    if line is not None:
        hint(*table_topics(line.round.table))
    return line


def rule_set_lock(rule_set_id: int) -> None:
    """A rule set: its new versions are numbered one at a time."""
    row_lock(RuleSet.objects.filter(pk=rule_set_id))


def rule_set_version_lock(version_id: int) -> RuleSetVersion:
    """A rule-set version about to be approved (read with its rule set, unlocked)."""
    version = row_lock(RuleSetVersion.objects.select_related("rule_set").filter(pk=version_id))
    if version is None:
        raise RuleSetVersion.DoesNotExist(f"no rule-set version {version_id}")
    return version


def paytable_lock(paytable_id: int) -> None:
    """A side-bet paytable: its new versions are numbered one at a time."""
    row_lock(SideBetPaytable.objects.filter(pk=paytable_id))


def paytable_version_lock(version_id: int) -> SideBetPaytableVersion:
    """A paytable version about to be approved (read with its paytable, unlocked)."""
    version = row_lock(SideBetPaytableVersion.objects.select_related("paytable").filter(pk=version_id))
    if version is None:
        raise SideBetPaytableVersion.DoesNotExist(f"no paytable version {version_id}")
    return version


def config_proposal_lock(proposal_id: int) -> TableConfigProposal | None:
    """A table's configuration proposal (lock its table first: ``table_lock``)."""
    return row_lock(
        TableConfigProposal.objects.select_related("table", "table__rule_set", "based_on").filter(
            pk=proposal_id
        )
    )
