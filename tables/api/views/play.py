"""A player's play at the table: take and leave a box, bets behind it, place and cancel a bet,
insurance and the decisions on a hand."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api_views import IDEMPOTENCY_PARAMETER, TABLE_PARAMETER, TablePlayerView, path_id
from casino.idempotency import idempotency_key, run_idempotent
from casino.schema import problems
from tables.api import serializers as s
from tables.api.views.common import BET_PARAMETER, BOX_PARAMETER, ROUND_PARAMETER, path_box, round_data
from tables.models import Bet, Box
from tables.services.bets import bet_cancel, bet_place
from tables.services.decisions import decision_make, insurance_decide
from tables.services.seats import box_bets_behind_set, box_leave, box_take


def _box_data(box: Box) -> dict[str, Any]:
    return {
        "table_id": box.table_id,
        "number": box.number,
        "owner_id": box.owner_id,
        "accepts_bets_behind": box.accepts_bets_behind,
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
            return Response(s.RoundSerializer(round_data(round_)).data)

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
            return Response(s.RoundSerializer(round_data(round_)).data)

        return run_idempotent(
            request, command="decision_make", payload={"round_id": round_number, **values}, perform=perform
        )
