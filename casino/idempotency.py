"""Idempotency keys, at the edge only: one record per request (an HTTP request to the terminal API,
a cage form, a management command or task that moves money). A retry returns the first answer and
moves nothing twice. The services take no key: a service that can meet a repeat of itself from
inside the back office (a hold voided twice, a payout released twice) refuses it from the state of
its rows.

The edge wraps the one service call of a request:
``idempotent(scope=..., key=..., payload=..., perform=...)`` runs ``perform`` at most once per
(scope, key) and stores its response in the same transaction as its effect, so the record exists
exactly when the effect does. ``perform`` does everything (the service call, its audit record
included) and returns an ``Outcome``: the response to store and whether its writes are kept.

- ``Outcome(response)``: the writes commit with the record holding ``response``.
- ``Outcome(response, keep=False)``: a refusal the edge answers like a success (the terminal API
  answers 409 ``insufficient_funds`` and wants a retry to hear it again). The transaction is
  rolled back whole (``transaction.set_rollback``), the record and anything ``perform`` wrote
  before refusing with it; the response is then stored in a transaction of its own. So the
  command needs no savepoint, and a refusal can never commit half a command. Should a duplicate
  have committed meanwhile, its stored answer is the one returned (``replayed=True``), so every
  caller of a key hears the one stored answer.
- An exception leaving ``perform`` (a crash, or a refusal the edge does not answer) rolls the
  transaction back with the record: nothing is remembered and the key may be retried.

Concurrency (PostgreSQL, READ COMMITTED): the record is inserted FIRST, before ``perform`` takes
any row lock, in a savepoint of its own. A concurrent call with the same key blocks on the unique
index until the first transaction ends, and never doubles:

- the first commits: the insert fails on the unique index (the savepoint is rolled back, the
  transaction goes on), the call reads the committed record and returns its stored response
  (``replayed=True``), having moved nothing;
- the first rolls back: the record never existed, so this call inserts it and runs ``perform``.

The wait happens before any other lock is taken, so it cannot deadlock with the command. With
``refuse_in_flight=True`` a duplicate does not wait: the transaction-scoped advisory lock on
(scope, key) is taken first, without waiting (``casino.sql.idempotency_key_lock_try``), and a
call that does not get it finds no committed record and is refused at once with
``idempotency_in_progress`` (409). The terminal API asks for this: a terminal retrying a slow
request should hear "still running", not hang. The same key with another payload (another
fingerprint) is refused with ``idempotency_key_reused`` (422), and nothing happens.

A scope names the caller (``api:t3:p7``, ``cage:u4``, ``seed``); keys are unique per scope. The
payload holds the command name and every argument that changes its effect.

Over HTTP (``run_idempotent``, the terminal API's money requests): the ``Idempotency-Key`` header
is the key, the terminal and the signed-in player the scope. The first response (status and body)
is stored, and a retry gets it back verbatim (with ``Idempotency-Replayed: true``) without running
the command again; a duplicate in flight gets 409 ``idempotency_in_progress`` with ``Retry-After:
1`` (``casino.api.RETRY_AFTER_SECONDS``): sent again then, it replays the first. A refusal by the
service (its ``ServiceError`` / engine ``GameError``) is a response like any other and is stored
too, with the command's writes rolled back (``keep=False``), unless its effects stand
(``ServiceError.effects_stand``: a misscan recorded, overdue defaults applied before the refusal):
then it is stored in the command's transaction, and commits with them. A request that fails
validation (400) or authentication never reaches this and stores nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from django.core.exceptions import ObjectDoesNotExist
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import problem_for_error, problem_response
from casino.errors import (
    IdempotencyInProgressError,
    IdempotencyKeyMissingError,
    IdempotencyKeyReusedError,
    InvalidIdempotencyKeyError,
    ServiceError,
    VenueInvalidIdempotencyKeyError,
)
from casino.models import IdempotencyRecord, PlayerSession, Terminal
from casino.schema import PROBLEM_CONTENT_TYPE
from casino.sql import idempotency_key_lock_try
from games.errors import GameError

MAX_KEY_LENGTH = 200
MAX_SCOPE_LENGTH = 80
UNIQUE_KEY = "idempotency_unique_key"  # the record's unique constraint on (scope, key)


def request_fingerprint(payload: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a payload (sorted keys, no spaces)."""
    encoded = json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, cls=DjangoJSONEncoder
    ).encode()
    return hashlib.sha256(encoded).hexdigest()


@dataclass(frozen=True)
class Outcome:
    """What ``perform`` answers: the JSON-serializable response to store, and whether its writes
    are kept (``keep=False``: roll back everything ``perform`` wrote; store only the response)."""

    response: dict[str, Any]
    keep: bool = True


@dataclass(frozen=True)
class IdempotentResult:
    response: dict[str, Any]
    replayed: bool


