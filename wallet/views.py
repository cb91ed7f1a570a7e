"""The cage's pages (``/cage/``): find a player, register one, and the player's page with the
cashier's transactions (buy-in, cash-out, card lock and unlock), the pit boss's balance
adjustments and their approval, and a printable receipt of each transaction.

Who sees what (permissions of ``casino.roles``):

- the cashier (``operate_cage``): the search ``/cage/``, registration, the player's page, buy-in,
  cash-out, card lock and unlock, receipts;
- the pit boss (``adjust_balance``): the adjustments desk ``/cage/adjustments/`` (pending
  adjustments of the casino, a player search), the player's page (read, plus the adjustment form
  and the pending adjustments' approve and reject), receipts. ``balance_adjust`` needs
  ``adjust_balance`` too, so a cashier sees a player's pending adjustments but neither requests
  nor decides one. Who may decide one is the four-eyes capability's rule (``casino.four_eyes``):
  the buttons show to those it lets decide, and its service refuses the others (the requester:
  ``four_eyes_required``).

Every page works without JavaScript and answers ``Vary: HX-Request``: with htmx, the part of the
page that changed (the search results, the player's section, the statement, the adjustments);
without it, the whole page. A form that moves money carries a one-time token: the service runs
once per token (``casino.idempotency.idempotent``, scope ``cage:u<staff id>``), and a second
submit of the same form is answered with the first one's transfer, moving nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.htmx import htmx_render, htmx_vary
from casino.idempotency import Outcome, idempotent
from casino.models import Casino, Player
from casino.money import money
from casino.refusals import refusal_text
from casino.selectors import casino_for_user
from casino.services import player_card_lock, player_card_unlock, player_create
from casino.views import HtmxHttpRequest, staff_page, staff_user
from wallet.forms import (
    AdjustmentForm,
    CageMoneyForm,
    CashOutForm,
    PlayerRegisterForm,
    PlayerSearchForm,
    ReasonForm,
    form_token,
)
from wallet.models import (
    AdjustmentStatus,
    BalanceAdjustment,
    Hold,
    HoldStatus,
    Posting,
    Transfer,
    TransferKind,
)
from wallet.references import reference_numbers
from wallet.selectors import Balance, account_balance, player_account, player_statement
from wallet.services import (
    adjustment_approval_threshold_minor,
    adjustment_approve,
    adjustment_reject,
    balance_adjust,
    cage_buy_in,
    cage_cash_out,
)

HOME = "wallet/cage/home.html"
PLAYER = "wallet/cage/player.html"
REGISTER = "wallet/cage/register.html"
ADJUSTMENTS = "wallet/cage/adjustments.html"
RECEIPT = "wallet/cage/receipt.html"
SEARCH_LIMIT = 25
STATEMENT_LINES_PER_PAGE = 20
CAGE_PERMISSIONS = ("casino.operate_cage", "casino.adjust_balance")
# The transfers a receipt is printed for: the cage's own transactions.
RECEIPT_KINDS = (TransferKind.BUY_IN, TransferKind.CASH_OUT, TransferKind.ADJUSTMENT)
KIND_LABELS = {
    TransferKind.BUY_IN: gettext_lazy("Buy-in"),
    TransferKind.CASH_OUT: gettext_lazy("Cash-out"),
    TransferKind.TABLE_FILL: gettext_lazy("Table fill"),
    TransferKind.TABLE_CREDIT: gettext_lazy("Table credit"),
    TransferKind.ADJUSTMENT: gettext_lazy("Balance adjustment"),
    TransferKind.PLAYER_TRANSFER: gettext_lazy("Transfer between players"),
    TransferKind.ROUND_SETTLEMENT: gettext_lazy("Round settlement"),
    TransferKind.PAYOUT_RELEASE: gettext_lazy("Payout released"),
    TransferKind.PAYOUT_REJECT: gettext_lazy("Payout rejected"),
    TransferKind.REVERSAL: gettext_lazy("Reversal"),
    TransferKind.TIP: gettext_lazy("Tip to the dealers"),
}
ADJUSTMENT_DONE_TEXTS = {
    "approve": gettext_lazy("Adjustment approved and applied."),
    "reject": gettext_lazy("Adjustment rejected."),
}
CARD_DONE_TEXTS = {"locked": gettext_lazy("Card locked."), "unlocked": gettext_lazy("Card unlocked.")}
DONE_TEXTS = {
    TransferKind.BUY_IN: gettext_lazy("Buy-in recorded."),
    TransferKind.CASH_OUT: gettext_lazy("Cash-out recorded."),
    TransferKind.ADJUSTMENT: gettext_lazy("Adjustment applied."),
}

View = Callable[..., HttpResponse]


def cage_page(view: View) -> View:
    """Anonymous visitors go to the login page; staff who neither operate the cage nor adjust
    balances get 403."""

    @wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not any(request.user.has_perm(permission) for permission in CAGE_PERMISSIONS):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return login_required(checked)


def _casino(request: HttpRequest) -> Casino:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino


def _staff_player(request: HttpRequest, player_id: int) -> Player:
    """The player ``player_id`` of the staff member's casino; 404 otherwise."""
    player = Player.objects.select_related("casino").filter(pk=player_id, casino=_casino(request)).first()
    if player is None:
        raise Http404(f"no player {player_id}")
    return player


