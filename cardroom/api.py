"""Terminal API of canasta tables: the game as a seat (or the host) sees it, the players' seats
and moves, and the host's commands (open a game, start it, start a deal, enter a finished deal,
ask for a void). Every command needs an ``Idempotency-Key``; refusals are problem+json with the
service's or the engine's code (docs/canasta-tables.md)."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from cardroom.errors import InvalidDealDataError, NoCanastaGameError, NoSuchSeatError
from cardroom.models import OPEN_CANASTA_GAME_STATUSES, CanastaGame
from cardroom.selectors import canasta_table_state
from cardroom.services.games import (
    canasta_deal_enter,
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_move,
    canasta_seat_leave,
    canasta_seat_take,
)
from cardroom.services.settlement import canasta_void_request
from casino.api_permissions import AtOwnTable, IsTerminal
from casino.api_serializers import (
    InputSerializer,
    JSONBooleanField,
    JSONIntegerField,
    JSONRegexField,
    OutputSerializer,
)
from casino.api_throttling import PlayerRateThrottle, TerminalRateThrottle
from casino.api_views import (
    IDEMPOTENCY_PARAMETER,
    TABLE_PARAMETER,
    DealerApiView,
    TablePlayerView,
    TerminalApiView,
)
from casino.authentication import TerminalOptionalPlayerAuthentication
from casino.errors import NotFoundError
from casino.idempotency import run_idempotent
from casino.models import PlayerSession, Table
from casino.schema import problems

TAG = "canasta"
CARD = r"^[A-Za-z0-9]{1,5}(:[0-9]{1,2})?$"
SEAT_PARAMETER = OpenApiParameter(
    "seat",
    {"type": "integer", "minimum": 0, "maximum": 5},
    OpenApiParameter.PATH,
    description="Seat number from 0, clockwise (a seat the game lacks is a 404 `no_such_seat`).",
)


def open_game_id(table: Table) -> int:
    """The id of the table's game seating or playing; 404 ``no_canasta_game`` without one."""
    game_id = (
        CanastaGame.objects.filter(table=table, status__in=OPEN_CANASTA_GAME_STATUSES)
        .values_list("pk", flat=True)
        .first()
    )
    if game_id is None:
        raise NoCanastaGameError("No canasta game is open at this table.")
    return int(game_id)


def path_seat(view: Any) -> int:
    raw = str(view.kwargs.get("seat", ""))
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 1 or int(raw) > 5:
        raise NoSuchSeatError("No such seat: seats are numbered 0 to 5.")
    return int(raw)


# ---------------------------------------------------------------- serializers


