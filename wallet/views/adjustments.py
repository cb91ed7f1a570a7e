"""The pit boss's adjustments desk (``/cage/adjustments/``): every pending adjustment of the
casino and a player search, and the decision on an adjustment by a second person."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino.actors import Actor
from casino.errors import ServiceError
from casino.htmx import htmx_render, htmx_vary
from casino.refusals import refusal_text
from casino.views import HtmxHttpRequest, staff_page, staff_user
from wallet.forms import PlayerSearchForm, ReasonForm
from wallet.models import BalanceAdjustment
from wallet.services import adjustment_approve, adjustment_reject
from wallet.views.common import ADJUSTMENT_DONE_TEXTS, Receipt, adjustments_waiting, cage_casino, receipt_for
from wallet.views.players import player_answer, search_page

ADJUSTMENTS = "wallet/cage/adjustments.html"


@staff_page("adjust_balance")
@require_GET
def adjustments(request: HtmxHttpRequest) -> HttpResponse:
    """The pit boss's adjustments desk: every pending adjustment of the casino, and a player
    search (to reach a player's page and request one)."""
    casino = cage_casino(request)
    if request.htmx and request.htmx.target == "adjustments":
        context = {**adjustments_waiting(request, casino=casino), "can_adjust": True}
        return htmx_render(request, ADJUSTMENTS, context, partial="adjustments")
    return search_page(request, ADJUSTMENTS, **adjustments_waiting(request, casino=casino), can_adjust=True)


@staff_page("adjust_balance")
@require_POST
def adjustment_decide(request: HtmxHttpRequest, adjustment_id: int, decision: str) -> HttpResponse:
    """Approve or reject a pending adjustment (``adjustment_approve``, ``adjustment_reject``):
    a second person decides, never its requester (``four_eyes_required``). Answers where the
    decision was taken: the player's page (the form sends ``player``) or the adjustments desk."""
    casino = cage_casino(request)
    adjustment = (
        BalanceAdjustment.objects.select_related("account__player")
        .filter(pk=adjustment_id, account__casino=casino)
        .first()
    )
    if adjustment is None or decision not in ("approve", "reject"):
        raise Http404("no such adjustment or decision")
    player = adjustment.account.player
    error: ServiceError | None = None
    done = ""
    approved: Receipt | None = None
    try:
        if decision == "approve":
            decided = adjustment_approve(adjustment=adjustment, actor=Actor.staff(staff_user(request)))
            done = str(ADJUSTMENT_DONE_TEXTS["approve"])
            if decided.transfer_id is not None:
                approved = receipt_for(casino=casino, transfer_id=decided.transfer_id)
        else:
            form = ReasonForm(request.POST)
            reason = form.cleaned_data["reason"] if form.is_valid() else ""
            adjustment_reject(adjustment=adjustment, actor=Actor.staff(staff_user(request)), reason=reason)
            done = str(ADJUSTMENT_DONE_TEXTS["reject"])
    except ServiceError as refused:
        error = refused
    for_player = player is not None and request.POST.get("player") == str(player.pk)
    if player is not None and for_player:
        if error is not None:
            return player_answer(request, player, error=error)
        done_params = {"adjustment": decision}
        if approved is not None:
            done_params["done"] = str(approved.transfer.pk)
        return player_answer(request, player, done=done_params)
    context: dict[str, Any] = {
        **adjustments_waiting(request, casino=casino),
        "can_adjust": True,
        "adjustment_error": error,
        "adjustment_error_text": refusal_text(error) if error else "",
        "adjustment_done": "" if error else done,
        "adjustment_receipt": None if error else approved,
    }
    if request.htmx:
        status = error.status if error else 200
        return htmx_render(request, ADJUSTMENTS, context, partial="adjustments", status=status)
    if error is None:
        return htmx_vary(redirect(reverse("cage:adjustments")))
    context.update(form=PlayerSearchForm(), players=[])
    return htmx_vary(render(request, ADJUSTMENTS, context, status=error.status))
