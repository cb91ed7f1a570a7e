"""Suite-wide fixtures and the PostgreSQL-only marker.

Tests marked ``postgres`` (threads, triggers, row locks) are skipped with a visible reason
when the suite runs on SQLite; CI runs them against PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ON_POSTGRES:
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL (threads, triggers, row locks): set DATABASE_URL=postgres://... to run it"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _flush_past_append_only_triggers(django_db_blocker: Any) -> None:
    """Between transactional tests Django empties the tables with TRUNCATE, which the append-only
    triggers refuse. The test flush (and only it) runs with triggers in replica mode."""
    if not ON_POSTGRES:
        return
    from django.db import connection

    original = connection.ops.execute_sql_flush

    def execute_sql_flush(sql_list: list[str]) -> None:
        original(["SET LOCAL session_replication_role = replica", *sql_list])

    connection.ops.execute_sql_flush = execute_sql_flush  # type: ignore[method-assign]


@pytest.fixture
def seeded(db: Any) -> None:
    from casino.seeding import seed_all

    seed_all()
