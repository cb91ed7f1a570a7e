"""Terminal API views: authenticate, check who may do what, validate input, call one service or
selector, render. Every refusal is problem+json (casino.api.exception_handler)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import ProblemJSONRenderer
from casino.authentication import TerminalPlayerAuthentication, TerminalTokenAuthentication
from casino.models import PlayerSession, Terminal
from casino.schema import TerminalApiSchema, problems
from tables.api import serializers as s
from tables.api.permissions import HasPlayerSession, IsPlayerTerminal, IsTerminal
from tables.api.sessions import player_session_end, player_session_start
from tables.api.throttling import PlayerRateThrottle, SignInRateThrottle, TerminalRateThrottle
from wallet.selectors import account_balance, player_statement

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    pattern=r"^[A-Za-z0-9._:\-]{1,100}$",
    description="Unique per intended command (a UUID). A retry with the same key returns the first "
    "response (`Idempotency-Replayed: true`); the same key with another payload is refused (422 "
    "`idempotency_key_reused`); while the first is still running a duplicate gets 409 "
    "`idempotency_in_progress`.",
)


class TerminalApiView(APIView):
    """Any registered terminal (player terminal or card reader) with a valid credential."""

    schema = TerminalApiSchema()
    renderer_classes = [JSONRenderer, ProblemJSONRenderer]
    parser_classes = [JSONParser]
    authentication_classes = [TerminalTokenAuthentication]
    permission_classes = [IsTerminal]
    throttle_classes = [TerminalRateThrottle]

    @property
    def terminal(self) -> Terminal:
        return self.request.user  # type: ignore[return-value]


class PlayerApiView(TerminalApiView):
    """A player signed in at this terminal: terminal credential plus player token."""

    authentication_classes = [TerminalPlayerAuthentication]
    permission_classes = [HasPlayerSession]
    throttle_classes = [TerminalRateThrottle, PlayerRateThrottle]

    @property
    def session(self) -> PlayerSession:
        return self.request.auth  # type: ignore[return-value]


def _session_data(session: PlayerSession) -> dict[str, Any]:
    return {
        "player": {"id": session.player_id, "display_name": session.player.display_name},
        "table_id": session.table_id,
        "terminal_id": session.terminal_id,
        "started_at": session.started_at,
        "expires_at": session.expires_at,
        "hard_expires_at": session.hard_expires_at,
    }


# ---------------------------------------------------------------- player sessions


class SignInView(TerminalApiView):
    permission_classes = [IsPlayerTerminal]
    throttle_classes = [TerminalRateThrottle, SignInRateThrottle]

    @extend_schema(
        operation_id="player_sign_in",
        summary="Sign a player in at this player terminal (card number and PIN)",
        description="Returns a short-lived player token bound to the player, this terminal and its "
        "table. Five wrong PINs in a row lock the card for a while (`player_locked`). A new sign-in "
        "ends any session still open at this terminal or of this player.",
        tags=["player session"],
        request=s.SignInInputSerializer,
        responses={201: s.SignInOutputSerializer, **problems(409)},
    )
    def post(self, request: Request) -> Response:
        data = s.SignInInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session, token = player_session_start(terminal=self.terminal, **data.validated_data)
        body = s.SignInOutputSerializer({**_session_data(session), "token": token}).data
        return Response(body, status=status.HTTP_201_CREATED)


class CurrentSessionView(PlayerApiView):
    @extend_schema(
        operation_id="player_session_current",
        summary="The player signed in at this terminal",
        tags=["player session"],
        responses={200: s.PlayerSessionSerializer},
    )
    def get(self, request: Request) -> Response:
        return Response(s.PlayerSessionSerializer(_session_data(self.session)).data)

    @extend_schema(
        operation_id="player_sign_out",
        summary="Sign the player out: the player token stops working at once",
        tags=["player session"],
        responses={204: None},
    )
    def delete(self, request: Request) -> Response:
        player_session_end(session=self.session)
        return Response(status=status.HTTP_204_NO_CONTENT)


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
