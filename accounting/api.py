"""Terminal API: a player tips the dealer from their wallet (``accounting.tips.tip_from_player``).

``POST /api/v1/tables/<table>/tips/`` with ``{"amount_minor": 500}`` and an ``Idempotency-Key``:
the dealer of the table's current round, or of its last settled one, is tipped; the amount moves
from the player's wallet to the casino's tips pool. Refusals are problem+json."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounting.models import Tip
from accounting.tips import tip_from_player
from casino.api_serializers import InputSerializer, JSONIntegerField, OutputSerializer
from casino.api_views import IDEMPOTENCY_PARAMETER, TABLE_PARAMETER, TablePlayerView
from casino.idempotency import run_idempotent
from casino.schema import problems

MAX_TIP_MINOR = 10**12


class TipInputSerializer(InputSerializer):
    amount_minor = JSONIntegerField(
        min_value=1, max_value=MAX_TIP_MINOR, help_text="The tip, in minor units of the casino's currency."
    )


class TipSerializer(OutputSerializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    round_id = serializers.IntegerField(help_text="The round whose dealer is tipped.")
    round_number = serializers.IntegerField()
    amount_minor = serializers.IntegerField()
    currency = serializers.CharField()
    transfer_id = serializers.IntegerField(help_text="The ledger transfer, wallet to tips pool.")
    recorded_at = serializers.DateTimeField()


def _tip_data(tip: Tip) -> dict[str, Any]:
    return TipSerializer(
        {
            "id": tip.pk,
            "table_id": tip.table_id,
            "round_id": tip.round_id,
            "round_number": tip.round.number,
            "amount_minor": tip.amount_minor,
            "currency": tip.round.table.casino.currency,
            "transfer_id": tip.transfer_id,
            "recorded_at": tip.recorded_at,
        }
    ).data


class TipView(TablePlayerView):
    @extend_schema(
        operation_id="tip_place",
        summary="Tip the dealer of the current round, or of the last settled one, from your wallet",
        description="Needs an `Idempotency-Key`. The amount moves from your wallet to the casino's "
        "tips pool, shared among the shift's dealers. Refusals: `no_round_to_tip`, "
        "`gaming_day_closed`, `insufficient_funds`, `invalid_tip_amount`.",
        tags=["tips"],
        parameters=[TABLE_PARAMETER, IDEMPOTENCY_PARAMETER],
        request=TipInputSerializer,
        responses={
            201: TipSerializer,
            **problems(
                409,
                422,
                s409="`no_round_to_tip`, `gaming_day_closed`, `insufficient_funds`.",
                s422="`invalid_tip_amount`.",
            ),
        },
    )
    def post(self, request: Request, table_id: str) -> Response:
        data = TipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        amount = data.validated_data["amount_minor"]

        def perform() -> Response:
            tip = tip_from_player(table=self.table, amount_minor=amount, actor=self.actor())
            return Response(_tip_data(tip), status=status.HTTP_201_CREATED)

        return run_idempotent(request, command="tip_place", payload={"amount_minor": amount}, perform=perform)