class CardField(serializers.RegexField):
    def __init__(self, pattern: str = CARD, max_length: int = 8, **kwargs: Any) -> None:
        super().__init__(pattern, max_length=max_length, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


_CARD = CARD.strip("^$")
_GROUP = rf"{_CARD}( +{_CARD})*"
MELDS = rf"^ *{_GROUP}( *, *{_GROUP})* *$"
ADDITIONS = rf"^ *[0-9]{{1,4}} *: *{_GROUP}( *, *[0-9]{{1,4}} *: *{_GROUP})* *$"

MOVE_TYPES = (
    "draw",
    "take_pile",
    "meld",
    "add",
    "discard",
    "go_out",
    "ask_partner",
    "answer_partner",
    "end_turn",
    "decline_pile",
    "decline_double_go_out",
)


class MoveInputSerializer(InputSerializer):
    type = serializers.ChoiceField(choices=MOVE_TYPES)
    version = JSONIntegerField(
        min_value=0, max_value=1_000_000, help_text="The deal's `version` you saw (else `stale_move`)."
    )
    melds = CardField(
        MELDS,
        max_length=600,
        required=False,
        help_text="New melds: cards as the state shows them, separated by spaces, melds by commas "
        "(`7S:0 7H:1 7D:0, KS:0 KH:0 JK:2`).",
    )
    additions = CardField(
        ADDITIONS,
        max_length=600,
        required=False,
        help_text="Cards added to your side's melds, each after its `meld_id` and a colon (`3: KS:1 KD:0, 5: JK:1`).",
    )
    card = CardField(required=False, help_text="The card to discard (`discard`, `go_out`).")
    yes = JSONBooleanField(required=False, help_text="`answer_partner`: may the partner go out?")
    top_card_only = JSONBooleanField(required=False)


def melds_read(text: str) -> list[list[str]]:
    return [group.split() for group in text.split(",")] if text else []


def additions_read(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in text.split(",") if text else []:
        meld_id, _, cards = item.partition(":")
        out.append({"meld_id": int(meld_id), "cards": cards.split()})
    return out


def move_actions(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The engine actions of a move: each type is one action; ``add`` is a meld of additions only;
    ``go_out`` the melds and additions then the discard (each when given)."""
    kind = values["type"]
    melds = melds_read(values.get("melds", ""))
    additions = additions_read(values.get("additions", ""))
    if kind in ("meld", "add"):
        return [{"type": "meld", "melds": melds if kind == "meld" else [], "additions": additions}]
    if kind == "take_pile":
        return [
            {
                "type": "take_pile",
                "melds": melds,
                "additions": additions,
                "top_card_only": values.get("top_card_only", False),
            }
        ]
    if kind == "discard":
        return [{"type": "discard", "card": values.get("card")}]
    if kind == "go_out":
        out: list[dict[str, Any]] = []
        if melds or additions:
            out.append({"type": "meld", "melds": melds, "additions": additions})
        if values.get("card") is not None:
            out.append({"type": "discard", "card": values["card"]})
        return out
    if kind == "answer_partner":
        return [{"type": "answer_partner", "yes": values.get("yes", False)}]
    return [{"type": kind}]


class CanastaSeatSerializer(OutputSerializer):
    seat = serializers.IntegerField()
    side = serializers.IntegerField()
    player_id = serializers.IntegerField()
    display_name = serializers.CharField()


class SideScoreSerializer(OutputSerializer):
    side = serializers.IntegerField()
    melded = serializers.IntegerField()
    canasta_bonus = serializers.IntegerField()
    canastas = serializers.DictField(child=serializers.IntegerField())
    red_threes = serializers.IntegerField()
    going_out = serializers.IntegerField()
    hand = serializers.IntegerField()
    deal_total = serializers.IntegerField()
    total = serializers.IntegerField()


class ScoreSheetLineSerializer(OutputSerializer):
    deal = serializers.IntegerField()
    dealer_seat = serializers.IntegerField()
    sides = SideScoreSerializer(many=True)


class OpeningSerializer(OutputSerializer):
    side = serializers.IntegerField()
    minimum = serializers.IntegerField()
    canasta_at_once = serializers.BooleanField()
    naturals = serializers.IntegerField()


class CanastaGameSerializer(OutputSerializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["seating", "playing", "ended", "voided"])
    preset = serializers.CharField()
    players = serializers.IntegerField()
    deal_kind = serializers.CharField(help_text="`virtual` (moves through the terminals) or `physical`.")
    stake_minor = serializers.IntegerField()
    stake_points = serializers.IntegerField(help_text="The stake is per this many points of difference.")
    hold_minor = serializers.IntegerField(help_text="Held on each player's wallet until the game settles.")
    fee_kind = serializers.CharField()
    totals = serializers.ListField(child=serializers.IntegerField())
    target = serializers.IntegerField()
    winner_side = serializers.IntegerField(allow_null=True)
    margin = serializers.IntegerField(allow_null=True)
    fee_charged_minor = serializers.IntegerField(allow_null=True)
    seats = CanastaSeatSerializer(many=True)
    score_sheet = ScoreSheetLineSerializer(many=True)
    next_opening = OpeningSerializer(many=True)


class PileSerializer(OutputSerializer):
    top = serializers.CharField(allow_null=True)
    size = serializers.IntegerField()
    is_frozen = serializers.BooleanField()


class MeldSerializer(OutputSerializer):
    meld_id = serializers.IntegerField()
    kind = serializers.CharField()
    rank = serializers.CharField(allow_null=True)
    cards = serializers.ListField(child=serializers.CharField())
    is_canasta = serializers.BooleanField()


class CanastaDealSerializer(OutputSerializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    kind = serializers.CharField(help_text="`virtual` or `physical` (the host enters the deal).")
    status = serializers.ChoiceField(choices=["playing", "scored", "voided"])
    version = serializers.IntegerField(help_text="Send it with a move.")
    dealer_seat = serializers.IntegerField()
    my_seat = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    phase = serializers.CharField(allow_null=True)
    stage = serializers.CharField(allow_null=True)
    stock_size = serializers.IntegerField(allow_null=True)
    pile = PileSerializer(allow_null=True)
    hand_counts = serializers.ListField(child=serializers.IntegerField())
    melds = serializers.ListField(child=MeldSerializer(many=True))
    red_threes = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    hand = serializers.ListField(child=serializers.CharField(), allow_null=True)
    legal_actions = serializers.ListField(
        child=serializers.DictField(),
        help_text="The engine's legal actions for your seat now (a representative set of melds).",
    )


class CanastaStateSerializer(OutputSerializer):
    table_id = serializers.IntegerField()
    game = CanastaGameSerializer(allow_null=True)
    deal = CanastaDealSerializer(allow_null=True)


class GameOpenInputSerializer(InputSerializer):
    stake_minor = JSONIntegerField(
        min_value=1, max_value=10**9, help_text="Per the table's `stake_points` points of difference."
    )


class FinishedDealInputSerializer(InputSerializer):
    deal = JSONRegexField(
        r"^[^\u0000]*$",
        min_length=1,
        max_length=20_000,
        trim_whitespace=False,
        help_text="The finished deal as JSON text, in the format of docs/canasta-deal.md (`sides` with "
        "`melds`, `red_threes`, `hands`; `went_out` or `stock_exhausted`).",
    )


def deal_read(text: str) -> dict[str, Any]:
    """The host's finished deal from its JSON text; anything but an object is ``invalid_deal_data``."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise InvalidDealDataError("the deal is not JSON") from error
    if not isinstance(data, dict):
        raise InvalidDealDataError("the deal is a JSON object")
    return data


class VoidRequestInputSerializer(InputSerializer):
    # As the card correction's reason: no NUL, blanks left to the service (409 reason_required).
    reason = JSONRegexField(
        r"^[^\u0000]*$",
        min_length=1,
        max_length=300,
        trim_whitespace=False,
        help_text="Why the game is abandoned (not only blanks: `reason_required`).",
    )


class VoidRequestSerializer(OutputSerializer):
    id = serializers.IntegerField()
    game_id = serializers.IntegerField()
    reason = serializers.CharField()


# ---------------------------------------------------------------- views


def _state(table: Table, player_id: int | None = None) -> dict[str, Any]:
    return dict(CanastaStateSerializer(canasta_table_state(table=table, for_player_id=player_id)).data)


class CanastaStateView(TerminalApiView):
    """A terminal placed at this table; with a player token, that player's seat."""

    authentication_classes = [TerminalOptionalPlayerAuthentication]
    permission_classes = [IsTerminal, AtOwnTable]
    throttle_classes = [TerminalRateThrottle, PlayerRateThrottle]

    @extend_schema(
        operation_id="canasta_state",
        summary="The canasta game as your seat sees it: own hand, the others' counts, pile, melds, scores",
        description="The table's game (seating, playing, or the last one), its seats, score sheet and "
        "the opening minimum each side needs next; its last deal with the pile's top card, every "
        "meld and red three, each hand's size, and, with a player token, your hand and your legal "
        "actions. The host's terminal sees no hand.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER],
        responses={200: CanastaStateSerializer, **problems(404)},
    )
    def get(self, request: Request, table_id: str) -> Response:
        table = self.terminal.table
        if table is None:  # AtOwnTable refuses a terminal without a table; this is for the type checker
            raise NotFoundError("This terminal is not placed at a table.")
        session = request.auth
        player_id = session.player_id if isinstance(session, PlayerSession) else None
        return Response(_state(table, player_id))


class CanastaSeatView(TablePlayerView):
    @extend_schema(
        operation_id="canasta_seat_take",
        summary="Sit down in a seat of the game being seated (the game's hold is placed at once)",
        description="Needs an `Idempotency-Key`. Refusals: `no_canasta_game`, `no_such_seat`, `seat_taken`, "
        "`already_seated`, `game_not_seating`, `insufficient_funds` (the balance does not cover the hold).",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, SEAT_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={201: CanastaStateSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str, seat: str) -> Response:
        number = path_seat(self)
        game_id = open_game_id(self.table)

        def perform() -> Response:
            canasta_seat_take(game_id=game_id, seat=number, actor=self.actor())
            return Response(_state(self.table, self.session.player_id), status=status.HTTP_201_CREATED)

        return run_idempotent(
            request,
            command="canasta_seat_take",
            payload={"game_id": game_id, "seat": number},
            perform=perform,
        )

    @extend_schema(
        operation_id="canasta_seat_leave",
        summary="Leave your seat before the game starts (the hold is released)",
        description="Needs an `Idempotency-Key`. Refusals: `not_seated`, `game_not_seating`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, SEAT_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={200: CanastaStateSerializer, **problems(403, 404, 409, 422)},
    )
    def delete(self, request: Request, table_id: str, seat: str) -> Response:
        number = path_seat(self)
        game_id = open_game_id(self.table)

        def perform() -> Response:
            canasta_seat_leave(game_id=game_id, seat=number, actor=self.actor())
            return Response(_state(self.table, self.session.player_id))

        return run_idempotent(
            request,
            command="canasta_seat_leave",
            payload={"game_id": game_id, "seat": number},
            perform=perform,
        )


class CanastaMoveView(TablePlayerView):
    @extend_schema(
        operation_id="canasta_move",
        summary="Your move in the deal: draw, take the pile, meld, add, discard, ask or answer, go out",
        description="Needs an `Idempotency-Key` and the deal's `version` you saw (another one is "
        "`stale_move`). `meld` lays `melds` (card lists) and `additions`; `add` adds to your side's "
        "melds; `go_out` lays its melds and additions and discards `card`, all or nothing, and is "
        "refused `cannot_go_out` unless it takes you out. Cards are instances as the state shows "
        "them (`KS:1`). Refusals are the engine's codes (`not_your_turn`, `draw_first`, "
        "`opening_minimum_not_met`, `pile_frozen_needs_pair` ...) and `not_seated`, "
        "`no_deal_in_progress`, `wrong_deal_kind`, `invalid_move`; nothing is written on a refusal.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=MoveInputSerializer,
        responses={200: CanastaStateSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        data = MoveInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        game_id = open_game_id(self.table)
        actions = move_actions(values)

        def perform() -> Response:
            canasta_move(
                game_id=game_id,
                actor=self.actor(),
                actions=actions,
                version=values["version"],
                must_go_out=values["type"] == "go_out",
            )
            return Response(_state(self.table, self.session.player_id))

        return run_idempotent(
            request,
            command="canasta_move",
            payload={"game_id": game_id, "actions": actions, "version": values["version"]},
            perform=perform,
        )


class CanastaGameOpenView(DealerApiView):
    @extend_schema(
        operation_id="canasta_game_open",
        summary="Open a game with the stake agreed (the host's terminal)",
        description="Needs an `Idempotency-Key`. The stake is per the table's `stake_points` (1 or 100 "
        "points of difference), within its limits; each player's hold is the table's maximum loss at "
        "that stake. The preset and its options are the table's rule set version. Refusals: "
        "`canasta_game_in_progress`, `stake_out_of_range`, `not_a_canasta_table`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=GameOpenInputSerializer,
        responses={201: CanastaStateSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        data = GameOpenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)

        def perform() -> Response:
            canasta_game_open(
                table=self.table,
                actor=self.actor(),
                stake_minor=values["stake_minor"],
            )
            return Response(_state(self.table), status=status.HTTP_201_CREATED)

        return run_idempotent(
            request,
            command="canasta_game_open",
            payload={"table_id": self.table.pk, **values},
            perform=perform,
        )


class CanastaGameStartView(DealerApiView):
    @extend_schema(
        operation_id="canasta_game_start",
        summary="Start the game once every seat is taken: its first deal begins (the host's terminal)",
        description="Needs an `Idempotency-Key`. Refusals: `no_canasta_game`, `seats_not_filled`, "
        "`game_not_seating`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={201: CanastaStateSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        game_id = open_game_id(self.table)

        def perform() -> Response:
            canasta_game_start(game_id=game_id, actor=self.actor())
            return Response(_state(self.table), status=status.HTTP_201_CREATED)

        return run_idempotent(
            request, command="canasta_game_start", payload={"game_id": game_id}, perform=perform
        )


class CanastaDealStartView(DealerApiView):
    @extend_schema(
        operation_id="canasta_deal_start",
        summary="Start the next deal once the last one is scored (the host's terminal)",
        description="Needs an `Idempotency-Key`. A virtual table's deal is shuffled and dealt by the "
        "server; at a physical-cards table the deal waits for the host's entry. Refusals: "
        "`deal_in_progress`, `game_not_playing`, `no_canasta_game`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={201: CanastaStateSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        game_id = open_game_id(self.table)

        def perform() -> Response:
            canasta_deal_start(game_id=game_id, actor=self.actor())
            return Response(_state(self.table), status=status.HTTP_201_CREATED)

        return run_idempotent(
            request, command="canasta_deal_start", payload={"game_id": game_id}, perform=perform
        )


class CanastaFinishedDealView(DealerApiView):
    @extend_schema(
        operation_id="canasta_deal_enter",
        summary="Enter the finished deal of a physical-cards table: the engine checks and scores it",
        description="Needs an `Idempotency-Key`. `deal` in the format of docs/canasta-deal.md (`sides` with "
        "`melds`, `red_threes`, `hands`; `went_out` or `stock_exhausted`); the preset, options and scores "
        "are the game's. The deal that ends the game settles it. Refusals: the engine's codes "
        "(`invalid_deal_data`, `too_many_copies`, `not_enough_canastas`, `impossible_deal` ...), "
        "`wrong_deal_kind`, `no_deal_in_progress`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=FinishedDealInputSerializer,
        responses={200: CanastaStateSerializer, **problems(400, 404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        data = FinishedDealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text = data.validated_data["deal"]
        game_id = open_game_id(self.table)

        def perform() -> Response:
            canasta_deal_enter(game_id=game_id, actor=self.actor(), deal_data=deal_read(text))
            return Response(_state(self.table))

        return run_idempotent(
            request, command="canasta_deal_enter", payload={"game_id": game_id, "deal": text}, perform=perform
        )


class CanastaVoidRequestView(DealerApiView):
    @extend_schema(
        operation_id="canasta_void_request",
        summary="Ask a pit boss to void the game (abandoned), with a reason (the host's terminal)",
        description="Needs an `Idempotency-Key`. A pit boss approves it on the back office: the holds are "
        "released and nothing is transferred. Refusals: `approval_pending` (a void of this game waits already), "
        "`game_not_open`, `reason_required`.",
        tags=[TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=VoidRequestInputSerializer,
        responses={201: VoidRequestSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str) -> Response:
        data = VoidRequestInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reason = data.validated_data["reason"]
        game_id = open_game_id(self.table)

        def perform() -> Response:
            made = canasta_void_request(game_id=game_id, actor=self.actor(), reason=reason)
            body = VoidRequestSerializer({"id": made.pk, "game_id": made.game_id, "reason": made.reason}).data
            return Response(body, status=status.HTTP_201_CREATED)

        return run_idempotent(
            request,
            command="canasta_void_request",
            payload={"game_id": game_id, "reason": reason},
            perform=perform,
        )
