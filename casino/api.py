"""Terminal API pieces shared by every endpoint: errors as RFC 9457 problem details."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import (
    ObjectDoesNotExist,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import OperationalError
from django.http import UnreadablePostError
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    permission_classes,
    renderer_classes,
    schema,
    throttle_classes,
)
from rest_framework.exceptions import APIException
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.api_permissions import IsTerminal
from casino.api_throttling import TerminalRateThrottle
from casino.authentication import TerminalTokenAuthentication
from casino.errors import GAME_ERROR_STATUS, ServiceError
from casino.models import Terminal, TerminalCredential
from casino.refusals import refusal_text
from casino.schema import PROBLEM_CONTENT_TYPE, TerminalApiSchema
from games.errors import GameError


class ProblemJSONRenderer(JSONRenderer):
    """Lets a client that asks for ``Accept: application/problem+json`` get its answer."""

    media_type = PROBLEM_CONTENT_TYPE


class StreamNegotiation(BaseContentNegotiation):
    """A stream view's: its stream whatever ``Accept`` says (an ``EventSource`` sends
    ``text/event-stream``, which no renderer names: the stream is written by
    ``casino/streams.py``, not rendered), and JSON for what it renders (the ``OPTIONS``
    description); a refusal is problem+json anyway (``exception_handler``)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


# The refusals that invite the same request again a moment later, with the seconds to wait: a
# duplicate of a request still running (sent again once the first has finished, it replays the
# first's answer), a transaction PostgreSQL gave up (nothing of it was kept), a database that
# does not answer (casino/outage.py: a restart takes a few seconds) and a stream asked of a server
# that holds none (the terminal polls meanwhile, and may find one after a deployment). Every other 409
# is the table's state (betting closed, not your turn, a misscan awaiting its correction), which
# the same request sent again does not change: the terminal follows the table state instead.
RETRY_AFTER_SECONDS = {
    "idempotency_in_progress": 1,
    "concurrent_update": 1,
    "database_unavailable": 5,
    "streams_not_served_here": 15,
}


def problem_body(*, status: int, code: str, detail: Any, title: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"about:blank#{code}" if code else "about:blank",
        "title": title or code.replace("_", " ").capitalize(),
        "status": status,
        "code": code,
    }
    if isinstance(detail, (dict, list)):
        body["detail"] = "The request is not valid."
        body["errors"] = detail
    else:
        body["detail"] = str(detail)
    return body


def problem_response(*, status: int, code: str, detail: Any, title: str = "") -> Response:
    """The problem+json answer; ``Retry-After`` when the refusal invites a retry."""
    response = Response(
        problem_body(status=status, code=code, detail=detail, title=title),
        status=status,
        content_type=PROBLEM_CONTENT_TYPE,
    )
    if code in RETRY_AFTER_SECONDS:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS[code])
    return response


def problem_for_error(error: ServiceError | GameError) -> Response:
    """The problem response of a refusal by a service or by the engine, its ``detail`` in the
    request's language (``casino.refusals``: in English, the refusal's own message)."""
    if isinstance(error, ServiceError):
        return problem_response(status=error.status, code=error.code, detail=refusal_text(error))
    return problem_response(
        status=GAME_ERROR_STATUS.get(error.code, 409), code=error.code, detail=refusal_text(error)
    )


logger = logging.getLogger(__name__)


def _request_path(context: dict[str, Any]) -> str:
    request = context.get("request")
    return f"{request.method} {request.path}" if request is not None else "-"


# PostgreSQL gave up on a transaction because of another one (a deadlock, a serialization
# failure): nothing of it was kept, and the same request sent again will normally pass.
RETRY_SQLSTATES = {"40P01", "40001"}


