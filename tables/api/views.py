"""Terminal API views: authenticate, check who may do what, validate input, call one service or
selector, render. Every refusal is problem+json (casino.api.exception_handler)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.actors import Actor
from casino.api_conf import api_setting
from casino.api_permissions import (
    AtOwnTable,
    IsCardReader,
    IsTerminal,
)
from casino.api_throttling import PlayerRateThrottle, TerminalRateThrottle
from casino.api_views import (
    IDEMPOTENCY_PARAMETER,
    TABLE_PARAMETER,
    DealerApiView,
    PlayerApiView,
    TablePlayerView,
    TerminalApiView,
    path_id,
)
from casino.authentication import (
    TerminalOptionalPlayerAuthentication,
)
from casino.errors import NotFoundError
from casino.idempotency import idempotency_key, run_idempotent
from casino.models import PlayerSession
from casino.schema import problems
from tables.api import serializers as s
from tables.api.state import etag_matches, table_state_version_current, table_state_wait, terminal_state
from tables.models import BOX_NUMBERS, Bet, Box, Round, Shoe
from tables.services.bets import bet_cancel, bet_place
from tables.services.cards import card_correct, card_enter
from tables.services.decisions import decision_make, insurance_close, insurance_decide
from tables.services.rounds import round_close_betting, round_open
from tables.services.seats import box_bets_behind_set, box_leave, box_take
from tables.services.settlement import round_settle
from tables.services.shoes import shoe_shuffle
from wallet.selectors import account_balance, player_statement

# ---------------------------------------------------------------- wallet


class BalanceView(PlayerApiView):
    @extend_schema(
        operation_id="player_balance",
        summary="The signed-in player's balance",
        tags=["wallet"],
        responses={200: s.BalanceSerializer},
    )
    def get(self, request: Request) -> Response:
        balance = account_balance(self.session.player)
        return Response(
            s.BalanceSerializer(
                {
                    "balance_minor": balance.balance_minor,
                    "held_minor": balance.held_minor,
                    "available_minor": balance.available_minor,
                    "currency": balance.currency,
                }
            ).data
        )


class StatementView(PlayerApiView):
    @extend_schema(
        operation_id="player_statement",
        summary="The signed-in player's statement: movements with the balance after each",
        tags=["wallet"],
        parameters=[s.StatementQuerySerializer],
        responses={200: s.StatementSerializer},
    )
    def get(self, request: Request) -> Response:
        query = s.StatementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        player = self.session.player
        lines = player_statement(player, since=query.validated_data.get("since"))
        lines = lines[-query.validated_data["limit"] :]
        balance = account_balance(player)
        return Response(
            s.StatementSerializer(
                {"currency": balance.currency, "lines": [asdict(line) for line in lines]}
            ).data
        )


# ---------------------------------------------------------------- the table: boxes, bets, cards


def path_box(view: APIView) -> int:
    """The box number in the path: 1 to 7, else a 404 ``no_such_box`` problem."""
    raw = str(view.kwargs.get("box", ""))
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 1 or int(raw) not in BOX_NUMBERS:
        raise NotFoundError("No such box: boxes are numbered 1 to 7.", code="no_such_box")
    return int(raw)


ROUND_PARAMETER = OpenApiParameter(
    "round_id", int, OpenApiParameter.PATH, description="The round (table state `round.id`)."
)
BOX_PARAMETER = OpenApiParameter(
    "box",
    {"type": "integer", "minimum": 1, "maximum": 7},
    OpenApiParameter.PATH,
    description="Box number, 1 to 7 (a box the table does not use is a 404 `no_such_box`).",
)
BET_PARAMETER = OpenApiParameter("bet_id", int, OpenApiParameter.PATH)


def _box_data(box: Box) -> dict[str, Any]:
    return {
        "table_id": box.table_id,
        "number": box.number,
        "owner_id": box.owner_id,
        "accepts_bets_behind": box.accepts_bets_behind,
    }


def _round_data(round_: Round) -> dict[str, Any]:
    return {
        "id": round_.pk,
        "table_id": round_.table_id,
        "number": round_.number,
        "status": round_.status,
        "version": round_.version,
        "decision_deadline_at": round_.decision_deadline_at,
        "awaiting_correction": round_.awaiting_correction is not None,
    }


class BoxTakeView(TablePlayerView):
    @extend_schema(
        operation_id="box_take",
        summary="Take a box (become its owner)",
        tags=["boxes"],
        parameters=[TABLE_PARAMETER, BOX_PARAMETER],
        request=None,
        responses={200: s.BoxSerializer, **problems(404, 409, s409="`box_taken`, `box_limit_reached`.")},
    )
    def post(self, request: Request, table_id: str, box: str) -> Response:
        number = path_box(self)
        taken = box_take(table=self.table, box_number=number, actor=self.actor())
        return Response(s.BoxSerializer(_box_data(taken)).data)


class BoxLeaveView(TablePlayerView):
    @extend_schema(
        operation_id="box_leave",
        summary="Leave a box (your bets on it that are not in play are returned)",
        tags=["boxes"],
        parameters=[TABLE_PARAMETER, BOX_PARAMETER],
        request=None,
        responses={200: s.BoxSerializer, **problems(404, 409, s409="`not_seated`, `round_in_progress`.")},
    )
    def post(self, request: Request, table_id: str, box: str) -> Response:
        number = path_box(self)
        left = box_leave(table=self.table, box_number=number, actor=self.actor())
        return Response(s.BoxSerializer(_box_data(left)).data)


class BoxBetsBehindView(TablePlayerView):
    @extend_schema(
        operation_id="box_bets_behind_set",
        summary='Accept or forbid bets behind your box ("no bets behind me"), from the next round',
        tags=["boxes"],
        parameters=[TABLE_PARAMETER, BOX_PARAMETER],
        request=s.BetsBehindInputSerializer,
        responses={200: s.BoxSerializer, **problems(404, 409)},
    )
    def put(self, request: Request, table_id: str, box: str) -> Response:
        data = s.BetsBehindInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        number = path_box(self)
        updated = box_bets_behind_set(
            table=self.table, box_number=number, actor=self.actor(), accepts=data.validated_data["accepts"]
        )
        return Response(s.BoxSerializer(_box_data(updated)).data)


def _bet_data(bet: Bet) -> dict[str, Any]:
    return s.BetSerializer(bet).data


class BetPlaceView(TablePlayerView):
    @extend_schema(
        operation_id="bet_place",
        summary="Place a bet: main, behind, or a side bet (the stake is held on your wallet at once)",
        description="Needs an `Idempotency-Key`. Refusals: `betting_closed`, `stake_below_table_min`, "
        "`stake_above_table_max`, `not_box_owner`, `box_taken`, `box_not_taken`, `bet_behind_own_box`, "
        "`bets_behind_forbidden`, `side_bet_without_main_bet`, `duplicate_side_bet`, `insufficient_funds`, "
        "`gaming_day_closed`.",
        tags=["bets"],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=s.BetInputSerializer,
        responses={201: s.BetSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        data = s.BetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        round_number = path_id(self, "round_id")
        key = idempotency_key(request)

        def perform() -> Response:
            bet = bet_place(
                round_id=round_number,
                actor=self.actor(),
                box_number=values["box"],
                kind=values["kind"],
                stake_minor=values["stake_minor"],
                follow_double=values["follow_double"],
                follow_split=values["follow_split"],
                idempotency_key=key,
            )
            return Response(_bet_data(bet), status=status.HTTP_201_CREATED)

        return run_idempotent(
            request, command="bet_place", payload={"round_id": round_number, **values}, perform=perform
        )


class BetCancelView(TablePlayerView):
    @extend_schema(
        operation_id="bet_cancel",
        summary="Cancel your bet before no more bets (a main bet takes your side bets on the box with it)",
        tags=["bets"],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, BET_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={
            200: s.BetListSerializer,
            **problems(404, 409, 422, s409="`betting_closed`, `no_such_bet`, `not_bet_owner`."),
        },
    )
    def delete(self, request: Request, table_id: str, round_id: str, bet_id: str) -> Response:
        round_number, bet_number = path_id(self, "round_id"), path_id(self, "bet_id")

        def perform() -> Response:
            bets = bet_cancel(round_id=round_number, actor=self.actor(), bet_id=bet_number)
            return Response(s.BetListSerializer({"bets": bets}).data)

        return run_idempotent(
            request,
            command="bet_cancel",
            payload={"round_id": round_number, "bet_id": bet_number},
            perform=perform,
        )


class InsuranceView(TablePlayerView):
    @extend_schema(
        operation_id="insurance_decide",
        summary="Take insurance (held at once) or decline it while the dealer shows an ace",
        tags=["decisions"],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=s.InsuranceInputSerializer,
        responses={
            200: s.RoundSerializer,
            **problems(
                404,
                409,
                422,
                s409="`insurance_not_offered`, `insurance_already_decided`, `insurance_stake_not_exact`, "
                "`insurance_stake_not_allowed`, `insurance_stake_above_half`, "
                "`insurance_stake_not_unit_multiple`, `insufficient_funds`, `gaming_day_closed`.",
            ),
        },
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        data = s.InsuranceInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        round_number = path_id(self, "round_id")
        key = idempotency_key(request)

        def perform() -> Response:
            round_ = insurance_decide(
                round_id=round_number,
                actor=self.actor(),
                bet_id=values["bet_id"],
                take=values["take"],
                stake_minor=values.get("stake_minor"),
                idempotency_key=key,
            )
            return Response(s.RoundSerializer(_round_data(round_)).data)

        return run_idempotent(
            request, command="insurance_decide", payload={"round_id": round_number, **values}, perform=perform
        )


class DecisionView(TablePlayerView):
    @extend_schema(
        operation_id="decision_make",
        summary="Decide for your box's current hand: hit, stand, double, split (surrender where allowed)",
        description="A double or split holds the added stake at once. Refusals: `not_box_owner`, "
        "`not_your_turn`, `box_not_playing`, `<decision>_not_allowed`, `decision_deadline_passed`, "
        "`awaiting_correction`, "
        "`insufficient_funds`.",
        tags=["decisions"],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=s.DecisionInputSerializer,
        responses={200: s.RoundSerializer, **problems(404, 409, 422)},
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        data = s.DecisionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        round_number = path_id(self, "round_id")

        def perform() -> Response:
            round_ = decision_make(
                round_id=round_number,
                actor=self.actor(),
                box_number=values["box"],
                decision=values["decision"],
            )
            return Response(s.RoundSerializer(_round_data(round_)).data)

        return run_idempotent(
            request, command="decision_make", payload={"round_id": round_number, **values}, perform=perform
        )


class CardEnterView(TerminalApiView):
    """A card reader or a dealer terminal placed at this table."""

    permission_classes = [IsCardReader, AtOwnTable]

    @extend_schema(
        operation_id="card_enter",
        summary="Send a card as it leaves the shoe (card readers and dealer terminals, for their own table)",
        description="Needs an `Idempotency-Key` (a retried send must not deal the card twice). A card that "
        "cannot be in the remaining shoe or arrives when none is expected is a `misscan`: it is recorded and "
        "the round waits for a correction (`awaiting_correction` until then) by a pit boss or the table's "
        "dealer terminal (`card_correct`).",
        tags=["cards"],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=s.CardInputSerializer,
        responses={
            200: s.RoundSerializer,
            **problems(
                404, 409, 422, s409="`misscan`, `awaiting_correction`, `round_not_open`, `virtual_shoe`."
            ),
        },
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        data = s.CardInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        card = data.validated_data["card"].strip().upper()
        round_number = path_id(self, "round_id")

        def perform() -> Response:
            round_ = card_enter(round_id=round_number, actor=Actor.at_terminal(self.terminal), card=card)
            return Response(s.RoundSerializer(_round_data(round_)).data)

        return run_idempotent(
            request, command="card_enter", payload={"round_id": round_number, "card": card}, perform=perform
        )


# ---------------------------------------------------------------- the dealer's commands


class DealerRoundView(DealerApiView):
    """A dealer command on a round of this table."""

    def round_command(self, request: Request, command: str, run: Callable[..., Round]) -> Response:
        """Run ``run(round_id, actor) -> Round`` once per key and answer with the round."""
        round_number = path_id(self, "round_id")

        def perform() -> Response:
            round_ = run(round_id=round_number, actor=self.actor())
            return Response(s.RoundSerializer(_round_data(round_)).data)

        return run_idempotent(request, command=command, payload={"round_id": round_number}, perform=perform)


DEALER_TAG = "dealer"


class RoundOpenView(DealerRoundView):
    @extend_schema(
        operation_id="round_open",
        summary="Open betting for the table's next round (dealer terminals)",
        description="Needs an `Idempotency-Key`. The round takes the table's current configuration and "
        "shoe; betting closes at `decision_deadline_at` (the table's betting seconds) or at no more bets. "
        "Refusals: `round_in_progress` (a round is open), `shuffle_due` (record a shuffle first), "
        "`invalid_configuration`.",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={
            201: s.RoundSerializer,
            **problems(404, 409, 422, s409="`round_in_progress`, `shuffle_due`, `gaming_day_closed`."),
        },
    )
    def post(self, request: Request, table_id: str) -> Response:
        def perform() -> Response:
            round_ = round_open(table=self.table, actor=self.actor())
            return Response(s.RoundSerializer(_round_data(round_)).data, status=status.HTTP_201_CREATED)

        return run_idempotent(
            request, command="round_open", payload={"table_id": self.table.pk}, perform=perform
        )


class RoundCloseBettingView(DealerRoundView):
    @extend_schema(
        operation_id="round_close_betting",
        summary="No more bets: betting closes and the deal begins (dealer terminals)",
        description="Needs an `Idempotency-Key`. Bets behind a box whose owner did not bet are returned; "
        "on a virtual shoe the first cards are dealt at once, on a physical one the round waits for them "
        "(`card_enter`). A round without bets goes straight to `settling`. Refusals: `betting_closed`.",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={200: s.RoundSerializer, **problems(404, 409, 422, s409="`betting_closed`.")},
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        return self.round_command(request, "round_close_betting", round_close_betting)


class InsuranceCloseView(DealerRoundView):
    @extend_schema(
        operation_id="insurance_close",
        summary="End the insurance offer: every bettor still undecided declines (dealer terminals)",
        description="Needs an `Idempotency-Key`. Without it the offer ends at its deadline. Then the dealer "
        "peeks; on a virtual shoe the play goes on by itself. Refusals: `insurance_not_offered`.",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={200: s.RoundSerializer, **problems(404, 409, 422, s409="`insurance_not_offered`.")},
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        return self.round_command(request, "insurance_close", insurance_close)


class CardCorrectView(DealerRoundView):
    @extend_schema(
        operation_id="card_correct",
        summary="Correct a misscan: the card that really left the shoe, or none (dealer terminals)",
        description="Needs an `Idempotency-Key` and a reason. The round waits on a misscan "
        "(`awaiting_correction: true`) until it is corrected; the card is placed where the deal expects "
        "it, `null` records that no card left the shoe (a double read). Audited with the misscan, the "
        "card, the reason and the terminal. Refusals: `no_misscan`, `reason_required` (only blanks), the "
        "engine's code when the corrected card is refused too (`card_not_in_shoe`, `card_not_expected`).",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=s.CardCorrectionInputSerializer,
        responses={
            200: s.RoundSerializer,
            **problems(404, 409, 422, s409="`no_misscan`, `reason_required`, `card_not_in_shoe`."),
        },
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        data = s.CardCorrectionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        raw = data.validated_data["card"]
        card = raw.strip().upper() if raw is not None else None
        reason = data.validated_data["reason"].strip()
        round_number = path_id(self, "round_id")

        def perform() -> Response:
            round_ = card_correct(round_id=round_number, actor=self.actor(), card=card, reason=reason)
            return Response(s.RoundSerializer(_round_data(round_)).data)

        return run_idempotent(
            request,
            command="card_correct",
            payload={"round_id": round_number, "card": card, "reason": reason},
            perform=perform,
        )


class RoundSettleView(DealerRoundView):
    @extend_schema(
        operation_id="round_settle",
        summary="Settle a round played to its end: payout lines, the ledger posted (dealer terminals)",
        description="Needs an `Idempotency-Key`. The round must be `settling` (the dealer's hand is "
        "complete). Payouts above the table's approval threshold wait for a pit boss. Refusals: "
        "`round_not_played`, `insufficient_funds` (the table's tray cannot pay: a fill is needed).",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, ROUND_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={
            200: s.RoundSerializer,
            **problems(404, 409, 422, s409="`round_not_played`, `insufficient_funds`, `gaming_day_closed`."),
        },
    )
    def post(self, request: Request, table_id: str, round_id: str) -> Response:
        return self.round_command(request, "round_settle", round_settle)


def _shoe_data(shoe: Shoe) -> dict[str, Any]:
    return {
        "id": shoe.pk,
        "table_id": shoe.table_id,
        "kind": shoe.kind,
        "decks": shoe.decks,
        "commitment": shoe.commitment,
        "shuffled_at": shoe.shuffled_at,
    }


class ShoeShuffleView(DealerRoundView):
    @extend_schema(
        operation_id="shoe_shuffle",
        summary="Record a shuffle: the shoe is retired and a new one starts (dealer terminals)",
        description="Needs an `Idempotency-Key`. Between rounds only. The new shoe has the configured kind "
        "and decks; a virtual one is shuffled by the server and its `commitment` is returned (the retired "
        "shoe's order and secret are revealed for `shoe_verify`). The table state's `shuffle_due` says "
        "when betting cannot open before a shuffle. Refusals: `round_in_progress`, `invalid_configuration`.",
        tags=[DEALER_TAG],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=None,
        responses={201: s.ShoeSerializer, **problems(404, 409, 422, s409="`round_in_progress`.")},
    )
    def post(self, request: Request, table_id: str) -> Response:
        def perform() -> Response:
            shoe = shoe_shuffle(table=self.table, actor=self.actor())
            return Response(s.ShoeSerializer(_shoe_data(shoe)).data, status=status.HTTP_201_CREATED)

        return run_idempotent(
            request, command="shoe_shuffle", payload={"table_id": self.table.pk}, perform=perform
        )


# ---------------------------------------------------------------- table state

IF_NONE_MATCH_PARAMETER = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` of the state the terminal shows: 304 (no body) while it is still current.",
)
ETAG_HEADER = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200, 304],
    description="Strong validator of this state (its `version`, quoted).",
)


class TableStateView(TerminalApiView):
    """A terminal placed at this table; with a player token, that player's view."""

    authentication_classes = [TerminalOptionalPlayerAuthentication]
    permission_classes = [IsTerminal, AtOwnTable]
    throttle_classes = [TerminalRateThrottle, PlayerRateThrottle]

    @extend_schema(
        operation_id="table_state",
        summary="The table as a screen shows it: boxes, owners, bets, cards, totals, turn, deadline, limits",
        description="Boxes with owners, seats and win streaks, bets (`is_mine` with a player token), hands "
        "with cards and totals, the dealer's cards (hole card hidden until revealed), whose turn, the "
        "card expected next, the decision deadline, shuffle due, limits and settings.\n\n"
        "Cheap polling: every answer carries a strong `ETag` (also in the body as `version`); send it "
        "back in `If-None-Match` and the answer is 304 without a body while nothing changed. "
        "Long-poll: `?wait=<seconds>&version=<version>` answers as soon as the state differs from "
        "`version` (200), or with 304 when `wait` seconds (capped by the server) passed unchanged. "
        "An overdue deadline's default (betting closed, insurance declined, stand) is applied when "
        "the state is read, so a poller sees it at once.",
        tags=["table"],
        parameters=[TABLE_PARAMETER, s.TableStateQuerySerializer, IF_NONE_MATCH_PARAMETER, ETAG_HEADER],
        responses={
            200: s.TableStateSerializer,
            304: OpenApiResponse(description="Not modified: the state still has the version you sent."),
            **problems(404),
        },
    )
    def get(self, request: Request, table_id: str) -> Response:
        query = s.TableStateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        table = self.terminal.table
        if table is None:  # AtOwnTable refuses a terminal without a table; this is for the type checker
            raise NotFoundError("This terminal is not placed at a table.", code="not_found")
        session = request.auth
        player_id = session.player_id if isinstance(session, PlayerSession) else None
        known = query.validated_data.get("version") or request.headers.get("If-None-Match", "")
        wait = query.validated_data.get("wait")
        if wait and known:
            version = table_state_wait(
                table_id=table.pk,
                for_player_id=player_id,
                known=known,
                wait_milliseconds=min(int(wait) * 1000, int(api_setting("API_LONG_POLL_MAX_MILLISECONDS"))),
                step_milliseconds=int(api_setting("API_LONG_POLL_STEP_MILLISECONDS")),
            )
        else:
            version = table_state_version_current(table_id=table.pk, for_player_id=player_id)
        if etag_matches(known, version.etag):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            response = Response(terminal_state(table=table, version=version, for_player_id=player_id))
        response["ETag"] = version.etag
        response["Cache-Control"] = "private, no-cache"
        response["Vary"] = "Authorization, X-Player-Token"
        return response
