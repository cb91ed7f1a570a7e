"""Staff login: a login checked, an account locked after repeated failures, and unlocked."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.audit import audit_append
from casino.errors import AccountDisabledError, AccountLockedError, LoginRefusedError
from casino.locking import staff_login_state_lock
from casino.models import StaffLoginState

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()


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