def _django_request_problem(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Django's own refusals of what a request carries, met while DRF reads its body or its query
    string; Django alone would answer them with its HTML 400 page (or a 500). Logged where Django
    logs them (``django.security.<name>``), so that watching those logs still sees them."""
    if isinstance(exc, SuspiciousOperation):
        security_logger = logging.getLogger(f"django.security.{exc.__class__.__name__}")
        security_logger.error("%s (%s)", exc, _request_path(context))
    if isinstance(exc, RequestDataTooBig):
        return problem_response(
            status=413,
            code="request_too_large",
            detail=f"The request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes.",
        )
    if isinstance(exc, TooManyFieldsSent):
        return problem_response(
            status=400,
            code="too_many_fields",
            detail=f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} parameters.",
        )
    if isinstance(exc, TooManyFilesSent):
        return problem_response(
            status=400,
            code="too_many_files",
            detail=f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files.",
        )
    if isinstance(exc, SuspiciousOperation):
        return problem_response(status=400, code="bad_request", detail="The request cannot be served.")
    if isinstance(exc, UnreadablePostError):
        # The client went away in the middle of its body: nobody reads the answer, but it is no 500.
        return problem_response(
            status=400, code="unreadable_body", detail="The request body could not be read."
        )
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every refusal as ``application/problem+json`` with a stable ``code``, rendered as JSON
    whatever the view's renderers (the schema view's are YAML and OpenAPI JSON) and even when
    content negotiation itself is what failed (it reads the query string, which may hold too many
    fields, or the ``Accept`` header may name nothing the view renders)."""
    problem = _problem_for_exception(exc, context)
    request = context.get("request")
    if problem is not None and request is not None:
        request.accepted_renderer = ProblemJSONRenderer()
        request.accepted_media_type = PROBLEM_CONTENT_TYPE
    return problem


def _problem_for_exception(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, (ServiceError, GameError)):
        return problem_for_error(exc)
    if isinstance(exc, OperationalError) and getattr(exc.__cause__, "sqlstate", None) in RETRY_SQLSTATES:
        # Answered as a retry, but a lock-order bug shows itself this way: keep it in the log.
        logger.warning("request given up by the database (%s): %s", _request_path(context), exc)
        return problem_response(
            status=409,
            code="concurrent_update",
            detail="Another request changed the same thing at the same moment and this one was undone; "
            "send it again.",
        )
    if isinstance(exc, ObjectDoesNotExist):
        # A service looked up a row that a path named (a round id that is no round ...).
        return problem_response(status=404, code="not_found", detail="Not found.")
    django_problem = _django_request_problem(exc, context)
    if django_problem is not None:
        return django_problem
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = getattr(exc, "service_code", None)
    if code is None and isinstance(exc, APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
    detail = response.data.get("detail", response.data) if isinstance(response.data, dict) else response.data
    problem = problem_response(status=response.status_code, code=str(code), detail=detail)
    for header in ("WWW-Authenticate", "Retry-After"):
        if header in response:
            problem[header] = response[header]
    return problem


@extend_schema(
    operation_id="terminal_identity",
    summary="The authenticated terminal",
    tags=["terminal"],
    responses=inline_serializer(
        "TerminalIdentity",
        {
            "id": serializers.IntegerField(),
            "name": serializers.CharField(),
            "kind": serializers.CharField(),
            "table": serializers.CharField(allow_null=True),
            "credential_expires_at": serializers.DateTimeField(),
        },
    ),
)
@api_view(["GET"])
@authentication_classes([TerminalTokenAuthentication])
@permission_classes([IsTerminal])
@renderer_classes([JSONRenderer, ProblemJSONRenderer])
@throttle_classes([TerminalRateThrottle])
@schema(TerminalApiSchema())
def terminal_identity(request: Request) -> Response:
    # TerminalTokenAuthentication puts the Terminal and its credential where DRF's types expect a
    # Django user and a token.
    terminal = cast(Terminal, request.user)
    credential = cast(TerminalCredential, request.auth)
    return Response(
        {
            "id": terminal.pk,
            "name": terminal.name,
            "kind": terminal.kind,
            "table": terminal.table.name if terminal.table else None,
            "credential_expires_at": credential.expires_at,
        }
    )


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@authentication_classes([])
@permission_classes([])
@renderer_classes([JSONRenderer, ProblemJSONRenderer])
@throttle_classes([])
def endpoint_not_found(request: Request, path: str = "") -> Response:
    """Any path under ``/api/`` that names no endpoint: a problem+json 404 (Django's would be an
    HTML page, and a path without its final slash a redirect that loses a POST's body)."""
    hint = "" if request.path.endswith("/") else " API paths end with a slash."
    return problem_response(
        status=404, code="no_such_endpoint", detail=f"No such endpoint: {request.path}.{hint}"
    )
