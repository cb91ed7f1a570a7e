"""What every table service shares: the actor, permission checks and the round log (row locks:
``tables/locking.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from casino.actors import Actor
from casino.errors import PermissionRefusedError
from casino.event_log import EventDraft, events_append
from casino.models import Table, Terminal
from casino.table_access import is_dealer_terminal_at, require_terminal_at
from games.blackjack import RoundState, state_to_dict
from tables.errors import NotTableDealerError
from tables.models import Round, RoundEvent, TableDealer


def table_dealer_id(table: Table) -> int | None:
    """The user id of the dealer signed on to the table, or None (``tables.services.dealers``):
    as read with the table when it was (``signed_on_dealer_id``: a round's table under the
    round's lock, ``tables.locking.lock_round``; the console's table, ``floor.console``),
    else read now."""
    if "signed_on_dealer_id" in table.__dict__:
        dealer_id: int | None = table.__dict__["signed_on_dealer_id"]
        return dealer_id
    return (
        TableDealer.objects.filter(table_id=table.pk, signed_off_at__isnull=True)
        .values_list("dealer_id", flat=True)
        .first()
    )


def require_dealer_or_reader(actor: Actor, table: Table) -> None:
    """Dealer commands: a staff user who runs tables, a dealer terminal or a card reader bound
    to this table (the terminal API lets a card reader send cards only), or the system. While a
    dealer is signed on to the table, no other staff dealer acts there (``not_table_dealer``);
    a pit boss does."""
    if actor.system:
        return
    require_terminal_at(actor, table)
    if actor.has_perm("run_table"):
        assert actor.user is not None  # has_perm: a staff user
        if not actor.has_perm("supervise_pit"):
            dealer_id = table_dealer_id(table)
            if dealer_id is not None and dealer_id != actor.user.pk:
                raise NotTableDealerError("Another dealer is signed on to this table.")
        return
    if is_dealer_terminal_at(actor, table):
        return
    terminal = actor.terminal
    if (
        terminal is not None
        and actor.player is None
        and terminal.kind == Terminal.Kind.CARD_READER
        and terminal.table_id == table.pk
        and terminal.is_active
    ):
        return
    raise PermissionRefusedError("Only the table's dealer or card reader may do that.")


def events_write(
    round_: Round, drafts: Sequence[EventDraft], actor: Actor, state: RoundState | None
) -> list[RoundEvent]:
    """Append events to the round's log (``casino.event_log.events_append``: one INSERT) after
    ``round_.version``; the last one gets the snapshot of ``state``. The caller saves the round
    row (version, snapshot)."""
    if not drafts:
        return []
    snapshot = state_to_dict(state) if state is not None else None
    last = drafts[-1]
    if last.snapshot is None and snapshot is not None:
        drafts = [*drafts[:-1], EventDraft(last.kind, last.payload, snapshot, last.actor)]
    created = events_append(RoundEvent, drafts, actor, after=round_.version, round=round_)
    round_.version += len(created)
    if snapshot is not None:
        round_.snapshot = snapshot
    return created
