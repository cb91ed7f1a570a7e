"""How long ``round_verify`` takes: every settled round's events and payout lines hashed again and
compared with its audit record, beside ``round_replay``'s replay of the same rounds.

Seeds the demo casino and plays BENCH_ROUNDS (300) simulated rounds of 4 players on BJ1 through
the services, then times ``round_verify`` and the replay check of every round, BENCH_RUNS (3)
times each, and prints the medians.

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/round_verify.py``. Drops and creates the database ``casino_bench_round_verify`` on that
server (BENCH_DATABASE to change it); never touches the database named in the URL.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

from _scratch import scratch_database_url

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "300"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))


os.environ["DATABASE_URL"] = scratch_database_url("round_verify.py", "casino_bench_round_verify", fresh=True)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from casino.models import Table  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from tables.models import PayoutLine, Round, RoundEvent, RoundStatus  # noqa: E402
from tables.replay import round_replay_check  # noqa: E402
from tables.round_hash import round_verify  # noqa: E402
from tables.simulation import simulate_table  # noqa: E402


def _median_seconds(call: Any) -> tuple[float, float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def _verify() -> None:
    result = round_verify()
    assert result.is_intact, result.differences[:3]


def _replay() -> None:
    for round_ in Round.objects.filter(status=RoundStatus.SETTLED).select_related("table").order_by("pk"):
        assert round_replay_check(round_).is_equal


def main() -> None:
    call_command("migrate", verbosity=0)
    seed_all()
    start = time.perf_counter()
    simulate_table(table=Table.objects.get(name="BJ1"), rounds=ROUNDS, players=4, seed=1)
    played = time.perf_counter() - start
    print(
        f"{Round.objects.filter(status=RoundStatus.SETTLED).count()} settled rounds, "
        f"{RoundEvent.objects.count():,} events, {PayoutLine.objects.count():,} payout lines, "
        f"played in {played:.0f} s"
    )
    median, low, high = _median_seconds(_verify)
    print(
        f"round_verify: median {median:.2f} s (min {low:.2f}, max {high:.2f}), {median / ROUNDS * 1e3:.2f} ms a round"
    )
    median, low, high = _median_seconds(_replay)
    print(f"round_replay of the same rounds: median {median:.2f} s (min {low:.2f}, max {high:.2f})")


if __name__ == "__main__":
    main()
