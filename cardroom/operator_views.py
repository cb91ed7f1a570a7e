"""The operator's page of a canasta table, ``/operator/tables/<table>/canasta/``: its current
configuration version (the preset, physical or virtual deals, the stake limits, the house fee),
the form asking for a change, the change waiting for a second operator with its values before and
after (those that weaken a control named), the decision on it, and the versions side by side.

Every change is ``canasta_config_change`` and waits; a second operator decides it here
(``canasta_config_decide``); who may decide is ``casino.four_eyes``'s. A refusal redraws the page
with the reason in words and a 4xx status, and changes nothing. For operators
(``casino.configure_tables``) of the table's casino; a blackjack table has no such page (404).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from cardroom.errors import CanastaNoChangeError
from cardroom.forms import LABELS, CanastaConfigForm, value_text
from cardroom.models import CanastaTableSettings
from cardroom.services import canasta_config_change, canasta_config_decide
from cardroom.services.config import (
    KIND,
    SUBJECT_TYPE,
    canasta_config_current,
    canasta_config_pending,
    canasta_config_values,
)
from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import may_decide, weakened_fields
from casino.htmx import htmx_render
from casino.models import Approval, Game, RuleSetVersion, Table
from casino.views import HtmxHttpRequest, staff_page, staff_table, staff_user

OPERATOR_PAGE = "cardroom/operator_table.html"
# How many of a table's versions the page shows side by side (newest first).
HISTORY_VERSIONS = 8


def _canasta_table(request: HtmxHttpRequest, table_name: str) -> Table:
    table = staff_table(request, table_name)
    if table.game != Game.CANASTA:
        raise Http404(_("%(name)s is not a canasta table.") % {"name": table.name})
    return table


def _change_rows(approval: Approval) -> list[dict[str, Any]]:
    before, after = approval.before or {}, approval.after or {}
    weakening = set(weakened_fields(scope=KIND, before=before, after=after))
    return [
        {
            "label": LABELS.get(name, name),
            "old": value_text(name, before.get(name)),
            "new": value_text(name, value),
            "weakens": name in weakening,
        }
        for name, value in after.items()
    ]


def _history(table: Table) -> dict[str, Any]:
    """The table's latest versions side by side: a row per field, a column per version, a cell
    marked when it differs from the version before it."""
    versions = list(
        CanastaTableSettings.objects.filter(table=table)
        .select_related("rule_set_version__rule_set", "created_by", "approval__decided_by")
        .order_by("-number")[: HISTORY_VERSIONS + 1]
    )
    shown = versions[:HISTORY_VERSIONS]
    rows = []
    for name, label in LABELS.items():
        cells = []
        for index, version in enumerate(shown):
            value = version.values()[name]
            older = versions[index + 1] if index + 1 < len(versions) else None
            cells.append(
                {
                    "value": value_text(name, value),
                    "changed": older is not None and older.values()[name] != value,
                }
            )
        rows.append({"label": label, "cells": cells})
    return {"versions": shown, "rows": rows}


def _context(
    request: HtmxHttpRequest,
    table: Table,
    form: CanastaConfigForm | None = None,
    error: ServiceError | None = None,
) -> dict[str, Any]:
    values = canasta_config_values(table)
    current_version = RuleSetVersion.objects.select_related("rule_set").get(pk=values["rule_set_version"])
    pending = canasta_config_pending(table)
    if form is None:
        form = CanastaConfigForm(initial=CanastaConfigForm.initial_from(values), current=current_version)
    decided = Approval.objects.filter(kind=KIND, subject_type=SUBJECT_TYPE, subject_id=str(table.pk)).exclude(
        status=Approval.Status.PENDING
    )
    return {
        "table": table,
        "config": canasta_config_current(table),
        "current": [
            {"label": label, "value": value_text(name, values[name])} for name, label in LABELS.items()
        ],
        "form": form,
        "pending": pending,
        "pending_rows": _change_rows(pending) if pending is not None else [],
        "may_decide": pending is not None and may_decide(approval=pending, user=request.user),
        "decided": [
            {"item": approval, "rows": _change_rows(approval)}
            for approval in decided.select_related("decided_by").order_by("-pk")[:5]
        ],
        "history": _history(table),
        "error": error,
    }


def _page(request: HtmxHttpRequest, table: Table, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return htmx_render(request, OPERATOR_PAGE, context, partial="canasta-config", status=status)


@staff_page("configure_tables")
@require_http_methods(["GET", "POST"])
def canasta_table(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """GET: the page. POST: ask for the change the form holds (it waits for a second operator)."""
    table = _canasta_table(request, table_name)
    if request.method == "GET":
        return _page(request, table, _context(request, table))
    values = canasta_config_values(table)
    form = CanastaConfigForm(
        request.POST,
        current=RuleSetVersion.objects.select_related("rule_set").get(pk=values["rule_set_version"]),
    )
    if not form.is_valid():
        return _page(request, table, _context(request, table, form), status=422)
    try:
        changes = form.changes_from(values)
        if not changes:
            raise CanastaNoChangeError(_("Nothing changed: the form holds the current configuration."))
        canasta_config_change(
            table=table,
            actor=Actor.staff(staff_user(request)),
            changes=changes,
            reason=form.cleaned_data["reason"],
        )
    except ServiceError as refused:
        status = 422 if refused.code == "no_change" else refused.status
        return _page(request, table, _context(request, table, form, refused), status=status)
    messages.warning(
        request,
        _("The change waits for a second operator's approval; it applies from the table's next game."),
    )
    return redirect("canasta_operator:table", table_name=table.name)


@staff_page("configure_tables")
@require_POST
def canasta_table_decide(
    request: HtmxHttpRequest, table_name: str, approval_id: int, decision: str
) -> HttpResponse:
    """Approve or reject (with a reason) the change of this table that waits."""
    table = _canasta_table(request, table_name)
    if (
        decision not in ("approve", "reject")
        or not Approval.objects.filter(
            pk=approval_id, kind=KIND, subject_type=SUBJECT_TYPE, subject_id=str(table.pk)
        ).exists()
    ):
        raise Http404(_("No such change of this table."))
    try:
        version = canasta_config_decide(
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=decision == "approve",
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        return _page(request, table, _context(request, table, error=refused), status=refused.status)
    if version is not None:
        messages.success(
            request,
            _("Version %(number)s of %(table)s approved: it applies from the table's next game.")
            % {"number": version.number, "table": table.name},
        )
    else:
        messages.success(request, _("Change rejected: the configuration stays as it is."))
    return redirect("canasta_operator:table", table_name=table.name)
