"""The host's page of a canasta table, ``/cardroom/tables/<table>/``: the seats, the running score
sheet, the deal in play, and the host's commands as plain forms (open a game with its stake, seat
a player by card number, start, next deal, the entry of a finished deal, a void request); a pit
boss decides a void request here too. Each form POSTs, calls one service and redirects back with
the outcome; a refusal is shown in words. The page follows the table's stream (``stream/``,
``casino/streams.py``): on each hint of the table it asks ``live/`` again, and is drawn again when
the game moved on (players' moves and seats from terminals, a pit boss's decision); without the
stream it asks every 15 seconds. For dealers (``casino.run_table``) and pit bosses
(``casino.supervise_pit``) of the table's casino."""

from __future__ import annotations

import hashlib
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cardroom.errors import (
    CanastaError,
    CanastaNoCanastaGameError,
    InvalidDealDataError,
    InvalidMoveError,
    StakeOutOfRangeError,
)
from cardroom.models import CanastaGame, CanastaVoidRequest
from cardroom.selectors import canasta_table_state
from cardroom.services import (
    canasta_deal_enter,
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_seat_leave,
    canasta_seat_take,
    canasta_void_approve,
    canasta_void_reject,
    canasta_void_request,
)
from cardroom.services.games import game_current
from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.hints import queue_topic, table_topic
from casino.htmx import htmx_render, htmx_vary
from casino.models import Player, Table
from casino.money import amount_minor_parse
from casino.refusals import refusal_text
from casino.streams import hint_stream
from casino.views import staff_table, staff_user

PAGE = "cardroom/table.html"


def _host_table(request: HttpRequest, table_name: str) -> Table:
    """The canasta table of the staff member's casino (404 otherwise), for a dealer or a pit boss
    (the styled 403 otherwise)."""
    user = staff_user(request)
    if not (user.has_perm("casino.run_table") or user.has_perm("casino.supervise_pit")):
        raise PermissionDenied
    table = staff_table(request, table_name)
    if table.game != "canasta":
        raise PermissionDenied
    return table


def _cards(text: str) -> list[str]:
    return text.replace(",", " ").split()


def finished_deal_data(post: Any, sides: list[int]) -> dict[str, Any]:
    """The finished deal (docs/canasta-deal.md) from the form: per side its melds (one a line),
    red threes and each player's hand; who went out (``side:player``) or ``stock``; concealed;
    the final discard."""
    data: dict[str, Any] = {"sides": []}
    for side, players in enumerate(sides):
        melds = [_cards(line) for line in str(post.get(f"side{side}_melds", "")).splitlines() if line.strip()]
        data["sides"].append(
            {
                "melds": melds,
                "red_threes": _cards(str(post.get(f"side{side}_red_threes", ""))),
                "hands": [_cards(str(post.get(f"side{side}_hand{player}", ""))) for player in range(players)],
            }
        )
    out = str(post.get("went_out", "stock"))
    if out == "stock":
        data["went_out"] = None
        data["stock_exhausted"] = True
    else:
        side_text, _sep, player_text = out.partition(":")
        if not (side_text.isdigit() and player_text.isdigit()):
            raise InvalidDealDataError(_("Choose who went out."))
        discard = str(post.get("discard", "")).strip()
        data["went_out"] = {
            "side": int(side_text),
            "player": int(player_text),
            "concealed": bool(post.get("concealed")),
            "discard": discard or None,
        }
    return data


def _page_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    state = canasta_table_state(table=table)
    game = game_current(table)
    sides: list[dict[str, Any]] = []
    if state["game"] is not None:
        for side in range(len(state["game"]["totals"])):
            seats = [seat for seat in state["game"]["seats"] if seat["side"] == side]
            sides.append({"side": side, "seats": seats, "players": range(max(len(seats), 1))})
    requests = (
        list(
            CanastaVoidRequest.objects.filter(game=game, approval__status="pending")
            .select_related("approval")
            .order_by("pk")
        )
        if game is not None
        else []
    )
    context = {
        "table": table,
        "stream_url": reverse("cardroom:table_stream", args=[table.name]),
        "state": state,
        "game": state["game"],
        "deal": state["deal"],
        "sides": sides,
        "seat_numbers": range(state["game"]["players"]) if state["game"] else range(0),
        "void_requests": [
            {
                "request": item,
                "may_decide": item.approval is not None
                and may_decide(approval=item.approval, user=request.user),
            }
            for item in requests
        ],
    }
    context["version"] = hashlib.sha256(repr((state, [item.pk for item in requests])).encode()).hexdigest()[
        :24
    ]
    return context


