"""Counting the SQL statements a bench's measured call sends, without Django's debug cursor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection


class StatementCount:
    """The statements a call sends, counted by an execute wrapper (``connection.execute_wrapper``)
    rather than Django's debug cursor: that one renders each statement's SQL with its
    parameters, which took a sixth of a console action's time (bench/console.py). Each
    transaction ended (a commit or a rollback) adds two, its BEGIN and its COMMIT (or
    ROLLBACK), as the debug cursor counts them."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)

    @contextmanager
    def counting(self) -> Iterator[None]:
        commit, rollback = connection.commit, connection.rollback

        def ended(end: Any) -> Any:
            def call() -> None:
                self.count += 2
                end()

            return call

        connection.commit, connection.rollback = ended(commit), ended(rollback)  # type: ignore[method-assign]
        try:
            with connection.execute_wrapper(self):
                yield
        finally:
            del connection.commit, connection.rollback
