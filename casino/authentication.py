"""DRF authentication for terminals: ``Authorization: Terminal <token>``."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from casino.services import TerminalCredentialError, terminal_authenticate

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
        terminal.is_authenticated = True  # type: ignore[attr-defined]
        return terminal, credential

    def authenticate_header(self, request: Request) -> str:
        return 'Terminal realm="terminals"'
