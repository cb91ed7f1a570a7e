"""Staff pages: login, the landing page of each role, terminals and the audit trail."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from casino.actors import Actor
from casino.errors import AccountLockedError, LoginRefusedError, NotFoundError, ServiceError
from casino.middleware import (
    STAFF_PASSWORD_CHANGE_SESSION_KEY,
    language_cookie_set,
    staff_language_at_login,
    staff_password_change_at_login,
    staff_venue_at_login,
)
from casino.models import Table, Terminal, TerminalCredential
from casino.refusals import refusal_text
from casino.roles import ROLE_HOME, role_of
from casino.selectors import (
    access_table,
    casino_for_user,
    casino_id_for_user,
    terminal_credentials_valid,
    terminal_list,
)
from casino.services import (
    staff_login,
    staff_password_change,
    terminal_credential_issue,
    terminal_credential_revoke,
    terminal_register,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class HtmxHttpRequest(HttpRequest):
    """A request through django_htmx's middleware (in MIDDLEWARE), which sets ``request.htmx``."""

    htmx: HtmxDetails


AnyResponse = TypeVar("AnyResponse", bound=HttpResponseBase)


def staff_user(request: HttpRequest) -> User:
    """The staff member signed in, for a page behind ``staff_page`` (login_required): never anonymous
    there, which is checked here rather than assumed."""
    user = request.user
    if isinstance(user, AnonymousUser):
        raise PermissionDenied
    return user


def staff_page(permission: str) -> Callable[[Callable[..., AnyResponse]], Callable[..., AnyResponse]]:
    """Anonymous visitors go to the login page; staff without the permission get 403 (a page, a
    partial, or a page's stream)."""

    def decorate(view: Callable[..., AnyResponse]) -> Callable[..., AnyResponse]:
        return login_required(permission_required(f"casino.{permission}", raise_exception=True)(view))

    return decorate


@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated and request.method == "GET":
        return redirect("casino:home")
    context: dict[str, Any] = {"username": ""}
    status = 200
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        password = request.POST.get("password", "")
        context["username"] = username
        try:
            user = staff_login(request=request, username=username, password=password)
        except AccountLockedError as error:
            context.update(error=refusal_text(error), error_code=error.code)
            status = 423
        except LoginRefusedError as error:
            context.update(error=refusal_text(error), error_code=error.code)
            status = 401
        else:
            login(request, user)
            chosen = staff_language_at_login(request, user)
            staff_venue_at_login(request, user)
            must_change = staff_password_change_at_login(request, user)
            response = redirect("casino:password_change" if must_change else "casino:home")
            if chosen:
                language_cookie_set(response, chosen)  # the login page after logout speaks it too
            return response
    return render(request, "casino/login.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def password_change_view(request: HttpRequest) -> HttpResponse:
    """A member chooses their own password: at their first login, after a reset (the session
    leads every page here until it is done), or whenever they like from the header's link."""
    required = bool(request.session.get(STAFF_PASSWORD_CHANGE_SESSION_KEY))
    context: dict[str, Any] = {"required": required}
    status = 200
    if request.method == "POST":
        try:
            user = staff_password_change(
                user=staff_user(request),
                current=request.POST.get("current", ""),
                new=request.POST.get("new", ""),
                repeated=request.POST.get("repeated", ""),
            )
        except ServiceError as error:
            context.update(
                error=refusal_text(error),
                error_code=error.code,
                messages_list=error.details.get("messages", []),
            )
            status = error.status
        else:
            update_session_auth_hash(request, user)  # this session stays; the others end
            request.session.pop(STAFF_PASSWORD_CHANGE_SESSION_KEY, None)
            messages.success(request, _("Your password is changed."))
            return redirect("casino:home")
    return render(request, "casino/password.html", context, status=status)


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect("casino:login")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    role = role_of(request.user)
    if role in ROLE_HOME:
        return redirect(ROLE_HOME[role])
    if request.user.is_superuser:
        return redirect("admin:index")
    return render(request, "casino/no_role.html", status=403)


def _tables(request: HttpRequest) -> QuerySet[Table]:
    casino = casino_for_user(request.user)
    return Table.objects.filter(casino=casino).select_related("pit", "rule_set").order_by("name")


@staff_page("run_table")
def dealer_home(request: HttpRequest) -> HttpResponse:
    return render(request, "casino/dealer_home.html", {"tables": _tables(request)})


@staff_page("manage_terminals")
@require_http_methods(["GET", "POST"])
def terminals(request: HttpRequest) -> HttpResponse:
    casino = casino_for_user(request.user)
    context: dict[str, Any] = {"tables": _tables(request)}
    if request.method == "POST" and casino is not None:
        table_id = request.POST.get("table") or None
        table = get_object_or_404(Table, pk=table_id, casino=casino) if table_id else None
        try:
            terminal = terminal_register(
                casino=casino,
                name=request.POST.get("name", "").strip(),
                kind=request.POST.get("kind", ""),
                table=table,
                actor=Actor.staff(staff_user(request)),
            )
        except ServiceError as error:
            messages.error(request, refusal_text(error))
        else:
            messages.success(request, _("Terminal %(name)s registered.") % {"name": terminal.name})
    context["terminals"] = terminal_list(casino=casino) if casino else []
    return render(request, "casino/terminals.html", context)


@staff_page("manage_terminals")
@require_POST
def terminal_credential_issue_view(request: HttpRequest, terminal_id: int) -> HttpResponse:
    casino = casino_for_user(request.user)
    terminal = get_object_or_404(casino.terminals if casino else Terminal.objects.none(), pk=terminal_id)
    try:
        credential, token = terminal_credential_issue(
            terminal=terminal,
            actor=Actor.staff(staff_user(request)),
            keep_earlier=request.POST.get("keep_earlier") == "on",
        )
    except ServiceError as error:
        messages.error(request, refusal_text(error))
        return redirect("casino:terminals")
    # The token is shown on this response only; it is not stored anywhere in clear.
    return render(
        request,
        "casino/terminal_token.html",
        {
            "terminal": terminal,
            "credential": credential,
            "token": token,
            "others_valid": terminal_credentials_valid(terminal_id=terminal.pk).exclude(pk=credential.pk),
        },
    )


@staff_page("manage_terminals")
@require_POST
def terminal_credential_revoke_view(request: HttpRequest, credential_id: int) -> HttpResponse:
    casino = casino_for_user(request.user)
    credential = get_object_or_404(TerminalCredential, pk=credential_id, terminal__casino=casino)
    try:
        terminal_credential_revoke(credential=credential, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        messages.error(request, refusal_text(error))
    else:
        messages.success(request, _("Credential %(prefix)s… revoked.") % {"prefix": credential.token_prefix})
    return redirect("casino:terminals")


# ----------------------------------------------------------------- scoping of the staff pages


def staff_casino_id(request: HttpRequest) -> int:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino.pk


def staff_table(request: HttpRequest, table_name: str, tables: QuerySet[Table] | None = None) -> Table:
    """The table named ``table_name`` (or with that id) in the staff member's casino (of
    ``tables`` when given), read in one statement with its casino; 404 otherwise."""
    try:
        return access_table(table_id=table_name, casino_id=casino_id_for_user(request.user), tables=tables)
    except NotFoundError as error:
        raise Http404(error.message) from error