def idempotent(
    *,
    scope: str,
    key: str,
    payload: Mapping[str, Any],
    perform: Callable[[], Outcome],
    refuse_in_flight: bool = False,
) -> IdempotentResult:
    """Run ``perform`` once for (scope, key); return its response, or the stored one on a retry.

    Opens a transaction (a savepoint inside the caller's). ``perform`` does all its writes in it
    and returns an ``Outcome``; see the module docstring for ``keep=False`` and for what happens
    under concurrency. Raises ``IdempotencyKeyReusedError`` (422) when the key was used with
    another payload, ``IdempotencyInProgressError`` (409) when ``refuse_in_flight`` and the first
    call of the key is still running, ``ServiceError(code="invalid_idempotency_key")`` for an
    empty or too long key or scope; none of them runs ``perform``.
    """
    if not key or len(key) > MAX_KEY_LENGTH:
        raise InvalidIdempotencyKeyError(
            f"An idempotency key of 1 to {MAX_KEY_LENGTH} characters is required.",
        )
    if not scope or len(scope) > MAX_SCOPE_LENGTH:
        raise InvalidIdempotencyKeyError("An idempotency scope is required.")
    fingerprint = request_fingerprint(payload)
    with transaction.atomic():
        record = None
        if not refuse_in_flight or idempotency_key_lock_try(scope, key):
            record = _record_insert(scope=scope, key=key, fingerprint=fingerprint)
        if record is None:
            stored = _stored_result(scope, key, fingerprint)
            if stored is None:
                # Not inserted, yet nothing committed: the first call still holds the lock.
                raise IdempotencyInProgressError(
                    "A request with this idempotency key is still being processed; retry in a moment."
                )
            return stored
        outcome = perform()
        if outcome.keep:
            _response_store(record, outcome.response)
            return IdempotentResult(response=outcome.response, replayed=False)
        # A refusal: leave the block normally with everything it wrote rolled back, record included.
        transaction.set_rollback(True)
    return _refusal_store(scope=scope, key=key, fingerprint=fingerprint, response=outcome.response)


def _refusal_store(*, scope: str, key: str, fingerprint: str, response: dict[str, Any]) -> IdempotentResult:
    """Remember a refusal whose transaction rolled back, in a transaction of its own: insert the
    record with ``response`` unless the key has one. When it has (a duplicate ran meanwhile and
    committed; a duplicate still running is waited for on the unique index), that record's
    response is returned instead (``replayed=True``), or ``IdempotencyKeyReusedError`` raised if
    it was stored for another payload."""
    with transaction.atomic():
        if _record_insert(scope=scope, key=key, fingerprint=fingerprint, response=response) is not None:
            return IdempotentResult(response=response, replayed=False)
        stored = _stored_result(scope, key, fingerprint)
        assert stored is not None, "the insert met a committed record"
        return stored


def _record_insert(
    *, scope: str, key: str, fingerprint: str, response: dict[str, Any] | None = None
) -> IdempotencyRecord | None:
    """The record of (scope, key), inserted in a savepoint; None when the key has a committed
    record already (the insert waited on the unique index for a transaction inserting the same
    key, and that one committed)."""
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                scope=scope, key=key, request_fingerprint=fingerprint, response=response
            )
    except IntegrityError as error:
        if getattr(getattr(error.__cause__, "diag", None), "constraint_name", None) != UNIQUE_KEY:
            raise
        return None


def _response_store(record: IdempotencyRecord, response: dict[str, Any]) -> None:
    """Store ``response`` on the record, in the transaction of the effect it answers."""
    IdempotencyRecord.objects.filter(pk=record.pk).update(response=response)


def _stored_result(scope: str, key: str, fingerprint: str) -> IdempotentResult | None:
    """The committed record of (scope, key) as a replay, None if there is none; raises
    ``IdempotencyKeyReusedError`` when it was stored for another payload."""
    existing = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
    if existing is None:
        return None
    if existing.request_fingerprint != fingerprint:
        raise IdempotencyKeyReusedError(
            f"The idempotency key {key!r} was already used for another request.", scope=scope, key=key
        )
    return IdempotentResult(response=dict(existing.response or {}), replayed=True)


# ----------------------------------------------------------------------------- over HTTP

HEADER = "Idempotency-Key"
KEY_PATTERN = r"^[A-Za-z0-9._:\-]{1,100}$"
_KEY_RE = re.compile(KEY_PATTERN)
REPLAYED_HEADER = "Idempotency-Replayed"


def idempotency_key(request: Request) -> str:
    """The request's ``Idempotency-Key``; ``idempotency_key_required`` (400) when it has none,
    ``invalid_idempotency_key`` (400) when it is not 1 to 100 letters, digits or ``. _ : -``."""
    key = request.headers.get(HEADER, "")
    if not key:
        raise IdempotencyKeyMissingError(f"This request needs an {HEADER} header (1 to 100 characters).")
    if not _KEY_RE.match(key):
        raise VenueInvalidIdempotencyKeyError(
            f"The {HEADER} header must be 1 to 100 letters, digits or . _ : -"
        )
    return key


def idempotency_scope(request: Request) -> str:
    """The scope of a terminal's request: its terminal and its signed-in player."""
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


__all__ = [
    "HEADER",
    "IdempotencyInProgressError",
    "IdempotencyKeyMissingError",
    "IdempotencyKeyReusedError",
    "IdempotentResult",
    "Outcome",
    "idempotency_key",
    "idempotency_scope",
    "idempotent",
    "request_fingerprint",
    "run_idempotent",
]
