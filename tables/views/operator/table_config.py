"""A table's configuration (``/operator/tables/``): create a table, and a table's form with the
house edge of what it chooses, its pending change and the history of its versions side by side."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from casino.errors import ServiceError
from casino.htmx import htmx_vary
from casino.models import Casino, Game, RuleSetVersion, Table
from casino.views import HtmxHttpRequest, staff_casino_id, staff_page, staff_table, staff_user
from tables.errors import NoChangeError
from tables.forms import TableConfigForm, TableCreateForm
from tables.models import SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.services import Actor, table_config_change, table_config_current
from tables.services.table_setup import table_create
from tables.views.operator.common import (
    CONFIG_LABELS,
    config_value_text,
    edge_stream_url,
    edges_of,
    proposal_entry,
)

# How many of a table's versions the history shows side by side (newest first).
HISTORY_VERSIONS = 8


def _casino(request: HtmxHttpRequest) -> Casino:
    return get_object_or_404(Casino, pk=staff_casino_id(request))


@staff_page("configure_tables")
@require_http_methods(["GET", "POST"])
def table_new(request: HtmxHttpRequest) -> HttpResponse:
    casino = _casino(request)
    form = TableCreateForm(request.POST or None, casino_id=casino.pk)
    error = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                table = table_create(
                    casino=casino,
                    pit=form.cleaned_data["pit"],
                    name=form.cleaned_data["name"],
                    rule_set=form.cleaned_data["rule_set"],
                    actor=Actor.staff(staff_user(request)),
                )
            except ServiceError as refused:
                error, status = refused, refused.status
            else:
                messages.success(
                    request, _("Table %(name)s created, closed for play.") % {"name": table.name}
                )
                return redirect("operator:table", table_name=table.name)
        else:
            status = 422
    return htmx_vary(
        render(request, "tables/operator/table_new.html", {"form": form, "error": error}, status=status)
    )


def _history(table: Table) -> dict[str, Any]:
    """The table's latest versions side by side: one row per field, one column per version,
    each cell marked when it differs from the version before it."""
    versions = list(
        TableConfigVersion.objects.filter(table=table, approved_at__isnull=False)
        .select_related(
            "rule_set_version__rule_set",
            "perfect_pairs_version__paytable",
            "twenty_one_plus_three_version__paytable",
            "created_by",
            "approved_by",
        )
        .order_by("-number")[: HISTORY_VERSIONS + 1]
    )
    shown = versions[:HISTORY_VERSIONS]
    rows = []
    for name, label in CONFIG_LABELS.items():
        cells = []
        for index, version in enumerate(shown):
            older = versions[index + 1] if index + 1 < len(versions) else None
            changed = older is not None and getattr(older, name) != getattr(version, name)
            cells.append({"value": config_value_text(name, getattr(version, name)), "changed": changed})
        rows.append({"label": label, "cells": cells})
    return {"versions": shown, "rows": rows}


def _table_context(
    table: Table, form: TableConfigForm, config: TableConfigVersion, user: Any
) -> dict[str, Any]:
    # The edge of what the form holds: the current choices, or the ones just submitted.
    submitted = getattr(form, "cleaned_data", {}) if form.is_bound else None
    chosen = {
        name: submitted.get(name) if submitted is not None else getattr(config, name)
        for name in TableConfigForm.VERSIONS
    }
    pending = (
        TableConfigProposal.objects.filter(table=table, status=TableConfigProposal.Status.PENDING)
        .select_related("approval", "created_by")
        .first()
    )
    edges = edges_of(
        chosen["rule_set_version"] or config.rule_set_version,
        chosen["perfect_pairs_version"],
        chosen["twenty_one_plus_three_version"],
    )
    return {
        "table": table,
        "config": config,
        "form": form,
        "version_fields": [form[name] for name in TableConfigForm.VERSIONS],
        "limit_fields": [form[name] for name in TableConfigForm.LIMITS],
        "setting_fields": [form[name] for name in TableConfigForm.SETTINGS],
        "edges": edges,
        "stream_url": edge_stream_url([edges["main"]]),
        "history": _history(table),
        "proposal": proposal_entry(pending, user) if pending is not None else None,
        "proposals": TableConfigProposal.objects.filter(table=table)
        .exclude(status=TableConfigProposal.Status.PENDING)
        .select_related("approval__decided_by", "version")
        .order_by("-pk")[:5],
    }


def _blackjack_table(request: HtmxHttpRequest, table_name: str) -> tuple[Table, TableConfigVersion]:
    table = staff_table(request, table_name)
    config = table_config_current(table) if table.game == Game.BLACKJACK else None
    if config is None:
        raise Http404(_("%(name)s has no blackjack configuration.") % {"name": table.name})
    return table, config


@staff_page("configure_tables")
@require_http_methods(["GET", "POST"])
def table_detail(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """A table's configuration form, the house edge of what it chooses, its pending change and the
    history of its versions. POST makes the change (a version, or a proposal above the step)."""
    table, config = _blackjack_table(request, table_name)
    if request.method == "GET":
        form = TableConfigForm(initial=TableConfigForm.initial_from(config))
        context = _table_context(table, form, config, request.user)
        return htmx_vary(render(request, "tables/operator/table.html", context))
    form = TableConfigForm(request.POST)
    error: ServiceError | None = None
    if form.is_valid():
        changes = form.changes_from(config)
        if not changes:
            error = NoChangeError(_("Nothing changed: the form holds the current configuration."))
            error.status = 422
        else:
            try:
                result = table_config_change(
                    table=table, actor=Actor.staff(staff_user(request)), changes=changes
                )
            except ServiceError as refused:
                error = refused
            else:
                if isinstance(result, TableConfigProposal):
                    messages.warning(
                        request,
                        _(
                            "The change moves a limit beyond the step or weakens a control: "
                            "it waits for a pit boss or another operator."
                        ),
                    )
                else:
                    messages.success(
                        request,
                        _("Version %(number)s of %(table)s saved: it is used from the next round.")
                        % {"number": result.number, "table": table.name},
                    )
                return redirect("operator:table", table_name=table.name)
    context = _table_context(table, form, config, request.user)
    context["error"] = error
    status = error.status if error is not None else 422
    return htmx_vary(render(request, "tables/operator/table.html", context, status=status))


@staff_page("configure_tables")
@require_GET
def table_edge(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """The house-edge panel for the rule set and paytables the form holds now (htmx, as the
    operator changes a choice)."""
    table, config = _blackjack_table(request, table_name)

    def chosen(model: Any, name: str, default: Any) -> Any:
        value = request.GET.get(name)
        if value is None:
            return default
        if value == "":
            return None
        found = model.objects.filter(pk=value, approved_at__isnull=False).first() if value.isdigit() else None
        return found if found is not None else default

    rule_version = (
        chosen(RuleSetVersion, "rule_set_version", config.rule_set_version) or config.rule_set_version
    )
    edges = edges_of(
        rule_version,
        chosen(SideBetPaytableVersion, "perfect_pairs_version", config.perfect_pairs_version),
        chosen(SideBetPaytableVersion, "twenty_one_plus_three_version", config.twenty_one_plus_three_version),
    )
    return htmx_vary(render(request, "tables/operator/_edges.html", {"edges": edges, "table": table}))
