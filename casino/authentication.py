"""DRF authentication for terminals: ``Authorization: Terminal <token>``, with the player's
``X-Player-Token``; and the same checks again for a stream held open (``access_refusal``)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from casino.errors import PlayerTokenError, TerminalCredentialError
from casino.models import PlayerSession, TerminalCredential
from casino.player_sessions import player_session_authenticate, player_session_check
from casino.services import credential_check, terminal_authenticate

KEYWORD = b"terminal"


class TerminalAuthenticationFailed(exceptions.AuthenticationFailed):
    def __init__(self, error: TerminalCredentialError) -> None:
        super().__init__(detail=error.message, code=error.code)
        self.service_code = error.code


class TerminalTokenAuthentication(BaseAuthentication):
    """Authenticates a registered terminal. ``request.user`` is the Terminal, ``request.auth``
    the credential. Revoked, expired and unknown credentials are refused with their own code."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD:
            return None
        if len(parts) != 2:
            raise TerminalAuthenticationFailed(
                TerminalCredentialError("Malformed terminal credential header.")
            )
        try:
            credential = terminal_authenticate(token=parts[1].decode("ascii", "replace"))
        except TerminalCredentialError as error:
            raise TerminalAuthenticationFailed(error) from error
        now = timezone.now()
        if credential.last_used_at is None or (now - credential.last_used_at).total_seconds() > 60:
            type(credential).objects.filter(pk=credential.pk).update(last_used_at=now)
        terminal = credential.terminal
        terminal.is_authenticated = True  # type: ignore[attr-defined]  # read by DRF's IsAuthenticated off request.user
        return terminal, credential

    def authenticate_header(self, request: Request) -> str:
        return 'Terminal realm="terminals"'


PLAYER_TOKEN_HEADER = "X-Player-Token"


class PlayerAuthenticationFailed(exceptions.AuthenticationFailed):
    def __init__(self, message: str, code: str) -> None:
        super().__init__(detail=message, code=code)
        self.service_code = code


class TerminalPlayerAuthentication(TerminalTokenAuthentication):
    """A player acting at a terminal: the terminal's credential (``Authorization: Terminal <t>``)
    plus the player's session token (``X-Player-Token: <p>``), which must have been issued at that
    same terminal. ``request.user`` is the Terminal, ``request.auth`` the PlayerSession (its
    ``credential`` attribute holds the terminal credential)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        authenticated = super().authenticate(request)
        if authenticated is None:
            return None
        terminal, credential = authenticated
        token = request.headers.get(PLAYER_TOKEN_HEADER, "")
        if not token:
            raise PlayerAuthenticationFailed(
                "A player must sign in at this terminal first (X-Player-Token header).",
                code="player_token_missing",
            )
        try:
            session = player_session_authenticate(terminal=terminal, token=token)
        except PlayerTokenError as error:
            raise PlayerAuthenticationFailed(error.message, code=error.code) from error
        session.credential = credential  # type: ignore[attr-defined]  # on this instance only, not a column
        return terminal, session


class TerminalOptionalPlayerAuthentication(TerminalPlayerAuthentication):
    """The terminal's credential, and a player token if one is sent: without ``X-Player-Token``
    the request is the terminal's own (``request.auth`` the credential); with it, the token must be
    valid (a bad one is refused, never ignored) and ``request.auth`` is the PlayerSession."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        if not request.headers.get(PLAYER_TOKEN_HEADER, ""):
            return TerminalTokenAuthentication.authenticate(self, request)
        return super().authenticate(request)


def access_refusal(*, credential_id: int, session_id: int | None) -> str | None:
    """The code of the refusal a request with the credential ``credential_id`` (and the player
    session ``session_id``) would meet now, read again from the database; None while both hold.
    Asked by a stream when its terminal's credentials or its session changed
    (``casino/streams.py``: it then closes with ``event: closed`` and this code)."""
    try:
        credential_check(TerminalCredential.objects.select_related("terminal").get(pk=credential_id))
        if session_id is not None:
            session = PlayerSession.objects.select_related("player").get(pk=session_id)
            player_session_check(session, now=timezone.now())
    except (TerminalCredentialError, PlayerTokenError) as error:
        return error.code
    return None