@login_required
@require_GET
def canasta_table_page(request: HttpRequest, table_name: str) -> HttpResponse:
    table = _host_table(request, table_name)
    return htmx_render(request, PAGE, _page_context(request, table), partial="cardroom")


@login_required
@require_GET
def table_live(request: HttpRequest, table_name: str) -> HttpResponse:
    """What the page shows, again, when it changed since ``?version=`` (players' moves and seats
    from terminals, a pit boss's decision): the page's partial, or 204. The deal being entered
    and the card number being typed are kept (``hx-preserve``)."""
    table = _host_table(request, table_name)
    context = _page_context(request, table)
    if request.GET.get("version") == context["version"]:
        response = HttpResponse(status=204)
    else:
        response = render(request, f"{PAGE}#cardroom", context)
    return htmx_vary(response)


@login_required
@require_GET
def table_stream(request: HttpRequest, table_name: str) -> HttpResponseBase:
    """The page's stream (``casino/streams.py``): hints of the table (the page re-reads itself)
    and of its casino's queue (the header's count), for the staff the page serves."""
    table = _host_table(request, table_name)
    return hint_stream(request, {table_topic(table.pk): "table", queue_topic(table.casino_id): "queue"})


def _open_game(table: Table) -> CanastaGame:
    game = game_current(table)
    if game is None or game.status not in ("seating", "playing"):
        raise CanastaNoCanastaGameError(_("No game is open at this table."))
    return game


@login_required
@require_POST
def table_action(request: HttpRequest, table_name: str, action: str) -> HttpResponse:
    """One host command from the page's forms; back to the page with its outcome."""
    table = _host_table(request, table_name)
    actor = Actor.staff(staff_user(request))
    done = ""
    try:
        if action == "open":
            try:
                stake = amount_minor_parse(request.POST.get("stake", ""))
            except forms.ValidationError as error:
                raise StakeOutOfRangeError(_("The stake is not a valid amount.")) from error
            canasta_game_open(table=table, actor=actor, stake_minor=stake)
            done = _("Game opened: seat the players.")
        elif action == "seat":
            game = _open_game(table)
            player = Player.objects.filter(
                casino_id=table.casino_id, card_number=request.POST.get("card_number", "").strip()
            ).first()
            if player is None:
                raise CanastaError(_("No player has this card number."), code="not_found")
            seat = int(request.POST.get("seat", "0") or 0)
            canasta_seat_take(game_id=game.pk, seat=seat, actor=actor, player=player)
            done = _("Player seated, the game's hold placed.")
        elif action == "unseat":
            game = _open_game(table)
            canasta_seat_leave(game_id=game.pk, seat=int(request.POST.get("seat", "0") or 0), actor=actor)
            done = _("Seat freed, the hold released.")
        elif action == "start":
            canasta_game_start(game_id=_open_game(table).pk, actor=actor)
            done = _("Game started: the first deal is on.")
        elif action == "deal":
            canasta_deal_start(game_id=_open_game(table).pk, actor=actor)
            done = _("Next deal started.")
        elif action == "enter":
            game = _open_game(table)
            sides = [game.seats.filter(side=side).count() for side in range(len(game.totals))]
            canasta_deal_enter(
                game_id=game.pk, actor=actor, deal_data=finished_deal_data(request.POST, sides)
            )
            done = _("Deal scored.")
        elif action == "void":
            canasta_void_request(
                game_id=_open_game(table).pk, actor=actor, reason=request.POST.get("reason", "")
            )
            done = _("Void requested: a pit boss decides.")
        elif action in ("void-approve", "void-reject"):
            request_id = int(request.POST.get("request", "0") or 0)
            if not CanastaVoidRequest.objects.filter(pk=request_id, game__table=table).exists():
                raise CanastaError(_("No such request at this table."), code="not_found")
            if action == "void-approve":
                canasta_void_approve(request_id=request_id, actor=actor)
                done = _("Game voided, every hold released.")
            else:
                canasta_void_reject(request_id=request_id, actor=actor, reason=request.POST.get("reason", ""))
                done = _("Void request rejected.")
        else:
            raise CanastaError(_("No such command."), code="not_found")
    except (ServiceError, ValueError) as refused:
        if isinstance(refused, ValueError):
            refused = InvalidMoveError(_("A number is expected."))
        messages.error(request, refusal_text(refused))
    else:
        messages.success(request, done)
    return redirect("cardroom:table", table_name=table.name)
