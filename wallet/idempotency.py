"""Idempotency keys for money commands: a retry returns the first result and moves nothing.

``idempotent(scope=..., key=..., payload=..., perform=...)`` runs ``perform`` at most once per
(scope, key) and stores its JSON result in the same transaction as its effect.

Concurrency semantics (PostgreSQL, READ COMMITTED):
- The record is inserted FIRST, before the command takes any row lock, with
  ``INSERT ... ON CONFLICT (scope, key) DO NOTHING``. A concurrent call with the same key blocks
  on the unique index until the first transaction ends ("waits", never doubles):
  - the first commits: the insert does nothing, the call reads the committed record and returns
    its stored response (``replayed=True``), having moved nothing;
  - the first rolls back (it was refused, or crashed): the record never existed, so this call
    inserts it and runs the command itself.
- Because the wait happens before any other lock is taken, it cannot deadlock with the command.
- A refused command (``ServiceError``) rolls back with its record: a refusal is not remembered, and
  the same key may be retried once, say, the player has funds. A caller that answers a refusal
  like a success (the terminal API) stores it afterwards with ``idempotent_refusal_store``.
- The same key with another payload (another fingerprint) is refused with
  ``idempotency_key_reused`` and nothing happens.
On SQLite, write transactions are serialized by the database lock, which gives the same result.

With ``refuse_in_flight=True`` a duplicate does not wait: on PostgreSQL the insert is guarded by a
transaction-scoped advisory lock on (scope, key) taken without waiting, in the same statement, and
a call that neither gets the lock nor finds a committed record is refused at once with
``idempotency_in_progress`` (409). The terminal API asks for this: a terminal retrying a slow
request should hear "still running", not hang.

One record per request: while ``perform`` runs, an ``idempotent`` call nested in it (a service
called by an idempotent HTTP request, say) is covered by the outer record. It runs its own
``perform`` and ``finish`` once, in the outer transaction, and stores nothing: the outer record
already makes the whole request run at most once.

A scope names the caller (``user:12``, ``player:7``, ``table:3``); keys are unique per scope. The
payload should hold the command name and every argument that changes its effect.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from contextvars import ContextVar
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
class IdempotentResult:
    response: dict[str, Any]
    replayed: bool


_INSERT_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, created_at) "
    "VALUES (%s, %s, %s, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)
# The same insert, made only when the (scope, key) advisory lock is free (PostgreSQL).
_INSERT_UNLESS_IN_FLIGHT_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, created_at) "
    "SELECT %s, %s, %s, %s WHERE pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s)) "
    "ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)

_STORE_SQL = "UPDATE wallet_idempotencyrecord SET response = %s WHERE id = %s"


def _encode(response: dict[str, Any]) -> Any:
    return IdempotencyRecord._meta.get_field("response").get_db_prep_save(response, connection)


# True while the perform of an idempotent command runs: nested commands are covered by its record.
_covered: ContextVar[bool] = ContextVar("idempotency_covered", default=False)


def idempotent(
    *,
    scope: str,
    key: str,
    payload: Mapping[str, Any],
    perform: Callable[[], dict[str, Any]],
    finish: Callable[[dict[str, Any]], Any] | None = None,
    refuse_in_flight: bool = False,
) -> IdempotentResult:
    """Run ``perform`` once for (scope, key); return its response, or the stored one on a retry.

    Opens (or joins) a transaction. ``perform`` must return a JSON-serializable dict and do all its
    writes in the caller's transaction. ``finish`` (optional) runs after the record is stored, in
    the same transaction, only when ``perform`` ran: the place for ``audit_append``, which must be
    the last write because it holds the audit chain lock until commit. Raises ``IdempotencyKeyReusedError`` when the key was used
    with another payload, ``ServiceError(code="invalid_idempotency_key")`` for an empty or too
    long key. See the module docstring for what happens under concurrency.
    """
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ServiceError(
            f"An idempotency key of 1 to {MAX_KEY_LENGTH} characters is required.",
            code="invalid_idempotency_key",
        )
    if not scope or len(scope) > MAX_SCOPE_LENGTH:
        raise ServiceError("An idempotency scope is required.", code="invalid_idempotency_key")
    if _covered.get():
        response = perform()
        if finish is not None:
            finish(response)
        return IdempotentResult(response=response, replayed=False)
    fingerprint = request_fingerprint(payload)
    with transaction.atomic():
        with connection.cursor() as cursor:
            if refuse_in_flight and connection.vendor == "postgresql":
                cursor.execute(
                    _INSERT_UNLESS_IN_FLIGHT_SQL, [scope, key, fingerprint, timezone.now(), scope, key]
                )
            else:
                cursor.execute(_INSERT_SQL, [scope, key, fingerprint, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            stored = _stored_result(scope, key, fingerprint)
            if stored is None:
                # Not inserted, yet nothing committed: the first request still holds the lock.
                raise IdempotencyInProgressError(
                    "A request with this idempotency key is still being processed; retry in a moment."
                )
            return stored
        token = _covered.set(True)
        try:
            response = perform()
        finally:
            _covered.reset(token)
        with connection.cursor() as cursor:
            cursor.execute(_STORE_SQL, [_encode(response), row[0]])
        if finish is not None:
            finish(response)
        return IdempotentResult(response=response, replayed=False)


_INSERT_WITH_RESPONSE_SQL = (
    "INSERT INTO wallet_idempotencyrecord (scope, key, request_fingerprint, response, created_at) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)


def idempotent_refusal_store(
    *, scope: str, key: str, payload: Mapping[str, Any], response: dict[str, Any]
) -> IdempotentResult:
    """Remember the refusal of a call whose ``idempotent`` transaction rolled back (record and any
    partial write with it), so that a retry gets the same refusal: in a transaction of its own,
    insert the record with ``response`` unless the key has one. When it has (a duplicate ran
    meanwhile and committed; a duplicate still running is waited for on the unique index), the
    key's stored response is returned instead (``replayed=True``), so every caller of a key hears
    the one stored answer. Raises ``IdempotencyKeyReusedError`` if that record's payload differs.

    Used by callers that answer a refusal like a success (the terminal API): their success path
    needs no savepoint, since a refusal rolls everything back and costs this one insert instead.
    """
    fingerprint = request_fingerprint(payload)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                _INSERT_WITH_RESPONSE_SQL, [scope, key, fingerprint, _encode(response), timezone.now()]
            )
            if cursor.fetchone() is not None:
                return IdempotentResult(response=response, replayed=False)
        stored = _stored_result(scope, key, fingerprint)
        assert stored is not None, "the insert met a committed record"
        return stored


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
