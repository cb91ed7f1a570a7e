"""Health and readiness, for the load balancer, the container runtime and the operators.

- ``GET /healthz``: the process answers (200 ``ok``); it touches nothing else, so a restart of
  PostgreSQL or Redis never makes the orchestrator kill healthy processes.
- ``GET /readyz``: whether this process can serve: 200 when every check passes, else 503; both
  with each check's result as JSON (``{"ready": false, "checks": {"database": {"ok": false,
  "detail": "..."}, ...}}``):
  - ``database``: PostgreSQL answers, as the role of ``DATABASE_URL`` (named in the detail);
  - ``migrations``: every migration of this code is applied;
  - ``broker``: Celery's broker answers (Redis: PING), or tasks run in-process;
  - ``hints``: the live screens' hints transport answers (Redis: PING; PostgreSQL rides on the
    database);
  - ``audit_keys``: the audit chain's HMAC keys and the anchors' keys load (the system checks
    ``casino.E001`` and ``casino.E002``);
  - ``anchor``: the newest valid anchor is no older than twice ``AUDIT_ANCHOR_INTERVAL_SECONDS``
    (Celery beat anchors the chain; an empty chain needs none).

Both are answered by a middleware at the top of the stack, before the host check, the HTTPS
redirect, the session and the language: a probe calls a process by its address, over plain HTTP.
Each check catches its own failure, so that the answer says what is wrong rather than failing.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone

from casino.anchors import anchor_latest
from casino.checks import anchor_keys_check, audit_hmac_keys_check
from casino.models import AuditRecord

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"


@dataclass(frozen=True)
class Check:
    ok: bool
    detail: str


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def database_check() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            (role,) = cursor.fetchone()
    except DatabaseError as error:
        return Check(False, _first_line(error))
    return Check(True, f"as {role}")


def migrations_check() -> Check:
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        return Check(False, _first_line(error))
    if pending:
        return Check(False, f"{len(pending)} migrations not applied (the first: {pending[0][0]})")
    return Check(True, "all applied")


def redis_check(url: str) -> Check:
    try:
        redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping()
    except (redis.RedisError, OSError) as error:
        return Check(False, _first_line(error))
    return Check(True, "answers")


def broker_check() -> Check:
    url = settings.CELERY_BROKER_URL
    if not url:
        return Check(True, "no broker: tasks run in-process")
    if url.startswith(("redis://", "rediss://")):
        return redis_check(url)
    return Check(True, f"not checked ({url.split(':', 1)[0]})")


def hints_check() -> Check:
    url = settings.HINTS_URL
    if url.startswith(("redis://", "rediss://", "unix://")):
        return redis_check(url)
    return Check(True, "PostgreSQL's NOTIFY" if url == "postgres" else "within the process")


def audit_keys_check() -> Check:
    problems = [*audit_hmac_keys_check(), *anchor_keys_check()]
    if problems:
        return Check(False, "; ".join(problem.msg for problem in problems))
    return Check(True, "loaded")


def anchor_check(now: dt.datetime | None = None) -> Check:
    limit = 2 * settings.AUDIT_ANCHOR_INTERVAL_SECONDS
    latest = anchor_latest()
    if latest is None:
        try:
            empty = not AuditRecord.objects.exists()
        except DatabaseError as error:
            return Check(False, _first_line(error))
        return Check(True, "the chain is empty") if empty else Check(False, "no anchor yet")
    age = ((now or timezone.now()) - dt.datetime.fromisoformat(latest.anchor.anchored_at)).total_seconds()
    if age > limit:
        return Check(False, f"the newest anchor is {age:.0f} s old (at most {limit} s)")
    return Check(True, f"{age:.0f} s old")


CHECKS: dict[str, Callable[[], Check]] = {
    "database": database_check,
    "migrations": migrations_check,
    "broker": broker_check,
    "hints": hints_check,
    "audit_keys": audit_keys_check,
    "anchor": anchor_check,
}


def readiness() -> dict[str, Check]:
    return {name: check() for name, check in CHECKS.items()}


def readiness_response() -> HttpResponse:
    checks = readiness()
    ready = all(check.ok for check in checks.values())
    body = {
        "ready": ready,
        "checks": {name: {"ok": check.ok, "detail": check.detail} for name, check in checks.items()},
    }
    response = HttpResponse(
        json.dumps(body, indent=1), status=200 if ready else 503, content_type="application/json"
    )
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    """Answers ``/healthz`` and ``/readyz`` (GET or HEAD) before the rest of the stack."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method in ("GET", "HEAD") and request.path in (HEALTH_PATH, READY_PATH):
            if request.path == HEALTH_PATH:
                response = HttpResponse("ok\n", content_type="text/plain; charset=utf-8")
                response["Cache-Control"] = "no-store"
                return response
            return readiness_response()
        return self.get_response(request)
