"""The operator's configuration pages (``/operator/``): tables (create, edit, the history of their
configuration versions side by side), rule sets and side-bet paytables (a new version from an
existing one), the house edge of each choice where it is made, and the approvals a second person
gives (``/operator/approvals/``, for pit bosses and operators).

Every change is one service call of ``tables.services`` (``table_create``,
``table_config_change``, ``rule_set_version_create``, ``paytable_version_create`` and their
approvals); a refusal redraws the form with the reason and a 4xx status, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.htmx import htmx_render, htmx_vary
from casino.models import Approval, BackgroundJob, Casino, Game, RuleSet, RuleSetVersion, Table
from casino.money import money
from casino.views import HtmxHttpRequest, staff_casino_id, staff_page, staff_table, staff_user
from games.errors import InvalidRuleSetError
from tables.errors import TableError
from tables.forms import (
    LIMIT_LABELS,
    OUTCOMES,
    SETTING_LABELS,
    SHOE_LABELS,
    VERSION_LABELS,
    PaytableVersionForm,
    RuleSetVersionForm,
    TableConfigForm,
    TableCreateForm,
)
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.odds_jobs import main_game_edge_job, main_game_edge_start, percent, side_bet_edge, version_rules
from tables.rule_set_texts import OUTCOME_LABELS, option_label, option_lines, option_text, options_in_order
from tables.selectors import config_approvals_waiting
from tables.services import (
    Actor,
    paytable_version_approve,
    paytable_version_create,
    paytable_version_reject,
    rule_set_version_approve,
    rule_set_version_create,
    rule_set_version_reject,
    table_config_change,
    table_config_current,
    table_config_proposal_approve,
    table_config_proposal_reject,
)
from tables.services.config_changes import config_change_waits_for
from tables.services.table_setup import table_create

# How many of a table's versions the history shows side by side (newest first).
HISTORY_VERSIONS = 8


def _refused(error: ServiceError) -> str:
    return f"{error.message} ({error.code})"


# ------------------------------------------------------------------------------------ the house edge


def _main_edge(version: RuleSetVersion | None) -> dict[str, Any]:
    """The main game's edge of ``version`` as far as it is known: a finished job's result, a job
    in progress, or nothing yet (the page offers to compute it)."""
    if version is None:
        return {"version": None}
    job = main_game_edge_job(version)
    edge: dict[str, Any] = {
        "version": version,
        "job": job,
        "running": job is not None
        and job.status in (BackgroundJob.Status.QUEUED, BackgroundJob.Status.RUNNING),
        "can_start": job is None or job.status == BackgroundJob.Status.FAILED,
    }
    if job is not None and job.status == BackgroundJob.Status.SUCCEEDED and job.result:
        edge["percent"] = percent(job.result["house_edge"])
    return edge


def _side_edge(version: SideBetPaytableVersion | None, decks: int) -> dict[str, Any] | None:
    if version is None:
        return None
    edge = side_bet_edge(version.paytable.kind, decks, version.payouts)
    return {
        "version": version,
        "percent": percent(edge.house_edge),
        "hit_percent": percent(edge.hit_frequency),
    }


def _decks(version: RuleSetVersion | None) -> int:
    return int(version.options.get("decks", 6)) if version is not None else 6


def _edges(
    rule_version: RuleSetVersion | None,
    perfect_pairs: SideBetPaytableVersion | None,
    twenty_one_plus_three: SideBetPaytableVersion | None,
) -> dict[str, Any]:
    decks = _decks(rule_version)
    return {
        "decks": decks,
        "main": _main_edge(rule_version),
        "perfect_pairs": _side_edge(perfect_pairs, decks),
        "twenty_one_plus_three": _side_edge(twenty_one_plus_three, decks),
    }


# ------------------------------------------------------------------------------------ home


def _casino(request: HtmxHttpRequest) -> Casino:
    return get_object_or_404(Casino, pk=staff_casino_id(request))


@staff_page("configure_tables")
@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    casino_id = staff_casino_id(request)
    tables = list(
        Table.objects.filter(casino_id=casino_id)
        .select_related("pit", "rule_set")
        .annotate(
            waiting=Count(
                "config_proposals", filter=Q(config_proposals__status=TableConfigProposal.Status.PENDING)
            )
        )
        .order_by("name")
    )
    rows = [{"table": table, "config": table_config_current(table)} for table in tables]
    context = {
        "rows": rows,
        "rule_sets": RuleSet.objects.annotate(
            approved=Count("versions", filter=Q(versions__approved_at__isnull=False)),
            drafts=Count("versions", filter=Q(versions__approval__status=Approval.Status.PENDING)),
        ).order_by("game", "name"),
        "paytables": SideBetPaytable.objects.annotate(
            approved=Count("versions", filter=Q(versions__approved_at__isnull=False)),
            drafts=Count("versions", filter=Q(versions__approval__status=Approval.Status.PENDING)),
        ).order_by("kind", "name"),
        "waiting": config_approvals_waiting(casino_id=casino_id).count(),
        "money": money,
    }
    return htmx_vary(render(request, "tables/operator/home.html", context))


# ------------------------------------------------------------------------------------ tables


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


def _config_value_text(name: str, value: Any) -> str:
    """A configuration field's value as a person reads it: money in the language's form, yes or
    no, a version by its name, the shoe in words."""
    if name in VERSION_LABELS:
        return str(value) if value is not None else _("not offered")
    if name == "shoe_kind":
        return str(SHOE_LABELS.get(value, value))
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if name.endswith("_minor") and isinstance(value, int):
        return money(value)
    return str(value)


CONFIG_LABELS = {**VERSION_LABELS, **LIMIT_LABELS, **SETTING_LABELS}


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
            cells.append({"value": _config_value_text(name, getattr(version, name)), "changed": changed})
        rows.append({"label": label, "cells": cells})
    return {"versions": shown, "rows": rows}


def config_change_rows(
    before: dict[str, Any], after: dict[str, Any], waiting: list[str] | tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """A configuration change as the approval keeps it (the changed fields before and after,
    versions by id), one row per field: its label, the values as a person reads them, and
    whether the field is one that makes the change wait (``waiting``)."""
    ids = {
        value
        for name in VERSION_LABELS
        for value in (before.get(name), after.get(name))
        if isinstance(value, int)
    }
    rule_versions = {v.pk: v for v in RuleSetVersion.objects.select_related("rule_set").filter(pk__in=ids)}
    paytables = {
        v.pk: v for v in SideBetPaytableVersion.objects.select_related("paytable").filter(pk__in=ids)
    }

    def loaded(name: str, value: Any) -> Any:
        if name not in VERSION_LABELS or value is None:
            return value
        return (rule_versions if name == "rule_set_version" else paytables).get(value, value)

    return [
        {
            "name": name,
            "label": CONFIG_LABELS.get(name, name),
            "old": _config_value_text(name, loaded(name, before.get(name))),
            "new": _config_value_text(name, loaded(name, value)),
            "waits": name in waiting,
        }
        for name, value in after.items()
    ]


def _may_decide(approval: Approval | None, user: Any) -> bool:
    """Whether ``user`` may decide what waits (``casino.four_eyes.may_decide``), for the buttons."""
    return approval is not None and may_decide(approval=approval, user=user)


def _proposal_entry(proposal: TableConfigProposal, user: Any) -> dict[str, Any]:
    """A waiting table change as the pages show it: who asked, when and why, each field before
    and after, the fields that make it wait, and whether ``user`` may decide it."""
    approval = proposal.approval
    before = (approval.before if approval is not None else None) or {}
    after = (approval.after if approval is not None else None) or proposal.changes
    waiting = config_change_waits_for(
        scope="table_config", before=before, after=after, limit_fields=TableConfigVersion.LIMIT_FIELDS
    )
    return {
        "item": proposal,
        "approval": approval,
        "rows": config_change_rows(before, after, waiting),
        "may_decide": _may_decide(approval, user),
    }


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
    return {
        "table": table,
        "config": config,
        "form": form,
        "version_fields": [form[name] for name in TableConfigForm.VERSIONS],
        "limit_fields": [form[name] for name in TableConfigForm.LIMITS],
        "setting_fields": [form[name] for name in TableConfigForm.SETTINGS],
        "edges": _edges(
            chosen["rule_set_version"] or config.rule_set_version,
            chosen["perfect_pairs_version"],
            chosen["twenty_one_plus_three_version"],
        ),
        "history": _history(table),
        "proposal": _proposal_entry(pending, user) if pending is not None else None,
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
            error = TableError(
                _("Nothing changed: the form holds the current configuration."), code="no_change"
            )
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
    edges = _edges(
        rule_version,
        chosen(SideBetPaytableVersion, "perfect_pairs_version", config.perfect_pairs_version),
        chosen(SideBetPaytableVersion, "twenty_one_plus_three_version", config.twenty_one_plus_three_version),
    )
    return htmx_vary(render(request, "tables/operator/_edges.html", {"edges": edges, "table": table}))


# ------------------------------------------------------------------------------------ the main game's edge


@staff_page("supervise_pit")
@require_http_methods(["GET", "POST"])
def main_edge(request: HtmxHttpRequest, version_id: int) -> HttpResponse:
    """The main-game edge of a rule-set version: POST starts (or joins) its computation; GET
    shows it, polled every second by the progress bar while it runs. For operators and pit
    bosses (who approve the version: they see its edge first)."""
    version = get_object_or_404(RuleSetVersion.objects.select_related("rule_set"), pk=version_id)
    error = None
    if request.method == "POST":
        try:
            main_game_edge_start(version, actor=Actor.staff(staff_user(request)))
        except ServiceError as refused:
            error = refused
        if not request.htmx:
            if error is not None:
                messages.error(request, _refused(error))
            return redirect(
                request.POST.get("next") or reverse("operator:rule_set", args=[version.rule_set_id])
            )
    edge = _main_edge(version)
    context = {"main": edge, "error": error}
    return htmx_vary(
        render(request, "tables/operator/_main-edge.html", context, status=error.status if error else 200)
    )


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
        error = TableError(_("Versions of this game's rule sets are not edited here."), code="not_editable")
        status = 422
    context = {
        "rule_set": rule_set,
        "versions": versions,
        "rows": _options_rows(rule_set.game, versions),
        "edges": {version.pk: _main_edge(version) for version in versions if rule_set.game == Game.BLACKJACK},
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
        "version_edges": [(version, _side_edge(version, decks)) for version in versions],
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


# ------------------------------------------------------------------------------------ approvals


def _approvals_context(casino_id: int, user: Any) -> dict[str, Any]:
    """What waits for a second person (``config_approvals_waiting``), each with its change shown
    as old and new values, who asked, and whether ``user`` may decide it; a rule-set version with
    its main game's house edge, without which it is not approved."""
    waiting = list(config_approvals_waiting(casino_id=casino_id))
    proposals = [
        _proposal_entry(proposal, user)
        for proposal in TableConfigProposal.objects.filter(approval__in=waiting)
        .select_related("table", "approval", "created_by")
        .order_by("pk")
    ]
    rule_drafts = []
    for rule_draft in (
        RuleSetVersion.objects.filter(approval__in=waiting)
        .select_related("rule_set", "created_by", "approval")
        .order_by("pk")
    ):
        current_rules = rule_draft.rule_set.current_version()
        old_options = current_rules.options if current_rules else {}
        game = rule_draft.rule_set.game
        rows = [
            {
                "label": option_label(game, name),
                "old": option_text(name, old_options.get(name)),
                "new": option_text(name, rule_draft.options[name]),
            }
            for name in options_in_order(game, rule_draft.options)
            if old_options.get(name) != rule_draft.options[name]
        ]
        edge = _main_edge(rule_draft) if game == Game.BLACKJACK else None
        rule_drafts.append(
            {
                "item": rule_draft,
                "rows": rows,
                "edge": edge,
                # A blackjack version is approved with its house edge in view.
                "edge_missing": edge is not None and "percent" not in edge,
                "may_decide": _may_decide(rule_draft.approval, user),
            }
        )
    paytable_drafts = []
    for paytable_draft in (
        SideBetPaytableVersion.objects.filter(approval__in=waiting)
        .select_related("paytable", "created_by", "approval")
        .order_by("pk")
    ):
        current_payouts = paytable_draft.paytable.current_version()
        old_payouts = current_payouts.payouts if current_payouts else {}
        paytable_drafts.append(
            {
                "item": paytable_draft,
                "rows": [
                    {
                        "label": OUTCOME_LABELS.get(name, name),
                        "old": old_payouts.get(name, "-"),
                        "new": paytable_draft.payouts.get(name, "-"),
                    }
                    for name in OUTCOMES[SideBetPaytable.Kind(paytable_draft.paytable.kind)]
                ],
                "edge": _side_edge(paytable_draft, 6),
                "current_edge": _side_edge(current_payouts, 6),
                "may_decide": _may_decide(paytable_draft.approval, user),
            }
        )
    return {"proposals": proposals, "rule_drafts": rule_drafts, "paytable_drafts": paytable_drafts}


