"""Writes behind the services' back, as an attacker holding the database superuser could make
them: the append-only triggers switched off for the rest of the test's own transaction (rolled
back afterwards), so that the verifiers can be seen to catch what they let through."""

from __future__ import annotations

from typing import Any

from django.db import connection


def triggers_off() -> None:
    """Stop every trigger firing in this transaction (``session_replication_role = replica``,
    local to it), after running the deferred checks queued so far."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("SET LOCAL session_replication_role = replica")


def raw(sql: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
