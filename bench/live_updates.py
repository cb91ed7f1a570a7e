"""What the live updates cost: 20 dealer consoles and 100 player terminals polling one table
every second, against gunicorn and PostgreSQL.

A console polls ``GET /dealer/tables/BJ1/live/?version=V`` (htmx, ``HX-Request``; 204 while
nothing changed, else the console redrawn, whose ``data-version`` it keeps). A terminal polls
``GET /api/v1/tables/<BJ1 id>/state/`` with ``If-None-Match: <ETag>`` and its player's token (304 while
nothing changed, else the state and a new ETag): the conditional GET, not the long-poll
(``?wait=``), which holds a gunicorn thread for up to 25 s per terminal.

1. one request at a time, POLLS (2,000) of each kind on an unchanging table: round-trip time
   (median, p95) and the server's CPU per request (gunicorn's workers, and PostgreSQL's backends
   of the bench database, from /proc); then the load of 20 consoles and 100 terminals polling once
   a second: 20 x console + 100 x terminal, in CPU-seconds per second, as a share of one core;
2. the real thing for SECONDS (30): 120 client threads (20 consoles, 100 terminals), each
   polling once a second at its own phase, while one thread places a bet behind through
   ``bet_place`` every CHANGE_EVERY seconds (1, jittered by a tenth) and the delay from each bet
   (its commit) to the first 200 of each console and terminal is recorded: p50/p95/max; the CPU
   of gunicorn, PostgreSQL and the client threads during the run.

Setup: the database ``casino_bench_live_updates`` on the server of DATABASE_URL is dropped,
created, migrated and seeded; the demo dealer signs on to BJ1 and opens it, 7 players own its
boxes, 100 more each sign in at a player terminal of BJ1, and one round is open for bets for ten
minutes. The consoles are 20 sessions of the demo dealer. The web process is gunicorn with the
settings of ``bench/api_bets.py`` (``bench.api_bench_settings``: production, DEBUG off, the API's
throttles off), BENCH_WORKERS (5) x BENCH_THREADS (4).

Then the same screens pushed (``casino/hints.py``, ``casino/streams.py``): one uvicorn process
serves the streams beside gunicorn, the hints go through Redis (``HINTS_URL``; PostgreSQL's NOTIFY
when no Redis answers on 127.0.0.1:6379), and the subscribers are raw connections on one event
loop of the bench (``bench/_streams.py``):

3. the scenario of 2 pushed: the 20 consoles and 100 terminals each hold a stream and re-read
   (the console's live/ with its version, the state with If-None-Match) on each hint of the
   table: the delay from each bet's commit to each screen's 200, and the CPU of gunicorn,
   uvicorn and PostgreSQL beside 2's;
4. 20 consoles and TERMINALS_MANY (1,000) terminals subscribed, a bet every second: the delay
   from each bet's commit to its hint at each subscriber (p50/p95/max);
5. a burst: bets placed as fast as BURST_THREADS (4) threads can for BURST_SECONDS (1): the hints
   of the table a subscriber received per second;
6. the 1,020 subscribers idle for IDLE_SECONDS (30): uvicorn's CPU;
7. STREAMS_MANY (10,000) streams open on the one uvicorn process: its memory (RSS) per stream.

Run: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/live_updates.py [--quick] [--mode polling|streaming|both]`` (``--quick``: 300 polls of each
kind, 8 s of load, 8 s idle, 2,000 streams). Options (environment): BENCH_POLLS, BENCH_SECONDS,
BENCH_CHANGE_EVERY, BENCH_WORKERS, BENCH_THREADS, BENCH_DATABASE, BENCH_TERMINALS_MANY,
BENCH_STREAMS_MANY.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.api_bench_settings"

from _scratch import scratch_database_url  # noqa: E402
from _server import free_port, gunicorn_start  # noqa: E402
from _streams import Loop, Subscriber, uvicorn_start  # noqa: E402

os.environ["DATABASE_URL"] = scratch_database_url("live_updates.py", "casino_bench_live_updates", fresh=True)


def _hints_url() -> str:
    """Redis on 127.0.0.1:6379 when it answers (production's transport), else PostgreSQL's NOTIFY."""
    import socket

    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5) as probe:
            probe.sendall(b"PING\r\n")
            if probe.recv(16).startswith(b"+PONG"):
                return "redis://127.0.0.1:6379/0"
    except OSError:
        pass
    return "postgres"


os.environ.setdefault("HINTS_URL", _hints_url())

import django  # noqa: E402

django.setup()

import psutil  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test import Client  # noqa: E402

from casino.models import Player, Table, Terminal  # noqa: E402
from casino.player_sessions import player_session_start  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from casino.services import player_create, terminal_credential_issue, terminal_register  # noqa: E402
from tables.models import Round  # noqa: E402
from tables.services import (  # noqa: E402
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    round_open,
    shoe_shuffle,
    table_open_for_play,
    table_settings_change,
)
from wallet.services import system_buy_in  # noqa: E402

CONSOLES, TERMINALS, BOXES, STAKE = 20, 100, 7, 500
BURST_THREADS, BURST_SECONDS = 4, 1.0
WORKERS = int(os.environ.get("BENCH_WORKERS", "5"))
THREADS = int(os.environ.get("BENCH_THREADS", "4"))
DATABASE = connection.settings_dict["NAME"]
VERSION = re.compile(rb'data-version="([0-9a-f]+)"')


# ---------------------------------------------------------------- setup


@dataclass
class Poller:
    """A console or a terminal: the path it polls, its headers, what it last saw."""

    kind: str  # "console" or "terminal"
    path: str
    headers: dict[str, str]
    version: str = ""
    answers: list[tuple[float, int]] = field(default_factory=list)  # (answered at, status)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    conn: http.client.HTTPConnection | None = None

    def request_path(self) -> str:
        return f"{self.path}?version={self.version}" if self.kind == "console" else self.path

    def request_headers(self) -> dict[str, str]:
        if self.kind == "terminal" and self.version:
            return {**self.headers, "If-None-Match": self.version}
        return self.headers

    def poll(self, port: int) -> tuple[int, float]:
        """One poll on the poller's keep-alive connection (a new one when the server closed it)."""
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            started = time.perf_counter()
            try:
                self.conn.request("GET", self.request_path(), headers=self.request_headers())
                response = self.conn.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as error:
                self.conn.close()
                self.conn = None
                if attempt:
                    self.errors.append(repr(error))
                    return 599, time.perf_counter() - started
                continue
            elapsed = time.perf_counter() - started
            if response.status == 200:
                if self.kind == "console":
                    found = VERSION.search(body)
                    self.version = found.group(1).decode() if found else ""
                else:
                    self.version = response.getheader("ETag", "")
            elif response.status not in (204, 304):
                self.errors.append(f"{response.status} {body[:200]!r}")
            return response.status, elapsed
        raise AssertionError("unreachable")


def terminal_at(table: Table, index: int) -> tuple[Terminal, str]:
    """A player terminal of the table, registered, and its credential's token."""
    terminal = terminal_register(
        casino=table.casino,
        name=f"LU-{index}",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    return terminal, token


def setup(many: int) -> tuple[Round, list[Poller], list[Poller], list[Player], list[dict[str, str]]]:
    call_command("migrate", verbosity=0)
    seed_all()
    users = get_user_model().objects
    operator, dealer = users.get(username="operator"), users.get(username="dealer")
    table = Table.objects.get(name="BJ1")
    casino = table.casino
    table_settings_change(table=table, actor=Actor.staff(operator), settings={"betting_seconds": 600})
    for box in range(1, BOXES + 1):
        owner = player_create(
            casino=casino,
            card_number=f"8{box:09d}",
            display_name=f"Owner {box}",
            pin="2468",
            actor=Actor.automatic("system"),
        )
        system_buy_in(player=owner, amount_minor=10**9, actor=Actor.automatic("bench"))
        box_take(table=table, box_number=box, actor=Actor(player=owner))
    terminals, bettors = [], []
    for index in range(TERMINALS):
        card, pin = f"9{index:09d}", "2468"
        player = player_create(
            casino=casino,
            card_number=card,
            display_name=f"Bench {index}",
            pin=pin,
            actor=Actor.automatic("system"),
        )
        system_buy_in(player=player, amount_minor=10**9, actor=Actor.automatic("bench"))
        terminal, token = terminal_at(table, index)
        _, player_token = player_session_start(terminal=terminal, card_number=card, pin=pin)
        headers = {"Authorization": f"Terminal {token}", "X-Player-Token": player_token}
        terminals.append(Poller("terminal", f"/api/v1/tables/{table.pk}/state/", headers))
        bettors.append(player)
    # The terminals that only follow the table's stream (4 and 7): a credential each, no player.
    watchers = [terminal.headers for terminal in terminals]
    for index in range(TERMINALS, many):
        _, token = terminal_at(table, index)
        watchers.append({"Authorization": f"Terminal {token}"})
    consoles = []
    for _ in range(CONSOLES):
        client = Client()
        client.force_login(dealer)
        cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
        headers = {"Cookie": cookie, "HX-Request": "true"}
        consoles.append(Poller("console", f"/dealer/tables/{table.name}/live/", headers))
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    table_open_for_play(table=table, actor=Actor.staff(dealer))
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    connections.close_all()
    return round_, consoles, terminals, bettors, watchers


# ---------------------------------------------------------------- the server and its CPU


def gunicorn_wait(port: int, poller: Poller, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    last = "no answer"
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited during start-up; see its log")
        try:
            status, _ = poller.poll(port)
            if status == 200:
                return
            last = f"{status} {poller.errors[-1:]}"
        except OSError:
            pass
        poller.conn = None
        time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer 200 within 60 s (the last answer: {last})")


class CpuMeter:
    """CPU seconds (user + system) of gunicorn's processes and of the PostgreSQL backends of the
    bench database (but not this process's own connection), between ``start`` and ``stop``."""

    def __init__(self, server: subprocess.Popen[bytes]) -> None:
        self.server = psutil.Process(server.pid)
        self.own_backend = 0

    def _gunicorn(self) -> dict[int, float]:
        return process_tree_cpu(self.server)

    def _postgres(self) -> dict[int, float]:
        found = {}
        for process in psutil.process_iter(["pid", "cmdline"]):
            cmdline = " ".join(process.info["cmdline"] or [])
            if (
                cmdline.startswith("postgres:")
                and f" {DATABASE} " in cmdline
                and process.pid != self.own_backend
            ):
                found[process.pid] = _cpu(process)
        return found

    def snapshot(self) -> tuple[dict[int, float], dict[int, float], float, float]:
        own = psutil.Process()
        return self._gunicorn(), self._postgres(), _cpu(own), time.perf_counter()

    @staticmethod
    def since(before: Any, after: Any) -> tuple[float, float, float, float]:
        """gunicorn, PostgreSQL, this process (the clients) CPU seconds, and wall seconds."""

        def delta(old: dict[int, float], new: dict[int, float]) -> float:
            return sum(value - old.get(pid, 0.0) for pid, value in new.items())

        return (
            delta(before[0], after[0]),
            delta(before[1], after[1]),
            after[2] - before[2],
            after[3] - before[3],
        )


def process_tree_cpu(process: psutil.Process) -> dict[int, float]:
    """CPU seconds of a process and its children, by pid."""
    return {each.pid: _cpu(each) for each in [process, *process.children(recursive=True)]}


def rss(process: psutil.Process) -> int:
    return sum(each.memory_info().rss for each in [process, *process.children(recursive=True)])


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return float(times.user + times.system)


# ---------------------------------------------------------------- the figures


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def sequential(port: int, pollers: list[Poller], polls: int, meter: CpuMeter) -> dict[str, Any]:
    """``polls`` polls, one at a time, round-robin over ``pollers`` (all up to date first)."""
    for poller in pollers:
        poller.poll(port)  # its version now current: every poll below is a 204 or a 304
    statuses: dict[int, int] = {}
    latencies = []
    before = meter.snapshot()
    for index in range(polls):
        status, elapsed = pollers[index % len(pollers)].poll(port)
        statuses[status] = statuses.get(status, 0) + 1
        latencies.append(elapsed)
    gunicorn, postgres, client, wall = CpuMeter.since(before, meter.snapshot())
    return {
        "statuses": statuses,
        "median": statistics.median(latencies),
        "p95": _quantile(latencies, 0.95),
        "gunicorn": gunicorn / polls,
        "postgres": postgres / polls,
        "client": client / polls,
        "wall": wall,
    }


def load(
    port: int,
    consoles: list[Poller],
    terminals: list[Poller],
    round_: Round,
    bettors: list[Player],
    seconds: float,
    change_every: float,
    meter: CpuMeter,
) -> tuple[list[tuple[float, float]], tuple[float, float, float, float]]:
    pollers = [*consoles, *terminals]
    for poller in pollers:
        poller.answers.clear()
        poller.latencies.clear()
        poller.poll(port)  # up to date, as a screen that has been showing the table
    start = time.perf_counter() + 0.5
    end = start + seconds
    rng = random.Random(7)
    phases = [rng.random() for _ in pollers]

    def run(index: int) -> None:
        poller, tick = pollers[index], start + phases[index]
        while tick < end:
            pause = tick - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            status, elapsed = poller.poll(port)
            poller.answers.append((time.perf_counter(), status))
            poller.latencies.append(elapsed)
            tick += 1.0
            while tick < time.perf_counter():  # behind by more than a period: skip, as a timer would
                tick += 1.0

    changes: list[tuple[float, float]] = []  # (before the call, after its commit)

    def change() -> None:
        bets_every(round_, bettors, start + 0.3, end - 1.5, change_every, rng, changes, "poll")

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        meter.own_backend = cursor.fetchone()[0]
    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(pollers))]
    changer = threading.Thread(target=change)
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, start - time.perf_counter()))
    before = meter.snapshot()
    changer.start()
    for thread in threads:
        thread.join()
    after = meter.snapshot()
    changer.join()
    return changes, CpuMeter.since(before, after)


