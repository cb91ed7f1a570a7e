"""The two worlds a test starts from, each a database of its own on the test server.

- **The empty world**: pytest-django's test database, migrated and empty (``test_casino``, or
  ``test_casino_gw0`` under xdist). Tests that build their world with the factories start here.
- **The demo casino**: a clone of it (``CREATE DATABASE ... TEMPLATE``, ``<empty>_demo``) seeded
  once per worker (``casino.seeding.seed_all``, its tables open), where every test that asks for
  the ``seeded`` fixture runs, in a transaction rolled back at its end as any other test's.

The connection is pointed at the world the test asks for before pytest-django opens the test's
transaction (tests/conftest.py's ``_django_db_helper``). A transactional test commits, and Django
would then truncate every table. Instead only the tables that hold a row are emptied (a DELETE
each), and in the demo casino the seeded rows are put back from a copy kept in the schema
``demo_snapshot`` of the same database, before the next test that needs them: cheaper than
seeding again, and the demo seed still runs once per worker database. (Cloning the database again
would be cheaper still, but dropping one makes the server write a checkpoint, seconds on a busy
disk.) ``seed_runs`` counts the seeds by database; tests/casino/test_worlds.py fails when the demo
casino is seeded twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from django.db import connection, connections, transaction

# Every run of casino.seeding.seed_all in this process, by the database it ran on.
seed_runs: Counter[str] = Counter()


def count_seeds() -> None:
    """From pytest_configure, before any test module imports it: casino.seeding.seed_all counts
    its runs in ``seed_runs``, whoever calls it (the worlds, a fixture, a test, the seed command)."""
    import casino.seeding

    seed_all: Callable[[], list[str]] = casino.seeding.seed_all

    @wraps(seed_all)
    def counted() -> Any:
        seed_runs[connection.settings_dict["NAME"]] += 1
        return seed_all()

    casino.seeding.seed_all = counted


SNAPSHOT = "demo_snapshot"


@dataclass
class Worlds:
    empty: str
    demo: str
    # The tables that hold seeded rows, put back after a transactional test in the demo casino.
    seeded_tables: list[str] = field(default_factory=list)
    # A transactional test committed in the demo casino: its seeded rows are put back before use.
    demo_written: bool = False


_worlds: Worlds | None = None


def worlds() -> Worlds:
    if _worlds is None:
        raise RuntimeError("the test databases are not set up yet (tests/conftest.py: django_db_setup)")
    return _worlds


def _use(name: str) -> None:
    """Point the default connection (and every thread's new one: they share the settings) at
    the database ``name``."""
    if connection.settings_dict["NAME"] != name:
        connections.close_all()
        connection.settings_dict["NAME"] = name


def _create(name: str, template: str) -> None:
    """A copy of the database ``template`` (which no session may be connected to), made on the
    server's maintenance database: CREATE DATABASE runs outside any transaction."""
    with connection._nodb_cursor() as cursor:
        cursor.execute(
            f"CREATE DATABASE {connection.ops.quote_name(name)} TEMPLATE {connection.ops.quote_name(template)}"
        )


def _drop(name: str) -> None:
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)} WITH (FORCE)")


def _tables() -> list[str]:
    """The models' tables, as Django's flush takes them (not django_migrations)."""
    return sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))


def build() -> Worlds:
    """The demo casino: the empty world cloned, seeded once, and its seeded rows copied aside."""
    global _worlds
    from casino.seeding import seed_all

    empty = connection.settings_dict["NAME"]
    built = Worlds(empty=empty, demo=f"{empty}_demo")
    connections.close_all()
    _drop(built.demo)
    _create(built.demo, empty)
    _use(built.demo)
    seed_all()
    open_demo_tables()
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE SCHEMA {SNAPSHOT}")
        built.seeded_tables = _tables_with_rows(cursor)
        for table in built.seeded_tables:
            cursor.execute(f"CREATE TABLE {SNAPSHOT}.{quote(table)} AS TABLE {quote(table)}")
    _use(empty)
    _worlds = built
    return built


def open_demo_tables() -> None:
    """The demo's tables start closed, as after `make run` (a dealer signs on and opens one); the
    tests of rounds start from open tables. Tests of opening and closing close them again."""
    from casino.models import Table

    Table.objects.update(is_open=True)


def _tables_with_rows(cursor: Any) -> list[str]:
    """The models' tables that hold a row, in one statement."""
    quote = connection.ops.quote_name
    tables = _tables()
    cursor.execute(
        " UNION ALL ".join(f"SELECT %s WHERE EXISTS (SELECT FROM {quote(table)})" for table in tables), tables
    )
    return [table for (table,) in cursor.fetchall()]


def _rows_deleted(cursor: Any) -> None:
    """Every row of the tables that hold one deleted, in a transaction with the triggers
    (append-only, audit chain, foreign keys) in replica mode, as for Django's own flush: only what
    a test wrote is touched, where Django's flush truncates every table (a new file each).
    bench/worlds.py, after the demo seed written in the empty world: 16.3 ms against 285.9 ms for
    the TRUNCATE (medians of 5, ratio 0.06)."""
    quote = connection.ops.quote_name
    cursor.execute("SET LOCAL session_replication_role = replica")
    for table in _tables_with_rows(cursor):
        cursor.execute(f"DELETE FROM {quote(table)}")


def empty() -> None:
    """After a transactional test in the empty world: empty again. The sequences go on."""
    with transaction.atomic(), connection.cursor() as cursor:
        _rows_deleted(cursor)


def _restore(current: Worlds) -> None:
    """The demo casino as seeded: what the tests wrote deleted, the seeded rows put back. The
    sequences go on from where they are, past every seeded key. bench/worlds.py, after three
    simulated rounds: 29.1 ms against 766.3 ms for the TRUNCATE and the seed run again (medians
    of 5, ratio 0.04)."""
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        _rows_deleted(cursor)
        for table in current.seeded_tables:
            cursor.execute(
                f"INSERT INTO {quote(table)} OVERRIDING SYSTEM VALUE SELECT * FROM {SNAPSHOT}.{quote(table)}"
            )


def enter(*, demo: bool) -> None:
    """Before a test's transaction: the database of the world it asks for."""
    current = worlds()
    _use(current.demo if demo else current.empty)
    if demo and current.demo_written:
        _restore(current)
        current.demo_written = False


def in_demo() -> bool:
    return _worlds is not None and connection.settings_dict["NAME"] == _worlds.demo


def demo_written() -> None:
    """A transactional test ended in the demo casino: its seeded rows are put back before the next
    test that needs them (instead of its tables being emptied now)."""
    worlds().demo_written = True


def drop() -> None:
    """At the end of the session, before pytest-django drops the empty world's database."""
    global _worlds
    if _worlds is None:
        return
    _use(_worlds.empty)
    connections.close_all()
    _drop(_worlds.demo)
    _worlds = None
