"""OpenAPI descriptions of the project's own authentication schemes, and the terminal API's
schema class, which documents the problem+json errors every endpoint can answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse

from casino.api_serializers import ProblemDetailSerializer

PROBLEM_CONTENT_TYPE = "application/problem+json"

TERMINAL_SCHEME = {
    "type": "apiKey",
    "in": "header",
    "name": "Authorization",
    "description": "`Terminal <credential>`: the credential issued to a registered terminal "
    "(shown once, hashed at rest, expiring, revocable).",
}
PLAYER_SCHEME = {
    "type": "apiKey",
    "in": "header",
    "name": "X-Player-Token",
    "description": "The token a player receives when signing in at a player terminal (card number and "
    "PIN). Short-lived, bound to the player, the terminal and its table; only valid together with "
    "that terminal's credential; ends at sign-out.",
}


class TerminalTokenScheme(OpenApiAuthenticationExtension):
    target_class = "casino.authentication.TerminalTokenAuthentication"
    name = "terminalCredential"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return TERMINAL_SCHEME


class TerminalPlayerScheme(OpenApiAuthenticationExtension):
    """Both headers together: one security requirement naming both schemes (the terminal scheme
    is defined by ``TerminalTokenScheme``, used by the terminal-only endpoints)."""

    target_class = "casino.authentication.TerminalPlayerAuthentication"
    name = "playerToken"

    def get_security_requirement(self, auto_schema: Any) -> dict[str, list[str]]:
        return {"terminalCredential": [], "playerToken": []}

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return PLAYER_SCHEME


class TerminalOptionalPlayerScheme(OpenApiAuthenticationExtension):
    """The terminal's credential alone, or together with a player token. It defines no scheme of
    its own (``name`` is empty): both are registered by the endpoints that require them, and a
    second registration under the same name would be a conflicting component."""

    target_class = "casino.authentication.TerminalOptionalPlayerAuthentication"
    name: list[str] = []

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[str]]]:
        return [{"terminalCredential": []}, {"terminalCredential": [], "playerToken": []}]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, str]]:
        return []


ERROR_DESCRIPTIONS = {
    400: "Bad input (`invalid`, `parse_error`, `invalid_encoding`, `too_many_fields`, "
    "`idempotency_key_required` ...): `errors` names the fields.",
    401: "No, unknown, expired or revoked terminal credential or player token "
    "(`not_authenticated`, `credential_revoked`, `player_session_expired` ...).",
    403: "Authenticated but not allowed (`wrong_table`, `not_a_card_reader`, `not_a_dealer_terminal`, "
    "`not_box_owner` ...).",
    404: "Not found (`not_found`).",
    405: "Method not allowed (`method_not_allowed`).",
    406: "Cannot answer in the requested media type (`not_acceptable`).",
    409: "The table's state does not allow this now (`betting_closed`, `not_your_turn` ...). Two "
    "refusals invite the same request again after `Retry-After` seconds: `idempotency_in_progress` "
    "and `concurrent_update`.",
    413: "The body is larger than the server reads (`request_too_large`).",
    415: "Send `application/json` (`unsupported_media_type`).",
    422: "Understood but refused (`stake_above_table_max`, `idempotency_key_reused` ...).",
    423: "Locked (`player_locked`).",
    429: "Too many requests for this terminal or player (`throttled`); see `Retry-After`.",
    503: "The database does not answer (`database_unavailable`): nothing was kept; send the same "
    "request again after `Retry-After` seconds.",
}
ALWAYS = (400, 401, 403, 405, 406, 429, 503)
# With a body: too large a body, or one in another media type.
WITH_BODY = (413, 415)
RETRY_AFTER_HEADER = {
    "schema": {"type": "integer", "minimum": 0},
    "description": "Seconds to wait before sending the same request again (only where a retry is invited).",
}


def problem(status: int, description: str = "") -> OpenApiResponse:
    return OpenApiResponse(
        ProblemDetailSerializer, description=description or ERROR_DESCRIPTIONS.get(status, "")
    )


def problems(*statuses: int, **descriptions: str) -> dict[Any, OpenApiResponse]:
    """``@extend_schema(responses={200: X, **problems(409, 422)})``: error responses in
    ``application/problem+json``. Keyword descriptions are keyed ``s409="..."``."""
    return {
        (status, PROBLEM_CONTENT_TYPE): problem(status, descriptions.get(f"s{status}", ""))
        for status in statuses
    }


class TerminalApiSchema(AutoSchema):
    """Every operation also documents the errors any request can meet (bad input,
    authentication, permission, method, media type, throttling, a database outage; for a body, its
    size and media type), as problem+json, with ``Retry-After`` on the 409, 429 and 503 answers; success bodies are
    documented as ``application/json`` only."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        bodies = super()._get_response_bodies(direction)
        for code, body in bodies.items():
            if code.startswith("2") and "content" in body:
                body["content"].pop(PROBLEM_CONTENT_TYPE, None)
        statuses = set(ALWAYS)
        if self.method in ("POST", "PUT", "PATCH"):
            statuses.update(WITH_BODY)
        for status in sorted(statuses):
            if str(status) not in bodies:
                bodies[str(status)] = self._get_response_for_code(  # type: ignore[no-untyped-call]  # drf-spectacular leaves it unannotated
                    problem(status), str(status), [PROBLEM_CONTENT_TYPE], direction
                )
        for retried in ("409", "429", "503"):
            if retried in bodies:
                bodies[retried].setdefault("headers", {})["Retry-After"] = RETRY_AFTER_HEADER
        return dict(sorted(bodies.items()))
