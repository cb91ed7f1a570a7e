"""The pit's accounting pages, under ``/accounting/``: the gaming day (close it), a table's
accounting (opening and closing counts, their two signatures, variance and investigations), the
fills-and-credits desk (request, the cage's issue, the table's receipt, void) and the slip report.

Each page is a full page, or its partial for htmx (``Vary: HX-Request``). A command goes through
one service: done, htmx gets the partial again and a plain form post is sent back to the page; a
refusal is the page (or its partial) with the reason in words and the refusal's 4xx status.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import CountNotFoundError, InvalidCountError, SlipNotFoundError
from accounting.gaming_days import schedule_of, shift_of
from accounting.models import CountKind, Slip, SlipKind, TrayCount, VarianceInvestigation
from accounting.selectors import (
    chip_values,
    closed_days,
    denomination_differences,
    gaming_days_to_close,
    investigation_waiting,
    settings_change_waiting,
    settings_of,
    slip_report,
    slip_state,
    slip_steps,
    slip_void_waiting,
    slip_years,
    slips_open,
    slips_recent,
    table_accounting,
)
from accounting.services import (
    accounting_configure,
    accounting_settings_decide,
    gaming_day_sign,
    investigation_resolution_decide,
    investigation_resolve,
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    slip_void_decide,
    tray_count_record,
    tray_count_sign,
)
from casino.actors import Actor
from casino.errors import NotFoundError, ServiceError
from casino.four_eyes import ApprovalNotFoundError, may_decide
from casino.gaming_day_state import (
    gaming_day_reopen_decide,
    gaming_day_reopen_request,
    gaming_day_reopen_requests,
    reopen_request_day,
)
from casino.htmx import htmx_render, htmx_vary
from casino.models import Approval, Casino, Table
from casino.money import amount_minor_parse, money_plain
from casino.refusals import refusal_text
from casino.selectors import casino_for_user
from casino.views import HtmxHttpRequest, staff_table, staff_user

DAY = "accounting/day.html"
TABLE = "accounting/table.html"
DESK = "accounting/desk.html"
REPORT = "accounting/report.html"
SETTINGS = "accounting/settings.html"


def any_permission(*codenames: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Anonymous visitors go to the login page; staff holding none of the permissions get 403."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
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


# ---------------------------------------------------------------- the gaming day


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


# ---------------------------------------------------------------- a table's accounting


def _table_context(table: Table, user: Any) -> dict[str, Any]:
    state = table_accounting(table)
    previous = None
    waiting: Approval | None = None
    if state.investigation is not None:
        previous = denomination_differences(state.investigation.opener, state.investigation.closer)
        waiting = investigation_waiting(state.investigation)
    return {
        "table": table,
        "state": state,
        "chips": chip_values(table.casino),
        "counts": list(reversed(state.counts))[:10],
        "next_kind": CountKind.CLOSER if state.is_open else CountKind.OPENER,
        "differences": previous,
        "resolution_waiting": waiting,
        "may_decide_resolution": waiting is not None and may_decide(approval=waiting, user=user),
        "casino": table.casino,
    }


def _table_page(
    request: HtmxHttpRequest, table: Table, error: ServiceError | None = None, done: str = ""
) -> HttpResponse:
    context = _table_context(table, request.user)
    return page(request, TABLE, "table-accounting", context, error=error, done=done)


@any_permission("supervise_pit", "run_table", "view_accounting")
@require_GET
def table_page(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    return _table_page(request, staff_table(request, table_name))


@any_permission("supervise_pit", "run_table")
@require_POST
def count_record(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    kind = request.POST.get("kind", "")
    try:
        amounts = amounts_read(request, chip_values(table.casino))
        corrects = None
        corrects_id = request.POST.get("corrects", "")
        if corrects_id:
            corrects = (
                TrayCount.objects.filter(table=table, pk=int(corrects_id)).first()
                if corrects_id.isdigit()
                else None
            )
            if corrects is None:
                raise CountNotFoundError(_("No such count of this table."))
        tray_count_record(
            table=table,
            kind=kind,
            amounts=amounts,
            actor=Actor.staff(staff_user(request)),
            corrects=corrects,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = _("Count recorded with your signature: it needs the second one.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


@any_permission("supervise_pit", "run_table")
@require_POST
def count_sign(request: HtmxHttpRequest, table_name: str, count_id: int) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    try:
        count = TrayCount.objects.filter(table=table, pk=count_id).select_related("table__casino").first()
        if count is None:
            raise CountNotFoundError(_("No such count of this table."))
        tray_count_sign(count=count, actor=Actor.staff(staff_user(request)))
    except ServiceError as refused:
        error = refused
    done = _("Count signed.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


def _investigation_of(table: Table, investigation_id: int) -> VarianceInvestigation:
    """The table's investigation ``investigation_id``. Raises ``not_found``."""
    investigation = VarianceInvestigation.objects.filter(table=table, pk=investigation_id).first()
    if investigation is None:
        raise NotFoundError(_("No such investigation at this table."))
    return investigation


