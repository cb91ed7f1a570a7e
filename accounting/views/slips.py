"""The fills-and-credits desk (``/accounting/slips/``): request a slip, the cage's issue, the
table's receipt, a void and its approval by a second person, the slips in flight redrawn as they
change (on each hint of the casino's desk that the page's stream passes on, ``casino/streams.py``,
and every 15 seconds in any case); and the slip report of a year (every number, the voids, the
unused numbers)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import InvalidCountError, SlipNotFoundError
from accounting.gaming_days import schedule_of
from accounting.models import Slip, SlipKind
from accounting.selectors import (
    chip_values,
    slip_report,
    slip_state,
    slip_steps,
    slip_void_waiting,
    slip_years,
    slips_open,
    slips_recent,
)
from accounting.services import slip_issue, slip_receive, slip_request, slip_void, slip_void_decide
from accounting.views.common import amounts_read, answered, any_permission, decision_read, page, staff_casino
from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.hints import desk_topic, queue_topic
from casino.htmx import htmx_vary
from casino.models import Casino, Table
from casino.streams import hint_stream
from casino.views import HtmxHttpRequest, staff_user

DESK = "accounting/desk.html"
REPORT = "accounting/report.html"


# ---------------------------------------------------------------- fills and credits


def _slip_rows(slips: list[Slip], user: Any = None) -> list[dict[str, Any]]:
    rows = []
    for slip in slips:
        waiting = slip_void_waiting(slip)
        rows.append(
            {
                "slip": slip,
                "state": slip_state(slip),
                "steps": slip_steps(slip),
                "void_waiting": waiting,
                "may_decide_void": waiting is not None
                and user is not None
                and may_decide(approval=waiting, user=user),
            }
        )
    return rows


def _open_context(casino: Casino, user: Any) -> dict[str, Any]:
    rows = _slip_rows(slips_open(casino), user)
    parts = [(row["slip"].pk, row["state"], row["may_decide_void"]) for row in rows]
    return {
        "casino": casino,
        "open_slips": rows,
        "open_version": hashlib.sha256(repr(parts).encode()).hexdigest()[:24],
    }


def _desk_context(casino: Casino, user: Any) -> dict[str, Any]:
    return {
        **_open_context(casino, user),
        "tables": Table.objects.filter(casino=casino).order_by("name"),
        "chips": chip_values(casino),
        "recent": _slip_rows(slips_recent(casino, limit=10)),
        "kinds": SlipKind.choices,
        "stream_url": reverse("accounting:desk_stream"),
    }


def _desk_page(request: HtmxHttpRequest, error: ServiceError | None = None, done: str = "") -> HttpResponse:
    context = _desk_context(staff_casino(request), request.user)
    return page(request, DESK, "desk", context, error=error, done=done)


DESK_PERMISSIONS = ("supervise_pit", "operate_cage", "run_table", "view_accounting")


@any_permission(*DESK_PERMISSIONS)
@require_GET
def desk(request: HtmxHttpRequest) -> HttpResponse:
    return _desk_page(request)


@any_permission(*DESK_PERMISSIONS)
@require_GET
def desk_live(request: HtmxHttpRequest) -> HttpResponse:
    """The slips in flight, asked for on each hint of the desk and every 15 seconds: 204 while
    they have not changed (the version the page has), else the section drawn again."""
    context = _open_context(staff_casino(request), request.user)
    if request.GET.get("version") == context["open_version"]:
        return htmx_vary(HttpResponse(status=204))
    return htmx_vary(render(request, "accounting/_open-slips.html", context))


@any_permission(*DESK_PERMISSIONS)
@require_GET
def desk_stream(request: HtmxHttpRequest) -> HttpResponseBase:
    """The desk's stream (``casino/streams.py``): hints of the staff member's casino's desk (a slip
    moved) and queue (the header's count)."""
    casino_id = staff_casino(request).pk
    return hint_stream(request, {desk_topic(casino_id): "desk", queue_topic(casino_id): "queue"})


@any_permission("supervise_pit")
@require_POST
def slip_request_view(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    error = None
    try:
        table = Table.objects.filter(casino=casino, name=request.POST.get("table", "")).first()
        if table is None:
            raise InvalidCountError(_("Choose a table of this casino."))
        slip = slip_request(
            table=table,
            kind=request.POST.get("kind", ""),
            amounts=amounts_read(request, chip_values(casino)),
            actor=Actor.staff(staff_user(request)),
        )
    except ServiceError as refused:
        error = refused
        done = ""
    else:
        done = _("Slip %(number)s requested.") % {"number": f"{slip.year}-{slip.number}"}
    return answered(
        request, error, done, lambda *outcome: _desk_page(request, *outcome), reverse("accounting:desk")
    )


def _slip_of(casino: Casino, slip_id: int) -> Slip:
    """The casino's slip ``slip_id``. Raises ``slip_not_found``."""
    slip = Slip.objects.select_related("table__casino", "casino").filter(casino=casino, pk=slip_id).first()
    if slip is None:
        raise SlipNotFoundError(_("No such slip in this casino."))
    return slip


SLIP_STEPS: dict[str, Callable[..., Any]] = {
    "issue": lambda slip, actor, reason: slip_issue(slip=slip, actor=actor),
    "receive": lambda slip, actor, reason: slip_receive(slip=slip, actor=actor),
    "void": lambda slip, actor, reason: slip_void(slip=slip, actor=actor, reason=reason),
}


@any_permission("supervise_pit", "operate_cage", "run_table")
@require_POST
def slip_step(request: HtmxHttpRequest, slip_id: int, step: str) -> HttpResponse:
    casino = staff_casino(request)
    error = None
    done = ""
    try:
        slip = _slip_of(casino, slip_id)
        if step not in SLIP_STEPS:
            raise InvalidCountError(_("No such step of a slip."))
        signature = SLIP_STEPS[step](slip, Actor.staff(staff_user(request)), request.POST.get("reason", ""))
        number = f"{slip.year}-{slip.number}"
        done = {
            "issued": _("Slip %(number)s issued: the chips moved in the ledger."),
            "received": _("Slip %(number)s received at the table."),
            "void_proposed": _("Void of slip %(number)s proposed: it waits for a second person's approval."),
        }[signature.step] % {"number": number}
    except ServiceError as refused:
        error = refused
    return answered(
        request, error, done, lambda *outcome: _desk_page(request, *outcome), reverse("accounting:desk")
    )


@any_permission("view_accounting")
@require_POST
def slip_void_decide_view(
    request: HtmxHttpRequest, slip_id: int, approval_id: int, decision: str
) -> HttpResponse:
    """A second person approves or rejects (with a reason) a slip's proposed void."""
    casino = staff_casino(request)
    approve = decision_read(decision)
    error = None
    done = ""
    try:
        slip = _slip_of(casino, slip_id)
        slip_void_decide(
            slip=slip,
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
        number = f"{slip.year}-{slip.number}"
        done = (
            _("Slip %(number)s voided.")
            if approve
            else _("Void of slip %(number)s rejected: the slip stands.")
        ) % {"number": number}
    except ServiceError as refused:
        error = refused
    return answered(
        request, error, done, lambda *outcome: _desk_page(request, *outcome), reverse("accounting:desk")
    )


# ---------------------------------------------------------------- the slip report


@any_permission("supervise_pit", "operate_cage", "view_audit")
@require_GET
def report(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    years = slip_years(casino)
    this_year = timezone.now().astimezone(schedule_of(casino).zone).year
    try:
        year = int(request.GET.get("year") or (years[0] if years else this_year))
    except ValueError:
        year = this_year
    context = {"casino": casino, "report": slip_report(casino, year), "years": years or [this_year]}
    return page(request, REPORT, "slip-report", context)
