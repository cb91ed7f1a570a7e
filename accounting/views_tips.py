"""The dealers' tip report, ``/accounting/tips/``: a shift's tips per dealer and round, the pool
and each dealer's share of it, as a page (its partial for htmx) or as CSV.

Readable with ``casino.view_accounting`` (the whole shift), and by a dealer (``casino.run_table``)
for their own tips and share only; anyone else gets the styled 403.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from accounting.documents import Report, report_csv
from accounting.errors import InvalidTipAmountError
from accounting.gaming_days import Shift, schedule_of, shift_of, shifts_of_day
from accounting.models import TipSource
from accounting.tips import TipsReport, shift_of_day, shift_tips_report
from casino.htmx import htmx_render
from casino.models import Casino
from casino.money import amount_minor_parse, money_plain
from casino.selectors import casino_for_user
from casino.views import HtmxHttpRequest, staff_user

TIPS = "accounting/tips.html"
SOURCE_LABELS = {
    TipSource.CHIPS: gettext_lazy("Chips"),
    TipSource.WALLET: gettext_lazy("Wallet"),
}


def tip_amount_read(text: str) -> int:
    """A tip typed on the console (``5``, ``5.50``, ``5,50``) in minor units, by
    ``amount_minor_parse``; raises ``invalid_tip_amount`` with the field's problem."""
    try:
        return amount_minor_parse(text.strip())
    except forms.ValidationError as error:
        raise InvalidTipAmountError(" ".join(error.messages)) from error


def _reader_scope(request: HttpRequest) -> int | None:
    """None: the reader sees the whole shift; a user id: only that dealer's own tips and share.
    Raises ``PermissionDenied`` for a reader who is neither."""
    user = request.user
    if user.has_perm("casino.view_accounting"):
        return None
    if user.has_perm("casino.run_table"):
        return staff_user(request).pk
    raise PermissionDenied


def _casino(request: HttpRequest) -> Casino:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino


def _shift_asked(request: HttpRequest, casino: Casino) -> Shift:
    """The shift of ``?day=YYYY-MM-DD&shift=N``; the current shift for what is missing or wrong."""
    current = shift_of(schedule_of(casino), timezone.now())
    try:
        day = dt.date.fromisoformat(request.GET.get("day", ""))
    except ValueError:
        day = current.gaming_day
    number_text = request.GET.get("shift", "")
    number = (
        int(number_text) if number_text.isdigit() else (current.number if day == current.gaming_day else 1)
    )
    return shift_of_day(casino, day, number) or shifts_of_day(schedule_of(casino), day)[0]


def _scoped(report: TipsReport, dealer_id: int | None) -> dict[str, Any]:
    """What the reader may see of the report."""
    if dealer_id is None:
        return {"tips": report.tips, "shares": report.shares, "whole": True}
    own = report.share_of(dealer_id)
    return {
        "tips": [tip for tip in report.tips if tip.dealer_id == dealer_id],
        "shares": [own] if own else [],
        "whole": False,
    }


@login_required
@require_GET
def tips_page(request: HtmxHttpRequest) -> HttpResponse:
    dealer_id = _reader_scope(request)
    casino = _casino(request)
    shift = _shift_asked(request, casino)
    report = shift_tips_report(casino, shift)
    context = {
        "casino": casino,
        "report": report,
        "shift": shift,
        "shifts": shifts_of_day(schedule_of(casino), shift.gaming_day),
        "source_labels": SOURCE_LABELS,
        **_scoped(report, dealer_id),
    }
    return htmx_render(request, TIPS, context, partial="tips-report")


@login_required
@require_GET
def tips_csv(request: HttpRequest) -> HttpResponse:
    dealer_id = _reader_scope(request)
    casino = _casino(request)
    shift = _shift_asked(request, casino)
    report = shift_tips_report(casino, shift)
    scoped = _scoped(report, dealer_id)
    title = _("Dealers' tips, gaming day %(day)s, shift %(shift)s") % {
        "day": shift.gaming_day.isoformat(),
        "shift": shift.number,
    }
    rows: list[list[Any]] = [
        [
            _("Share"),
            share.dealer_name,
            "",
            "",
            "",
            share.time_dealt,
            money_plain(share.tips_minor),
            money_plain(share.share_minor),
        ]
        for share in scoped["shares"]
    ]
    rows += [
        [
            _("Tip"),
            tip.dealer.get_username(),
            tip.table.name,
            tip.round.number,
            str(SOURCE_LABELS.get(TipSource(tip.source), tip.source)),
            "",
            money_plain(tip.amount_minor),
            "",
        ]
        for tip in scoped["tips"]
    ]
    document = Report(
        title=title,
        subtitle=casino.name,
        columns=[
            _("Line"),
            _("Dealer"),
            _("Table"),
            _("Round"),
            _("Source"),
            _("Time dealt"),
            _("Tips"),
            _("Share"),
        ],
        rows=rows,
        totals=[_("Pool"), "", "", "", "", "", money_plain(report.pool_minor), ""]
        if scoped["whole"]
        else None,
        notes=[_("Shared among the shift's dealers in proportion to their time dealing.")],
    )
    response = HttpResponse(report_csv(document), content_type="text/csv; charset=utf-8")
    name = f"tips-{shift.gaming_day.isoformat()}-shift-{shift.number}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
