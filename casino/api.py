"""Terminal API pieces shared by every endpoint: errors as RFC 9457 problem details."""

from __future__ import annotations

import logging
from typing import Any, cast

from django.core.exceptions import ObjectDoesNotExist
from django.db import OperationalError
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
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.authentication import TerminalTokenAuthentication
from casino.errors import ServiceError
from casino.models import Terminal, TerminalCredential
from casino.schema import TerminalApiSchema
from tables.api.throttling import TerminalRateThrottle
from tables.errors import GAME_ERROR_STATUS
from tables.games.errors import GameError

PROBLEM_CONTENT_TYPE = "application/problem+json"


class ProblemJSONRenderer(JSONRenderer):
    """Lets a client that asks for ``Accept: application/problem+json`` get its answer."""

    media_type = PROBLEM_CONTENT_TYPE


def problem_response(*, status: int, code: str, detail: Any, title: str = "") -> Response:
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
    return Response(body, status=status, content_type=PROBLEM_CONTENT_TYPE)


def problem_for_error(error: ServiceError | GameError) -> Response:
    """The problem response of a refusal by a service or by the engine."""
    if isinstance(error, ServiceError):
        return problem_response(status=error.status, code=error.code, detail=error.message)
    return problem_response(
        status=GAME_ERROR_STATUS.get(error.code, 409), code=error.code, detail=error.message
    )


logger = logging.getLogger(__name__)


def _request_path(context: dict[str, Any]) -> str:
    request = context.get("request")
    return f"{request.method} {request.path}" if request is not None else "-"


# PostgreSQL gave up on a transaction because of another one (a deadlock, a serialization
# failure): nothing of it was kept, and the same request sent again will normally pass.
RETRY_SQLSTATES = {"40P01", "40001"}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every refusal as ``application/problem+json`` with a stable ``code``."""
    if isinstance(exc, (ServiceError, GameError)):
        return problem_for_error(exc)
    if isinstance(exc, OperationalError) and getattr(exc.__cause__, "sqlstate", None) in RETRY_SQLSTATES:
        # Answered as a retry, but a lock-order bug shows itself this way: keep it in the log.
        logger.warning("request given up by the database (%s): %s", _request_path(context), exc)
        problem = problem_response(
            status=409,
            code="concurrent_update",
            detail="Another request changed the same thing at the same moment and this one was undone; "
            "send it again.",
        )
        problem["Retry-After"] = "1"
        return problem
    if isinstance(exc, ObjectDoesNotExist):
        # A service looked up a row that a path named (a round id that is no round ...).
        return problem_response(status=404, code="not_found", detail="Not found.")
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


class IsTerminal(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, Terminal)


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