def bet_behind(round_: Round, bettor: Player, number: int, tag: str) -> None:
    bet_place(
        round_id=round_.pk,
        actor=Actor(player=bettor),
        box_number=number % BOXES + 1,
        kind="behind",
        stake_minor=STAKE,
        idempotency_key=f"live-{tag}-{round_.pk}-{number}",
    )


def bets_every(
    round_: Round,
    bettors: list[Player],
    first: float,
    last: float,
    every: float,
    rng: random.Random,
    changes: list[tuple[float, float]],
    tag: str,
) -> None:
    """A bet behind every ``every`` seconds (+-10%) from ``first`` to ``last`` (perf_counter; the
    last one leaves every screen time to see it), each noted as (before the call, committed)."""
    tick, number = first, 0
    while tick < last:
        pause = tick - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        before = time.perf_counter()
        bet_behind(round_, bettors[number % len(bettors)], number, tag)
        changes.append((before, time.perf_counter()))
        number += 1
        tick += every * rng.uniform(0.9, 1.1)
    connections.close_all()


def delays(pollers: list[Poller], changes: list[tuple[float, float]]) -> tuple[list[float], int]:
    """For each change and poller: from the change's commit to the poller's first 200 answered
    after the change began; and how many changes a poller never saw."""
    found, missed = [], 0
    for poller in pollers:
        seen = [answered for answered, status in poller.answers if status == 200]
        for began, committed in changes:
            first = next((answered for answered in seen if answered > began), None)
            if first is None:
                missed += 1
            else:
                found.append(max(0.0, first - committed))
    return found, missed


