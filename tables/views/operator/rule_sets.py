"""Rule sets and side-bet paytables (``/operator/rule-sets/``, ``/operator/paytables/``): their
versions side by side with their house edge, a new version from an existing one, the main game's
edge computed in the background, and a paytable's odds recomputed as the operator types."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRefresh

from casino.errors import ServiceError
from casino.hints import job_topic
from casino.htmx import htmx_vary
from casino.models import BackgroundJob, Game, RuleSet, RuleSetVersion
from casino.streams import hint_stream
from casino.views import HtmxHttpRequest, staff_page, staff_user
from games.errors import InvalidRuleSetError
from tables.errors import NotEditableError
from tables.forms import PaytableVersionForm, RuleSetVersionForm
from tables.models import SideBetPaytable
from tables.odds_jobs import MAIN_GAME_ODDS, main_game_edge_start, percent, side_bet_edge, version_rules
from tables.rule_set_texts import OUTCOME_LABELS, option_label, option_lines, options_in_order
from tables.services import Actor, paytable_version_create, rule_set_version_create
from tables.views.operator.common import edge_stream_url, main_edge_of, refusal_message, side_edge_of

# ------------------------------------------------------------------------------------ the main game's edge


@staff_page("supervise_pit")
@require_http_methods(["GET", "POST"])
def main_edge(request: HtmxHttpRequest, version_id: int) -> HttpResponse:
    """The main-game edge of a rule-set version: POST starts (or joins) its computation, and
    with htmx answers the edge, or, while it runs, reloads the page, whose stream then carries
    the computation; GET shows it, read again on each hint of its job while it runs. For
    operators and pit bosses (who approve the version: they see its edge first)."""
    version = get_object_or_404(RuleSetVersion.objects.select_related("rule_set"), pk=version_id)
    error = None
    if request.method == "POST":
        try:
            main_game_edge_start(version, actor=Actor.staff(staff_user(request)))
        except ServiceError as refused:
            error = refused
        if not request.htmx:
            if error is not None:
                messages.error(request, refusal_message(error))
            return redirect(
                request.POST.get("next") or reverse("operator:rule_set", args=[version.rule_set_id])
            )
    edge = main_edge_of(version)
    if request.method == "POST" and edge["running"]:
        # Running on: the page's stream must carry it, and carries the jobs running as it opens.
        return htmx_vary(HttpResponseClientRefresh())
    context = {"main": edge, "error": error}
    return htmx_vary(
        render(request, "tables/operator/_main-edge.html", context, status=error.status if error else 200)
    )


@staff_page("supervise_pit")
@require_GET
def main_edge_stream(request: HtmxHttpRequest) -> HttpResponseBase:
    """The stream (``casino/streams.py``) of the main-game edge computations a page shows running,
    ``?job=<id>`` for each: the hints of their jobs (``job``), for the staff who may follow them
    (as ``main_edge``); 404 for a job that is no such computation."""
    try:
        job_ids = sorted({int(value) for value in request.GET.getlist("job")})
    except ValueError as error:
        raise Http404("a job is a number") from error
    computations = BackgroundJob.objects.filter(pk__in=job_ids, kind=MAIN_GAME_ODDS).count()
    if not job_ids or computations != len(job_ids):
        raise Http404("no such computation of a main game's edge")
    return hint_stream(request, {job_topic(job_id): "job" for job_id in job_ids})


# ------------------------------------------------------------------------------------ rule sets


def _options_rows(game: str, versions: list[RuleSetVersion]) -> list[dict[str, Any]]:
    rows = []
    for name in options_in_order(game, (name for version in versions for name in version.options)):
        cells = []
        for index, version in enumerate(versions):
            older = versions[index + 1] if index + 1 < len(versions) else None
            value = version.options.get(name)
            changed = older is not None and older.options.get(name) != value
            cells.append({"lines": option_lines(name, value), "changed": changed})
        rows.append({"name": name, "label": option_label(game, name), "cells": cells})
    return rows


@staff_page("configure_tables")
@require_http_methods(["GET", "POST"])
def rule_set_detail(request: HtmxHttpRequest, rule_set_id: int) -> HttpResponse:
    """A rule set's versions side by side, each with its main-game edge, and a form for a new
    version from one of them (``?from=<version id>``, the current one by default)."""
    rule_set = get_object_or_404(RuleSet, pk=rule_set_id)
    versions = list(
        rule_set.versions.select_related("created_by", "approved_by", "approval").order_by("-number")
    )
    base = next(
        (v for v in versions if str(v.pk) == (request.POST.get("base") or request.GET.get("from"))), None
    )
    base = base or rule_set.current_version() or (versions[0] if versions else None)
    editable = rule_set.game == Game.BLACKJACK and base is not None
    form = None
    error = None
    status = 200
    if editable and base is not None:
        # Every option with its value, the engine's default where the version leaves one out.
        initial = version_rules(base).to_dict()
        form = RuleSetVersionForm(request.POST or None, initial=initial)
        if request.method == "POST":
            if form.is_valid():
                try:
                    draft = rule_set_version_create(
                        rule_set=rule_set,
                        options=form.options_from(base.options, initial),
                        actor=Actor.staff(staff_user(request)),
                        source=form.cleaned_data["source"],
                    )
                except ServiceError as refused:
                    error, status = refused, refused.status
                else:
                    messages.success(
                        request,
                        _("Version %(number)s of %(name)s proposed: it waits for a second person's approval.")
                        % {"number": draft.number, "name": rule_set.name},
                    )
                    return redirect("operator:rule_set", rule_set_id=rule_set.pk)
            else:
                status = 422
    elif request.method == "POST":
        error = NotEditableError(_("Versions of this game's rule sets are not edited here."))
        status = 422
    edges = {version.pk: main_edge_of(version) for version in versions if rule_set.game == Game.BLACKJACK}
    context = {
        "rule_set": rule_set,
        "versions": versions,
        "rows": _options_rows(rule_set.game, versions),
        "edges": edges,
        "stream_url": edge_stream_url(edges.values()),
        "base": base,
        "form": form,
        "error": error,
    }
    return htmx_vary(render(request, "tables/operator/rule_set.html", context, status=status))


# ------------------------------------------------------------------------------------ paytables


def _paytable_preview(paytable: SideBetPaytable, form: PaytableVersionForm) -> dict[str, Any]:
    """The exact odds of the payouts the form holds, or why they cannot be computed."""
    if not form.is_valid():
        return {"invalid": True}
    try:
        edge = side_bet_edge(paytable.kind, form.cleaned_data["decks"], form.payouts())
    except (InvalidRuleSetError, TypeError) as error:
        return {"invalid": True, "reason": str(error)}
    return {
        "decks": edge.decks,
        "percent": percent(edge.house_edge),
        "hit_percent": percent(edge.hit_frequency),
        "outcomes": [
            {
                "label": OUTCOME_LABELS.get(row.outcome, row.outcome),
                "percent": percent(row.probability),
                "one_in": row.one_in,
                "pays": row.pays,
            }
            for row in edge.outcomes
        ],
    }


@staff_page("configure_tables")
@require_http_methods(["GET", "POST"])
def paytable_detail(request: HtmxHttpRequest, paytable_id: int) -> HttpResponse:
    """A paytable's versions side by side with their house edge, and a new version's form whose
    odds are recomputed as the operator types (``paytable_preview``)."""
    paytable = get_object_or_404(SideBetPaytable, pk=paytable_id)
    versions = list(
        paytable.versions.select_related("created_by", "approved_by", "approval").order_by("-number")
    )
    base = paytable.current_version() or (versions[0] if versions else None)
    initial: dict[str, Any] = {"decks": 6, **(base.payouts if base else {})}
    form = PaytableVersionForm(request.POST or None, kind=paytable.kind, initial=initial)
    error = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                draft = paytable_version_create(
                    paytable=paytable, payouts=form.payouts(), actor=Actor.staff(staff_user(request))
                )
            except ServiceError as refused:
                error, status = refused, refused.status
            else:
                messages.success(
                    request,
                    _("Version %(number)s of %(name)s proposed: it waits for a second person's approval.")
                    % {"number": draft.number, "name": paytable.name},
                )
                return redirect("operator:paytable", paytable_id=paytable.pk)
        else:
            status = 422
    decks = form.cleaned_data["decks"] if form.is_bound and form.is_valid() else 6
    preview_form = form if form.is_bound else PaytableVersionForm(initial, kind=paytable.kind)
    context = {
        "paytable": paytable,
        "versions": versions,
        "version_edges": [(version, side_edge_of(version, decks)) for version in versions],
        "outcomes": [OUTCOME_LABELS[name] for name in form.outcomes],
        "payout_rows": [
            {
                "label": OUTCOME_LABELS[name],
                "cells": [version.payouts.get(name) for version in versions],
            }
            for name in form.outcomes
        ],
        "form": form,
        "preview": _paytable_preview(paytable, preview_form),
        "error": error,
    }
    return htmx_vary(render(request, "tables/operator/paytable.html", context, status=status))


@staff_page("configure_tables")
@require_GET
def paytable_preview(request: HtmxHttpRequest, paytable_id: int) -> HttpResponse:
    paytable = get_object_or_404(SideBetPaytable, pk=paytable_id)
    form = PaytableVersionForm(request.GET, kind=paytable.kind)
    context = {"preview": _paytable_preview(paytable, form)}
    return htmx_vary(render(request, "tables/operator/_paytable-preview.html", context))