def masked_card(card_number: str) -> str:
    """Every character but the last four as a bullet: ``1000000001`` -> ``••••••0001``."""
    shown = card_number[-4:]
    return "\u2022" * (len(card_number) - len(shown)) + shown


# ----------------------------------------------------------------------------------- reads


def player_search(*, casino: Casino, text: str) -> list[Player]:
    """Players of the casino whose card number starts with ``text`` or whose name contains it;
    an exact card number first, then by name. At most ``SEARCH_LIMIT``."""
    text = text.strip()
    if not text:
        return []
    players = Player.objects.filter(casino=casino).filter(
        Q(card_number__startswith=text) | Q(display_name__icontains=text)
    )
    found = sorted(
        players.order_by("display_name", "pk")[:SEARCH_LIMIT],
        key=lambda player: player.card_number != text,
    )
    return found


@dataclass(frozen=True)
class PlayerStatus:
    code: str  # active, card_locked, pin_locked
    label: str
    until: dt.datetime | None = None


def player_status(player: Player) -> PlayerStatus:
    if not player.is_active:
        return PlayerStatus("card_locked", _("Locked by the cage"))
    if player.locked_until is not None and player.locked_until > timezone.now():
        return PlayerStatus("pin_locked", _("Locked after wrong PINs"), player.locked_until)
    return PlayerStatus("active", _("Active"))


@dataclass(frozen=True)
class OpenHold:
    hold: Hold
    table_name: str
    round_number: int | None


def open_holds(player: Player) -> list[OpenHold]:
    """The player's open holds (bets placed, not settled), with the table and round they are for
    when the hold names them."""
    account = player_account(player)
    if account is None:
        return []
    holds = list(
        Hold.objects.filter(account=account, status=HoldStatus.OPEN).select_related("table").order_by("pk")
    )
    round_ids = [
        int(hold.reference_id)
        for hold in holds
        if hold.reference_type == "round" and hold.reference_id.isdigit()
    ]
    numbers = reference_numbers("round", round_ids)
    return [
        OpenHold(
            hold=hold,
            table_name=hold.table.name if hold.table_id and hold.table else "",
            round_number=numbers.get(int(hold.reference_id)) if hold.reference_id.isdigit() else None,
        )
        for hold in holds
    ]


def pending_adjustments(*, casino: Casino, player: Player | None = None) -> list[BalanceAdjustment]:
    adjustments = BalanceAdjustment.objects.filter(
        status=AdjustmentStatus.PENDING, account__casino=casino
    ).select_related("account__player", "requested_by", "approval")
    if player is not None:
        adjustments = adjustments.filter(account__player=player)
    return list(adjustments.order_by("pk"))


