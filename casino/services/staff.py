"""Staff accounts: the roles and their permissions, an account created with one role, disabled,
enabled, its password reset by an operator or changed by its member, its language remembered."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.audit import audit_append
from casino.errors import (
    AccountAlreadyDisabledError,
    AccountAlreadyEnabledError,
    InvalidPasswordError,
    InvalidUsernameError,
    NotFoundError,
    PasswordsDifferError,
    PasswordUnchangedError,
    SelfDisableRefusedError,
    SelfPasswordResetRefusedError,
    SelfRoleGrantRefusedError,
    ServiceError,
    SuperuserNotManagedError,
    UnknownLanguageError,
    UnknownRoleError,
    UsernameTakenError,
    WrongPasswordError,
    reason_required,
)
from casino.locking import row_lock
from casino.models import StaffPreference
from casino.roles import ROLE_PERMISSIONS

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()


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
        raise UnknownRoleError(f"unknown role {role!r}")
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