@staff_page("supervise_pit")
@require_GET
def approvals(request: HtmxHttpRequest) -> HttpResponse:
    context = _approvals_context(staff_casino_id(request), request.user)
    return htmx_render(request, "tables/operator/approvals.html", context, partial="approvals")


@staff_page("supervise_pit")
@require_POST
def approval_decide(request: HtmxHttpRequest, kind: str, item_id: int, decision: str) -> HttpResponse:
    """Approve or reject a waiting table change (``kind`` table), rule-set version (rule-set) or
    paytable version (paytable)."""
    casino_id = staff_casino_id(request)
    actor = Actor.staff(staff_user(request))
    reason = request.POST.get("reason", "")
    error: ServiceError | None = None
    try:
        if decision not in ("approve", "reject"):
            raise TableError(_("No such decision."), code="no_such_decision")
        if kind == "table":
            proposal = get_object_or_404(TableConfigProposal, pk=item_id, table__casino_id=casino_id)
            if decision == "approve":
                table_config_proposal_approve(proposal=proposal, actor=actor)
            else:
                table_config_proposal_reject(proposal=proposal, actor=actor, reason=reason)
        elif kind == "rule-set":
            version = get_object_or_404(RuleSetVersion, pk=item_id, approval__casino_id=casino_id)
            if decision == "approve":
                rule_set_version_approve(version=version, actor=actor)
            else:
                rule_set_version_reject(version=version, actor=actor, reason=reason)
        elif kind == "paytable":
            paytable_version = get_object_or_404(
                SideBetPaytableVersion, pk=item_id, approval__casino_id=casino_id
            )
            if decision == "approve":
                paytable_version_approve(version=paytable_version, actor=actor)
            else:
                paytable_version_reject(version=paytable_version, actor=actor, reason=reason)
        else:
            raise Http404(kind)
    except ServiceError as refused:
        error = refused
    done = (
        _("Approved: tables may use it from their next round.") if decision == "approve" else _("Rejected.")
    )
    if request.htmx:
        context = {
            **_approvals_context(casino_id, request.user),
            "error": error,
            "done": "" if error else done,
        }
        status = error.status if error else 200
        return htmx_render(
            request, "tables/operator/approvals.html", context, partial="approvals", status=status
        )
    if error is not None:
        messages.error(request, _refused(error))
    else:
        messages.success(request, done)
    return redirect("operator:approvals")
