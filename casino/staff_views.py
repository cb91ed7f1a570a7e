"""The operator's staff pages ``/operator/staff/``: the venue's staff accounts (role, enabled or
disabled, login lock, last login), a new account, and on each account's page its commands:
disable, enable, unlock, a role, a temporary password (shown once).

Every command is one service of ``casino.services`` (they check ``manage_staff``, refuse one's own
account and superusers, and audit). Without htmx a command answers with a redirect to the account's
page, or the page itself with the refusal (4xx); with htmx, the account's section redrawn with what
was done or refused. ``Vary: HX-Request`` on every answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from casino.actors import Actor
from casino.errors import ServiceError
from casino.htmx import htmx_render, htmx_vary
from casino.models import StaffLoginState
from casino.roles import ROLE_LABELS, ROLE_ORDER, ROLE_PERMISSIONS
from casino.services import (
    staff_create,
    staff_disable,
    staff_enable,
    staff_password_reset,
    staff_role_assign,
    staff_unlock,
)
from casino.views import HtmxHttpRequest, staff_page, staff_user

if TYPE_CHECKING:
    from django.contrib.auth.models import User

LIST = "casino/staff/list.html"
MEMBER = "casino/staff/member.html"
PASSWORD = "casino/staff/password.html"
ACTIONS = ("disable", "enable", "unlock", "role")


def _accounts() -> QuerySet[User]:
    """The venue's staff accounts (superusers are the installation's, not on these pages), with
    their login state and role groups in two queries."""
    return (
        get_user_model()
        .objects.filter(is_superuser=False)
        .select_related("login_state")
        .prefetch_related("groups")
        .order_by("username")
    )


def _role(user: User) -> str:
    names = {group.name for group in user.groups.all()}
    return next((name for name in ROLE_ORDER if name in names), "")


def _locked_until(user: User) -> Any:
    try:
        state: StaffLoginState = user.login_state
    except StaffLoginState.DoesNotExist:
        return None
    return state.locked_until if state.is_locked(timezone.now()) else None


def _row(user: User) -> dict[str, Any]:
    role = _role(user)
    return {
        "user": user,
        "role": role,
        "role_label": ROLE_LABELS.get(role, ""),
        "locked_until": _locked_until(user),
    }


def _roles() -> list[tuple[str, str]]:
    return [(role, str(ROLE_LABELS[role])) for role in ROLE_PERMISSIONS]


def _list_context(**extra: Any) -> dict[str, Any]:
    return {"rows": [_row(user) for user in _accounts()], "roles": _roles(), "form": {}, **extra}


def _member(user_id: int) -> User:
    user = _accounts().filter(pk=user_id).first()
    if user is None:
        raise Http404(f"no staff account {user_id}")
    return user


def _member_context(user: User, **extra: Any) -> dict[str, Any]:
    return {"row": _row(user), "roles": _roles(), "is_self": False, **extra}


@staff_page("manage_staff")
@require_GET
def staff_list(request: HtmxHttpRequest) -> HttpResponse:
    return htmx_render(request, LIST, _list_context(), partial="staff")


@staff_page("manage_staff")
@require_POST
def staff_create_view(request: HtmxHttpRequest) -> HttpResponse:
    form = {
        "username": request.POST.get("username", "").strip(),
        "first_name": request.POST.get("first_name", "").strip(),
        "last_name": request.POST.get("last_name", "").strip(),
        "role": request.POST.get("role", ""),
    }
    try:
        user = staff_create(
            **form, password=request.POST.get("password", ""), actor=Actor.staff(staff_user(request))
        )
    except ServiceError as error:
        # The form comes back with what was typed (never the password) and the refusal.
        context = _list_context(error=error, form=form)
        return htmx_render(request, LIST, context, partial="staff", status=error.status)
    done = _("Account %(username)s created.") % {"username": user.username}
    if request.htmx:
        return htmx_render(request, LIST, _list_context(done=done, created=user), partial="staff")
    messages.success(request, done)
    return htmx_vary(redirect("casino:staff_member", user_id=user.pk))


@staff_page("manage_staff")
@require_GET
def staff_member(request: HtmxHttpRequest, user_id: int) -> HttpResponse:
    user = _member(user_id)
    context = _member_context(user, is_self=user.pk == request.user.pk)
    return htmx_render(request, MEMBER, context, partial="member")


def _perform(request: HtmxHttpRequest, user: User, action: str) -> str:
    """Run the one service of ``action``; returns what was done, in words."""
    actor = Actor.staff(staff_user(request))
    if action == "disable":
        staff_disable(user=user, reason=request.POST.get("reason", ""), actor=actor)
        return _("Account %(username)s disabled; its sessions have ended.") % {"username": user.username}
    if action == "enable":
        staff_enable(user=user, actor=actor)
        return _("Account %(username)s enabled.") % {"username": user.username}
    if action == "unlock":
        staff_unlock(user=user, actor=actor)
        return _("Account %(username)s unlocked.") % {"username": user.username}
    role = request.POST.get("role", "")
    staff_role_assign(user=user, role=role, actor=actor)
    return _("%(username)s is now %(role)s.") % {
        "username": user.username,
        "role": ROLE_LABELS.get(role, role),
    }


@staff_page("manage_staff")
@require_POST
def staff_member_action(request: HtmxHttpRequest, user_id: int, action: str) -> HttpResponse:
    if action not in ACTIONS:
        raise Http404(f"no staff command {action!r}")
    user = _member(user_id)
    try:
        done = _perform(request, user, action)
    except ServiceError as error:
        context = _member_context(_member(user_id), error=error, is_self=user.pk == request.user.pk)
        return htmx_render(request, MEMBER, context, partial="member", status=error.status)
    if request.htmx:
        context = _member_context(_member(user_id), done=done, is_self=user.pk == request.user.pk)
        return htmx_render(request, MEMBER, context, partial="member")
    messages.success(request, done)
    return htmx_vary(redirect("casino:staff_member", user_id=user.pk))


@staff_page("manage_staff")
@require_POST
def staff_password_reset_view(request: HtmxHttpRequest, user_id: int) -> HttpResponse:
    user = _member(user_id)
    try:
        password = staff_password_reset(user=user, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        context = _member_context(user, error=error, is_self=user.pk == request.user.pk)
        return htmx_render(request, MEMBER, context, partial="member", status=error.status)
    # The password is on this response only (never stored in clear, never cached).
    response = htmx_render(
        request, PASSWORD, {"member": user, "password": password}, partial="temporary-password"
    )
    add_never_cache_headers(response)
    return response
