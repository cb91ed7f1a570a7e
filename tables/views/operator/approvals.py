"""The approvals a second person gives (``/operator/approvals/``, for pit bosses and
operators): a table's change, a rule-set version (with its main game's house edge) and a paytable
version, each with its change as old and new values."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from casino.errors import ServiceError
from casino.htmx import htmx_render
from casino.models import Game, RuleSetVersion
from casino.views import HtmxHttpRequest, staff_casino_id, staff_page, staff_user
from tables.errors import NoSuchDecisionError
from tables.forms import OUTCOMES
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigProposal
from tables.rule_set_texts import OUTCOME_LABELS, option_label, option_text, options_in_order
from tables.selectors import config_approvals_waiting
from tables.services import (
    Actor,
    paytable_version_approve,
    paytable_version_reject,
    rule_set_version_approve,
    rule_set_version_reject,
    table_config_proposal_approve,
    table_config_proposal_reject,
)
from tables.views.operator.common import (
    edge_stream_url,
    main_edge_of,
    may_decide_now,
    proposal_entry,
    refusal_message,
    side_edge_of,
)

# ------------------------------------------------------------------------------------ approvals


def _approvals_context(casino_id: int, user: Any) -> dict[str, Any]:
    """What waits for a second person (``config_approvals_waiting``), each with its change shown
    as old and new values, who asked, and whether ``user`` may decide it; a rule-set version with
    its main game's house edge, without which it is not approved."""
    waiting = list(config_approvals_waiting(casino_id=casino_id))
    proposals = [
        proposal_entry(proposal, user)
        for proposal in TableConfigProposal.objects.filter(approval__in=waiting)
        .select_related("table", "approval", "created_by")
        .order_by("pk")
    ]
    rule_drafts: list[dict[str, Any]] = []
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
        edge = main_edge_of(rule_draft) if game == Game.BLACKJACK else None
        rule_drafts.append(
            {
                "item": rule_draft,
                "rows": rows,
                "edge": edge,
                # A blackjack version is approved with its house edge in view.
                "edge_missing": edge is not None and "percent" not in edge,
                "may_decide": may_decide_now(rule_draft.approval, user),
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
                "edge": side_edge_of(paytable_draft, 6),
                "current_edge": side_edge_of(current_payouts, 6),
                "may_decide": may_decide_now(paytable_draft.approval, user),
            }
        )
    return {
        "proposals": proposals,
        "rule_drafts": rule_drafts,
        "paytable_drafts": paytable_drafts,
        "stream_url": edge_stream_url(draft["edge"] for draft in rule_drafts),
    }


@staff_page("supervise_pit")
@require_GET
def approvals(request: HtmxHttpRequest) -> HttpResponse:
    context = _approvals_context(staff_casino_id(request), request.user)
    return htmx_render(request, "tables/operator/approvals.html", context, partial="approvals")


@staff_page("supervise_pit")
@require_POST
def approval_decide_page(request: HtmxHttpRequest, kind: str, item_id: int, decision: str) -> HttpResponse:
    """Approve or reject a waiting table change (``kind`` table), rule-set version (rule-set) or
    paytable version (paytable)."""
    casino_id = staff_casino_id(request)
    actor = Actor.staff(staff_user(request))
    reason = request.POST.get("reason", "")
    error: ServiceError | None = None
    try:
        if decision not in ("approve", "reject"):
            raise NoSuchDecisionError(_("No such decision."))
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
        messages.error(request, refusal_message(error))
    else:
        messages.success(request, done)
    return redirect("operator:approvals")
