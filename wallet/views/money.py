"""The cage's money forms, each with a one-time token (the service runs once per token,
``casino.idempotency.idempotent``): buy-in, cash-out and a pit boss's balance adjustment; and the
printable receipt of a transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET, require_POST

from casino.actors import Actor
from casino.errors import ServiceError
from casino.htmx import htmx_render
from casino.idempotency import Outcome, idempotent
from casino.views import HtmxHttpRequest, staff_page, staff_user
from wallet.forms import AdjustmentForm, CageMoneyForm, CashOutForm, form_token
from wallet.models import Transfer
from wallet.services import balance_adjust, cage_buy_in, cage_cash_out
from wallet.views.common import cage_casino, cage_page, cage_player, receipt_for
from wallet.views.players import player_answer

RECEIPT = "wallet/cage/receipt.html"


def _once(
    request: HttpRequest, *, token: str, payload: dict[str, Any], perform: Callable[[], dict[str, Any]]
) -> tuple[dict[str, Any], bool]:
    """Run ``perform`` (one service call) once per form token; its response and whether it is
    the first run's, replayed. A refusal leaves no record: the form may be sent again."""
    result = idempotent(
        scope=f"cage:u{staff_user(request).pk}",
        key=token,
        payload=payload,
        perform=lambda: Outcome(perform()),
    )
    return result.response, result.replayed


def _money_command(request: HtmxHttpRequest, player_id: int, kind: str) -> HttpResponse:
    player = cage_player(request, player_id)
    form = (
        CashOutForm(request.POST, prefix=kind)
        if kind == "cash_out"
        else CageMoneyForm(request.POST, prefix=kind)
    )
    if not form.is_valid():
        return player_answer(request, player, status=422, forms={f"{kind}_form": form})
    amount_minor: int = form.cleaned_data["amount"]

    def perform() -> Transfer:
        if kind == "buy_in":
            return cage_buy_in(
                player=player, amount_minor=amount_minor, actor=Actor.staff(staff_user(request))
            )
        return cage_cash_out(
            player=player,
            amount_minor=amount_minor,
            actor=Actor.staff(staff_user(request)),
            confirmed=form.cleaned_data["confirmed"],
        )

    try:
        response, replayed = _once(
            request,
            token=form.cleaned_data["form_token"],
            payload={"command": f"cage_{kind}", "player_id": player.pk, "amount_minor": amount_minor},
            perform=lambda: {"transfer_id": perform().pk},
        )
    except ServiceError as error:
        return player_answer(request, player, error=error, forms={f"{kind}_form": _fresh(form, kind)})
    return player_answer(request, player, done=_done_params(response["transfer_id"], replayed))


def _done_params(transfer_id: int, replayed: bool) -> dict[str, str]:
    return {"done": str(transfer_id), **({"again": "1"} if replayed else {})}


def _fresh(form: CageMoneyForm | AdjustmentForm, prefix: str) -> Any:
    """The form as it was typed, with a new token: after a refusal, sending it again is a new
    command."""
    data = dict(form.data.items())
    data[f"{prefix}-form_token"] = form_token()
    return type(form)(data, prefix=prefix)


@staff_page("operate_cage")
@require_POST
def buy_in(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    return _money_command(request, player_id, "buy_in")


@staff_page("operate_cage")
@require_POST
def cash_out(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """Only the available balance leaves: more is refused with ``insufficient_funds``."""
    return _money_command(request, player_id, "cash_out")


@staff_page("adjust_balance")
@require_POST
def adjust(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """A balance adjustment (``balance_adjust``): applied at once up to the threshold, else
    pending for a second pit boss."""
    player = cage_player(request, player_id)
    form = AdjustmentForm(request.POST, prefix="adjust")
    if not form.is_valid():
        return player_answer(request, player, status=422, forms={"adjust_form": form})
    amount_minor: int = form.cleaned_data["amount"]
    reason: str = form.cleaned_data["reason"]

    def perform() -> dict[str, Any]:
        adjustment = balance_adjust(
            player=player, amount_minor=amount_minor, reason=reason, actor=Actor.staff(staff_user(request))
        )
        return {"adjustment_id": adjustment.pk, "transfer_id": adjustment.transfer_id}

    try:
        response, replayed = _once(
            request,
            token=form.cleaned_data["form_token"],
            payload={
                "command": "balance_adjust",
                "player_id": player.pk,
                "amount_minor": amount_minor,
                "reason": reason,
            },
            perform=perform,
        )
    except ServiceError as error:
        return player_answer(request, player, error=error, forms={"adjust_form": _fresh(form, "adjust")})
    if response["transfer_id"] is None:
        return player_answer(request, player, done={"pending": "1", **({"again": "1"} if replayed else {})})
    return player_answer(request, player, done=_done_params(response["transfer_id"], replayed))


# ------------------------------------------------------------------------------ receipts


@cage_page
@require_GET
def receipt(request: HtmxHttpRequest, transfer_id: int) -> HttpResponse:
    """A printable receipt of a buy-in, a cash-out or an applied adjustment: the casino, the
    player (card masked but its last four), amount, kind, transfer id, time and cashier."""
    found = receipt_for(casino=cage_casino(request), transfer_id=transfer_id)
    if found is None:
        raise Http404(f"no receipt for transfer {transfer_id}")
    return htmx_render(
        request, RECEIPT, {"receipt": found, "casino": found.transfer.casino}, partial="receipt"
    )