@any_permission("supervise_pit")
@require_POST
def investigation_resolve_view(
    request: HtmxHttpRequest, table_name: str, investigation_id: int
) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    try:
        investigation = _investigation_of(table, investigation_id)
        investigation_resolve(
            investigation=investigation,
            note=request.POST.get("note", ""),
            actor=Actor.staff(staff_user(request)),
        )
    except ServiceError as refused:
        error = refused
    done = _("Resolution proposed: it waits for a second person's approval.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


@any_permission("view_accounting")
@require_POST
def investigation_decide_view(
    request: HtmxHttpRequest, table_name: str, investigation_id: int, approval_id: int, decision: str
) -> HttpResponse:
    """A second person approves or rejects (with a reason) a proposed resolution."""
    table = staff_table(request, table_name)
    approve = decision_read(decision)
    error = None
    try:
        investigation = _investigation_of(table, investigation_id)
        investigation_resolution_decide(
            investigation=investigation,
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = (
        _("Investigation resolved: the table may open again.")
        if approve
        else _("Resolution rejected: the investigation stays open.")
    )
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


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
    """The slips in flight, asked for every two seconds: 204 while they have not changed (the
    version the page has), else the section drawn again."""
    context = _open_context(staff_casino(request), request.user)
    if request.GET.get("version") == context["open_version"]:
        return htmx_vary(HttpResponse(status=204))
    return htmx_vary(render(request, "accounting/_open-slips.html", context))


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


# ---------------------------------------------------------------- the casino's settings


def _settings_context(casino: Casino, user: Any) -> dict[str, Any]:
    settings = settings_of(casino)
    waiting = settings_change_waiting(casino)
    return {
        "casino": casino,
        "settings": settings,
        "waiting": waiting,
        "waiting_fields": _settings_change_rows(waiting),
        "may_decide_waiting": waiting is not None and may_decide(approval=waiting, user=user),
        "chips": chip_values(casino),
        "chips_text": ", ".join(money_plain(value) for value in sorted(chip_values(casino))),
        "shifts_text": ", ".join(settings.shift_starts),
        "threshold_text": money_plain(settings.variance_threshold_minor),
        "hold_low_text": _percent_text(settings.hold_band_low_bp),
        "hold_high_text": _percent_text(settings.hold_band_high_bp),
        "mtl_text": money_plain(settings.mtl_threshold_minor),
        "large_cash_text": money_plain(settings.large_cash_threshold_minor),
    }


SETTINGS_LABELS = {
    "variance_threshold_minor": gettext_lazy("Opener variance threshold"),
    "hold_band_low_bp": gettext_lazy("Lowest hold expected, in percent"),
    "hold_band_high_bp": gettext_lazy("Highest hold expected, in percent"),
    "hold_band_sigmas": gettext_lazy("Statistical band (standard deviations)"),
    "mtl_threshold_minor": gettext_lazy("Multiple-transaction log threshold"),
    "large_cash_threshold_minor": gettext_lazy("Large-cash report threshold"),
}


def _setting_text(name: str, value: int) -> str:
    if name.endswith("_bp"):
        return _percent_text(value)
    if name.endswith("_minor"):
        return money_plain(value)
    return str(value)


def _settings_change_rows(waiting: Approval | None) -> list[dict[str, str]]:
    """A waiting change of the settings, field by field: its name, the value before and after."""
    if waiting is None:
        return []
    before, after = waiting.before or {}, waiting.after or {}
    return [
        {
            "field": name,
            "label": str(SETTINGS_LABELS[name]),
            "before": _setting_text(name, int(before[name])),
            "after": _setting_text(name, int(after[name])),
        }
        for name in SETTINGS_LABELS
        if name in after and name in before
    ]


def _percent_text(basis_points: int) -> str:
    sign = "-" if basis_points < 0 else ""
    return f"{sign}{abs(basis_points) // 100}.{abs(basis_points) % 100:02d}"


def _basis_points(text: str, field: str) -> int | None:
    """A percentage as typed (``12.5``, ``12,5``, ``-3``) in basis points; blank: unchanged."""
    text = text.strip().replace(",", ".").rstrip("%").strip()
    if not text:
        return None
    try:
        value = Decimal(text) * 100
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value != value.to_integral_value():
        raise ServiceError(_("A percentage such as 12.5."), code="invalid_settings", field=field)
    return int(value)


def _whole(text: str, field: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        raise ServiceError(_("A whole number such as 3."), code="invalid_settings", field=field)
    return int(text)


def _settings_page(
    request: HtmxHttpRequest, error: ServiceError | None = None, done: str = ""
) -> HttpResponse:
    context = _settings_context(staff_casino(request), request.user)
    return page(request, SETTINGS, "accounting-settings", context, error=error, done=done)


@any_permission("configure_tables", "sign_gaming_day")
@require_GET
def settings_page(request: HtmxHttpRequest) -> HttpResponse:
    """The settings: their form for the operator, and a change waiting for the accounting
    office's approval, with its decision for those who may take it."""
    return _settings_page(request)


@any_permission("sign_gaming_day")
@require_POST
def settings_decide(request: HtmxHttpRequest, approval_id: int, decision: str) -> HttpResponse:
    """The accounting office approves or rejects (with a reason) a change that weakens a control."""
    approve = decision_read(decision)
    error: ServiceError | None = None
    try:
        accounting_settings_decide(
            casino=staff_casino(request),
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = _("Change approved: the settings apply.") if approve else _("Change rejected: the settings stay.")
    back = reverse("accounting:settings")
    return answered(request, error, done, lambda *outcome: _settings_page(request, *outcome), back)


@any_permission("configure_tables")
@require_POST
def settings_change(request: HtmxHttpRequest) -> HttpResponse:
    """The chip set (values typed as amounts, separated by spaces), the shift start times, the
    variance threshold, the hold band and the cash transaction log's thresholds, in one form and
    one service (a field left blank stays as it is)."""
    casino = staff_casino(request)
    error: ServiceError | None = None
    try:
        chips = [
            _amount(text)
            for text in request.POST.get("chips", "").replace(";", " ").replace(", ", " ").split()
            if text.strip(",")
        ]
        threshold_text = request.POST.get("threshold", "").strip()
        threshold = 0 if threshold_text in ("", "0", "0.00") else _amount(threshold_text)
        shifts = [part for part in request.POST.get("shifts", "").replace(",", " ").split() if part]
        amounts = {
            name: _amount(request.POST[field]) if request.POST.get(field, "").strip() else None
            for name, field in (("mtl_threshold_minor", "mtl"), ("large_cash_threshold_minor", "large_cash"))
        }
        change = accounting_configure(
            casino=casino,
            chip_values_minor=chips,
            shift_starts=shifts,
            variance_threshold_minor=threshold,
            hold_band_low_bp=_basis_points(request.POST.get("hold_low", ""), "hold_band_low_bp"),
            hold_band_high_bp=_basis_points(request.POST.get("hold_high", ""), "hold_band_high_bp"),
            hold_band_sigmas=_whole(request.POST.get("sigmas", ""), "hold_band_sigmas"),
            **amounts,
            actor=Actor.staff(staff_user(request)),
        )
    except ServiceError as refused:
        error = refused
        change = None
    done = _("Accounting settings saved.")
    if change is not None and change.waiting is not None:
        done = _(
            "Accounting settings saved, but for the change that weakens a control: it waits for the "
            "accounting office's approval."
        )
    back = reverse("accounting:settings")
    return answered(request, error, done, lambda *outcome: _settings_page(request, *outcome), back)


def _amount(text: str) -> int:
    try:
        return amount_minor_parse(text.strip(","))
    except forms.ValidationError as error:
        raise InvalidCountError(" ".join(error.messages)) from error