def _row(name: str, values: list[float], scale: float = 1000.0, unit: str = "ms") -> str:
    if not values:
        return f"  {name:<34} -"
    return (
        f"  {name:<34} {len(values):>6} {statistics.median(values) * scale:>8.0f} "
        f"{_quantile(values, 0.95) * scale:>8.0f} {max(values) * scale:>8.0f} {unit}"
    )


# ---------------------------------------------------------------- pushed


class Meter:
    """CPU seconds of gunicorn, uvicorn (each with its children), the PostgreSQL backends of the
    bench database and Redis's server, and the wall clock, at one moment."""

    def __init__(self, polling: CpuMeter, uvicorn: subprocess.Popen[bytes]) -> None:
        self.polling = polling
        self.uvicorn = psutil.Process(uvicorn.pid)
        self.redis = [p for p in psutil.process_iter(["name"]) if p.info["name"] == "redis-server"]

    def snapshot(self) -> dict[str, float]:
        return {
            "gunicorn": sum(self.polling._gunicorn().values()),
            "uvicorn": sum(process_tree_cpu(self.uvicorn).values()),
            "postgres": sum(self.polling._postgres().values()),
            "redis": sum(_cpu(p) for p in self.redis),
            "wall": time.perf_counter(),
        }

    @staticmethod
    def per_second(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
        wall = after["wall"] - before["wall"]
        return {name: (after[name] - before[name]) / wall for name in before if name != "wall"}


def console_stream_path(console: Poller) -> str:
    return console.path.replace("/live/", "/stream/")


def table_stream_path(round_: Round) -> str:
    return f"/api/v1/tables/{round_.table_id}/stream/"


def pushed(
    ports: tuple[int, int],
    loop: Loop,
    consoles: list[Poller],
    terminals: list[Poller],
    round_: Round,
    bettors: list[Player],
    seconds: float,
    change_every: float,
    meter: Meter,
) -> tuple[list[tuple[float, float]], dict[str, float]]:
    """Part 3: the consoles and terminals of part 2, each re-reading on its stream's hints."""
    page_port, stream_port = ports
    rereads = ThreadPoolExecutor(max_workers=40)
    locks = {id(poller): threading.Lock() for poller in [*consoles, *terminals]}

    def reread(poller: Poller) -> None:
        with locks[id(poller)]:  # one request at a time on the poller's keep-alive connection
            status, elapsed = poller.poll(page_port)
            poller.answers.append((time.perf_counter(), status))
            poller.latencies.append(elapsed)

    def on_hint(poller: Poller) -> Any:
        def heard(_: Subscriber, name: str, __: str) -> None:
            if name == "table":
                rereads.submit(reread, poller)

        return heard

    subscribers = [
        Subscriber(
            console_stream_path(poller), {"Cookie": poller.headers["Cookie"]}, on_event=on_hint(poller)
        )
        for poller in consoles
    ] + [
        Subscriber(table_stream_path(round_), poller.headers, on_event=on_hint(poller))
        for poller in terminals
    ]
    for poller in [*consoles, *terminals]:
        poller.poll(page_port)
    loop.open(stream_port, subscribers)
    time.sleep(2.0)  # the hints sent as each stream opened, and their re-reads, are over
    for poller in [*consoles, *terminals]:
        poller.answers.clear()
        poller.latencies.clear()
    changes: list[tuple[float, float]] = []
    before = meter.snapshot()
    start = time.perf_counter()
    bets_every(
        round_, bettors, start + 0.3, start + seconds - 1.5, change_every, random.Random(7), changes, "push"
    )
    time.sleep(max(0.0, start + seconds - time.perf_counter()))
    cpu = Meter.per_second(before, meter.snapshot())
    rereads.shutdown(wait=True)
    loop.close()
    failed = [subscriber.error for subscriber in subscribers if subscriber.error]
    if failed:
        print(f"  streams that failed: {len(failed)}, the first: {failed[:2]}")
    return changes, cpu


def hint_delays(subscribers: list[Subscriber], changes: list[tuple[float, float]]) -> tuple[list[float], int]:
    """For each change and subscriber: from the change's commit to the first hint of the table
    that arrived after the change began; and how many changes a subscriber never heard of."""
    found, missed = [], 0
    for subscriber in subscribers:
        heard = [at for at, name, _ in subscriber.events if name == "table"]
        for began, committed in changes:
            first = next((at for at in heard if at > began), None)
            if first is None:
                missed += 1
            else:
                found.append(max(0.0, first - committed))
    return found, missed


def burst(round_: Round, bettors: list[Player], listener: Subscriber) -> tuple[int, float, list[int]]:
    """Part 5: bets as fast as BURST_THREADS threads can for BURST_SECONDS; the hints of the table
    the listener heard in each second from the burst's start until a second after its end."""
    start = time.perf_counter()
    counts = [0] * BURST_THREADS

    def run(index: int) -> None:
        mine = bettors[index::BURST_THREADS]
        number = 0
        while time.perf_counter() - start < BURST_SECONDS:
            bet_behind(round_, mine[number % len(mine)], number * BURST_THREADS + index, "burst")
            number += 1
        counts[index] = number
        connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(BURST_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.perf_counter() - start
    time.sleep(1.5)
    seconds = int(took) + 2
    per_second = [0] * seconds
    for at, name, _ in listener.events:
        if name == "table" and start <= at < start + seconds:
            per_second[int(at - start)] += 1
    return sum(counts), took, per_second


def hammer(port: int, pollers: list[Poller], seconds: float) -> tuple[float, float, float, dict[int, int]]:
    """Every poller polling as fast as it can, one thread each, for ``seconds``: requests a
    second, median and p95 round trip, and the answers by status."""
    end = time.perf_counter() + seconds
    latencies: list[list[float]] = [[] for _ in pollers]
    statuses: list[list[int]] = [[] for _ in pollers]

    def run(index: int) -> None:
        while time.perf_counter() < end:
            status, elapsed = pollers[index].poll(port)
            latencies[index].append(elapsed)
            statuses[index].append(status)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(pollers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [value for each in latencies for value in each]
    counts: dict[int, int] = {}
    for status in (status for each in statuses for status in each):
        counts[status] = counts.get(status, 0) + 1
    return len(every) / seconds, statistics.median(every), _quantile(every, 0.95), counts


def pages_on_each_server(port: int, meter: CpuMeter, consoles: list[Poller], seconds: float) -> None:
    """Part 8: the consoles' re-read (204) from 20 threads at once, on gunicorn and on a uvicorn
    process serving the pages (Django's advice under ASGI: no persistent connections, so each
    request opens its own)."""
    print(
        f"\n8. the pages on each server: {CONSOLES} consoles polling live/ (204) as fast as they can, {seconds:.0f} s"
    )
    pages_port = free_port()
    with tempfile.NamedTemporaryFile("w+b", prefix="live-updates-pages-", suffix=".log", delete=False) as log:
        pages = uvicorn_start(pages_port, log, environment={"DATABASE_CONN_MAX_AGE": "0"})
        try:
            time.sleep(3.0)
            for name, at, process in (("gunicorn", port, meter.server), ("uvicorn", pages_port, pages)):
                for poller in consoles:
                    poller.conn = None
                    poller.poll(at)
                server = psutil.Process(process.pid)
                before = (sum(process_tree_cpu(server).values()), sum(meter._postgres().values()))
                rate, median, p95, statuses = hammer(at, consoles, seconds)
                spent = (
                    sum(process_tree_cpu(server).values()) - before[0],
                    sum(meter._postgres().values()) - before[1],
                )
                answered = rate * seconds
                print(
                    f"  {name:<9} {rate:>6.0f} requests/s {statuses}, round trip median {median * 1e3:.1f} ms, p95 "
                    f"{p95 * 1e3:.1f} ms; CPU per request: {name} {spent[0] / answered * 1e3:.2f} ms, "
                    f"PostgreSQL {spent[1] / answered * 1e3:.2f} ms"
                )
        finally:
            pages.terminate()
            pages.wait(timeout=30)
            Path(log.name).unlink()
    for poller in consoles:
        poller.conn = None


def streaming(
    ports: tuple[int, int],
    uvicorn: subprocess.Popen[bytes],
    meter: Meter,
    consoles: list[Poller],
    terminals: list[Poller],
    watchers: list[dict[str, str]],
    round_: Round,
    bettors: list[Player],
    seconds: float,
    change_every: float,
    idle_seconds: float,
    streams_many: int,
) -> None:
    _, stream_port = ports
    loop = Loop()
    print(
        f"\n3. part 2 pushed: {CONSOLES} consoles + {TERMINALS} terminals on their streams (uvicorn, 1 process; "
        f"hints by {os.environ['HINTS_URL'].split(':')[0]}), re-reading on each hint, {seconds:.0f} s"
    )
    changes, cpu = pushed(ports, loop, consoles, terminals, round_, bettors, seconds, change_every, meter)
    print(f"  {'':<34} {'count':>6} {'p50':>8} {'p95':>8} {'max':>8}")
    for kind, pollers in (("console", consoles), ("terminal", terminals)):
        found, missed = delays(pollers, changes)
        print(_row(f"{kind}: bet committed -> its 200", found) + f"  (never seen: {missed})")
    requests = sum(len(poller.answers) for poller in [*consoles, *terminals])
    print(
        f"  {len(changes)} bets; {requests} re-reads; CPU per second: gunicorn {cpu['gunicorn']:.3f}, uvicorn "
        f"{cpu['uvicorn']:.3f}, PostgreSQL {cpu['postgres']:.3f}, Redis {cpu['redis']:.3f}; web tier "
        f"(gunicorn + uvicorn + PostgreSQL) {cpu['gunicorn'] + cpu['uvicorn'] + cpu['postgres']:.3f} cores"
    )

    print(
        f"\n4. {CONSOLES} consoles + {len(watchers)} terminals subscribed, a bet every {change_every:g} s for "
        f"{seconds:.0f} s: the bet's commit -> its hint at each subscriber"
    )
    console_subscribers = [
        Subscriber(console_stream_path(c), {"Cookie": c.headers["Cookie"]}) for c in consoles
    ]
    terminal_subscribers = [Subscriber(table_stream_path(round_), headers) for headers in watchers]
    subscribers = [*console_subscribers, *terminal_subscribers]
    opened = loop.open(stream_port, subscribers)
    statuses: dict[int, int] = {}
    for subscriber in subscribers:
        statuses[subscriber.status] = statuses.get(subscriber.status, 0) + 1
    print(f"  {len(subscribers)} streams opened in {opened:.1f} s; answers {statuses}")
    time.sleep(2.0)
    changes = []
    start = time.perf_counter()
    bets_every(
        round_, bettors, start + 0.3, start + seconds - 1.5, change_every, random.Random(8), changes, "hint"
    )
    time.sleep(max(0.0, start + seconds - time.perf_counter()))
    print(f"  {'':<34} {'count':>6} {'p50':>8} {'p95':>8} {'max':>8}")
    for kind, group in (("console", console_subscribers), ("terminal", terminal_subscribers)):
        found, missed = hint_delays(group, changes)
        print(_row(f"{kind}: bet committed -> hint", found) + f"  (never heard: {missed})")

    placed, took, per_second = burst(round_, bettors, terminal_subscribers[0])
    print(
        f"\n5. a burst: {placed} bets in {took:.2f} s ({placed / took:.0f}/s, {BURST_THREADS} threads); the "
        f"table's hints a subscriber heard, second by second: {per_second} (at most {max(per_second)} a second)"
    )

    print(f"\n6. the {len(subscribers)} subscribers idle for {idle_seconds:.0f} s")
    before = meter.snapshot()
    time.sleep(idle_seconds)
    cpu = Meter.per_second(before, meter.snapshot())
    print(
        f"  CPU per second: uvicorn {cpu['uvicorn']:.4f} cores ({cpu['uvicorn'] / len(subscribers) * 1000:.4f} "
        f"per 1,000 streams x {1000:,}), gunicorn {cpu['gunicorn']:.4f}, PostgreSQL {cpu['postgres']:.4f}"
    )
    loop.close()

    time.sleep(1.0)
    server = psutil.Process(uvicorn.pid)
    empty = rss(server)
    many = [
        Subscriber(table_stream_path(round_), watchers[index % len(watchers)])
        for index in range(streams_many)
    ]
    # 50 opening at once: each opening's checks take a database connection for a moment, and
    # PostgreSQL's max_connections (100) bounds how many may at once.
    opened = loop.open(stream_port, many, at_once=50)
    time.sleep(2.0)
    held = sum(1 for subscriber in many if subscriber.status == 200 and not subscriber.error)
    full = rss(server)
    print(
        f"\n7. {streams_many:,} streams on the one uvicorn process: {held:,} open (opened in {opened:.1f} s); "
        f"RSS {empty / 2**20:.0f} MiB -> {full / 2**20:.0f} MiB: {(full - empty) / max(held, 1) / 1024:.1f} KiB a stream"
    )
    errors = [subscriber.error for subscriber in many if subscriber.error]
    if errors:
        print(f"  errors {len(errors)}, the first: {errors[:2]}")
    loop.stop()
    pages_on_each_server(ports[0], meter.polling, consoles, 5.0)


def polling(
    port: int,
    consoles: list[Poller],
    terminals: list[Poller],
    round_: Round,
    bettors: list[Player],
    polls: int,
    seconds: float,
    change_every: float,
    meter: CpuMeter,
) -> None:
    print(f"\n1. one request at a time, {polls} polls of each kind, the table unchanged")
    print(
        f"  {'poll':<34} {'median':>8} {'p95':>8} {'gunicorn CPU':>13} {'PostgreSQL CPU':>15}"
        f" {'client CPU':>11}  statuses"
    )
    single = {}
    for kind, pollers in (("console live/ (204)", consoles), ("terminal state/ (304)", terminals)):
        figures = sequential(port, pollers, polls, meter)
        single[kind] = figures
        print(
            f"  {kind:<34} {figures['median'] * 1e3:>6.1f}ms {figures['p95'] * 1e3:>6.1f}ms"
            f" {figures['gunicorn'] * 1e3:>11.1f}ms {figures['postgres'] * 1e3:>13.1f}ms"
            f" {figures['client'] * 1e3:>9.1f}ms  {figures['statuses']}"
        )
    console, terminal = single["console live/ (204)"], single["terminal state/ (304)"]
    by_latency = CONSOLES * console["median"] + TERMINALS * terminal["median"]
    by_cpu = CONSOLES * (console["gunicorn"] + console["postgres"]) + TERMINALS * (
        terminal["gunicorn"] + terminal["postgres"]
    )
    print(
        f"  load of {CONSOLES} consoles + {TERMINALS} terminals at 1 poll/s ({CONSOLES + TERMINALS} requests/s):\n"
        f"    by the median round trips: {CONSOLES} x {console['median'] * 1e3:.1f} ms + {TERMINALS} x "
        f"{terminal['median'] * 1e3:.1f} ms = {by_latency:.2f} CPU-s/s = {by_latency:.0%} of one core\n"
        f"    by the server's CPU (gunicorn + PostgreSQL): {by_cpu:.2f} CPU-s/s = {by_cpu:.0%} of one core"
    )

    print(
        f"\n2. {CONSOLES} consoles + {TERMINALS} terminals polling once a second for {seconds:.0f} s, "
        f"a bet behind every {change_every:g} s (+-10%) through bet_place"
    )
    changes, (gunicorn, postgres, client, wall) = load(
        port, consoles, terminals, round_, bettors, seconds, change_every, meter
    )
    print(f"  {'':<34} {'count':>6} {'p50':>8} {'p95':>8} {'max':>8}")
    for kind, pollers in (("console", consoles), ("terminal", terminals)):
        found, missed = delays(pollers, changes)
        print(_row(f"{kind}: bet committed -> first 200", found) + f"  (never seen: {missed})")
    for kind, pollers in (("console", consoles), ("terminal", terminals)):
        latencies = [value for poller in pollers for value in poller.latencies]
        print(_row(f"{kind}: round trip of a poll", latencies))
    for kind, pollers in (("console", consoles), ("terminal", terminals)):
        counts: dict[int, int] = {}
        for poller in pollers:
            for _, status in poller.answers:
                counts[status] = counts.get(status, 0) + 1
        errors = [error for poller in pollers for error in poller.errors]
        print(f"  {kind} answers: {dict(sorted(counts.items()))}; errors {len(errors)} {errors[:2]}")
    requests = sum(len(poller.answers) for poller in [*consoles, *terminals])
    print(
        f"  {len(changes)} bets; {requests} polls in {wall:.1f} s ({requests / wall:.0f}/s); CPU per second: "
        f"gunicorn {gunicorn / wall:.2f}, PostgreSQL {postgres / wall:.2f}, the {CONSOLES + TERMINALS} "
        f"client threads {client / wall:.2f} (of {os.cpu_count()} cores)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 polls of each kind, 8 s of load")
    parser.add_argument("--mode", choices=("polling", "streaming", "both"), default="both")
    args = parser.parse_args()
    polls = int(os.environ.get("BENCH_POLLS", "300" if args.quick else "2000"))
    seconds = float(os.environ.get("BENCH_SECONDS", "8" if args.quick else "30"))
    change_every = float(os.environ.get("BENCH_CHANGE_EVERY", "1"))
    terminals_many = int(os.environ.get("BENCH_TERMINALS_MANY", "1000"))
    streams_many = int(os.environ.get("BENCH_STREAMS_MANY", "2000" if args.quick else "10000"))
    idle_seconds = 8.0 if args.quick else 30.0

    round_, consoles, terminals, bettors, watchers = setup(terminals_many)
    port, stream_port = free_port(), free_port()
    with (
        tempfile.NamedTemporaryFile(
            "w+b", prefix="live-updates-gunicorn-", suffix=".log", delete=False
        ) as log,
        tempfile.NamedTemporaryFile(
            "w+b", prefix="live-updates-uvicorn-", suffix=".log", delete=False
        ) as slog,
    ):
        server = gunicorn_start(port, log, workers=WORKERS, threads=THREADS)
        streams = uvicorn_start(stream_port, slog) if args.mode != "polling" else None
        try:
            gunicorn_wait(port, Poller("terminal", terminals[0].path, terminals[0].headers), server)
            meter = CpuMeter(server)
            for poller in [*consoles, *terminals]:  # warm every worker and connection
                poller.poll(port)
            print(
                f"gunicorn {WORKERS} workers x {THREADS} threads (bench.api_bench_settings), PostgreSQL "
                f"{connection.cursor().connection.info.server_version // 10000}, database {DATABASE}; "
                f"nproc {os.cpu_count()}, Python {sys.version.split()[0]}, load average "
                f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
            )
            if args.mode != "streaming":
                polling(port, consoles, terminals, round_, bettors, polls, seconds, change_every, meter)
            if streams is not None:
                streaming(
                    (port, stream_port),
                    streams,
                    Meter(meter, streams),
                    consoles,
                    terminals,
                    watchers,
                    round_,
                    bettors,
                    seconds,
                    change_every,
                    idle_seconds,
                    streams_many,
                )
        finally:
            for process, its_log, name in ((server, log, "gunicorn"), (streams, slog, "uvicorn")):
                if process is None:
                    continue
                process.terminate()
                process.wait(timeout=30)
                its_log.seek(0)
                lines = its_log.read().decode("utf-8", "replace").splitlines()
                problems = [
                    line for line in lines if "Traceback" in line or "ERROR" in line or "CRITICAL" in line
                ]
                if sys.exc_info()[0] is not None:
                    print("\n".join(lines[-20:]))
                if problems:
                    print(
                        f"{name} log {its_log.name}: {len(problems)} problem lines, the first: {problems[:3]}"
                    )
                else:
                    Path(its_log.name).unlink()


if __name__ == "__main__":
    main()
