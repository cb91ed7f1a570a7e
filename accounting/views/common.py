"""What the accounting pages share: the permission check (any of several), the staff member's
casino, the page or its partial with the outcome of a command, the answer after a command, and
the reading of a decision and of amounts per chip value from the form."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect

from accounting.errors import InvalidCountError
from casino.errors import ServiceError
from casino.htmx import htmx_render
from casino.models import Casino
from casino.money import amount_minor_parse
from casino.refusals import refusal_text
from casino.selectors import casino_for_user
from casino.views import AnyResponse, HtmxHttpRequest


def any_permission(*codenames: str) -> Callable[[Callable[..., AnyResponse]], Callable[..., AnyResponse]]:
    """Anonymous visitors go to the login page; staff holding none of the permissions get 403 (a
    page, a partial, or a page's stream)."""

    def decorate(view: Callable[..., AnyResponse]) -> Callable[..., AnyResponse]:
        @functools.wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> AnyResponse:
            if not any(request.user.has_perm(f"casino.{codename}") for codename in codenames):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return login_required(checked)

    return decorate


def staff_casino(request: HttpRequest) -> Casino:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino


def page(
    request: HtmxHttpRequest,
    template: str,
    partial: str,
    context: dict[str, Any],
    *,
    error: ServiceError | None = None,
    done: str = "",
) -> HttpResponse:
    """The page, or its partial for htmx, with the refusal (and its status) or what was done."""
    context = {**context, "error": error, "error_text": refusal_text(error) if error else "", "done": done}
    typed = request.POST if error is not None and request.method == "POST" else {}
    context["amount_fields"] = [(chip, typed.get(f"amount-{chip}", "")) for chip in context.get("chips", [])]
    return htmx_render(request, template, context, partial=partial, status=error.status if error else 200)


def answered(
    request: HtmxHttpRequest,
    error: ServiceError | None,
    done: str,
    again: Callable[[ServiceError | None, str], HttpResponse],
    back: str,
) -> HttpResponse:
    """After a command: a refusal, or htmx, gets the page again with the outcome (``again``);
    a plain post that was done is sent back to ``back`` (the message shows there)."""
    if error is None and not request.htmx:
        messages.success(request, done)
        return redirect(back)
    return again(error, "" if error else done)


DECISIONS = {"approve": True, "reject": False}


def decision_read(decision: str) -> bool:
    """``approve`` or ``reject`` from the URL; anything else is no page."""
    if decision not in DECISIONS:
        raise Http404("no such decision")
    return DECISIONS[decision]


def amounts_read(request: HttpRequest, values: list[int]) -> dict[int, int]:
    """The amounts per chip value typed in ``amount-<value>`` fields (blank or 0: none), as
    minor units by ``amount_minor_parse``. Raises ``invalid_count`` with the field's problem."""
    amounts: dict[int, int] = {}
    for value in values:
        text = request.POST.get(f"amount-{value}", "").strip()
        if not text:
            continue
        try:
            amount = amount_minor_parse(text, allow_zero=True)
        except forms.ValidationError as error:
            raise InvalidCountError(" ".join(error.messages), value=value) from error
        if amount:
            amounts[value] = amount
    return amounts
