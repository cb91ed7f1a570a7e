"""The drop, win and hold pages under ``/accounting/``: the drop desk (buy-ins at the table, drop
box counts and their second signature), win and hold per table with its charts, the hold alerts
(resolve one, run the check now) and the three table reports as a page, a CSV or a PDF.

The shape of ``accounting/views/``: each page checks the permission and the casino, a command
goes through one service, a plain form post is sent back to the page (htmx gets the section
again), a refusal is the page with the reason in words and its 4xx status.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_POST

from accounting.documents import Report, report_csv, report_pdf
from accounting.errors import (
    DropCountNotFoundError,
    HoldAlertNotFoundError,
    InvalidBuyInError,
    InvalidShiftError,
)
from accounting.gaming_days import schedule_of, shift_of, shifts_of_day
from accounting.hold import hold_check
from accounting.models import (
    DropCount,
    DropSignatureRole,
    HoldAlert,
    HoldAlertKind,
    HoldAlertResolution,
    TableBuyIn,
)
from accounting.reports import day_report, day_state_notes, master_report, shift_report
from accounting.selectors import current_gaming_day, settings_of
from accounting.services_drop import (
    drop_count_record,
    drop_count_sign,
    hold_alert_resolve,
    table_buy_in_record,
)
from accounting.views.common import answered, any_permission, page, staff_casino
from accounting.win import month_start, table_records
from accounting.win_charts import day_chart
from casino.actors import Actor
from casino.errors import ServiceError
from casino.htmx import htmx_vary
from casino.models import Casino, Table
from casino.money import amount_minor_parse
from casino.views import HtmxHttpRequest, staff_user

DROP = "accounting/drop.html"
WIN = "accounting/win.html"
ALERTS = "accounting/hold-alerts.html"
TABLE_REPORT = "accounting/table-report.html"

DROP_PERMISSIONS = ("run_table", "supervise_pit", "operate_cage", "sign_gaming_day", "view_accounting")

# The words of the two signatures of a drop count and of the two kinds of hold alert.
DROP_ROLE_LABELS: dict[str, Promise] = {
    DropSignatureRole.COUNT_TEAM: gettext_lazy("count team"),
    DropSignatureRole.VERIFIER: gettext_lazy("verifier"),
}
ALERT_KIND_LABELS: dict[str, Promise] = {
    HoldAlertKind.FIXED_BAND: gettext_lazy("Hold outside the fixed band"),
    HoldAlertKind.STATISTICAL: gettext_lazy("Win far from its expectation"),
}


def _day_asked(request: HtmxHttpRequest, casino: Casino) -> dt.date:
    """The gaming day of ``?day=YYYY-MM-DD``, the current one when it is missing or not a date."""
    try:
        return dt.date.fromisoformat(request.GET.get("day", "") or request.POST.get("day", ""))
    except ValueError:
        return current_gaming_day(casino)


def _amount(text: str, *, allow_zero: bool = False) -> int:
    try:
        return amount_minor_parse(text, allow_zero=allow_zero)
    except forms.ValidationError as error:
        raise InvalidBuyInError(" ".join(error.messages)) from error


def _table_of(casino: Casino, name: str) -> Table:
    table = Table.objects.select_related("casino").filter(casino=casino, name=name).first()
    if table is None:
        raise InvalidBuyInError(_("Choose a table of this casino."))
    return table


# ---------------------------------------------------------------- the drop desk


def _drop_context(casino: Casino) -> dict[str, Any]:
    day = current_gaming_day(casino)
    schedule = schedule_of(casino)
    now = timezone.now()
    shifts = [entry for entry in shifts_of_day(schedule, day) if entry.starts_at <= now]
    yesterday = day - dt.timedelta(days=1)
    counts = list(
        DropCount.objects.filter(table__casino=casino, gaming_day__gte=yesterday)
        .select_related("table", "counted_by", "corrects")
        .prefetch_related("signatures__signer")
        .order_by("-counted_at", "-pk")[:40]
    )
    buy_ins = list(
        TableBuyIn.objects.filter(table__casino=casino, gaming_day=day)
        .select_related("table", "recorded_by")
        .order_by("-recorded_at", "-pk")[:40]
    )
    return {
        "casino": casino,
        "day": day,
        "shift": shift_of(schedule, now),
        # The latest shift first: the box of the shift just ended or running is the usual one.
        "shift_choices": [(day, entry.number) for entry in reversed(shifts)]
        + [(yesterday, entry.number) for entry in reversed(shifts_of_day(schedule, yesterday))],
        "tables": Table.objects.filter(casino=casino).order_by("name"),
        "drop_counts": [
            {
                "count": count,
                "signed": len(count.signatures.all()) >= 2,
                "signatures": [
                    (
                        signature.signer.get_username(),
                        str(DROP_ROLE_LABELS.get(signature.role, signature.role)),
                    )
                    for signature in count.signatures.all()
                ],
            }
            for count in counts
        ],
        "buy_ins": buy_ins,
    }


def _drop_page(request: HtmxHttpRequest, error: ServiceError | None = None, done: str = "") -> HttpResponse:
    return page(request, DROP, "drop-desk", _drop_context(staff_casino(request)), error=error, done=done)


@any_permission(*DROP_PERMISSIONS)
@require_GET
def drop_desk(request: HtmxHttpRequest) -> HttpResponse:
    return _drop_page(request)


@any_permission("run_table", "supervise_pit")
@require_POST
def buy_in_record(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        table = _table_of(casino, request.POST.get("table", ""))
        buy_in = table_buy_in_record(
            table=table,
            amount_minor=_amount(request.POST.get("amount", "")),
            actor=Actor.staff(staff_user(request)),
        )
        done = _("Buy-in recorded at %(table)s.") % {"table": buy_in.table.name}
    except ServiceError as refused:
        error = refused
    return answered(
        request, error, done, lambda *outcome: _drop_page(request, *outcome), reverse("accounting:drop")
    )


@any_permission("operate_cage", "supervise_pit", "sign_gaming_day")
@require_POST
def drop_count_record_view(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        table = _table_of(casino, request.POST.get("table", ""))
        day_text, _separator, shift_text = request.POST.get("shift", "").partition("/")
        try:
            day, shift = dt.date.fromisoformat(day_text), int(shift_text)
        except ValueError as invalid:
            raise InvalidShiftError(_("Choose the shift the drop box belongs to.")) from invalid
        corrects = None
        if request.POST.get("corrects", "").isdigit():
            corrects = DropCount.objects.filter(
                table__casino=casino, pk=int(request.POST["corrects"])
            ).first()
            if corrects is None:
                raise DropCountNotFoundError(_("No such drop count in this casino."))
            table = corrects.table
        count = drop_count_record(
            table=table,
            gaming_day=day,
            shift=shift,
            total_minor=_amount(request.POST.get("total", ""), allow_zero=True),
            actor=Actor.staff(staff_user(request)),
            corrects=corrects,
            reason=request.POST.get("reason", ""),
        )
        done = _("Drop count of %(table)s recorded with your signature: it needs the second one.") % {
            "table": count.table.name
        }
    except ServiceError as refused:
        error = refused
    return answered(
        request, error, done, lambda *outcome: _drop_page(request, *outcome), reverse("accounting:drop")
    )


@any_permission("operate_cage", "supervise_pit", "sign_gaming_day")
@require_POST
def drop_count_sign_view(request: HtmxHttpRequest, count_id: int) -> HttpResponse:
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        count = (
            DropCount.objects.select_related("table__casino")
            .filter(table__casino=casino, pk=count_id)
            .first()
        )
        if count is None:
            raise DropCountNotFoundError(_("No such drop count in this casino."))
        drop_count_sign(count=count, actor=Actor.staff(staff_user(request)))
        done = _("Drop count signed.")
    except ServiceError as refused:
        error = refused
    return answered(
        request, error, done, lambda *outcome: _drop_page(request, *outcome), reverse("accounting:drop")
    )


# ---------------------------------------------------------------- win and hold


def _report_links(day: dt.date, shift: int) -> list[dict[str, str]]:
    shift_query = f"?day={day.isoformat()}&shift={shift}"
    day_query = f"?day={day.isoformat()}"
    return [
        {
            "name": _("End-of-shift table report"),
            "url": reverse("accounting:report_shift"),
            "query": shift_query,
        },
        {"name": _("Gaming-day table report"), "url": reverse("accounting:report_day"), "query": day_query},
        {"name": _("Master game report"), "url": reverse("accounting:report_master"), "query": day_query},
    ]


@any_permission("view_accounting")
@require_GET
def win_page(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    day = _day_asked(request, casino)
    first = month_start(day)
    records = table_records(casino, first, day)
    tables = list(Table.objects.filter(casino=casino).order_by("name"))
    days = [first + dt.timedelta(days=offset) for offset in range((day - first).days + 1)]
    schedule = schedule_of(casino)
    shifts = shifts_of_day(schedule, day)
    current = shift_of(schedule, timezone.now())
    rows: list[dict[str, Any]] = []
    for table in tables:
        rows.append(
            {
                "table": table,
                "day": records.figures(table.pk, (day, 0), (day, 99)),
                "month": records.figures(table.pk),
                "shifts": [
                    (entry, records.figures(table.pk, (day, entry.number), (day, entry.number)))
                    for entry in shifts
                ],
            }
        )
    context = {
        "casino": casino,
        "day": day,
        "previous_day": day - dt.timedelta(days=1),
        "next_day": day + dt.timedelta(days=1) if day < current_gaming_day(casino) else None,
        "first": first,
        "rows": rows,
        "charts": [day_chart(table, records, days) for table in tables],
        "reports": _report_links(day, current.number if current.gaming_day == day else shifts[-1].number),
        "shifts": shifts,
        "open_alerts": HoldAlert.objects.filter(table__casino=casino, resolution__isnull=True).count(),
        "closed_table_rows": [
            row
            for row in rows
            if row["day"].fills_at_closed_table_minor or row["day"].credits_at_closed_table_minor
        ],
        "day_state": day_state_notes(casino, day),
    }
    return page(request, WIN, "win-hold", context)


# ---------------------------------------------------------------- hold alerts


def _alerts_context(casino: Casino) -> dict[str, Any]:
    alerts = list(
        HoldAlert.objects.filter(table__casino=casino)
        .select_related("table", "resolution__resolved_by")
        .order_by("-gaming_day", "table__name", "kind")[:100]
    )
    for alert in alerts:
        alert.kind_label = str(ALERT_KIND_LABELS.get(alert.kind, alert.kind))  # type: ignore[attr-defined]
    return {
        "casino": casino,
        "settings": settings_of(casino),
        "open_alerts": [alert for alert in alerts if not _is_resolved(alert)],
        "resolved_alerts": [alert for alert in alerts if _is_resolved(alert)][:30],
    }


def _is_resolved(alert: HoldAlert) -> bool:
    try:
        return alert.resolution is not None
    except HoldAlertResolution.DoesNotExist:
        return False


def _alerts_page(request: HtmxHttpRequest, error: ServiceError | None = None, done: str = "") -> HttpResponse:
    return page(
        request, ALERTS, "hold-alerts", _alerts_context(staff_casino(request)), error=error, done=done
    )


@any_permission("view_accounting")
@require_GET
def hold_alerts(request: HtmxHttpRequest) -> HttpResponse:
    return _alerts_page(request)


@any_permission("supervise_pit")
@require_POST
def hold_alert_resolve_view(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    casino = staff_casino(request)
    error: ServiceError | None = None
    done = ""
    try:
        alert = HoldAlert.objects.filter(table__casino=casino, pk=alert_id).first()
        if alert is None:
            raise HoldAlertNotFoundError(_("No such hold alert in this casino."))
        hold_alert_resolve(
            alert=alert, note=request.POST.get("note", ""), actor=Actor.staff(staff_user(request))
        )
        done = _("Hold alert resolved.")
    except ServiceError as refused:
        error = refused
    back = reverse("accounting:hold_alerts")
    return answered(request, error, done, lambda *outcome: _alerts_page(request, *outcome), back)


@any_permission("supervise_pit", "sign_gaming_day")
@require_POST
def hold_check_now(request: HtmxHttpRequest) -> HttpResponse:
    """The scheduled check, run now for this casino (the previous and the current gaming day), by
    a pit boss or the accounting office (an auditor reads the alerts and raises none)."""
    raised = hold_check(casino=staff_casino(request), actor=Actor.staff(staff_user(request)))
    done = (
        ngettext("Hold checked: %(count)s new alert.", "Hold checked: %(count)s new alerts.", len(raised))
        % {"count": len(raised)}
        if raised
        else _("Hold checked: no new alert.")
    )
    back = reverse("accounting:hold_alerts")
    return answered(request, None, done, lambda *outcome: _alerts_page(request, *outcome), back)


# ---------------------------------------------------------------- the table reports


def _report_response(
    request: HtmxHttpRequest, build: Any, name: str, query: str, extra: dict[str, Any]
) -> HttpResponse:
    """The report as a page, or with ``?format=csv`` / ``?format=pdf`` as a file to download."""
    wanted = request.GET.get("format", "")
    if wanted in ("csv", "pdf"):
        report: Report = build(for_file=wanted == "csv")
        content = report_csv(report) if wanted == "csv" else report_pdf(report)
        kind = "text/csv; charset=utf-8" if wanted == "csv" else "application/pdf"
        response = HttpResponse(content, content_type=kind)
        response["Content-Disposition"] = f'attachment; filename="{name}.{wanted}"'
        return htmx_vary(response)
    context = {"report": build(for_file=False), "query": query, "name": name, **extra}
    return page(request, TABLE_REPORT, "table-report", context)


@any_permission("view_accounting")
@require_GET
def report_shift(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    day = _day_asked(request, casino)
    shifts = shifts_of_day(schedule_of(casino), day)
    try:
        shift = int(request.GET.get("shift", ""))
    except ValueError:
        current = shift_of(schedule_of(casino), timezone.now())
        shift = current.number if current.gaming_day == day else shifts[-1].number
    return _report_response(
        request,
        lambda for_file: shift_report(casino, day, shift, for_file=for_file),
        f"shift-report-{day.isoformat()}-{shift}",
        f"day={day.isoformat()}&shift={shift}",
        {"casino": casino, "day": day, "shift": shift, "shifts": shifts, "kind": "shift"},
    )


@any_permission("view_accounting")
@require_GET
def report_day(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    day = _day_asked(request, casino)
    return _report_response(
        request,
        lambda for_file: day_report(casino, day, for_file=for_file),
        f"gaming-day-report-{day.isoformat()}",
        f"day={day.isoformat()}",
        {"casino": casino, "day": day, "kind": "day"},
    )


@any_permission("view_accounting")
@require_GET
def report_master(request: HtmxHttpRequest) -> HttpResponse:
    casino = staff_casino(request)
    day = _day_asked(request, casino)
    return _report_response(
        request,
        lambda for_file: master_report(casino, day, for_file=for_file),
        f"master-game-report-{day.isoformat()}",
        f"day={day.isoformat()}",
        {"casino": casino, "day": day, "kind": "master"},
    )