def adjustments_waiting(
    request: HttpRequest, *, casino: Casino, player: Player | None = None
) -> dict[str, Any]:
    """The pending adjustments (of ``player``, or of the casino), and the ids of those the
    signed-in person may decide now (``casino.four_eyes.may_decide``: not their own request)."""
    adjustments = pending_adjustments(casino=casino, player=player)
    decidable = {
        adjustment.pk
        for adjustment in adjustments
        if adjustment.approval is not None and may_decide(approval=adjustment.approval, user=request.user)
    }
    return {"adjustments": adjustments, "decidable_adjustment_ids": decidable}


@dataclass(frozen=True)
class Receipt:
    transfer: Transfer
    player: Player
    amount_minor: int
    kind_label: str
    card_masked: str


def receipt_for(*, casino: Casino, transfer_id: int) -> Receipt | None:
    """The receipt of a cage transaction (buy-in, cash-out, adjustment) of the casino: the player
    whose wallet it moved and by how much (their posting); None for any other transfer."""
    posting = (
        Posting.objects.select_related("transfer__created_by", "transfer__casino", "account__player")
        .filter(
            transfer_id=transfer_id,
            transfer__casino=casino,
            transfer__kind__in=RECEIPT_KINDS,
            account__player__isnull=False,
        )
        .first()
    )
    if posting is None or posting.account.player is None:
        return None
    player = posting.account.player
    return Receipt(
        transfer=posting.transfer,
        player=player,
        amount_minor=posting.amount_minor,
        kind_label=str(KIND_LABELS[TransferKind(posting.transfer.kind)]),
        card_masked=masked_card(player.card_number),
    )


def cage_refusal_text(error: ServiceError, balance: Balance) -> str:
    """A refusal in words for the cashier: the player's available money for
    ``insufficient_funds`` (the service speaks of accounts and minor units), else the refusal in
    the active language (``casino.refusals``)."""
    if error.code == "insufficient_funds":
        return _("Refused: the player has only %(available)s %(currency)s available.") % {
            "available": money(balance.available_minor),
            "currency": balance.currency,
        }
    return refusal_text(error)


# ---------------------------------------------------------------------------------- search


@staff_page("operate_cage")
@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    """The cashier's search: one box for a card number or a name; with htmx the results as
    the cashier types."""
    return _search_page(request, HOME)


def _search_page(request: HtmxHttpRequest, template: str, **extra: Any) -> HttpResponse:
    form = PlayerSearchForm(request.GET)
    text = form.cleaned_data["q"] if form.is_valid() else ""
    context = {
        "form": form,
        "query": text,
        "players": [
            (player, player_status(player)) for player in player_search(casino=_casino(request), text=text)
        ],
        **extra,
    }
    return htmx_render(request, template, context, partial="player-results")


# --------------------------------------------------------------------------- registration


@staff_page("operate_cage")
@require_http_methods(["GET", "POST"])
def player_register(request: HtmxHttpRequest) -> HttpResponse:
    """Register a player: name, card number and the PIN twice (``player_create``)."""
    form = PlayerRegisterForm(request.POST if request.method == "POST" else None)
    error: ServiceError | None = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                player = player_create(
                    casino=_casino(request),
                    card_number=data["card_number"],
                    display_name=data["display_name"],
                    pin=data["pin"],
                    actor=Actor.staff(staff_user(request)),
                )
            except ServiceError as refused:
                error, status = refused, refused.status
            else:
                url = reverse("cage:player", args=[player.pk]) + "?registered=1"
                return htmx_vary(HttpResponseClientRedirect(url) if request.htmx else redirect(url))
        else:
            status = 422
    context = {"form": form, "error": error, "error_text": refusal_text(error) if error else ""}
    return htmx_render(request, REGISTER, context, partial="register-form", status=status)


# ---------------------------------------------------------------------------- the player


