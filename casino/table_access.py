"""Who may act at a physical table, as the venue knows it: a terminal placed at a table acts at
that table only, a dealer terminal is placed at its table, a player plays at the casino's tables.
The games add their own rules on top (the live table's signed-on dealer: tables.services.common)."""

from __future__ import annotations

from casino.actors import Actor
from casino.errors import PermissionRefusedError, WrongTableError
from casino.models import Player, Table, Terminal


def require_terminal_at(actor: Actor, table: Table) -> None:
    """A terminal placed at a table acts at that table only: anything else is refused
    ``wrong_table`` (before any effect: round commands check it before overdue defaults)."""
    terminal = actor.terminal
    if terminal is not None and terminal.table_id not in (None, table.pk):
        raise WrongTableError("This terminal is placed at another table.")


def is_dealer_terminal_at(actor: Actor, table: Table) -> bool:
    """The actor is an active dealer terminal placed at this table, with no player on it."""
    terminal = actor.terminal
    return (
        terminal is not None
        and actor.player is None
        and terminal.kind == Terminal.Kind.DEALER_TERMINAL
        and terminal.table_id == table.pk
        and terminal.is_active
    )


def require_player(actor: Actor, table: Table) -> Player:
    """Player commands: a player logged in at a terminal of this table (or unbound terminal)."""
    player = actor.player
    if player is None:
        raise PermissionRefusedError("A player must be logged in at a terminal.")
    require_terminal_at(actor, table)
    if not player.is_active or player.casino_id != table.casino_id:
        raise PermissionRefusedError("This player cannot play at this table.")
    return player
