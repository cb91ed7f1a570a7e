"""``Idempotency-Key`` for money requests over HTTP.

The first response to (terminal, player, key) is stored, status and body, and a retry gets it back
verbatim (with ``Idempotency-Replayed: true``) without running the command again. The same key
with another payload is refused with 422 ``idempotency_key_reused``; a duplicate that arrives while
the first is still running gets 409 ``idempotency_in_progress`` at once, instead of waiting, with
``Retry-After: 1`` (``casino.api.RETRY_AFTER_SECONDS``): sent again then, it replays the first.

How: one transaction holds everything, with one idempotency record per request, and this is the
only idempotency record a request makes (the services take none). ``wallet.idempotency.idempotent``
inserts the record first, in one statement guarded by a transaction-scoped advisory lock on
(scope, key) taken without waiting: a request that neither gets the lock nor finds a committed
record is a duplicate in flight, so 409. Otherwise it finds the committed record and replays it,
or runs the command and stores its response in the same transaction as the command's effect: the
record exists exactly when the effect does.

A refusal by the service (its ``ServiceError`` / engine ``GameError``) is a response like any other
and is stored too, but not in the command's transaction: that transaction is rolled back whole
(record, and anything the command wrote before refusing) and the refusal is stored in a
transaction of its own, so a refusal can never commit half a command. Should a duplicate slip in
between the two transactions and commit first, its answer is the one stored, and both callers get
it. A refusal whose effects stand (``ServiceError.effects_stand``: a misscan recorded, overdue
defaults applied before the refusal) is stored in the command's transaction instead, and commits
with them. A request that fails validation (400) or authentication never reaches this and stores
nothing. A crash rolls everything back, record included, so the key may be retried.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, cast

from django.core.exceptions import ObjectDoesNotExist
from django.core.serializers.json import DjangoJSONEncoder
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import PROBLEM_CONTENT_TYPE, problem_for_error, problem_response
from casino.errors import ServiceError
from casino.models import PlayerSession, Terminal
from games.errors import GameError
from wallet.idempotency import Outcome, idempotent

HEADER = "Idempotency-Key"
KEY_PATTERN = r"^[A-Za-z0-9._:\-]{1,100}$"
_KEY_RE = re.compile(KEY_PATTERN)
REPLAYED_HEADER = "Idempotency-Replayed"


class IdempotencyKeyMissingError(ServiceError):
    code = "idempotency_key_required"
    status = 400


def idempotency_key(request: Request) -> str:
    key = request.headers.get(HEADER, "")
    if not key:
        raise IdempotencyKeyMissingError(f"This request needs an {HEADER} header (1 to 100 characters).")
    if not _KEY_RE.match(key):
        raise IdempotencyKeyMissingError(
            f"The {HEADER} header must be 1 to 100 letters, digits or . _ : -", code="invalid_idempotency_key"
        )
    return key


def idempotency_scope(request: Request) -> str:
    terminal = cast(Terminal, request.user)  # set by the terminal authentication, typed by DRF as a user
    session = request.auth
    player = f"p{session.player_id}" if isinstance(session, PlayerSession) else "p-"
    return f"api:t{terminal.pk}:{player}"


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def _recorded(response: Response) -> dict[str, Any]:
    return {"status": response.status_code, "body": _plain(response.data)}


def run_idempotent(
    request: Request, *, command: str, payload: dict[str, Any], perform: Callable[[], Response]
) -> Response:
    """Run ``perform`` (which calls one service and returns the success Response) at most once per
    Idempotency-Key; see the module docstring."""
    key = idempotency_key(request)
    scope = idempotency_scope(request)
    payload = {"command": command, "method": request.method, "path": request.path, **payload}

    def perform_and_record() -> Outcome:
        try:
            return Outcome(_recorded(perform()))
        except (ServiceError, GameError) as error:
            # Kept when the refusal itself recorded something (a misscan, defaults applied first).
            return Outcome(_recorded(problem_for_error(error)), keep=getattr(error, "effects_stand", False))
        except ObjectDoesNotExist:
            return Outcome(
                _recorded(problem_response(status=404, code="not_found", detail="Not found.")), keep=False
            )

    result = idempotent(
        scope=scope, key=key, payload=payload, perform=perform_and_record, refuse_in_flight=True
    )
    status = int(result.response["status"])
    body = result.response["body"]
    response = Response(body, status=status)
    if status >= 400:
        response.content_type = PROBLEM_CONTENT_TYPE
    if result.replayed:
        response[REPLAYED_HEADER] = "true"
    return response
