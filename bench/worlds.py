"""What the test worlds' cleanup after a transactional test costs (tests/worlds.py), against what it
replaced: Django's flush (TRUNCATE of every table, triggers in replica mode) and, in the demo
casino, the seed run again.

Builds the two worlds as the suite does (an empty migrated database and the demo casino cloned from
it and seeded once), then BENCH_RUNS (5) times, alternated: a transactional test's writes (three
simulated rounds on BJ1 in the demo casino, committed; the demo seed in the empty world), then
- demo casino: the rows written deleted and the seeded ones put back (``worlds._restore``),
  against TRUNCATE of every table and ``seed_all`` with the tables opened;
- empty world: the rows written deleted (``worlds.empty``), against TRUNCATE of every table.
Prints the medians and their ratios.

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/worlds.py`` (a superuser: it creates databases). Drops and creates ``casino_bench_worlds``
and ``casino_bench_worlds_demo`` on that server (BENCH_DATABASE to change the first).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

from _scratch import scratch_database_url

RUNS = int(os.environ.get("BENCH_RUNS", "5"))

os.environ["DATABASE_URL"] = scratch_database_url("worlds.py", "casino_bench_worlds", fresh=True)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.management.color import no_style  # noqa: E402
from django.db import connection  # noqa: E402

from casino.models import Table  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from tables.simulation import simulate_table  # noqa: E402
from tests import worlds  # noqa: E402


def _truncated() -> None:
    """Django's flush as the suite ran it before: every table truncated, triggers in replica mode."""
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    sql = connection.ops.sql_flush(no_style(), tables)
    connection.ops.execute_sql_flush(["SET LOCAL session_replication_role = replica", *sql])


def _truncated_and_seeded() -> None:
    _truncated()
    seed_all()
    worlds.open_demo_tables()


def _timed(call: Callable[[], None]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _compare(name: str, write: Callable[[], None], new: Callable[[], None], old: Callable[[], None]) -> None:
    new_times, old_times = [], []
    for _ in range(RUNS):
        write()
        new_times.append(_timed(new))
        write()
        old_times.append(_timed(old))
    new_median, old_median = statistics.median(new_times), statistics.median(old_times)
    print(
        f"{name}: {new_median * 1000:.1f} ms (min {min(new_times) * 1000:.1f}, max {max(new_times) * 1000:.1f})"
        f" against {old_median * 1000:.1f} ms (min {min(old_times) * 1000:.1f}, max {max(old_times) * 1000:.1f});"
        f" ratio {new_median / old_median:.2f}"
    )


def main() -> None:
    call_command("migrate", verbosity=0)
    current = worlds.build()
    print(f"{RUNS} runs each, alternated; {len(current.seeded_tables)} tables hold seeded rows")

    worlds.enter(demo=True)

    def rounds_played() -> None:
        simulate_table(table=Table.objects.get(name="BJ1"), rounds=3, players=3, seed=1)

    _compare(
        "demo casino, rows deleted and seeded rows put back, against TRUNCATE and the seed",
        rounds_played,
        lambda: worlds._restore(current),
        _truncated_and_seeded,
    )

    worlds.enter(demo=False)
    _compare("empty world, rows deleted, against TRUNCATE", seed_all, worlds.empty, _truncated)
    worlds.drop()


if __name__ == "__main__":
    main()