def _player_context(request: HttpRequest, player: Player, **extra: Any) -> dict[str, Any]:
    user = request.user
    lines = list(reversed(player_statement(player)))
    page = Paginator(lines, STATEMENT_LINES_PER_PAGE).get_page(request.GET.get("page"))
    context: dict[str, Any] = {
        "player": player,
        "status": player_status(player),
        "balance": account_balance(player),
        "holds": open_holds(player),
        "statement": page,
        "statement_lines": [
            (line, KIND_LABELS.get(TransferKind(line.kind), line.kind), line.kind in RECEIPT_KINDS)
            for line in page
        ],
        **adjustments_waiting(request, casino=player.casino, player=player),
        "adjustments_player": player,
        "threshold_minor": adjustment_approval_threshold_minor(),
        "can_operate": user.has_perm("casino.operate_cage"),
        "can_adjust": user.has_perm("casino.adjust_balance"),
        "buy_in_form": CageMoneyForm(initial={"form_token": form_token()}, prefix="buy_in"),
        "cash_out_form": CashOutForm(initial={"form_token": form_token()}, prefix="cash_out"),
        "cash_out_confirmation_above_minor": player.casino.cash_out_confirmation_above_minor,
        "adjust_form": AdjustmentForm(initial={"form_token": form_token()}, prefix="adjust"),
        "lock_form": ReasonForm(prefix="lock"),
        "error": None,
        "done": "",
        "receipt": None,
        **extra,
    }
    return context


def _done_context(player: Player, params: Mapping[str, str]) -> dict[str, Any]:
    """What the player's page says after a command, from the parameters of the redirect to it:
    ``done=<transfer id>`` (what was done, with its receipt), ``again=1`` (the form had been sent
    already: nothing moved twice), ``pending=1`` (an adjustment waits), ``card=locked|unlocked``,
    ``registered=1``."""
    extra: dict[str, Any] = {}
    done = params.get("done", "")
    if done.isdigit():
        found = receipt_for(casino=player.casino, transfer_id=int(done))
        if found is not None and found.player.pk == player.pk:
            extra["receipt"] = found
            extra["done"] = str(DONE_TEXTS[TransferKind(found.transfer.kind)])
    if params.get("adjustment") in ADJUSTMENT_DONE_TEXTS:
        extra["done"] = str(ADJUSTMENT_DONE_TEXTS[params["adjustment"]])
    if params.get("pending"):
        extra["done"] = _("The adjustment waits for a second pit boss's approval.")
    if params.get("card") in CARD_DONE_TEXTS:
        extra["done"] = str(CARD_DONE_TEXTS[params["card"]])
    if params.get("registered"):
        extra["done"] = _("Player registered.")
    if params.get("again"):
        extra["again"] = True
    return extra


