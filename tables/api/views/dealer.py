"""The dealer's side of a round: the cards a card reader or the dealer terminal sends, and the
dealer's commands (open betting, no more bets, end insurance, correct a misscan, settle, shuffle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.actors import Actor
from casino.api_permissions import AtOwnTable, IsCardReader
from casino.api_views import IDEMPOTENCY_PARAMETER, TABLE_PARAMETER, DealerApiView, TerminalApiView, path_id
from casino.idempotency import run_idempotent
from casino.schema import problems
from tables.api import serializers as s
from tables.api.views.common import ROUND_PARAMETER, round_data
from tables.models import Round, Shoe
from tables.services.cards import card_correct, card_enter
from tables.services.decisions import insurance_close
from tables.services.rounds import round_close_betting, round_open
from tables.services.settlement import round_settle
from tables.services.shoes import shoe_shuffle


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
            return Response(s.RoundSerializer(round_data(round_)).data)

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
            return Response(s.RoundSerializer(round_data(round_)).data)

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
            return Response(s.RoundSerializer(round_data(round_)).data, status=status.HTTP_201_CREATED)

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
            return Response(s.RoundSerializer(round_data(round_)).data)

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
