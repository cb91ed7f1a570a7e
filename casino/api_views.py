"""The terminal API's shared views: the terminal and player base views with their
authentication, permissions and throttles, the path checks, the player's sign-in and session, and
the streams' answer (``terminal_stream``). The games' endpoints build on them (tables.api.views,
cardroom.api)."""

from __future__ import annotations

from functools import partial
from typing import Any, cast

from django.http import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import api_serializers as s
from casino.actors import Actor
from casino.api import ProblemJSONRenderer
from casino.api_permissions import (
    AtOwnTable,
    HasPlayerSession,
    IsDealerTerminal,
    IsPlayerTerminal,
    IsTerminal,
)
from casino.api_throttling import PlayerRateThrottle, SignInRateThrottle, TerminalRateThrottle
from casino.authentication import (
    TerminalPlayerAuthentication,
    TerminalTokenAuthentication,
    access_refusal,
)
from casino.errors import NotFoundError, StreamsNotServedError
from casino.hints import session_topic, terminal_topic
from casino.models import PlayerSession, Table, Terminal, TerminalCredential
from casino.parsers import JSONBodyParser
from casino.player_sessions import player_session_end, player_session_start
from casino.schema import TerminalApiSchema, problems
from casino.streams import hint_stream, streams_served

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    pattern=r"^[A-Za-z0-9._:\-]{1,100}$",
    description="Unique per intended command (a UUID). A retry with the same key returns the first "
    "response (`Idempotency-Replayed: true`); the same key with another payload is refused (422 "
    "`idempotency_key_reused`); while the first is still running a duplicate gets 409 "
    "`idempotency_in_progress` with `Retry-After`.",
)


class TerminalApiView(APIView):
    """Any registered terminal (player terminal or card reader) with a valid credential."""

    schema = TerminalApiSchema()
    renderer_classes = [JSONRenderer, ProblemJSONRenderer]
    parser_classes = [JSONBodyParser]
    authentication_classes = [TerminalTokenAuthentication]
    permission_classes = [IsTerminal]
    throttle_classes = [TerminalRateThrottle]

    @property
    def terminal(self) -> Terminal:
        # The authentication classes put the Terminal on request.user, which DRF types as a user.
        return cast(Terminal, self.request.user)

    @property
    def table(self) -> Table:
        """The table the terminal is placed at (AtOwnTable refuses a terminal without one before
        a view asks; the refusal here is for the type checker)."""
        table = self.terminal.table
        if table is None:
            raise NotFoundError("This terminal is not placed at a table.")
        return table


class PlayerApiView(TerminalApiView):
    """A player signed in at this terminal: terminal credential plus player token."""

    authentication_classes = [TerminalPlayerAuthentication]
    permission_classes = [HasPlayerSession]
    throttle_classes = [TerminalRateThrottle, PlayerRateThrottle]

    @property
    def session(self) -> PlayerSession:
        # TerminalPlayerAuthentication puts the PlayerSession on request.auth, typed by DRF as a token.
        return cast(PlayerSession, self.request.auth)


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
        responses={
            201: s.SignInOutputSerializer,
            **problems(409, s409="`terminal_without_table`, `gaming_day_closed`."),
        },
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


# ---------------------------------------------------------------- the table in the path

MAX_PATH_ID = 999_999_999_999


def path_id(view: APIView, name: str) -> int:
    """A numeric path parameter; anything else (or out of range) is a 404 problem, never a 500."""
    raw = str(view.kwargs.get(name, ""))
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12 or not 0 < int(raw) <= MAX_PATH_ID:
        raise NotFoundError(f"No such {name.removesuffix('_id').replace('_', ' ')}.")
    return int(raw)


TABLE_PARAMETER = OpenApiParameter(
    "table_id", int, OpenApiParameter.PATH, description="The table this terminal is placed at."
)


