"""The signed-in player's wallet at a terminal: the balance and the statement; and the player's
stream, which says when to read them (and the player's bets) again."""

from __future__ import annotations

from dataclasses import asdict

from django.http import HttpResponseBase
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import StreamNegotiation
from casino.api_views import (
    LAST_EVENT_ID_PARAMETER,
    PlayerApiView,
    stream_responses,
    terminal_stream,
)
from casino.hints import player_topic
from tables.api import serializers as s
from wallet.selectors import account_balance, player_statement


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


class PlayerStreamView(PlayerApiView):
    content_negotiation_class = StreamNegotiation

    @extend_schema(
        operation_id="player_stream",
        summary="The signed-in player's stream: an event each time their bets or balance move",
        description="Server-sent events (`text/event-stream`) of the signed-in player's own topic "
        "only: `event: player` when one of their bets was placed or their wallet moved (a stake "
        "held or released, a payout, the cage): read `/player/balance/` and the table state (their "
        "bets, `is_mine`) again. The first event comes at once; `Last-Event-ID` and `event: closed` "
        "as for the table's stream.",
        tags=["wallet"],
        parameters=[LAST_EVENT_ID_PARAMETER],
        responses=stream_responses("player", "player:3", "player_session_ended"),
    )
    def get(self, request: Request) -> HttpResponseBase:
        return terminal_stream(self, {player_topic(self.session.player_id): "player"})
