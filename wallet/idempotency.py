"""Idempotency keys, at the edge only: one record per request (and per management command or task
that moves money). A retry returns the first answer and moves nothing twice.

The edge (an HTTP view, the seed, a bench) wraps the one service call of a request:
``idempotent(scope=..., key=..., payload=..., perform=...)`` runs ``perform`` at most once per
(scope, key) and stores its response in the same transaction as its effect, so the record exists
exactly when the effect does. The services take no key: a service that can meet a repeat of
itself from inside the back office (a hold voided twice, a payout released twice) refuses it from
the state of its rows.

``perform`` does everything (the service call, its audit record included) and returns an
``Outcome``: the response to store and whether its writes are kept.

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
any row lock, with ``INSERT ... ON CONFLICT (scope, key) DO NOTHING``. A concurrent call with the
same key blocks on the unique index until the first transaction ends, and never doubles:

- the first commits: the insert does nothing, the call reads the committed record and returns its
  stored response (``replayed=True``), having moved nothing;
- the first rolls back: the record never existed, so this call inserts it and runs ``perform``.

The wait happens before any other lock is taken, so it cannot deadlock with the command. With
``refuse_in_flight=True`` a duplicate does not wait: the insert is made only if the
transaction-scoped advisory lock on (scope, key) is free (``pg_try_advisory_xact_lock``, in the
same statement), and a call that neither inserts nor finds a committed record is refused at once
with ``idempotency_in_progress`` (409). The terminal API asks for this: a terminal retrying a slow
request should hear "still running", not hang. The same key with another payload (another
fingerprint) is refused with ``idempotency_key_reused`` (422), and nothing happens.

A scope names the caller (``api:t3:p7``, ``seed``); keys are unique per scope. The payload holds
the command name and every argument that changes its effect.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from casino.errors import ConflictError, ServiceError
from wallet.models import IdempotencyRecord


class IdempotencyKeyReusedError(ServiceError):
    code = "idempotency_key_reused"
    status = 422


class IdempotencyInProgressError(ConflictError):
    code = "idempotency_in_progress"


MAX_KEY_LENGTH = 200
MAX_SCOPE_LENGTH = 80


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


# The record, inserted unless (scope, key) has one; RETURNING id only when inserted.
_INSERT_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, created_at) "
    "VALUES (%s, %s, %s, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)
# The same insert, made only when the (scope, key) advisory lock is free.
_INSERT_UNLESS_IN_FLIGHT_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, created_at) "
    "SELECT %s, %s, %s, %s WHERE pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s)) "
    "ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)
# The response stored on the record once ``perform`` succeeded. Through the ORM
# (``filter(pk=...).update(response=...)``) compiling the update was about a twentieth of a
# terminal API bet's CPU (py-spy, in-process, 3,000 bets behind a box).
_RESPONSE_SQL = "UPDATE wallet_idempotencyrecord SET response = %s WHERE id = %s"
# A refusal's record, inserted with its response.
_INSERT_WITH_RESPONSE_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, response, created_at) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)


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
        raise ServiceError(
            f"An idempotency key of 1 to {MAX_KEY_LENGTH} characters is required.",
            code="invalid_idempotency_key",
        )
    if not scope or len(scope) > MAX_SCOPE_LENGTH:
        raise ServiceError("An idempotency scope is required.", code="invalid_idempotency_key")
    fingerprint = request_fingerprint(payload)
    with transaction.atomic():
        with connection.cursor() as cursor:
            if refuse_in_flight:
                cursor.execute(
                    _INSERT_UNLESS_IN_FLIGHT_SQL, [scope, key, fingerprint, timezone.now(), scope, key]
                )
            else:
                cursor.execute(_INSERT_SQL, [scope, key, fingerprint, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            stored = _stored_result(scope, key, fingerprint)
            if stored is None:
                # Not inserted, yet nothing committed: the first call still holds the lock.
                raise IdempotencyInProgressError(
                    "A request with this idempotency key is still being processed; retry in a moment."
                )
            return stored
        outcome = perform()
        if outcome.keep:
            with connection.cursor() as cursor:
                cursor.execute(_RESPONSE_SQL, [_response_encoded(outcome.response), row[0]])
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
    encoded = _response_encoded(response)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(_INSERT_WITH_RESPONSE_SQL, [scope, key, fingerprint, encoded, timezone.now()])
            if cursor.fetchone() is not None:
                return IdempotentResult(response=response, replayed=False)
        stored = _stored_result(scope, key, fingerprint)
        assert stored is not None, "the insert met a committed record"
        return stored


def _response_encoded(response: dict[str, Any]) -> Any:
    """A response as the record's JSON column takes it in a hand-written statement."""
    return IdempotencyRecord._meta.get_field("response").get_db_prep_save(response, connection)


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


__all__ = [
    "IdempotencyInProgressError",
    "IdempotencyKeyReusedError",
    "IdempotentResult",
    "Outcome",
    "idempotent",
    "request_fingerprint",
]
