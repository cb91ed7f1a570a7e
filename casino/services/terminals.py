"""Terminals: registered, their credentials issued and revoked, a request's token authenticated."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.errors import (
    CredentialAlreadyRevokedError,
    CredentialExpiredError,
    CredentialRevokedError,
    InvalidLifetimeError,
    InvalidTerminalKindError,
    TableNotInCasinoError,
    TerminalCredentialError,
    TerminalInactiveError,
    TerminalNameTakenError,
    VenueTerminalInactiveError,
)
from casino.hints import hint, terminal_topic
from casino.locking import credential_lock, terminal_credentials_lock
from casino.models import Casino, Terminal, TerminalCredential
from casino.sql import credential_with_terminal

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()


# The first characters of a token (a terminal credential, a player session) stored in the clear to
# find its row; the rest is stored hashed.
TOKEN_PREFIX_LENGTH = 8


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def terminal_register(*, casino: Casino, name: str, kind: str, actor: Actor, table: Any = None) -> Terminal:
    """``table``: a tables.Table or None (the venue's services do not import the tables app)."""
    if kind not in Terminal.Kind.values:
        raise InvalidTerminalKindError(f"unknown terminal kind {kind!r}")
    if table is not None and table.casino_id != casino.pk:
        raise TableNotInCasinoError("The table belongs to another casino.")
    if Terminal.objects.filter(casino=casino, name=name).exists():
        raise TerminalNameTakenError(f"A terminal named {name!r} exists.")
    with transaction.atomic():
        terminal = Terminal.objects.create(casino=casino, name=name, kind=kind, table=table)
        actor.audit(
            action="terminal.registered",
            object_type="casino.terminal",
            object_id=terminal.pk,
            after={"name": name, "kind": kind, "table_id": table.pk if table else None},
        )
    return terminal


def terminal_credential_issue(
    *,
    terminal: Terminal,
    actor: Actor,
    valid_for: dt.timedelta | None = None,
    keep_earlier: bool = False,
) -> tuple[TerminalCredential, str]:
    """Issue a new credential. Returns it with the plain token, which is never stored or shown again.

    A new credential replaces the terminal's earlier ones: those still valid are revoked in the
    same transaction (a credential is re-issued because the old one was lost, leaked or left on a
    replaced device), unless ``keep_earlier`` (a terminal changing over to the new one). One audit
    record names the new credential and the ones revoked. Locks the terminal's row, then its
    valid credentials, then the audit chain. Raises ``terminal_inactive``, ``invalid_lifetime``.
    """
    if not terminal.is_active:
        raise TerminalInactiveError("The terminal is deactivated.")
    lifetime = valid_for or dt.timedelta(days=settings.TERMINAL_CREDENTIAL_DAYS)
    if lifetime <= dt.timedelta(0):
        raise InvalidLifetimeError("A credential must be valid for some time.")
    token = secrets.token_urlsafe(32)
    issuer = actor.user
    with transaction.atomic():
        earlier = terminal_credentials_lock(terminal_id=terminal.pk)
        now = timezone.now()
        earlier_ids = [old.pk for old in earlier]
        revoked_ids = [] if keep_earlier else earlier_ids
        TerminalCredential.objects.filter(pk__in=revoked_ids).update(revoked_at=now, revoked_by=issuer)
        if revoked_ids:
            hint(terminal_topic(terminal.pk))  # the revoked credentials' streams close
        credential = TerminalCredential.objects.create(
            terminal=terminal,
            token_prefix=token[:TOKEN_PREFIX_LENGTH],
            token_digest=_digest(token),
            issued_at=now,
            issued_by=actor.user,
            expires_at=now + lifetime,
        )
        actor.audit(
            action="terminal.credential_issued",
            object_type="casino.terminal",
            object_id=terminal.pk,
            before={"valid_credential_ids": earlier_ids},
            after={
                "credential_id": credential.pk,
                "prefix": credential.token_prefix,
                "expires_at": credential.expires_at,
                "revoked_credential_ids": revoked_ids,
                "kept_credential_ids": earlier_ids if keep_earlier else [],
            },
        )
    return credential, token


def terminal_credential_revoke(*, credential: TerminalCredential, actor: Actor) -> TerminalCredential:
    """Revoke a credential: refused at once on every request, and the streams opened with it
    close (``event: closed`` with ``credential_revoked``). Locks the credential, then the audit
    chain. Raises ``credential_already_revoked``."""
    with transaction.atomic():
        credential = credential_lock(credential_id=credential.pk)
        if credential.revoked_at is not None:
            raise CredentialAlreadyRevokedError("The credential is already revoked.")
        credential.revoked_at = timezone.now()
        credential.revoked_by = actor.user
        credential.save(update_fields=["revoked_at", "revoked_by"])
        actor.audit(
            action="terminal.credential_revoked",
            object_type="casino.terminal",
            object_id=credential.terminal_id,
            after={"credential_id": credential.pk, "revoked_at": credential.revoked_at},
        )
        hint(terminal_topic(credential.terminal_id))
    return credential


def terminal_authenticate(*, token: str) -> TerminalCredential:
    """The credential a token belongs to, if valid now.

    Raises TerminalCredentialError with code ``credential_invalid``, ``credential_revoked``,
    ``credential_expired`` or ``terminal_inactive``.
    """
    if not token or len(token) < TOKEN_PREFIX_LENGTH:
        raise TerminalCredentialError("Missing or malformed terminal credential.")
    credential = credential_with_terminal(_digest(token))
    if credential is None or not secrets.compare_digest(credential.token_digest, _digest(token)):
        raise TerminalCredentialError("Unknown terminal credential.")
    credential_check(credential)
    return credential


def credential_check(credential: TerminalCredential) -> None:
    """Whether a known credential (read with its terminal) is valid now: raises
    ``credential_revoked``, ``credential_expired`` or ``terminal_inactive``. The check of every
    request (``terminal_authenticate``) and of an open stream told that its terminal's
    credentials changed."""
    if credential.revoked_at is not None:
        raise CredentialRevokedError("This terminal credential has been revoked.")
    if credential.expires_at <= timezone.now():
        raise CredentialExpiredError("This terminal credential has expired.")
    if not credential.terminal.is_active:
        raise VenueTerminalInactiveError("This terminal is deactivated.")
