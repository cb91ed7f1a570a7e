"""The table as a terminal's screen shows it, with a strong ``ETag`` for cheap polling and a
long poll that answers as soon as the state changes; and the table's stream, which says when to
read it again."""

from __future__ import annotations

from django.http import HttpResponseBase
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import StreamNegotiation
from casino.api_conf import api_setting
from casino.api_permissions import AtOwnTable, IsTerminal
from casino.api_throttling import PlayerRateThrottle, TerminalRateThrottle
from casino.api_views import (
    LAST_EVENT_ID_PARAMETER,
    TABLE_PARAMETER,
    TerminalApiView,
    stream_responses,
    terminal_stream,
)
from casino.authentication import TerminalOptionalPlayerAuthentication
from casino.hints import table_topic
from casino.models import PlayerSession
from casino.schema import problems
from tables.api import serializers as s
from tables.api.state import etag_matches, table_state_version_current, table_state_wait, terminal_state

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


class TableTerminalView(TerminalApiView):
    """A terminal placed at this table; with a player token, that player's view."""

    authentication_classes = [TerminalOptionalPlayerAuthentication]
    permission_classes = [IsTerminal, AtOwnTable]
    throttle_classes = [TerminalRateThrottle, PlayerRateThrottle]


class TableStateView(TableTerminalView):
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
        table = self.table
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


class TableStreamView(TableTerminalView):
    content_negotiation_class = StreamNegotiation

    @extend_schema(
        operation_id="table_stream",
        summary="The table's stream: an event each time the table state moves",
        description="Server-sent events (`text/event-stream`) for the terminals of this table, with "
        "the same credential, player token and table as the state. Each `event: table` says that "
        "the state moved: read `/state/` again (with `If-None-Match`). The first event comes at once "
        "(the state may have moved before the stream opened); a reconnect with `Last-Event-ID` gets "
        "one only if the table moved meanwhile. `event: closed` with a code ends it for good: the "
        "credential was revoked or the player's session ended.",
        tags=["table"],
        parameters=[TABLE_PARAMETER, LAST_EVENT_ID_PARAMETER],
        responses={**stream_responses("table", "table:1", "credential_revoked"), **problems(404)},
    )
    def get(self, request: Request, table_id: str) -> HttpResponseBase:
        return terminal_stream(self, {table_topic(self.table.pk): "table"})
