"""Venue services: roles, staff login, players, terminals and their credentials.

Every service validates first, then writes inside one transaction and appends an audit record.
Their refusals are in ``casino.errors``.

The package, by responsibility: ``staff`` (roles, staff accounts, a member's password and
language), ``login`` (staff login and its lock), ``players`` (cards and PINs) and ``terminals``
(terminals and their credentials). Import the services from the package.
"""

from __future__ import annotations

from casino.services.login import staff_login, staff_unlock
from casino.services.players import (
    PLAYER_LOCK_MINUTES,
    PLAYER_MAX_PIN_FAILURES,
    player_card_lock,
    player_card_unlock,
    player_check_pin,
    player_create,
)
from casino.services.staff import (
    TEMPORARY_PASSWORD_ALPHABET,
    TEMPORARY_PASSWORD_GROUPS,
    roles_sync,
    staff_create,
    staff_disable,
    staff_enable,
    staff_language_set,
    staff_password_change,
    staff_password_reset,
    staff_role_assign,
)
from casino.services.terminals import (
    TOKEN_PREFIX_LENGTH,
    credential_check,
    terminal_authenticate,
    terminal_credential_issue,
    terminal_credential_revoke,
    terminal_register,
)

__all__ = [
    "PLAYER_LOCK_MINUTES",
    "PLAYER_MAX_PIN_FAILURES",
    "TEMPORARY_PASSWORD_ALPHABET",
    "TEMPORARY_PASSWORD_GROUPS",
    "TOKEN_PREFIX_LENGTH",
    "credential_check",
    "player_card_lock",
    "player_card_unlock",
    "player_check_pin",
    "player_create",
    "roles_sync",
    "staff_create",
    "staff_disable",
    "staff_enable",
    "staff_language_set",
    "staff_login",
    "staff_password_change",
    "staff_password_reset",
    "staff_role_assign",
    "staff_unlock",
    "terminal_authenticate",
    "terminal_credential_issue",
    "terminal_credential_revoke",
    "terminal_register",
]
