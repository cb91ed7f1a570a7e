"""The auditor's pages (``/audit/``): the audit trail (filtered, paged, exported as CSV), one record
with its change as a difference, and the checks of the record (the audit chain, the ledger, the
replay of a time range's rounds) run as background jobs with a progress bar and a result page.

Every page works without JavaScript; with htmx the filter swaps only the results and a running
check's progress re-reads itself on each hint of its job, from the page's stream (``Vary:
HX-Request`` on every answer).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from casino.actors import Actor
from casino.audit import audit_append
from casino.audit_jobs import AUDIT_JOB_KINDS, CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY
from casino.errors import ServiceError
from casino.hints import job_topic
from casino.htmx import htmx_render, htmx_vary
from casino.jobs import job_latest, job_start
from casino.models import AuditRecord, BackgroundJob
from casino.selectors import audit_record_neighbours, audit_record_search, audit_roles, casino_for_user
from casino.streams import hint_stream
from casino.views import HtmxHttpRequest, staff_page, staff_user

RECORDS_PER_PAGE = 50
RECENT_CHECKS = 8
# The checks the page starts, by the name in their URL.
CHECKS = {"chain": CHAIN_CHECK, "ledger": LEDGER_CHECK, "replay": ROUND_REPLAY}
CHECK_TITLES = {
    CHAIN_CHECK: _("Chain check"),
    LEDGER_CHECK: _("Ledger check"),
    ROUND_REPLAY: _("Round replay"),
}
CSV_COLUMNS = (
    _("sequence"),
    _("time"),
    _("actor"),
    _("role"),
    _("terminal"),
    _("action"),
    _("object type"),
    _("object id"),
    _("hash"),
)


def _end(moment: dt.datetime | None) -> dt.datetime | None:
    """The end of a range typed to the minute (``datetime-local``): that minute is included."""
    if moment is None:
        return None
    if moment.second == 0 and moment.microsecond == 0:
        return moment + dt.timedelta(minutes=1)
    return moment


class AuditFilterForm(forms.Form):
    """The trail's filters, read from the query string (every field optional)."""

    actor = forms.CharField(label=_("Actor (name contains)"), required=False, max_length=150)
    role = forms.CharField(label=_("Role"), required=False, max_length=40)
    action = forms.CharField(label=_("Action starts with"), required=False, max_length=80)
    object_type = forms.CharField(label=_("Object type"), required=False, max_length=80)
    object_id = forms.CharField(label=_("Object id"), required=False, max_length=80)
    recorded_from = forms.DateTimeField(label=_("From"), required=False)
    recorded_to = forms.DateTimeField(label=_("To"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("recorded_from"), data.get("recorded_to")
        if start and end and start > end:
            raise forms.ValidationError(_("The range ends before it starts."))
        return data

    def filters(self) -> dict[str, str]:
        """The filters given, as typed: what an export records."""
        return {
            name: str(self.data[name]).strip() for name in self.fields if str(self.data.get(name, "")).strip()
        }

    def records(self) -> QuerySet[AuditRecord]:
        data = self.cleaned_data
        return audit_record_search(
            actor_name=data["actor"].strip(),
            role=data["role"].strip(),
            action=data["action"].strip(),
            object_type=data["object_type"].strip(),
            object_id=data["object_id"].strip(),
            recorded_from=data["recorded_from"],
            recorded_to=_end(data["recorded_to"]),
        )


class ReplayRangeForm(forms.Form):
    """The time range of a round replay: both ends required, the end after the start."""

    replay_from = forms.DateTimeField(label=_("Settled from"))
    replay_to = forms.DateTimeField(label=_("Settled to"))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("replay_from"), data.get("replay_to")
        if start and end and start > end:
            raise forms.ValidationError(_("The range ends before it starts."))
        return data


def _checks_context(replay_form: ReplayRangeForm | None = None, check_error: str = "") -> dict[str, Any]:
    recent = BackgroundJob.objects.filter(kind__in=AUDIT_JOB_KINDS).select_related("created_by")
    return {
        "replay_form": replay_form or ReplayRangeForm(),
        "check_error": check_error,
        "last_chain_check": job_latest(kind=CHAIN_CHECK, params={}),
        "last_ledger_check": job_latest(kind=LEDGER_CHECK, params={}),
        "recent_checks": [
            (job, CHECK_TITLES[job.kind]) for job in recent.order_by("-created_at", "-pk")[:RECENT_CHECKS]
        ],
    }


def _home_context(request: HtmxHttpRequest) -> dict[str, Any]:
    form = AuditFilterForm(request.GET)
    page = None
    if form.is_valid():
        page = Paginator(form.records(), RECORDS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "form": form,
        "page": page,
        "records": page.object_list if page is not None else [],
        "roles": audit_roles(),
        "export_query": query.urlencode(),
    }


@staff_page("view_audit")
def home(request: HtmxHttpRequest) -> HttpResponse:
    """The trail, newest first, 50 a page, filtered by the query string (an invalid filter shows
    its error and no records), and the checks. With htmx only the records are sent."""
    context = _home_context(request)
    if not request.htmx:
        context.update(_checks_context())
    return htmx_render(request, "casino/audit/home.html", context, partial="audit-records")


class _Echo:
    """A file that hands back what is written to it: csv.writer's rows, one string at a time."""

    def write(self, value: str) -> str:
        return value


def _csv_rows(records: QuerySet[AuditRecord]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow([str(column) for column in CSV_COLUMNS])
    rows = records.values_list(
        "sequence",
        "recorded_at",
        "actor_name",
        "role",
        "terminal__name",
        "action",
        "object_type",
        "object_id",
        "hash",
    )
    for sequence, recorded_at, actor, role, terminal, action, object_type, object_id, digest in rows.iterator(
        chunk_size=2000
    ):
        yield writer.writerow(
            [
                sequence,
                recorded_at.isoformat(),
                actor,
                role,
                terminal or "",
                action,
                object_type,
                object_id,
                digest,
            ]
        )


# staff_page's checks, stated here: its views answer an HttpResponse, this one streams.
@login_required
@permission_required("casino.view_audit", raise_exception=True)
def export(request: HtmxHttpRequest) -> HttpResponseBase:
    """Every record the filter shows (all its pages, newest first) as CSV, streamed. The export
    is audited (``audit.exported``, with the filter) and leaves its own record out of the file.
    An invalid filter exports nothing: the trail is shown with the error (400)."""
    form = AuditFilterForm(request.GET)
    if not form.is_valid():
        context = _home_context(request)
        if not request.htmx:
            context.update(_checks_context())
        return htmx_render(request, "casino/audit/home.html", context, partial="audit-records", status=400)
    records = form.records()
    exported = audit_append(
        action="audit.exported", actor=staff_user(request), after={"filter": form.filters()}
    )
    response = StreamingHttpResponse(
        _csv_rows(records.filter(sequence__lt=exported.sequence)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="audit-trail-{exported.sequence - 1}.csv"'
    return htmx_vary(response)


# ---------------------------------------------------------------------------------- one record


@dataclass(frozen=True)
class Change:
    """One key of a record's ``before`` and ``after`` (nested keys dotted: ``limits.max_minor``):
    ``removed``, ``added``, ``changed`` or ``unchanged``, with its old and new values as JSON."""

    key: str
    kind: str
    old: str = ""
    new: str = ""


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and value:
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flat(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if value is None and not prefix:
        return {}
    return {prefix: value}


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def record_difference(before: Any, after: Any) -> list[Change]:
    """``before`` against ``after``, key by key in key order, nested dicts flattened with dotted
    keys (a value that is no dict, at the top, under the key ""; None there: no keys)."""
    old, new = _flat(before), _flat(after)
    changes = []
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            changes.append(Change(key, "removed", old=_shown(old[key])))
        elif key not in old:
            changes.append(Change(key, "added", new=_shown(new[key])))
        elif old[key] != new[key]:
            changes.append(Change(key, "changed", old=_shown(old[key]), new=_shown(new[key])))
        else:
            changes.append(Change(key, "unchanged", old=_shown(old[key]), new=_shown(new[key])))
    return changes


@staff_page("view_audit")
def record(request: HtmxHttpRequest, sequence: int) -> HttpResponse:
    """One record: every field, its change as a difference, its neighbours in the chain and, for
    a round's record, the round. With htmx only the record's section is sent."""
    found = get_object_or_404(AuditRecord.objects.select_related("terminal"), sequence=sequence)
    previous, following = audit_record_neighbours(found)
    difference = record_difference(found.before, found.after)
    context = {
        "record": found,
        "changes": [change for change in difference if change.kind != "unchanged"],
        "unchanged": [change for change in difference if change.kind == "unchanged"],
        "previous": previous,
        "following": following,
    }
    return htmx_render(request, "casino/audit/record.html", context, partial="audit-record")


# ---------------------------------------------------------------------------------- the checks


def _iso(moment: dt.datetime) -> str:
    return moment.isoformat()


@staff_page("view_audit")
@require_POST
def check_start(request: HtmxHttpRequest, check: str) -> HttpResponse:
    """Start a check (``chain``, ``ledger`` or ``replay`` with its range) as a background job and
    go to its page. A range that is missing or backwards, or a refusal, is shown on the trail's
    page in words (400, or the refusal's status), and starts nothing."""
    kind = CHECKS.get(check)
    if kind is None:
        raise Http404("no such check")
    params: dict[str, Any] = {}
    replay_form = None
    error = ""
    status = 400
    if kind == ROUND_REPLAY:
        replay_form = ReplayRangeForm(request.POST)
        casino = casino_for_user(request.user)
        if casino is None:
            raise Http404("no casino")
        if replay_form.is_valid():
            params = {
                "casino_id": casino.pk,
                "from": _iso(replay_form.cleaned_data["replay_from"]),
                "to": _iso(
                    _end(replay_form.cleaned_data["replay_to"]) or replay_form.cleaned_data["replay_to"]
                ),
            }
    if replay_form is None or replay_form.is_valid():
        try:
            job = job_start(kind=kind, params=params, actor=Actor.staff(staff_user(request)))
        except ServiceError as refusal:
            error, status = refusal.message, refusal.status
        else:
            url = reverse("audit:check", args=[job.pk])
            return htmx_vary(HttpResponseClientRedirect(url) if request.htmx else redirect(url))
    context = _home_context(request)
    context.update(_checks_context(replay_form=replay_form, check_error=error))
    return htmx_render(request, "casino/audit/home.html", context, partial="audit-checks", status=status)


def _replay_range(job: BackgroundJob) -> tuple[dt.datetime | None, dt.datetime | None]:
    def moment(value: Any) -> dt.datetime | None:
        try:
            return dt.datetime.fromisoformat(str(value))
        except ValueError:
            return None

    return moment(job.params.get("from")), moment(job.params.get("to"))


def _check_job(job_id: int) -> BackgroundJob:
    """The check ``job_id`` (a job of the audit's kinds), or 404."""
    return get_object_or_404(
        BackgroundJob.objects.select_related("created_by"), pk=job_id, kind__in=AUDIT_JOB_KINDS
    )


@staff_page("view_audit")
def check(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    """A check's page: its progress while it runs (re-read on each hint of the job from the
    page's stream, every 15 seconds without it, or a refresh link), then what it found. With htmx
    the progress and, once finished, the result are sent."""
    job = _check_job(job_id)
    result = job.result if isinstance(job.result, dict) else {}
    broken = result.get("broken_sequence")
    replay_from, replay_to = _replay_range(job)
    context = {
        "job": job,
        "title": CHECK_TITLES[job.kind],
        "poll_url": reverse("audit:check", args=[job.pk]),
        "stream_url": None if job.is_finished else reverse("audit:check_stream", args=[job.pk]),
        "result": result,
        "is_chain": job.kind == CHAIN_CHECK,
        "is_ledger": job.kind == LEDGER_CHECK,
        "is_replay": job.kind == ROUND_REPLAY,
        "broken_record_exists": broken is not None and AuditRecord.objects.filter(sequence=broken).exists(),
        "replay_from": replay_from,
        "replay_to": replay_to,
    }
    return htmx_render(request, "casino/audit/check.html", context, partial="check-poll")


@staff_page("view_audit")
@require_GET
def check_stream(request: HtmxHttpRequest, job_id: int) -> HttpResponseBase:
    """The check page's stream (``casino/streams.py``): the hints of its job (``job``)."""
    job = _check_job(job_id)
    return hint_stream(request, {job_topic(job.pk): "job"})
