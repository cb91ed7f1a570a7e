"""Suite-wide fixtures."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from tests import lanes


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--soak",
        action="store_true",
        help="run the soak-marked tests at their soak sizes (make soak; docs/testing.md)",
    )


def pytest_configure(config: Any) -> None:
    lanes.SOAK = bool(config.getoption("--soak"))


@pytest.fixture(scope="session", autouse=True)
def _flush_past_append_only_triggers(django_db_blocker: Any) -> None:
    """Between transactional tests Django empties the tables with TRUNCATE, which the append-only
    triggers refuse. The test flush (and only it) runs with triggers in replica mode."""
    from django.db import connection

    original = connection.ops.execute_sql_flush

    def execute_sql_flush(sql_list: list[str]) -> None:
        original(["SET LOCAL session_replication_role = replica", *sql_list])

    connection.ops.execute_sql_flush = execute_sql_flush  # type: ignore[method-assign]


@pytest.fixture
def seeded(db: Any) -> None:
    from casino.seeding import seed_all

    seed_all()
    open_demo_tables()


def open_demo_tables() -> None:
    """The demo's tables start closed, as after `make run` (a dealer signs on and opens one); the
    tests of rounds start from open tables. Tests of opening and closing close them again."""
    from tables.models import Table

    Table.objects.update(is_open=True)


@pytest.fixture(autouse=True)
def _cache_empty() -> None:
    """Every test starts with an empty cache: a table's console view is kept under its version's
    digest (tables/views/dealer.py), which another test's table may reach with other rows."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _language_reset() -> Any:
    """A request leaves its language active in the thread: every test starts in English."""
    yield
    translation.deactivate()
