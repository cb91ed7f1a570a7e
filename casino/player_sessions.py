"""Player sessions at a terminal: sign in with card and PIN, use the short-lived token, sign out.

These are the API's own writes (authentication state, not game state); each runs in one short
transaction and is audited."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from casino.api_conf import api_setting
from casino.audit import audit_append
from casino.errors import (
    NotAPlayerTerminalError,
    PlayerInactiveError,
    PlayerSessionEndedError,
    PlayerSessionExpiredError,
    PlayerTokenError,
    TerminalWithoutTableError,
)
from casino.gaming_day_state import gaming_day_writable
from casino.hints import hint, session_topic
from casino.locking import player_session_lock, sign_in_lock
from casino.models import PlayerSession, Terminal
from casino.services import TOKEN_PREFIX_LENGTH, player_check_pin
from casino.sql import session_with_player

# A session's sliding expiry is written at most this often, so that polling does not write a row
# per request.
SLIDE_GRANULARITY = dt.timedelta(seconds=60)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def player_session_start(*, terminal: Terminal, card_number: str, pin: str) -> tuple[PlayerSession, str]:
    """Sign a player in at a player terminal; returns the session and its token (shown once).

    The terminal must be a player terminal bound to a table. The card and PIN are checked by
    ``player_check_pin`` (which locks the card after repeated wrong PINs). Any session still open at
    this terminal, or of this player elsewhere, ends as ``replaced``. A sign-in is a write of the
    gaming day it is made in (the day's terminal drop and ratings read it): locks that day
    (shared, ``gaming_day_writable``) before the terminal and the player. Raises
    ``not_a_player_terminal`` (403), ``terminal_without_table`` (409), ``player_sign_in_failed`` /
    ``player_locked`` (401), ``gaming_day_closed`` (409).
    """
    if terminal.kind != Terminal.Kind.PLAYER_TERMINAL:
        raise NotAPlayerTerminalError("Players sign in at a player terminal, not at a card reader.")
    if terminal.table_id is None:
        raise TerminalWithoutTableError("This terminal is not placed at a table.")
    player = player_check_pin(card_number=card_number, pin=pin, terminal=terminal)
    now = timezone.now()
    token = secrets.token_urlsafe(32)
    idle = dt.timedelta(seconds=int(api_setting("API_PLAYER_SESSION_IDLE_SECONDS")))
    hard = now + dt.timedelta(seconds=int(api_setting("API_PLAYER_SESSION_MAX_SECONDS")))
    with transaction.atomic():
        gaming_day_writable(casino=player.casino)
        sign_in_lock(terminal_id=terminal.pk, player_id=player.pk)
        open_sessions = PlayerSession.objects.filter(ended_at__isnull=True)
        replaced = sorted(
            set(open_sessions.filter(terminal=terminal).values_list("pk", flat=True))
            | set(open_sessions.filter(player=player).values_list("pk", flat=True))
        )
        if replaced:
            PlayerSession.objects.filter(pk__in=replaced, ended_at__isnull=True).update(
                ended_at=now, end_reason=PlayerSession.EndReason.REPLACED
            )
            hint(*(session_topic(ended) for ended in replaced))
        session = PlayerSession.objects.create(
            player=player,
            terminal=terminal,
            table_id=terminal.table_id,
            token_prefix=token[:TOKEN_PREFIX_LENGTH],
            token_digest=_digest(token),
            started_at=now,
            expires_at=min(now + idle, hard),
            hard_expires_at=hard,
        )
        audit_append(
            action="player.signed_in",
            actor_name=player.card_number,
            terminal=terminal,
            object_type="casino.player",
            object_id=player.pk,
            after={"session_id": session.pk, "table_id": terminal.table_id, "replaced_sessions": replaced},
        )
    return session, token


def player_session_end(*, session: PlayerSession) -> PlayerSession:
    """Sign out: the token stops working at once, and the streams opened with it close
    (``event: closed`` with ``player_session_ended``). Ending an ended session changes nothing.
    Locks the session, then the audit chain."""
    with transaction.atomic():
        session = player_session_lock(session.pk)
        if session.ended_at is not None:
            return session
        session.ended_at = timezone.now()
        session.end_reason = PlayerSession.EndReason.SIGNED_OUT
        session.save(update_fields=["ended_at", "end_reason"])
        audit_append(
            action="player.signed_out",
            actor_name=session.player.card_number,
            terminal=session.terminal,
            object_type="casino.player",
            object_id=session.player_id,
            after={"session_id": session.pk},
        )
        hint(session_topic(session.pk))
    return session


def player_session_authenticate(*, terminal: Terminal, token: str) -> PlayerSession:
    """The open session a player token belongs to, at this terminal. Slides its expiry forward.

    Raises ``player_token_invalid`` (unknown token, or one issued at another terminal),
    ``player_session_ended`` or ``player_session_expired`` (all 401)."""
    if not token or len(token) < TOKEN_PREFIX_LENGTH or len(token) > 200:
        raise PlayerTokenError("Missing or malformed player token.")
    session = session_with_player(_digest(token))
    if session is None or session.terminal_id != terminal.pk:
        raise PlayerTokenError("Unknown player token; sign in again.")
    now = timezone.now()
    player_session_check(session, now=now)
    idle = dt.timedelta(seconds=int(api_setting("API_PLAYER_SESSION_IDLE_SECONDS")))
    wanted = min(now + idle, session.hard_expires_at)
    if wanted - session.expires_at >= SLIDE_GRANULARITY:
        PlayerSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(expires_at=wanted)
        session.expires_at = wanted
    return session


def player_session_check(session: PlayerSession, *, now: dt.datetime) -> None:
    """Whether a session (read with its player) is still open at ``now``: raises
    ``player_session_ended``, ``player_session_expired`` or ``player_inactive``. The check of every
    request (``player_session_authenticate``) and of an open stream told that its session ended."""
    if session.ended_at is not None:
        raise PlayerSessionEndedError("This player session has ended; sign in again.")
    if session.expires_at <= now:
        raise PlayerSessionExpiredError("This player session has expired; sign in again.")
    if not session.player.is_active:
        raise PlayerInactiveError("This player card is deactivated.")
