"""The cashier's search (``/cage/``), a player's registration and the player's page: status,
balance, open holds, pending adjustments, the cage's forms and the statement; the card lock and
unlock; and the answer after a command on the player, which every form of the page shares.

The page follows the player's stream (``stream/``, ``casino/streams.py``): on each hint of the
player (a bet, a settlement, any move of the wallet) its money (the balance, the open holds and
the statement) is read again from ``live/``, which answers 204 while it has not moved; without
the stream, every 15 seconds."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase
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
from casino.hints import player_topic
from casino.htmx import htmx_render, htmx_vary
from casino.models import Casino, Player
from casino.money import money
from casino.refusals import refusal_text
from casino.services import player_card_lock, player_card_unlock, player_create
from casino.streams import hint_stream
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
from wallet.models import Hold, HoldStatus, Posting, TransferKind
from wallet.references import reference_numbers
from wallet.selectors import Balance, account_balance, player_account, player_statement
from wallet.services import adjustment_approval_threshold_minor
from wallet.views.common import (
    ADJUSTMENT_DONE_TEXTS,
    KIND_LABELS,
    RECEIPT_KINDS,
    adjustments_waiting,
    cage_casino,
    cage_page,
    cage_player,
    receipt_for,
)

HOME = "wallet/cage/home.html"
PLAYER = "wallet/cage/player.html"
REGISTER = "wallet/cage/register.html"
SEARCH_LIMIT = 25
STATEMENT_LINES_PER_PAGE = 20
CARD_DONE_TEXTS = {"locked": gettext_lazy("Card locked."), "unlocked": gettext_lazy("Card unlocked.")}
DONE_TEXTS = {
    TransferKind.BUY_IN: gettext_lazy("Buy-in recorded."),
    TransferKind.CASH_OUT: gettext_lazy("Cash-out recorded."),
    TransferKind.ADJUSTMENT: gettext_lazy("Adjustment applied."),
}


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


def money_version(player: Player) -> str:
    """What the page shows of the player's money, as a short digest: the wallet's balance and held
    amount, its open holds and its newest posting (the statement's first line)."""
    account = player_account(player)
    if account is None:
        return "no-wallet"
    holds = list(
        Hold.objects.filter(account=account, status=HoldStatus.OPEN)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    newest = Posting.objects.filter(account=account).order_by("-pk").values_list("pk", flat=True).first()
    shown = (account.balance_minor, account.held_minor, holds, newest)
    return hashlib.sha256(repr(shown).encode()).hexdigest()[:24]


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
    return search_page(request, HOME)


def search_page(request: HtmxHttpRequest, template: str, **extra: Any) -> HttpResponse:
    form = PlayerSearchForm(request.GET)
    text = form.cleaned_data["q"] if form.is_valid() else ""
    context = {
        "form": form,
        "query": text,
        "players": [
            (player, player_status(player))
            for player in player_search(casino=cage_casino(request), text=text)
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
                    casino=cage_casino(request),
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
        "stream_url": reverse("cage:player_stream", args=[player.pk]),
        "stream_reload": False,  # the cashier types amounts here: no reload without JavaScript
        # Read before the money it digests: a move between the two reads is drawn again, never missed.
        "money_version": money_version(player),
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
    player = cage_player(request, player_id)
    context = _player_context(request, player, **_done_context(player, request.GET))
    partial = "statement" if request.htmx and request.htmx.target == "statement" else "player"
    return htmx_render(request, PLAYER, context, partial=partial)


@cage_page
@require_GET
def player_live(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    """The page's money again (the balance in place, the open holds and the statement's page
    ``?page=`` out of band) when it moved on from ``?version=``, else 204."""
    player = cage_player(request, player_id)
    if request.GET.get("version") == money_version(player):
        return htmx_vary(HttpResponse(status=204))
    return htmx_vary(render(request, f"{PLAYER}#player-money", _player_context(request, player)))


@cage_page
@require_GET
def player_stream(request: HtmxHttpRequest, player_id: int) -> HttpResponseBase:
    """The page's stream (``casino/streams.py``): the hints of the player (``player``), for the
    staff the page serves."""
    player = cage_player(request, player_id)
    return hint_stream(request, {player_topic(player.pk): "player"})


def player_answer(
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


@staff_page("operate_cage")
@require_POST
def card_lock(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = cage_player(request, player_id)
    form = ReasonForm(request.POST, prefix="lock")
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        player_card_lock(player=player, reason=reason, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        return player_answer(request, player, error=error, forms={"lock_form": form})
    return player_answer(request, player, done={"card": "locked"})


@staff_page("operate_cage")
@require_POST
def card_unlock(request: HtmxHttpRequest, player_id: int) -> HttpResponse:
    player = cage_player(request, player_id)
    try:
        player_card_unlock(player=player, actor=Actor.staff(staff_user(request)))
    except ServiceError as error:
        return player_answer(request, player, error=error)
    return player_answer(request, player, done={"card": "unlocked"})
