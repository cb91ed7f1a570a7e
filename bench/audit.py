"""Audit chain appends per second: one casino's chain, from 1 and from 8 threads.

Every append takes the chain's lock (a transaction-scoped advisory lock), reads the head, hashes
the new record and inserts it, in a transaction of its own; the lock is the one casino-wide point
of the back office, so this is the ceiling of the audited commands a casino can run per second.
Each record carries a payload the size of a money command's (a transfer's amounts and ids).

Then the hash of one record on its own (microseconds, one thread): the canonical encoding with a
plain SHA-256 and with an HMAC-SHA256 under a 32-byte key, as the chain's keyed records use.

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/audit.py``. Uses (creates, then migrates) the database ``casino_bench_audit`` on that
server (``BENCH_DATABASE`` names another) and never touches the database named in the URL.

Options (environment): BENCH_SECONDS (5 per run), BENCH_THREADS ("1,8"),
BENCH_SYNCHRONOUS_COMMIT ("on": the server default; "off" to take the disk's fsync out),
BENCH_HASHES (20000 records hashed for the hash figure).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")

from _scratch import scratch_database_url

os.environ["DATABASE_URL"] = scratch_database_url("audit.py", "casino_bench_audit")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402

from casino.audit import audit_append, canonical_payload  # noqa: E402
from casino.models import AuditRecord, Casino  # noqa: E402

SYNCHRONOUS_COMMIT = os.environ.get("BENCH_SYNCHRONOUS_COMMIT", "on")


def _session_settings(sender: Any, connection: Any, **kwargs: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SET synchronous_commit TO {'off' if SYNCHRONOUS_COMMIT == 'off' else 'on'}")


connection_created.connect(_session_settings, weak=False)


def _append(thread: int, index: int) -> None:
    audit_append(
        action="wallet.cage_buy_in",
        actor_name="bench",
        role="cashier",
        object_type="transfer",
        object_id=f"{thread}-{index}",
        after={"player_id": 1000 + thread, "amount_minor": 25_000 + index, "slip_number": index},
    )


def run(threads: int, seconds: float) -> tuple[float, float]:
    """Appends per second with ``threads`` writers for ``seconds``, and this process's CPU per
    append in microseconds (Python, the hash and the driver: what a change of the hash moves)."""
    counts = [0] * threads
    errors: list[BaseException] = []
    start = threading.Barrier(threads + 1)
    stop = threading.Event()

    def worker(number: int) -> None:
        try:
            _append(number, -1)  # the connection is open before the clock starts
            start.wait()
            while not stop.is_set():
                _append(number, counts[number])
                counts[number] += 1
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=worker, args=(number,)) for number in range(threads)]
    for thread in workers:
        thread.start()
    start.wait()
    began, cpu_began = time.perf_counter(), time.process_time()
    time.sleep(seconds)
    stop.set()
    for thread in workers:
        thread.join()
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    if errors:
        raise errors[0]
    return sum(counts) / elapsed, cpu / sum(counts) * 1e6


def hash_figures(count: int) -> tuple[float, float]:
    """Microseconds per record: the canonical encoding with SHA-256, then with HMAC-SHA256."""
    records = list(AuditRecord.objects.order_by("-sequence")[:1000])
    key = bytes(range(32))

    def timed(digest: Any) -> float:
        began = time.perf_counter()
        for index in range(count):
            record = records[index % len(records)]
            digest(
                json.dumps(
                    canonical_payload(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False
                ).encode()
            )
        return (time.perf_counter() - began) / count * 1e6

    def plain(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    def keyed(data: bytes) -> str:
        return hmac.new(key, data, hashlib.sha256).hexdigest()

    assert records, "the runs above append the records to hash"
    timed(plain)  # warm-up
    return timed(plain), timed(keyed)


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "5"))
    thread_counts = [int(item) for item in os.environ.get("BENCH_THREADS", "1,8").split(",")]
    call_command("migrate", verbosity=0)
    Casino.objects.get_or_create(code="bench", defaults={"name": "Bench", "currency": "EUR"})
    print(
        f"audit bench: one casino's chain ({AuditRecord.objects.count()} records before the runs), "
        f"{seconds:g} s per run, synchronous_commit={SYNCHRONOUS_COMMIT}, {os.cpu_count()} CPUs"
    )
    print(f"{'threads':>7}  {'appends/s':>10}  {'client CPU per append (us)':>26}")
    for threads in thread_counts:
        rate, cpu = run(threads, seconds)
        print(f"{threads:>7}  {rate:>10.0f}  {cpu:>26.0f}")
    connections.close_all()
    sha, keyed = hash_figures(int(os.environ.get("BENCH_HASHES", "20000")))
    print(
        f"\nhash of one record (canonical encoding included): SHA-256 {sha:.1f} us, HMAC-SHA256 {keyed:.1f} us"
    )


if __name__ == "__main__":
    main()
