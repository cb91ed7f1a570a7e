"""Venue services: roles, staff login, players, terminals and their credentials.

Every service validates first, then writes inside one transaction and appends an audit record.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY, authenticate, get_user_model
from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.audit import audit_append
from casino.errors import ConflictError, NotFoundError, PermissionRefusedError, ServiceError, reason_required
from casino.locking import credential_lock, row_lock, staff_login_state_lock, terminal_credentials_lock
from casino.locking import player_card_lock as active_card_lock
from casino.models import Casino, Player, StaffLoginState, StaffPreference, Terminal, TerminalCredential
from casino.roles import ROLE_PERMISSIONS
from casino.sql import credential_with_terminal

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()


class LoginRefusedError(ServiceError):
    code = "login_failed"
    status = 401


class AccountLockedError(ServiceError):
    code = "account_locked"
    status = 423


class AccountDisabledError(LoginRefusedError):
    code = "account_disabled"
    status = 403


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


def staff_role_assign(*, user: User, role: str, actor: Actor) -> None:
    """Give a staff account exactly one role (replacing any other role group).

    ``actor`` is a person or the system (seeding, setup). A person needs ``manage_staff`` and may give any
    role to any account but their own and a superuser's (see "staff accounts" below). Locks the
    account's row, then the audit chain. Raises ``unknown_role``, ``permission_denied``,
    ``self_role_grant_refused``, ``superuser_not_managed``.
    """
    if role not in ROLE_PERMISSIONS:
        raise ServiceError(f"unknown role {role!r}", code="unknown_role")
    if not actor.system:
        _staff_may_manage(actor=actor, user=user, self_refusal=SelfRoleGrantRefusedError)
    # Audited here with before and after, not by the signal (casino.signals reads the flag).
    user._audit_by_service = True  # type: ignore[attr-defined]  # an instance flag, not a field
    with transaction.atomic():
        _staff_account_lock(user)
        before = sorted(user.groups.values_list("name", flat=True))
        user.groups.remove(*Group.objects.filter(name__in=ROLE_PERMISSIONS).exclude(name=role))
        user.groups.add(Group.objects.get(name=role))
        after = sorted(user.groups.values_list("name", flat=True))
        if before != after:
            actor.audit(
                action="staff.role_assigned",
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
        # A disabled account (ModelBackend authenticates active users only) is told so, but only
        # to someone who knows its password; anyone else sees an ordinary failure.
        if user is not None and not user.is_active and user.check_password(password):
            audit_append(
                action="staff.login_refused_disabled",
                object_type="auth.user",
                object_id=user.pk,
                actor_name=username,
            )
            raise AccountDisabledError("This account is disabled. Ask an operator to enable it.")
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


def staff_unlock(*, user: User, actor: Actor) -> None:
    """Clear a staff account's login lock and its count of failed logins.

    ``actor`` is a person or the system; a person needs ``manage_staff``. Locks the login state,
    then the audit chain. Raises ``permission_denied``.
    """
    if not actor.system:
        require_staff(actor, "manage_staff")
    with transaction.atomic():
        state = staff_login_state_lock(user_id=user.pk)
        before = {"locked_until": state.locked_until, "failed_attempts": state.failed_attempts}
        state.locked_until = None
        state.failed_attempts = 0
        state.save()
        actor.audit(
            action="staff.unlocked",
            object_type="auth.user",
            object_id=user.pk,
            before=before,
            after={"locked_until": None, "failed_attempts": 0},
        )


# ---------------------------------------------------------------- players

PLAYER_MAX_PIN_FAILURES = 5
PLAYER_LOCK_MINUTES = 15


def player_create(*, casino: Casino, card_number: str, display_name: str, pin: str, actor: Actor) -> Player:
    if not pin.isdigit() or not 4 <= len(pin) <= 8:
        raise ServiceError("A PIN is 4 to 8 digits.", code="invalid_pin")
    if Player.objects.filter(card_number=card_number).exists():
        raise ServiceError(f"Card {card_number} is already issued.", code="card_number_taken")
    with transaction.atomic():
        player = Player.objects.create(
            casino=casino, card_number=card_number, display_name=display_name, pin_hash=make_password(pin)
        )
        actor.audit(
            action="player.created",
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
        player = active_card_lock(
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


class PlayerCardAlreadyLockedError(ConflictError):
    code = "card_already_locked"


class PlayerCardNotLockedError(ConflictError):
    code = "card_not_locked"


def player_card_lock(*, player: Player, reason: str, actor: Actor) -> Player:
    """The cage locks a player's card (lost, stolen, the player's own request): ``is_active``
    becomes False, so the card is refused at terminal sign-in (``player_check_pin`` finds no
    active card) and an open player session is refused on its next request (``player_inactive``).

    Needs ``casino.operate_cage`` and a reason. Locks the player row, then the audit chain.
    Raises ``permission_denied``, ``reason_required``, ``card_already_locked``.
    """
    require_staff(actor, "operate_cage")
    reason = reason_required(reason, "A reason is required to lock a card.")
    with transaction.atomic():
        locked = row_lock(Player.objects.filter(pk=player.pk))
        if locked is None:
            raise NotFoundError(f"No player {player.pk}.")
        if not locked.is_active:
            raise PlayerCardAlreadyLockedError(f"Card {locked.card_number} is locked already.")
        locked.is_active = False
        locked.save(update_fields=["is_active"])
        actor.audit(
            action="player.card_locked",
            object_type="casino.player",
            object_id=locked.pk,
            before={"is_active": True},
            after={"is_active": False, "reason": reason},
        )
    return locked


def player_card_unlock(*, player: Player, actor: Actor) -> Player:
    """The cage unlocks a player's card: active again, and the PIN lockout cleared
    (``failed_pin_attempts`` 0, ``locked_until`` None), so the player may sign in at once.

    Needs ``casino.operate_cage``. Locks the player row, then the audit chain. Raises
    ``permission_denied``, ``card_not_locked`` (active and not PIN-locked: nothing to undo).
    """
    require_staff(actor, "operate_cage")
    with transaction.atomic():
        locked = row_lock(Player.objects.filter(pk=player.pk))
        if locked is None:
            raise NotFoundError(f"No player {player.pk}.")
        if locked.is_active and not locked.failed_pin_attempts and locked.locked_until is None:
            raise PlayerCardNotLockedError(f"Card {locked.card_number} is not locked.")
        before = {
            "is_active": locked.is_active,
            "failed_pin_attempts": locked.failed_pin_attempts,
            "locked_until": locked.locked_until,
        }
        locked.is_active = True
        locked.failed_pin_attempts = 0
        locked.locked_until = None
        locked.save(update_fields=["is_active", "failed_pin_attempts", "locked_until"])
        actor.audit(
            action="player.card_unlocked",
            object_type="casino.player",
            object_id=locked.pk,
            before=before,
            after={"is_active": True, "failed_pin_attempts": 0, "locked_until": None},
        )
    return locked


# ---------------------------------------------------------------- terminals

TOKEN_PREFIX_LENGTH = 8


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def terminal_register(*, casino: Casino, name: str, kind: str, actor: Actor, table: Any = None) -> Terminal:
    """``table``: a tables.Table or None (the venue's services do not import the tables app)."""
    if kind not in Terminal.Kind.values:
        raise ServiceError(f"unknown terminal kind {kind!r}", code="invalid_terminal_kind")
    if table is not None and table.casino_id != casino.pk:
        raise ServiceError("The table belongs to another casino.", code="table_not_in_casino")
    if Terminal.objects.filter(casino=casino, name=name).exists():
        raise ServiceError(f"A terminal named {name!r} exists.", code="terminal_name_taken")
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
        raise ServiceError("The terminal is deactivated.", code="terminal_inactive")
    lifetime = valid_for or dt.timedelta(days=settings.TERMINAL_CREDENTIAL_DAYS)
    if lifetime <= dt.timedelta(0):
        raise ServiceError("A credential must be valid for some time.", code="invalid_lifetime")
    token = secrets.token_urlsafe(32)
    issuer = actor.user
    with transaction.atomic():
        earlier = terminal_credentials_lock(terminal_id=terminal.pk)
        now = timezone.now()
        earlier_ids = [old.pk for old in earlier]
        revoked_ids = [] if keep_earlier else earlier_ids
        TerminalCredential.objects.filter(pk__in=revoked_ids).update(revoked_at=now, revoked_by=issuer)
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
    with transaction.atomic():
        credential = credential_lock(credential_id=credential.pk)
        if credential.revoked_at is not None:
            raise ServiceError("The credential is already revoked.", code="credential_already_revoked")
        credential.revoked_at = timezone.now()
        credential.revoked_by = actor.user
        credential.save(update_fields=["revoked_at", "revoked_by"])
        actor.audit(
            action="terminal.credential_revoked",
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


# ---------------------------------------------------------------- staff accounts
#
# Who may do what to a staff account (the operator's staff pages, permission ``manage_staff``):
# - any account of the venue but their own: nobody disables, re-roles or resets themselves, so
#   no one widens or keeps their own access without a second person;
# - never a superuser: those accounts are the installation's (``createsuperuser``), outside the
#   staff pages, so that a staff manager cannot lock out or take over the people who run the
#   system;
# - every role: the staff manager is the venue's administrator of accounts, and each grant is
#   audited with the groups before and after, for the auditor to review.
# Every command locks the account's row, then the audit chain (casino.locking's order).


class UsernameTakenError(ConflictError):
    code = "username_taken"


class InvalidUsernameError(ServiceError):
    code = "invalid_username"


class InvalidPasswordError(ServiceError):
    code = "invalid_password"


class UnknownRoleError(ServiceError):
    code = "unknown_role"


class SelfDisableRefusedError(PermissionRefusedError):
    code = "self_disable_refused"


class SelfRoleGrantRefusedError(PermissionRefusedError):
    code = "self_role_grant_refused"


class SelfPasswordResetRefusedError(PermissionRefusedError):
    code = "self_password_reset_refused"


class SuperuserNotManagedError(PermissionRefusedError):
    code = "superuser_not_managed"


class AccountAlreadyDisabledError(ConflictError):
    code = "account_already_disabled"


class AccountAlreadyEnabledError(ConflictError):
    code = "account_already_enabled"


# Letters and digits that cannot be mistaken for one another when read aloud or copied by hand.
TEMPORARY_PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
TEMPORARY_PASSWORD_GROUPS = 4


def _staff_account_lock(user: User) -> User:
    """The account's row, locked, as read under the lock."""
    locked = row_lock(User.objects.filter(pk=user.pk))
    if locked is None:
        raise NotFoundError(f"No staff account {user.pk}.")
    return locked


def _staff_may_manage(*, actor: Actor, user: User, self_refusal: type[ServiceError]) -> None:
    by = require_staff(actor, "manage_staff")
    if by.pk == user.pk:
        raise self_refusal("You cannot do that to your own account; ask another operator.")
    if user.is_superuser:
        raise SuperuserNotManagedError("Superuser accounts are not managed on the staff pages.")


def _staff_sessions_end(user_id: int) -> int:
    """Delete the account's sessions; returns how many. Sessions are rows of the database session
    store, which holds the user's id only inside the encoded data, so every unexpired session is
    decoded: a venue has tens to hundreds of them. With another session store nothing is deleted;
    a disabled account's session is still refused on its next request (ModelBackend.get_user)."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return 0
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now())
        if session.get_decoded().get(SESSION_KEY) == str(user_id)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)


def staff_create(
    *, username: str, first_name: str, last_name: str, role: str, password: str, actor: Actor
) -> User:
    """Create a staff account with one role and an initial password, which the new member must
    change at their first login when a person (not the system) created the account.

    Needs ``manage_staff``. The username is unique regardless of case; the password must pass
    Django's password validators (``AUTH_PASSWORD_VALIDATORS``, which compare it with the names
    given). Writes the user, its role (``staff_role_assign``, audited on its own) and a
    ``staff.created`` record. Raises ``permission_denied``, ``invalid_username``,
    ``username_taken``, ``unknown_role``, ``invalid_password`` (``details["messages"]``: the
    validators' messages).
    """
    require_staff(actor, "manage_staff")
    username = (username or "").strip()
    first_name = (first_name or "").strip()[:150]
    last_name = (last_name or "").strip()[:150]
    try:
        UnicodeUsernameValidator()(username)
        if not username or len(username) > 150:
            raise ValidationError("length")
    except ValidationError as error:
        raise InvalidUsernameError(
            "A username is 1 to 150 letters, digits and @ . + - _ characters."
        ) from error
    if role not in ROLE_PERMISSIONS:
        raise UnknownRoleError(f"unknown role {role!r}")
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTakenError(f"The username {username} is taken.")
    candidate = User(username=username, first_name=first_name, last_name=last_name)
    try:
        validate_password(password, user=candidate)
    except ValidationError as error:
        raise InvalidPasswordError(" ".join(error.messages), messages=list(error.messages)) from error
    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    username=username, password=password, first_name=first_name, last_name=last_name
                )
        except IntegrityError as error:
            raise UsernameTakenError(f"The username {username} is taken.") from error
        actor.audit(
            action="staff.created",
            object_type="auth.user",
            object_id=user.pk,
            after={"username": username, "first_name": first_name, "last_name": last_name, "role": role},
        )
        staff_role_assign(user=user, role=role, actor=actor)
        _password_change_require(user, required=True)  # the creator knows it
    return user


def staff_disable(*, user: User, reason: str, actor: Actor) -> User:
    """Disable a staff account: it can no longer log in (``staff_login`` refuses it with
    ``account_disabled``), and its sessions end: they are deleted here, and any session left (a
    store that cannot be listed) is refused on its next request, as Django's ModelBackend finds
    no active user for it; deleting them also keeps a later ``staff_enable`` from reviving them.

    Needs ``manage_staff`` and a reason. Locks the account's row, then the audit chain. Raises
    ``permission_denied``, ``self_disable_refused``, ``superuser_not_managed``,
    ``reason_required``, ``account_already_disabled``.
    """
    _staff_may_manage(actor=actor, user=user, self_refusal=SelfDisableRefusedError)
    reason = reason_required(reason, "A reason is required to disable an account.")
    with transaction.atomic():
        locked = _staff_account_lock(user)
        if not locked.is_active:
            raise AccountAlreadyDisabledError(f"The account {locked.username} is disabled already.")
        locked.is_active = False
        locked.save(update_fields=["is_active"])
        sessions_ended = _staff_sessions_end(locked.pk)
        actor.audit(
            action="staff.disabled",
            object_type="auth.user",
            object_id=locked.pk,
            before={"is_active": True},
            after={"is_active": False, "reason": reason, "sessions_ended": sessions_ended},
        )
    return locked


def staff_enable(*, user: User, actor: Actor) -> User:
    """Enable a disabled staff account again (its role and password are as they were).

    Needs ``manage_staff``. Locks the account's row, then the audit chain. Raises
    ``permission_denied``, ``superuser_not_managed``, ``account_already_enabled`` (and
    ``self_disable_refused`` for one's own account, which is active while one uses it).
    """
    _staff_may_manage(actor=actor, user=user, self_refusal=SelfDisableRefusedError)
    with transaction.atomic():
        locked = _staff_account_lock(user)
        if locked.is_active:
            raise AccountAlreadyEnabledError(f"The account {locked.username} is enabled already.")
        locked.is_active = True
        locked.save(update_fields=["is_active"])
        actor.audit(
            action="staff.enabled",
            object_type="auth.user",
            object_id=locked.pk,
            before={"is_active": False},
            after={"is_active": True},
        )
    return locked


def staff_password_reset(*, user: User, actor: Actor) -> str:
    """Give a staff account a new random temporary password and return it (to be shown once; only
    its hash is stored, and the audit record says a reset happened, never the password). The old
    password stops working and the account's sessions end (Django checks each session against a
    hash of the password on every request); at the next login the member must choose their own
    (``staff_password_change``).

    Needs ``manage_staff``. Locks the account's row, then the audit chain. Raises
    ``permission_denied``, ``self_password_reset_refused``, ``superuser_not_managed``.
    """
    _staff_may_manage(actor=actor, user=user, self_refusal=SelfPasswordResetRefusedError)
    password = "-".join(
        "".join(secrets.choice(TEMPORARY_PASSWORD_ALPHABET) for _ in range(4))
        for _ in range(TEMPORARY_PASSWORD_GROUPS)
    )
    with transaction.atomic():
        locked = _staff_account_lock(user)
        locked.set_password(password)
        locked.save(update_fields=["password"])
        _password_change_require(locked, required=True)
        actor.audit(
            action="staff.password_reset",
            object_type="auth.user",
            object_id=locked.pk,
            after={"temporary_password_issued": True},
        )
    return password


def _password_change_require(user: User, *, required: bool) -> None:
    """Whether ``user`` must choose a new password at their next login (their preferences row).
    The caller holds the account's row lock (or has just created the account), which keeps two
    writers of the row apart."""
    if not StaffPreference.objects.filter(user=user).update(password_change_required=required):
        StaffPreference.objects.create(user=user, password_change_required=required)


class WrongPasswordError(PermissionRefusedError):
    code = "wrong_password"


class PasswordsDifferError(ServiceError):
    code = "passwords_differ"
    status = 400


class PasswordUnchangedError(ServiceError):
    code = "password_unchanged"
    status = 400


def staff_password_change(*, user: User, current: str, new: str, repeated: str) -> User:
    """A staff member chooses their own password: the current one (a temporary one after a
    reset) is checked, the new one typed twice must agree, differ from it and pass Django's
    validators. Clears the requirement to change it; the caller keeps the session
    (``update_session_auth_hash``), every other session of the account ends (Django checks each
    against the password's hash). Locks the account's row, then the audit chain; audited
    ``staff.password_changed``, never the password. Raises ``wrong_password``,
    ``passwords_differ``, ``password_unchanged``, ``invalid_password``."""
    if not user.check_password(current or ""):
        raise WrongPasswordError("The current password is not right.")
    if new != repeated:
        raise PasswordsDifferError("The new password and its repetition differ.")
    if new == current:
        raise PasswordUnchangedError("Choose a password other than the current one.")
    try:
        validate_password(new, user=user)
    except ValidationError as error:
        raise InvalidPasswordError(" ".join(error.messages), messages=list(error.messages)) from error
    with transaction.atomic():
        locked = _staff_account_lock(user)
        locked.set_password(new)
        locked.save(update_fields=["password"])
        _password_change_require(locked, required=False)
        audit_append(
            action="staff.password_changed",
            actor=locked,
            object_type="auth.user",
            object_id=locked.pk,
            after={"by_the_member": True},
        )
    user.password = locked.password
    return locked


# ---------------------------------------------------------------- staff preferences


class UnknownLanguageError(ServiceError):
    code = "unknown_language"
    status = 400


def staff_language_set(*, user: User, language: str) -> StaffPreference:
    """Remember the language a staff member chose for their screens (a code of
    ``settings.LANGUAGES``), for every later login on any device. Locks the account's row;
    audited as ``staff.language_set`` when it changes. Raises UnknownLanguageError
    (``unknown_language``) for a code the back office has no catalog for: nothing is written."""
    if language not in dict(settings.LANGUAGES):
        raise UnknownLanguageError(f"Unknown language {language!r}.", language=language)
    with transaction.atomic():
        row_lock(User.objects.filter(pk=user.pk))  # one change of a person's preferences at a time
        preference = StaffPreference.objects.filter(user=user).first()
        before = preference.language if preference else ""
        if preference is None:
            preference = StaffPreference.objects.create(user=user, language=language)
        elif before != language:
            preference.language = language
            preference.save(update_fields=["language", "updated_at"])
        if before != language:
            audit_append(
                action="staff.language_set",
                actor=user,
                object_type="auth.user",
                object_id=user.pk,
                before={"language": before} if before else None,
                after={"language": language},
            )
    return preference
