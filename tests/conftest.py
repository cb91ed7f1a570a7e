"""Suite-wide fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import translation

from tests import lanes, worlds
from tests.asgi_server import asgi_server  # noqa: F401  (a fixture)
from tests.hints import hints_received  # noqa: F401  (a fixture)


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--soak",
        action="store_true",
        help="run the soak-marked tests at their soak sizes (make soak; docs/testing.md)",
    )


def pytest_configure(config: Any) -> None:
    lanes.SOAK = bool(config.getoption("--soak"))
    worlds.count_seeds()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database (the empty world), and next to it the demo casino, seeded
    once (tests/worlds.py)."""
    with django_db_blocker.unblock():
        worlds.build()
    yield
    with django_db_blocker.unblock():
        worlds.drop()


@pytest.fixture
def _django_db_helper(_world: None, _django_db_helper: None) -> None:
    """pytest-django's transaction (or flush) around a test, opened in the test's world."""


@pytest.fixture
def _world(request: Any, django_db_setup: None, django_db_blocker: Any) -> None:
    """The demo casino for a test that asks for ``seeded`` (by name, or through a fixture built on
    it), the empty world for any other."""
    with django_db_blocker.unblock():
        worlds.enter(demo="seeded" in request.fixturenames)


@pytest.fixture(scope="session", autouse=True)
def _flush_what_was_written(django_db_blocker: Any) -> None:
    """After a transactional test Django truncates every table (which the append-only triggers
    refuse). Here the test flush (and only it) deletes the rows of the tables that hold any, with
    the triggers in replica mode; in the demo casino it is left for the seeded rows to be put back
    before the next test that needs them (tests/worlds.py)."""
    from django.db import connection

    def execute_sql_flush(sql_list: list[str]) -> None:
        if worlds.in_demo():
            worlds.demo_written()
        else:
            worlds.empty()

    connection.ops.execute_sql_flush = execute_sql_flush  # type: ignore[method-assign]


@pytest.fixture
def seeded(db: Any) -> None:
    """The demo casino (seeds/, its tables open), as after `make run` once a dealer has opened the
    tables: the test runs in its database (tests/worlds.py), which is seeded once per worker."""
    if not worlds.in_demo():
        raise RuntimeError(
            "ask for the seeded fixture by name, not with getfixturevalue: the world is chosen first"
        )


@pytest.fixture(autouse=True)
def _cache_empty() -> None:
    """Every test starts with empty caches: a table's console view is kept under its version's
    digest (floor/console.py), which another test's table may reach with other rows; and
    the process keeps what an approved version implies (its configuration with its rules, its
    main-game edge) under the version's id, which in the demo casino is the same in every test,
    while the rows it came from (the edge's job) were rolled back with the test that made them."""
    from django.core.cache import cache

    from tables.odds_jobs import _MAIN_EDGES
    from tables.services.config import _CONFIG_CACHE, _RULES_BY_CONFIG

    cache.clear()
    for process_cache in (_CONFIG_CACHE, _RULES_BY_CONFIG, _MAIN_EDGES):
        process_cache.clear()


@pytest.fixture(autouse=True)
def _language_reset() -> Any:
    """A request leaves its language active in the thread: every test starts in English."""
    yield
    translation.deactivate()
