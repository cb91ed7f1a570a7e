"""Terminal API pieces shared by every endpoint: errors as RFC 9457 problem details."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.exceptions import APIException
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.authentication import TerminalTokenAuthentication
from casino.errors import ServiceError
from casino.models import Terminal

PROBLEM_CONTENT_TYPE = "application/problem+json"


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


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every refusal as ``application/problem+json`` with a stable ``code``."""
    if isinstance(exc, ServiceError):
        return problem_response(status=exc.status, code=exc.code, detail=exc.message)
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
    summary="The authenticated terminal",
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
def terminal_identity(request: Request) -> Response:
    terminal: Terminal = request.user  # type: ignore[assignment]
    return Response(
        {
            "id": terminal.pk,
            "name": terminal.name,
            "kind": terminal.kind,
            "table": terminal.table.name if terminal.table else None,
            "credential_expires_at": request.auth.expires_at,
        }
    )
