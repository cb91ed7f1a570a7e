"""Who gives a command, as every service takes it: a staff member, a terminal (with or without
the player signed in on it) or the system. One type for the whole back office: the audit trail,
the round log and the four-eyes capability (``casino.four_eyes``) read the person, the role and the
terminal from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from casino.audit import audit_append
from casino.errors import PermissionRefusedError
from casino.models import Player, Terminal
from casino.roles import role_of

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class Actor:
    """Who gives a command: a staff user (dealer, pit boss, operator), a terminal with the player
    logged in on it, a card reader terminal, or the system (Celery, seeds, simulations).

    The terminal API builds ``Actor.at_terminal(terminal, player)``; staff pages build
    ``Actor.staff(user)`` with the signed-in staff user (``casino.views.staff_user(request)``).
    """

    user: User | None = None
    terminal: Terminal | None = None
    player: Player | None = None
    system: str = ""

    @classmethod
    def staff(cls, user: User) -> Actor:
        return cls(user=user)

    @classmethod
    def at_terminal(cls, terminal: Terminal, player: Player | None = None) -> Actor:
        return cls(terminal=terminal, player=player)

    @classmethod
    def automatic(cls, name: str) -> Actor:
        return cls(system=name)

    @property
    def role(self) -> str:
        if self.user is not None:
            return role_of(self.user) or "staff"
        if self.player is not None:
            return "player"
        if self.terminal is not None:
            return str(self.terminal.kind)
        return "system"

    @property
    def name(self) -> str:
        if self.user is not None:
            return str(self.user.get_username())
        if self.player is not None:
            return f"player {self.player.card_number}"
        if self.terminal is not None:
            return f"terminal {self.terminal.name}"
        return self.system or "system"

    def has_perm(self, codename: str) -> bool:
        return self.user is not None and bool(self.user.has_perm(f"casino.{codename}"))

    def audit(self, **kwargs: Any) -> None:
        """Append the audit record of a command (call it as the command's last write)."""
        audit_append(
            actor=self.user,
            actor_name=self.name,
            role=self.role,
            terminal=self.terminal,
            **kwargs,
        )


def require_staff(actor: Actor, codename: str) -> User:
    """The staff member giving ``actor``'s command, who holds the permission ``codename``; a
    terminal, the system or staff without it are refused (``permission_denied``)."""
    if not actor.has_perm(codename) or actor.user is None:
        raise PermissionRefusedError("You do not have permission to do that.", permission=codename)
    return actor.user