@cage_page
@require_GET
def player_page(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """The player: status, balance, open holds, pending adjustments, the cage's forms, and the
    statement, newest first, paged. With htmx, the statement alone when it is the target (its
    page links), else the player's section."""
    player = _staff_player(request, player_id)
    context = _player_context(request, player, **_done_context(player, request.GET))
    partial = "statement" if request.htmx and request.htmx.target == "statement" else "player"
    return htmx_render(request, PLAYER, context, partial=partial)


def _answer(
    request: HtmxHttpRequest,
    player: Player,
    *,
    error: ServiceError | None = None,
    status: int = 200,
    done: Mapping[str, str] | None = None,
    forms: Mapping[str, Any] | None = None,
) -> HttpResponse:
    """After a command on the player: a success without htmx goes back to the player's page
    (``done`` says what was done, in its query string); a refusal (``error``, or an invalid form
    with ``status``) redraws the page with the reason and the forms as typed; with htmx, the
    player's section, either way."""
    if error is not None:
        status = error.status
    if status < 400 and not request.htmx:
        query = f"?{urlencode(done)}" if done else ""
        return htmx_vary(redirect(reverse("cage:player", args=[player.pk]) + query))
    player.refresh_from_db()
    extra = _done_context(player, done) if status < 400 and done else {}
    context = _player_context(request, player, error=error, **extra, **(forms or {}))
    if error is not None:
        context["error_text"] = cage_refusal_text(error, context["balance"])
    return htmx_render(request, PLAYER, context, partial="player", status=status)


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
    player = _staff_player(request, player_id)
    form = (
        CashOutForm(request.POST, prefix=kind)
        if kind == "cash_out"
        else CageMoneyForm(request.POST, prefix=kind)
    )
    if not form.is_valid():
        return _answer(request, player, status=422, forms={f"{kind}_form": form})
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
        return _answer(request, player, error=error, forms={f"{kind}_form": _fresh(form, kind)})
    return _answer(request, player, done=_done_params(response["transfer_id"], replayed))


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


@staff_page("operate_cage")
@require_POST
def card_lock(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = _staff_player(request, player_id)
    form = ReasonForm(request.POST, prefix="lock")
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        player_card_lock(player=player, reason=reason, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        return _answer(request, player, error=error, forms={"lock_form": form})
    return _answer(request, player, done={"card": "locked"})


@staff_page("operate_cage")
@require_POST
def card_unlock(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = _staff_player(request, player_id)
    try:
        player_card_unlock(player=player, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        return _answer(request, player, error=error)
    return _answer(request, player, done={"card": "unlocked"})


# --------------------------------------------------------------------------- adjustments


@staff_page("adjust_balance")
@require_POST
def adjust(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """A balance adjustment (``balance_adjust``): applied at once up to the threshold, else
    pending for a second pit boss."""
    player = _staff_player(request, player_id)
    form = AdjustmentForm(request.POST, prefix="adjust")
    if not form.is_valid():
        return _answer(request, player, status=422, forms={"adjust_form": form})
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
        return _answer(request, player, error=error, forms={"adjust_form": _fresh(form, "adjust")})
    if response["transfer_id"] is None:
        return _answer(request, player, done={"pending": "1", **({"again": "1"} if replayed else {})})
    return _answer(request, player, done=_done_params(response["transfer_id"], replayed))


@staff_page("adjust_balance")
@require_GET
def adjustments(request: HtmxHttpRequest) -> HttpResponse:
    """The pit boss's adjustments desk: every pending adjustment of the casino, and a player
    search (to reach a player's page and request one)."""
    casino = _casino(request)
    if request.htmx and request.htmx.target == "adjustments":
        context = {**adjustments_waiting(request, casino=casino), "can_adjust": True}
        return htmx_render(request, ADJUSTMENTS, context, partial="adjustments")
    return _search_page(request, ADJUSTMENTS, **adjustments_waiting(request, casino=casino), can_adjust=True)


@staff_page("adjust_balance")
@require_POST
def adjustment_decide(request: HtmxHttpRequest, adjustment_id: int, decision: str) -> HttpResponse:
    """Approve or reject a pending adjustment (``adjustment_approve``, ``adjustment_reject``):
    a second person decides, never its requester (``four_eyes_required``). Answers where the
    decision was taken: the player's page (the form sends ``player``) or the adjustments desk."""
    casino = _casino(request)
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
            return _answer(request, player, error=error)
        done_params = {"adjustment": decision}
        if approved is not None:
            done_params["done"] = str(approved.transfer.pk)
        return _answer(request, player, done=done_params)
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


# ------------------------------------------------------------------------------ receipts


@cage_page
@require_GET
def receipt(request: HtmxHttpRequest, transfer_id: int) -> HttpResponse:
    """A printable receipt of a buy-in, a cash-out or an applied adjustment: the casino, the
    player (card masked but its last four), amount, kind, transfer id, time and cashier."""
    found = receipt_for(casino=_casino(request), transfer_id=transfer_id)
    if found is None:
        raise Http404(f"no receipt for transfer {transfer_id}")
    return htmx_render(
        request, RECEIPT, {"receipt": found, "casino": found.transfer.casino}, partial="receipt"
    )
