"""Row locks: the one way a service locks rows, and the venue's own locks.

Every row lock of the back office is ``SELECT ... ORDER BY id FOR NO KEY UPDATE OF <its table>``,
taken by :func:`rows_lock` (the wallet's and the tables' helpers, ``wallet/locking.py`` and
``tables/locking.py``, are built on it; ``tests/test_lock_order.py`` refuses a lock taken
anywhere else):

- ``OF`` its own table: a lock never spreads to the rows a query reads along with it
  (``select_related`` of the casino or the table), which other commands never lock;
- ``NO KEY UPDATE``: no command changes the key of a row it locks, nor deletes it, so the
  foreign-key checks of other transactions (``FOR KEY SHARE``, which PostgreSQL makes at their
  commit, for Django's deferred constraints, while they hold the audit chain) never wait on it;
- in primary-key order, so that two commands locking rows of one table never cross.

A row of an append-only table (a transfer, a payout line), which the application's database role
may not lock (a row lock needs the UPDATE privilege), is locked by a transaction-scoped advisory
lock on its id instead (:func:`advisory_lock`, one key namespace per table), and so is a round,
whose lock bets share.

The order of the whole back office, by which a command takes its locks (it may skip any):

1. the request's idempotency key (``casino.idempotency``: before any other lock, so that a
   duplicate in flight waits there, or is refused, holding nothing);
2. the round (its advisory lock, shared by bets, then its row: ``tables.locking.lock_round``);
2a. the gaming day (:func:`gaming_day_lock`): shared by a command that writes into it, taken
   by ``casino.gaming_day_state.gaming_day_writable`` before any other row of the command (a
   round's command after the round); exclusive to close or reopen it;
3. the table row, or one configuration row (a rule set, a paytable, a version of either);
4. the terminal row, then the player row (a sign-in, a bet), then the player's sessions;
5. the box row;
6. the round's payout line being decided;
6a. the four-eyes approval being decided (``casino.four_eyes``), right after the row it decides
   (a payout line, a table, a request), and before the wallet's rows;
7. the wallet's row the command acts on: holds (id order), the pending payout, the balance
   adjustment, the transfer being reversed;
8. accounts, in id order (``wallet.locking.accounts_lock``);
9. the audit chain, last (``casino.audit.audit_append``, held until commit).

A venue row locked alone (a staff login state, a terminal credential) comes before the audit
chain too. The casino row is never locked.
"""

from __future__ import annotations

import datetime as dt
from typing import TypeVar

from django.db.models import Model, QuerySet

from casino.models import Player, PlayerSession, StaffLoginState, Terminal, TerminalCredential
from casino.selectors import terminal_credentials_valid
from casino.sql import advisory_xact_lock

M = TypeVar("M", bound=Model)


def rows_lock(queryset: QuerySet[M]) -> list[M]:
    """Lock the rows of ``queryset`` FOR NO KEY UPDATE OF its own table, in primary-key order,
    and return them (fresh, as read under the lock)."""
    return list(queryset.select_for_update(no_key=True, of=("self",)).order_by("pk"))


def row_lock(queryset: QuerySet[M]) -> M | None:
    """The one row of ``queryset`` locked as :func:`rows_lock` does, or None when there is none."""
    rows = rows_lock(queryset)
    return rows[0] if rows else None


KEY_LIMIT = 2**32


def advisory_lock(namespace: int, key: int, *, shared: bool = False) -> None:
    """A transaction-scoped PostgreSQL advisory lock on ``namespace | key`` (exclusive, or shared
    with ``shared``), held until the transaction ends. ``namespace`` is a constant shifted above
    the 32 bits of ``key`` (an id), one per kind of row (the audit chain's key is below them).
    A key outside ``0 <= key < 2**32``, or a namespace with bits below them, would make two
    namespaces' keys meet: refused with ``ValueError``."""
    key = int(key)
    if not 0 <= key < KEY_LIMIT:
        raise ValueError(f"advisory lock key {key} is outside 0 <= key < 2**32: it would leave its namespace")
    if namespace <= 0 or namespace % KEY_LIMIT or namespace >= 2**63:
        raise ValueError(
            f"advisory lock namespace {namespace:#x} is not a positive multiple of 2**32 below 2**63"
        )
    advisory_xact_lock(namespace | key, shared=shared)


GAMING_DAY_LOCK_NAMESPACE = 0x6A3D << 32
# A day's key packs the casino and the day's ordinal (below 10**6 until the year 2738), within the
# 32 bits of a key for casino ids below 4295 (``advisory_lock`` refuses a key beyond them).
DAY_KEYS_PER_CASINO = 1_000_000


def gaming_day_lock(*, casino_id: int, day: dt.date, exclusive: bool = False) -> None:
    """A gaming day's advisory lock: shared by the commands that write into the day, exclusive
    to close or reopen it, so that no write slips in between the closing's checks and its commit
    (and a write waiting for a closing sees the day closed when it gets the lock)."""
    advisory_lock(
        GAMING_DAY_LOCK_NAMESPACE, casino_id * DAY_KEYS_PER_CASINO + day.toordinal(), shared=not exclusive
    )


def staff_login_state_lock(*, user_id: int) -> StaffLoginState:
    """A staff user's login state, locked (created first if missing)."""
    StaffLoginState.objects.get_or_create(user_id=user_id)
    state = row_lock(StaffLoginState.objects.filter(user_id=user_id))
    assert state is not None  # created above; a login state is never deleted
    return state


def player_lock(*, player_id: int) -> None:
    """Lock the player's row: one player's bets take turns (a box handed over to the player
    meanwhile still passes its foreign-key check, which takes FOR KEY SHARE)."""
    row_lock(Player.objects.filter(pk=player_id).only("pk"))


def active_player_by_card_lock(*, card_number: str, casino_id: int | None = None) -> Player | None:
    """The active player holding a card (of this casino when given), locked; None if none."""
    cards = Player.objects.filter(card_number=card_number, is_active=True)
    if casino_id is not None:
        cards = cards.filter(casino_id=casino_id)
    return row_lock(cards)


def credential_lock(*, credential_id: int) -> TerminalCredential:
    """A terminal credential, locked. Raises ``TerminalCredential.DoesNotExist``."""
    credential = row_lock(TerminalCredential.objects.filter(pk=credential_id))
    if credential is None:
        raise TerminalCredential.DoesNotExist(f"no terminal credential {credential_id}")
    return credential


def terminal_credentials_lock(*, terminal_id: int) -> list[TerminalCredential]:
    """A terminal's row, then its credentials that are neither revoked nor expired, locked (in id
    order) and returned: two issues of a credential for one terminal take turns, so that each
    sees the credentials the other issued."""
    row_lock(Terminal.objects.filter(pk=terminal_id))
    return rows_lock(terminal_credentials_valid(terminal_id=terminal_id))


def sign_in_lock(*, terminal_id: int, player_id: int) -> None:
    """A sign-in's rows: the terminal, then the player. Two sign-ins at once (of this player, or
    at this terminal) take turns, so that the second sees and ends the first one's session."""
    row_lock(Terminal.objects.filter(pk=terminal_id))
    row_lock(Player.objects.filter(pk=player_id))


def player_session_lock(session_id: int) -> PlayerSession:
    """A player session about to end, locked. Raises ``PlayerSession.DoesNotExist``."""
    session = row_lock(PlayerSession.objects.filter(pk=session_id))
    if session is None:
        raise PlayerSession.DoesNotExist(f"no player session {session_id}")
    return session
