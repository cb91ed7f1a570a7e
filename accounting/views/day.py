"""The gaming day's page (``/accounting/``): the days to close and their two signatures, the
closed days, and a closed day's reopening with a second person's approval."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import InvalidCountError
from accounting.gaming_days import schedule_of, shift_of
from accounting.selectors import closed_days, gaming_days_to_close
from accounting.services import gaming_day_sign
from accounting.views.common import answered, any_permission, page, staff_casino
from casino.actors import Actor
from casino.errors import ApprovalNotFoundError, ServiceError
from casino.four_eyes import may_decide
from casino.gaming_day_state import (
    gaming_day_reopen_decide,
    gaming_day_reopen_request,
    gaming_day_reopen_requests,
    reopen_request_day,
)
from casino.models import Approval, Casino, Table
from casino.views import HtmxHttpRequest, staff_user

DAY = "accounting/day.html"


def _day_context(request: HttpRequest, casino: Casino) -> dict[str, Any]:
    schedule = schedule_of(casino)
    closed = closed_days(casino)
    requests = gaming_day_reopen_requests(casino.pk)
    return {
        "casino": casino,
        "days": gaming_days_to_close(casino),
        "closed": closed,
        # Days reopen from the latest closed one back: only it may be asked for.
        "reopenable": closed[0].day if closed and not requests else None,
        "reopen_requests": [
            {
                "approval": approval,
                "day": reopen_request_day(approval),
                "may_decide": may_decide(approval=approval, user=request.user),
            }
            for approval in requests
        ],
        "shift": shift_of(schedule, timezone.now()),
        "tables": Table.objects.filter(casino=casino).order_by("name"),
    }


@any_permission("supervise_pit", "operate_cage", "run_table", "view_audit", "view_accounting")
@require_GET
def day(request: HtmxHttpRequest) -> HttpResponse:
    return _day_page(request)


def _day_page(request: HtmxHttpRequest, error: ServiceError | None = None, done: str = "") -> HttpResponse:
    return page(
        request, DAY, "gaming-day", _day_context(request, staff_casino(request)), error=error, done=done
    )


def _day_chosen(request: HttpRequest) -> dt.date:
    try:
        return dt.date.fromisoformat(request.POST.get("day", ""))
    except ValueError:
        raise InvalidCountError(_("Choose the gaming day to close.")) from None


def _day_answered(request: HtmxHttpRequest, error: ServiceError | None, done: str) -> HttpResponse:
    return answered(
        request, error, done, lambda *outcome: _day_page(request, *outcome), reverse("accounting:day")
    )


@any_permission("supervise_pit", "sign_gaming_day")
@require_POST
def day_close(request: HtmxHttpRequest) -> HttpResponse:
    """One of the two signatures of a day's close (a pit boss's, the accounting office's)."""
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        closed = gaming_day_sign(
            casino=casino, day=_day_chosen(request), actor=Actor.staff(staff_user(request))
        )
    except ServiceError as refused:
        error = refused
    else:
        done = (
            _("Signed. The gaming day closes with the second signature.")
            if closed is None
            else _("Gaming day closed.")
        )
    return _day_answered(request, error, done)


@any_permission("sign_gaming_day")
@require_POST
def day_reopen(request: HtmxHttpRequest) -> HttpResponse:
    """Ask for a closed day to be reopened, with a reason: it waits for a second person."""
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        gaming_day_reopen_request(
            casino=casino,
            day=_day_chosen(request),
            actor=Actor.staff(staff_user(request)),
            reason=request.POST.get("reason", ""),
        )
        done = _("Asked. The gaming day reopens when a second person approves.")
    except ServiceError as refused:
        error = refused
    return _day_answered(request, error, done)


@any_permission("sign_gaming_day")
@require_POST
def day_reopen_decide(request: HtmxHttpRequest, approval_id: int) -> HttpResponse:
    """Approve or reject (with a reason) a reopening someone else asked for."""
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    approve = request.POST.get("decision", "") == "approve"
    try:
        if not Approval.objects.filter(pk=approval_id, casino=casino).exists():
            raise ApprovalNotFoundError(_("There is no such reopening in this casino."))
        gaming_day_reopen_decide(
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
        done = _("Gaming day reopened.") if approve else _("Reopening rejected: the gaming day stays closed.")
    except ServiceError as refused:
        error = refused
    return _day_answered(request, error, done)