class TablePlayerView(PlayerApiView):
    """A player signed in at a player terminal placed at this table."""

    permission_classes = [HasPlayerSession, AtOwnTable]

    def actor(self) -> Actor:
        return Actor.at_terminal(self.terminal, self.session.player)


class DealerApiView(TerminalApiView):
    """The dealer terminal placed at this table. Each command is one service called with the
    terminal as the actor (its events and audit records name the terminal), under an
    ``Idempotency-Key``: a retried command replays its first answer and runs once."""

    permission_classes = [IsDealerTerminal, AtOwnTable]

    def actor(self) -> Actor:
        return Actor.at_terminal(self.terminal)


# ---------------------------------------------------------------- streams


def terminal_stream(view: TerminalApiView, topics: dict[str, str]) -> HttpResponseBase:
    """The stream of ``topics`` (``{topic: event name}``, ``casino/streams.py``) for the request
    ``view`` authenticated and allowed, as the view it mirrors checks it (a stream view keeps that
    view's classes, and answers its stream whatever ``Accept`` says: ``StreamNegotiation``).

    It closes with ``event: closed`` and the refusal's code as soon as the credential it was
    opened with stops being valid (revoked, expired, its terminal deactivated) or the player's
    session ends (signed out, replaced, the card locked): the services that do so hint the
    terminal's or the session's topic, and the stream then checks again (``access_refusal``).
    Under WSGI: 503 ``streams_not_served_here`` (the terminal polls)."""
    # DRF's request wraps Django's, whose class says which server it came through.
    request = view.request._request
    if not streams_served(request):
        raise StreamsNotServedError("This server does not serve streams; poll the state instead.")
    auth = view.request.auth
    session = auth if isinstance(auth, PlayerSession) else None
    # TerminalPlayerAuthentication puts the terminal's credential on the session it returns.
    credential = cast(TerminalCredential, session.credential if session is not None else auth)  # type: ignore[attr-defined]
    controls = [terminal_topic(view.terminal.pk)]
    if session is not None:
        controls.append(session_topic(session.pk))
    return hint_stream(
        request,
        topics,
        controls=controls,
        still_allowed=partial(
            access_refusal, credential_id=credential.pk, session_id=session.pk if session else None
        ),
    )


LAST_EVENT_ID_PARAMETER = OpenApiParameter(
    "Last-Event-ID",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="On reconnecting: the `id` of the last event received. The stream then sends at "
    "once one event for each of its topics that moved meanwhile, and none for the others.",
)


def stream_responses(event: str, example_topic: str, closed: str) -> dict[Any, OpenApiResponse]:
    """A stream's answers in the schema: the event stream (``event``'s lines as the example, and
    ``closed`` as the code it closes with), and the 503 of a server that does not hold streams."""
    lines = (
        "retry: 1000\n\n"
        f"id: {example_topic}=796bbc.27\nevent: {event}\ndata: {example_topic} 796bbc.27\n\n"
        ":\n\n"
        f"id: {example_topic}=796bbc.31\nevent: {event}\ndata: {example_topic} 796bbc.31\n\n"
        f"event: closed\ndata: {closed}\n\n"
    )
    return {
        (200, "text/event-stream"): OpenApiResponse(
            OpenApiTypes.STR,
            description=f"Server-sent events: `event: {event}` when it moved (re-read it), a comment "
            "line (`:`) every 20 seconds while nothing does, and `event: closed` with the refusal's "
            "code (`credential_revoked`, `credential_expired`, `terminal_inactive`, "
            "`player_session_ended`, `player_session_expired`, `player_inactive`) before the "
            "server closes it for good. Without that, the stream ends after a few minutes: "
            "reconnect with `Last-Event-ID`.",
            examples=[OpenApiExample(event, value=lines)],
        ),
        **problems(
            503,
            s503="`streams_not_served_here`: this server does not hold streams (read the state "
            "every 15 seconds, or long-poll it, and try the stream again after `Retry-After`); "
            "`database_unavailable`: the database does not answer.",
        ),
    }
