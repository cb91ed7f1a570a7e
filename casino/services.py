"""Venue services: roles, staff login, players, terminals and their credentials.

Every service validates first, then writes inside one transaction and appends an audit record.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from casino.audit import audit_append
from casino.errors import PermissionRefusedError, ServiceError
from casino.locking import credential_lock, player_card_lock, staff_login_state_lock
from casino.models import Casino, Player, StaffLoginState, Terminal, TerminalCredential
from casino.roles import ROLE_PERMISSIONS
from casino.sql import credential_with_terminal

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User
else:
    User = get_user_model()


class LoginRefusedError(ServiceError):
    code = "login_failed"
    status = 401


class AccountLockedError(ServiceError):
    code = "account_locked"
    status = 423


class TerminalCredentialError(ServiceError):
    code = "credential_invalid"
    status = 401


class PlayerSignInError(ServiceError):
    code = "player_sign_in_failed"
    status = 401


# ---------------------------------------------------------------- roles


def roles_sync() -> list[str]:
    """Create the role groups and set each one's permissions exactly. Idempotent.

    Returns the names of the groups whose permissions changed (each change is audited).
    """
    changed: list[str] = []
    with transaction.atomic():
        for role, codenames in ROLE_PERMISSIONS.items():
            group, _ = Group.objects.get_or_create(name=role)
            # Audited here with before and after, not by the signal (casino.signals reads the flag).
            group._audit_by_service = True  # type: ignore[attr-defined]  # an instance flag, not a field
            wanted = set(Permission.objects.filter(content_type__app_label="casino", codename__in=codenames))
            current = set(group.permissions.all())
            if wanted != current:
                group.permissions.set(wanted)
                changed.append(role)
                audit_append(
                    action="role.permissions_set",
                    actor_name="system",
                    object_type="auth.group",
                    object_id=group.pk,
                    before={"permissions": sorted(p.codename for p in current)},
                    after={"permissions": sorted(p.codename for p in wanted)},
                )
    return changed


def staff_role_assign(*, user: User, role: str, by: User | None = None) -> None:
    """Give a staff account exactly one role (replacing any other role group)."""
    if role not in ROLE_PERMISSIONS:
        raise ServiceError(f"unknown role {role!r}", code="unknown_role")
    # Audited here with before and after, not by the signal (casino.signals reads the flag).
    user._audit_by_service = True  # type: ignore[attr-defined]  # an instance flag, not a field
    with transaction.atomic():
        before = sorted(user.groups.values_list("name", flat=True))
        user.groups.remove(*Group.objects.filter(name__in=ROLE_PERMISSIONS).exclude(name=role))
        user.groups.add(Group.objects.get(name=role))
        after = sorted(user.groups.values_list("name", flat=True))
        if before != after:
            audit_append(
                action="staff.role_assigned",
                actor=by,
                actor_name="" if by else "system",
                object_type="auth.user",
                object_id=user.pk,
                before={"groups": before},
                after={"groups": after},
            )
        user._casino_role = None  # type: ignore[attr-defined]  # role_of's cache on the instance
    user._audit_by_service = False  # type: ignore[attr-defined]  # an instance flag, not a field


# ---------------------------------------------------------------- staff login


def staff_login(*, request: HttpRequest | None, username: str, password: str) -> User:
    """Check a staff login. Returns the user, or raises AccountLockedError / LoginRefusedError.

    After ``LOGIN_MAX_FAILURES`` consecutive failures the account is locked for
    ``LOGIN_LOCKOUT_SECONDS``; a locked account is refused even with the right password and
    says until when. Every outcome is audited.
    """
    now = timezone.now()
    user = User.objects.filter(username=username).first()
    if user is not None:
        state, _ = StaffLoginState.objects.get_or_create(user=user)
        if state.is_locked(now):
            audit_append(
                action="staff.login_refused_locked",
                object_type="auth.user",
                object_id=user.pk,
                actor_name=username,
            )
            raise AccountLockedError(_locked_message(state.locked_until), locked_until=state.locked_until)
    authenticated = authenticate(request, username=username, password=password)
    if authenticated is None:
        _record_failure(user, username, now)
        raise LoginRefusedError("Wrong username or password.")
    with transaction.atomic():
        state = staff_login_state_lock(user_id=authenticated.pk)
        state.failed_attempts = 0
        state.locked_until = None
        state.save(update_fields=["failed_attempts", "locked_until"])
        audit_append(
            action="staff.login", actor=authenticated, object_type="auth.user", object_id=authenticated.pk
        )
    return authenticated


def _locked_message(until: dt.datetime | None) -> str:
    if until is None:
        return "This account is locked."
    minutes = max(1, int((until - timezone.now()).total_seconds() // 60) + 1)
    return (
        f"This account is locked after too many failed logins. Try again in {minutes} minute(s) "
        "or ask an operator to unlock it."
    )


def _record_failure(user: User | None, username: str, now: dt.datetime) -> None:
    with transaction.atomic():
        if user is None:
            audit_append(action="staff.login_failed", actor_name=username[:150], object_type="auth.user")
            return
        state = staff_login_state_lock(user_id=user.pk)
        state.failed_attempts += 1
        locked = state.failed_attempts >= settings.LOGIN_MAX_FAILURES
        if locked:
            state.locked_until = now + dt.timedelta(seconds=settings.LOGIN_LOCKOUT_SECONDS)
            state.failed_attempts = 0
        state.save(update_fields=["failed_attempts", "locked_until"])
        audit_append(
            action="staff.locked" if locked else "staff.login_failed",
            actor_name=username,
            object_type="auth.user",
            object_id=user.pk,
            after={"locked_until": state.locked_until} if locked else None,
        )
    if locked:
        raise AccountLockedError(_locked_message(state.locked_until), locked_until=state.locked_until)


def staff_unlock(*, user: User, by: User | None) -> None:
    with transaction.atomic():
        state = staff_login_state_lock(user_id=user.pk)
        before = {"locked_until": state.locked_until, "failed_attempts": state.failed_attempts}
        state.locked_until = None
        state.failed_attempts = 0
        state.save()
        audit_append(
            action="staff.unlocked",
            actor=by,
            object_type="auth.user",
            object_id=user.pk,
            before=before,
            after={"locked_until": None, "failed_attempts": 0},
        )


# ---------------------------------------------------------------- players

PLAYER_MAX_PIN_FAILURES = 5
PLAYER_LOCK_MINUTES = 15


def player_create(
    *, casino: Casino, card_number: str, display_name: str, pin: str, by: User | None = None
) -> Player:
    if not pin.isdigit() or not 4 <= len(pin) <= 8:
        raise ServiceError("A PIN is 4 to 8 digits.", code="invalid_pin")
    if Player.objects.filter(card_number=card_number).exists():
        raise ServiceError(f"Card {card_number} is already issued.", code="card_number_taken")
    with transaction.atomic():
        player = Player.objects.create(
            casino=casino, card_number=card_number, display_name=display_name, pin_hash=make_password(pin)
        )
        audit_append(
            action="player.created",
            actor=by,
            actor_name="" if by else "system",
            object_type="casino.player",
            object_id=player.pk,
            after={"card_number": card_number, "display_name": display_name},
        )
    return player


def player_check_pin(*, card_number: str, pin: str, terminal: Terminal | None = None) -> Player:
    """Check a player's card and PIN at a terminal. Locks the card after repeated failures.

    At a terminal, only a card of the terminal's casino is looked up: another casino's card is
    unknown there, so a terminal can neither test its PINs nor lock it.

    Raises PlayerSignInError with code ``player_sign_in_failed`` or ``player_locked``.
    """
    now = timezone.now()
    with transaction.atomic():
        player = player_card_lock(
            card_number=card_number, casino_id=terminal.casino_id if terminal is not None else None
        )
        if player is None:
            raise PlayerSignInError("Unknown card or wrong PIN.")
        if player.locked_until and player.locked_until > now:
            raise PlayerSignInError(
                "This card is locked after too many wrong PINs; ask staff for help.", code="player_locked"
            )
        if check_password(pin, player.pin_hash):
            if player.failed_pin_attempts or player.locked_until:
                player.failed_pin_attempts = 0
                player.locked_until = None
                player.save(update_fields=["failed_pin_attempts", "locked_until"])
            return player
        player.failed_pin_attempts += 1
        locked = player.failed_pin_attempts >= PLAYER_MAX_PIN_FAILURES
        if locked:
            player.locked_until = now + dt.timedelta(minutes=PLAYER_LOCK_MINUTES)
            player.failed_pin_attempts = 0
        player.save(update_fields=["failed_pin_attempts", "locked_until"])
        if locked:
            audit_append(
                action="player.locked",
                actor_name=card_number,
                terminal=terminal,
                object_type="casino.player",
                object_id=player.pk,
                after={"locked_until": player.locked_until},
            )
    # Outside the atomic block: the failure count above must commit even though we refuse.
    if locked:
        raise PlayerSignInError(
            "This card is locked after too many wrong PINs; ask staff for help.", code="player_locked"
        )
    raise PlayerSignInError("Unknown card or wrong PIN.")


# ---------------------------------------------------------------- terminals

TOKEN_PREFIX_LENGTH = 8


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def terminal_register(
    *, casino: Casino, name: str, kind: str, table: Any = None, by: User | None = None
) -> Terminal:
    """``table``: a tables.Table or None (the venue's services do not import the tables app)."""
    if kind not in Terminal.Kind.values:
        raise ServiceError(f"unknown terminal kind {kind!r}", code="invalid_terminal_kind")
    if table is not None and table.casino_id != casino.pk:
        raise ServiceError("The table belongs to another casino.", code="table_not_in_casino")
    if Terminal.objects.filter(casino=casino, name=name).exists():
        raise ServiceError(f"A terminal named {name!r} exists.", code="terminal_name_taken")
    with transaction.atomic():
        terminal = Terminal.objects.create(casino=casino, name=name, kind=kind, table=table)
        audit_append(
            action="terminal.registered",
            actor=by,
            object_type="casino.terminal",
            object_id=terminal.pk,
            after={"name": name, "kind": kind, "table_id": table.pk if table else None},
        )
    return terminal


def terminal_credential_issue(
    *, terminal: Terminal, by: User | None = None, valid_for: dt.timedelta | None = None
) -> tuple[TerminalCredential, str]:
    """Issue a new credential. Returns it with the plain token, which is never stored or shown again."""
    if not terminal.is_active:
        raise ServiceError("The terminal is deactivated.", code="terminal_inactive")
    lifetime = valid_for or dt.timedelta(days=settings.TERMINAL_CREDENTIAL_DAYS)
    if lifetime <= dt.timedelta(0):
        raise ServiceError("A credential must be valid for some time.", code="invalid_lifetime")
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        credential = TerminalCredential.objects.create(
            terminal=terminal,
            token_prefix=token[:TOKEN_PREFIX_LENGTH],
            token_digest=_digest(token),
            issued_by=by if getattr(by, "is_authenticated", False) else None,
            expires_at=timezone.now() + lifetime,
        )
        audit_append(
            action="terminal.credential_issued",
            actor=by,
            object_type="casino.terminal",
            object_id=terminal.pk,
            after={
                "credential_id": credential.pk,
                "prefix": credential.token_prefix,
                "expires_at": credential.expires_at,
            },
        )
    return credential, token


def terminal_credential_revoke(
    *, credential: TerminalCredential, by: User | None = None
) -> TerminalCredential:
    with transaction.atomic():
        credential = credential_lock(credential_id=credential.pk)
        if credential.revoked_at is not None:
            raise ServiceError("The credential is already revoked.", code="credential_already_revoked")
        credential.revoked_at = timezone.now()
        credential.revoked_by = by if getattr(by, "is_authenticated", False) else None
        credential.save(update_fields=["revoked_at", "revoked_by"])
        audit_append(
            action="terminal.credential_revoked",
            actor=by,
            object_type="casino.terminal",
            object_id=credential.terminal_id,
            after={"credential_id": credential.pk, "revoked_at": credential.revoked_at},
        )
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
    if credential.revoked_at is not None:
        raise TerminalCredentialError("This terminal credential has been revoked.", code="credential_revoked")
    if credential.expires_at <= timezone.now():
        raise TerminalCredentialError("This terminal credential has expired.", code="credential_expired")
    if not credential.terminal.is_active:
        raise TerminalCredentialError("This terminal is deactivated.", code="terminal_inactive")
    return credential


def require_permission(user: User | AnonymousUser, codename: str) -> None:
    if not user.has_perm(f"casino.{codename}"):
        raise PermissionRefusedError("You do not have permission to do that.")
