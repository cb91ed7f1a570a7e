"""The round audit pages of the pit boss and the auditor: the casino's rounds (filtered, paged),
one round (cards, bets, payout lines, event log, replay check, audit records) and its export as a
round script in JSON.

Every page works without JavaScript; with htmx the list's filter form swaps only the results
(``Vary: HX-Request`` on every answer, so a cache keeps the two apart).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from casino.htmx import htmx_render, htmx_vary
from casino.money import amount_minor_parse
from casino.views import staff_casino_id
from tables.errors import ReplayError
from tables.models import RoundStatus
from tables.replay import round_export, round_replay_check
from tables.round_audit.events import round_audit_records, round_event_log
from tables.round_audit.labels import ROUND_STATUS_LABELS, status_label
from tables.round_audit.listing import ROUNDS_PER_PAGE, round_list_for_audit, round_rows
from tables.round_audit.summary import round_summary
from tables.views.access import staff_round

ROUND_AUDIT_PERMISSIONS = ("casino.supervise_pit", "casino.view_audit")

View = Callable[..., HttpResponse]


def round_audit_page(view: View) -> View:
    """Anonymous visitors go to the login page; staff who are neither pit boss
    (``casino.supervise_pit``) nor auditor (``casino.view_audit``) get 403."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not any(request.user.has_perm(permission) for permission in ROUND_AUDIT_PERMISSIONS):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return login_required(checked)


# ------------------------------------------------------------------------------------ the list


def _moment(value: str, *, end_of_day: bool) -> dt.datetime:
    """A date (``2026-12-01``: its start, or with ``end_of_day`` the next day's start) or a
    datetime (``2026-12-01T14:30``) in the current time zone."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = dt.date.fromisoformat(text)
            moment = dt.datetime.combine(day, dt.time.min)
            if end_of_day:
                moment += dt.timedelta(days=1)
        else:
            moment = dt.datetime.fromisoformat(text)
    except ValueError as error:
        raise forms.ValidationError(_("Enter a date (YYYY-MM-DD) or a date and time.")) from error
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _minor(value: str) -> int:
    """An amount in major units (``12.50``, zero too) as minor units (``1250``), by
    ``casino.money.amount_minor_parse``; refused in the filter's own words."""
    try:
        return amount_minor_parse(value, allow_zero=True)
    except forms.ValidationError as error:
        raise forms.ValidationError(_("Enter an amount such as 25 or 12.50.")) from error


class RoundFilterForm(forms.Form):
    """The list's filters, read from the query string (every field optional)."""

    table = forms.CharField(label=_("Table"), required=False, max_length=30)
    dealer = forms.CharField(label=_("Dealer (username)"), required=False, max_length=150)
    player = forms.CharField(label=_("Player (card number or name)"), required=False, max_length=120)
    opened_from = forms.CharField(label=_("Opened from"), required=False, max_length=30)
    opened_to = forms.CharField(label=_("Opened to"), required=False, max_length=30)
    min_stake = forms.CharField(label=_("Total stake at least"), required=False, max_length=20)
    min_payout = forms.CharField(label=_("A payout of at least"), required=False, max_length=20)
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[("", _("Any")), *((value, label) for value, label in ROUND_STATUS_LABELS.items())],
    )

    def clean_opened_from(self) -> dt.datetime | None:
        value = self.cleaned_data["opened_from"]
        return _moment(value, end_of_day=False) if value else None

    def clean_opened_to(self) -> dt.datetime | None:
        value = self.cleaned_data["opened_to"]
        return _moment(value, end_of_day=True) if value else None

    def clean_min_stake(self) -> int | None:
        value = self.cleaned_data["min_stake"]
        return _minor(value) if value else None

    def clean_min_payout(self) -> int | None:
        value = self.cleaned_data["min_payout"]
        return _minor(value) if value else None


@round_audit_page
def round_list(request: HttpRequest) -> HttpResponse:
    """The casino's rounds, newest first, 50 a page, filtered by the query string. An invalid
    filter shows its error and no rounds (rather than every round, unfiltered)."""
    casino_id = staff_casino_id(request)
    form = RoundFilterForm(request.GET)
    page = None
    if form.is_valid():
        data = form.cleaned_data
        rounds = round_list_for_audit(
            casino_id=casino_id,
            table_name=data["table"],
            dealer_username=data["dealer"],
            player=data["player"],
            opened_from=data["opened_from"],
            opened_to=data["opened_to"],
            min_total_stake_minor=data["min_stake"],
            min_payout_minor=data["min_payout"],
            status=data["status"],
        )
        page = Paginator(rounds, ROUNDS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "rows": round_rows(page) if page is not None else [],
        "status_labels": {key: str(label) for key, label in ROUND_STATUS_LABELS.items()},
    }
    return htmx_render(request, "tables/round/list.html", context, partial="round-results")


# ---------------------------------------------------------------------------------- one round


@round_audit_page
def round_detail(request: HttpRequest, round_id: int) -> HttpResponse:
    """One round: header, cards and bets (the summary partial), event log, replay check and the
    audit records that name it. With htmx only the page's main section is sent."""
    round_ = staff_round(request, round_id)
    replay = None
    replay_error = ""
    if round_.status == RoundStatus.SETTLED:
        try:
            replay = round_replay_check(round_)
        except ReplayError as error:
            replay_error = str(error)
    context = {
        "round": round_,
        "round_status_label": status_label(round_.status),
        "summary": round_summary(round_),
        "events": round_event_log(round_),
        "replay": replay,
        "replay_error": replay_error,
        "replay_lines": round_.payout_lines.count() if replay is not None else 0,
        "records": list(round_audit_records(round_)),
    }
    return htmx_render(request, "tables/round/detail.html", context, partial="round-detail")


@round_audit_page
def round_export_view(request: HttpRequest, round_id: int) -> HttpResponse:
    """The round as a round script (``tables.replay.round_export``), a JSON download named
    ``round-<table>-<number>.json``. A round that never closed betting has nothing to export: the
    refusal says so (409)."""
    round_ = staff_round(request, round_id)
    try:
        exported = round_export(round_)
    except ReplayError as error:
        response = render(
            request,
            "tables/round/export-refused.html",
            {"round": round_, "message": str(error)},
            status=409,
        )
        return htmx_vary(response)
    response = HttpResponse(
        json.dumps(exported, cls=DjangoJSONEncoder, indent=2), content_type="application/json"
    )
    # Only safe characters in the header: a table's name is free text.
    table_name = re.sub(r"[^A-Za-z0-9_-]+", "_", round_.table.name)
    filename = f"round-{table_name}-{round_.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return htmx_vary(response)
