"""Bets per second through the terminal API: many terminals betting in one betting window, against
gunicorn and PostgreSQL, beside a bare endpoint of the same stack, in the same run.

The bet is ``POST /api/v1/tables/<t>/rounds/<r>/bets/`` (a bet behind, each with its own
Idempotency-Key). The bare endpoint ``POST /bench/bare/`` (bench/api_bench_urls.py) goes through
the same gunicorn, middleware, DRF, terminal and player-token authentication and JSON handling,
then inserts one row. Phases, each run on the bare endpoint and then on bets:

1. closed loop: C clients, each its own terminal, player and keep-alive connection, send back to
   back for T seconds: requests/s, p50/p99 latency, errors; the ratio bets/bare. The T seconds of
   each endpoint are cut into S slices run alternately (bare, shape, bets, bets, shape, bare,
   ...), so that a machine whose speed drifts during the run (a shared virtual machine) weighs on
   all alike; the ratio of each pair of slices is printed too, to show how much it moved. The
   shape endpoint ``POST /bench/shape/`` is the bare one with a bet's statement count (see
   bench/api_bench_urls.py): its ratio to bare is the most any bet making that many statements
   could reach;
2. open loop: a constant rate (400/s) for a few seconds; each request has a scheduled send time
   and its latency counts from that time (no coordinated omission): p50/p99, errors;
3. burst: 1,000 requests released evenly within one second: time until all are answered, the
   slowest answer, errors.

Setup: the database ``casino_bench_api`` on the server of DATABASE_URL is dropped, created,
migrated and seeded (it never touches the database named in the URL unless it is that one);
7 players own BJ1's boxes and place main and side bets, the others bet behind; every player has
a player terminal with its credential and a signed-in session; one round of BJ1 is open for bets
for ten minutes. Afterwards the bets placed in the round must equal the bets answered 2xx, the
bare rows the bare answers 2xx, and ``ledger_verify`` must be clean.

Run: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_bench_api .venv/bin/python
bench/api_bets.py``. Options (environment): BENCH_CLIENTS (32), BENCH_SECONDS (6), BENCH_SLICES (3),
BENCH_RATE (400), BENCH_RATE_SECONDS (5), BENCH_BURST (1000), BENCH_POOL (100: client threads
and terminals of the open-loop phases), BENCH_WORKERS (5) and BENCH_THREADS (4) of gunicorn, BENCH_GIVE_UP (10: seconds after
which an open-loop request not yet sent is given up and counted as an error).
"""

from __future__ import annotations

import http.client
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _server import free_port, gunicorn_start  # noqa: E402  (bench/, the script's folder)

BENCH_DATABASE = "casino_bench_api"
SETTINGS = "bench.api_bench_settings"
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "32"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
SLICES = max(1, int(os.environ.get("BENCH_SLICES", "3")))
RATE = float(os.environ.get("BENCH_RATE", "400"))
RATE_SECONDS = float(os.environ.get("BENCH_RATE_SECONDS", "5"))
BURST = int(os.environ.get("BENCH_BURST", "1000"))
GIVE_UP = float(os.environ.get("BENCH_GIVE_UP", "10"))
POOL = int(os.environ.get("BENCH_POOL", "100"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "5"))
THREADS = int(os.environ.get("BENCH_THREADS", "4"))
BOXES = 7
STAKE = 500  # the table's minimum bet behind


def _bench_url() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/casino_bench_api")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("bench/api_bets.py needs DATABASE_URL=postgres://... (a PostgreSQL server)")
    import psycopg

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres")).replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    return urlunsplit(parts._replace(path=f"/{BENCH_DATABASE}"))


os.environ["DATABASE_URL"] = _bench_url()
os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.models import Sum  # noqa: E402

from bench.api_bench_urls import BARE_TABLE_SQL  # noqa: E402
from casino.actors import Actor  # noqa: E402
from casino.models import Casino, Player, Table, Terminal  # noqa: E402
from casino.player_sessions import player_session_start  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from casino.services import player_create, terminal_credential_issue, terminal_register  # noqa: E402
from tables.models import Bet, Round  # noqa: E402
from tables.services.config_changes import table_settings_change  # noqa: E402
from tables.services.dealers import table_open_for_play  # noqa: E402
from tables.services.rounds import round_open  # noqa: E402
from tables.services.seats import box_take  # noqa: E402
from tables.services.shoes import shoe_shuffle  # noqa: E402
from wallet.models import Account, AccountKind  # noqa: E402
from wallet.selectors import ledger_verify  # noqa: E402
from wallet.services import cage_buy_in  # noqa: E402

# ---------------------------------------------------------------- setup


@dataclass(frozen=True)
class Identity:
    """A player terminal at BJ1 with its credential, and the player signed in at it."""

    player_id: int
    headers: dict[str, str]


def _player_terminal(casino: Casino, table: Table, cashier: Any, name: str, index: int) -> Identity:
    card, pin = f"9{index:09d}", "2468"
    player = player_create(
        casino=casino,
        card_number=card,
        display_name=f"Bench {name}",
        pin=pin,
        actor=Actor.automatic("system"),
    )
    cage_buy_in(player=player, amount_minor=10**9, actor=Actor.staff(cashier))
    terminal = terminal_register(
        casino=casino,
        name=f"B-{name}",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    _, player_token = player_session_start(terminal=terminal, card_number=card, pin=pin)
    headers = {
        "Authorization": f"Terminal {token}",
        "X-Player-Token": player_token,
        "Content-Type": "application/json",
    }
    return Identity(player.pk, headers)


def setup() -> tuple[Table, Round, list[Identity], list[Identity]]:
    call_command("migrate", verbosity=0)
    seed_all()
    with connection.cursor() as cursor:
        cursor.execute(BARE_TABLE_SQL)
    users = get_user_model().objects
    operator, dealer, cashier = (users.get(username=name) for name in ("operator", "dealer", "cashier"))
    table = Table.objects.get(name="BJ1")
    casino = table.casino
    table_settings_change(table=table, actor=Actor.staff(operator), settings={"betting_seconds": 600})
    owners = [_player_terminal(casino, table, cashier, f"owner-{box}", box) for box in range(1, BOXES + 1)]
    behind = [_player_terminal(casino, table, cashier, f"behind-{n}", 100 + n) for n in range(POOL)]
    for box, owner in enumerate(owners, start=1):
        box_take(table=table, box_number=box, actor=Actor(player=Player.objects.get(pk=owner.player_id)))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    table_open_for_play(table=table, actor=Actor.automatic("bench"))
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    connections.close_all()
    return table, round_, owners, behind


# ---------------------------------------------------------------- the web process


def gunicorn_wait(port: int, identity: Identity, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited during start-up; see its log above")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/v1/terminal/", headers=identity.headers)
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 s")


# ---------------------------------------------------------------- the load


@dataclass
class Tally:
    """Answers of one phase on one endpoint."""

    latencies: list[float] = field(default_factory=list)
    ok: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    last_answer: float = 0.0
    send_lag: list[float] = field(default_factory=list)
    given_up: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def merge(self, other: Tally) -> None:
        """Add the answers of another slice of the same phase and endpoint."""
        self.latencies += other.latencies
        self.ok += other.ok
        self.errors += other.errors
        self.error_samples += other.error_samples[: max(0, 5 - len(self.error_samples))]
        self.last_answer = max(self.last_answer, other.last_answer)
        self.send_lag += other.send_lag
        self.given_up += other.given_up

    def give_up(self, scheduled: float) -> None:
        with self.lock:
            self.latencies.append(math.inf)
            self.errors += 1
            self.given_up += 1
            self.send_lag.append(math.inf)

    def record(self, status: int, body: bytes, started: float, answered: float) -> None:
        with self.lock:
            self.latencies.append(answered - started)
            self.last_answer = max(self.last_answer, answered)
            if 200 <= status < 300:
                self.ok += 1
            else:
                self.errors += 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(f"{status} {body[:300].decode('utf-8', 'replace')}")


class Client:
    """One terminal's keep-alive connection. A request that finds its reused connection closed by
    the server before any answer (gunicorn drops keep-alive connections idle for 5 s) is sent
    once more on a new connection: the server never read it, and a bet carries its
    Idempotency-Key anyway. Such resends are counted."""

    resends = 0

    def __init__(self, port: int, identity: Identity) -> None:
        self.port = port
        self.identity = identity
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        headers = {**self.identity.headers, "Idempotency-Key": str(uuid.uuid4())}
        for attempt in range(2):
            reused = self.conn is not None
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                self.conn.request("POST", path, body=body, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException) as error:
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                stale = isinstance(
                    error, (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)
                )
                if not (reused and stale and attempt == 0):
                    return 599, f"client error: {error!r}".encode()
                Client.resends += 1
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


@dataclass
class Target:
    name: str
    path: str

    def body(self, request_number: int) -> bytes:
        box = request_number % BOXES + 1
        return json.dumps({"box": box, "kind": "behind", "stake_minor": STAKE}).encode()


def _run_threads(count: int, work: Any) -> None:
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def closed_loop(clients: list[Client], target: Target, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    barrier = threading.Barrier(len(clients) + 1)
    window: list[float] = []

    def work(index: int) -> None:
        client, number = clients[index], index
        barrier.wait()
        while (now := time.perf_counter()) < window[0]:
            status, body = client.post(target.path, target.body(number))
            tally.record(status, body, now, time.perf_counter())
            number += len(clients)

    threads = [threading.Thread(target=work, args=(index,)) for index in range(len(clients))]
    for thread in threads:
        thread.start()
    started = time.perf_counter()
    window.append(started + seconds)
    barrier.wait()
    for thread in threads:
        thread.join()
    return tally, time.perf_counter() - started


def open_loop(clients: list[Client], target: Target, rate: float, total: int) -> tuple[Tally, float]:
    """``total`` requests at ``rate`` per second, request k scheduled at t0 + k / rate; a free
    client takes the next one, waits for its time and sends it. Latency counts from the scheduled
    time, so a request that waited for a free client (all busy: the server is behind) is charged
    for it. A request still unsent GIVE_UP seconds after its time is not sent: it counts as an
    error with an infinite latency (a terminal would have given up), which bounds the run."""
    tally = Tally()
    counter = iter(range(total))
    take = threading.Lock()
    start = time.perf_counter() + 0.2

    def work(index: int) -> None:
        client = clients[index]
        while True:
            with take:
                number = next(counter, None)
            if number is None:
                return
            scheduled = start + number / rate
            pause = scheduled - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            sent = time.perf_counter()
            if sent - scheduled > GIVE_UP:
                tally.give_up(scheduled)
                continue
            status, body = client.post(target.path, target.body(number))
            tally.record(status, body, scheduled, time.perf_counter())
            with tally.lock:
                tally.send_lag.append(sent - scheduled)

    _run_threads(len(clients), work)
    return tally, tally.last_answer - start


# ---------------------------------------------------------------- CPU accounting


def _ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def cpu_sample(server_pid: int) -> dict[str, dict[int, int]]:
    """CPU ticks so far per process: this process (the client), gunicorn (master and workers),
    PostgreSQL's processes, and the whole machine's busy ticks (from /proc/stat, as pid 0)."""
    sample: dict[str, dict[int, int]] = {"client": {os.getpid(): _ticks(os.getpid())}, "gunicorn": {}}
    sample["postgres"] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        pid = int(entry.name)
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if pid == server_pid or parent == server_pid:
            sample["gunicorn"][pid] = _ticks(pid)
        elif name.startswith("postgres"):
            sample["postgres"][pid] = _ticks(pid)
    cpu = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    sample["machine"] = {0: sum(int(value) for value in cpu) - int(cpu[3]) - int(cpu[4])}
    return sample


def cpu_cores(
    before: dict[str, dict[int, int]], after: dict[str, dict[int, int]], seconds: float
) -> dict[str, float]:
    """Cores busy on average: client, gunicorn, PostgreSQL, other (everything else). A process
    that ended during the phase is left out (its last ticks are unknown)."""
    hertz = os.sysconf("SC_CLK_TCK")
    used = {
        key: sum(ticks - before[key].get(pid, 0) for pid, ticks in after[key].items()) / hertz / seconds
        for key in after
    }
    used["other"] = max(used["machine"] - used["client"] - used["gunicorn"] - used["postgres"], 0.0)
    return used


def cores_text(used: dict[str, float]) -> str:
    return f"{used['client']:.2f}/{used['gunicorn']:.2f}/{used['postgres']:.2f}/{used['other']:.2f}"


# ---------------------------------------------------------------- report


def _ms(values: list[float], quantile: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] * 1000


def _cell(milliseconds: float, width: int) -> str:
    if math.isnan(milliseconds):
        return f"{'-':>{width}}"
    if math.isinf(milliseconds):
        return f"{'gave up':>{width}}" if width else f"> {GIVE_UP * 1000:.0f}"
    return f"{milliseconds:>{width}.1f}"


@dataclass
class Row:
    phase: str
    target: str
    tally: Tally
    seconds: float
    cpu: str
    bets_before: int

    @property
    def answered(self) -> int:
        return self.tally.ok + self.tally.errors - self.tally.given_up

    @property
    def rate(self) -> float:
        return self.answered / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        t = self.tally
        return (
            f"{self.phase:<15} {self.target:<5} {len(t.latencies):>5} {self.answered:>5} {self.rate:>6.0f} "
            f"{_cell(_ms(t.latencies, 0.5), 8)} {_cell(_ms(t.latencies, 0.99), 8)} "
            f"{_cell(max(t.latencies) * 1000, 8)} {self.seconds:>6.2f} {t.errors:>6} "
            f"{_cell(_ms(t.send_lag, 0.99), 8)} {self.bets_before:>5}  {self.cpu}"
        )


HEADER = (
    f"{'phase':<15} {'':<5} {'sent':>5} {'ans.':>5} {'req/s':>6} {'p50 ms':>8} {'p99 ms':>8} "
    f"{'max ms':>8} {'secs':>6} {'errors':>6} {'wait99ms':>8} {'bets0':>5}  "
    "cores client/gunicorn/postgres/other"
)
LEGEND = """\
sent: requests due; ans.: answered; req/s: answered per second of the phase (open loop: until the
last answer); p50/p99/max: latency (open loop: from the scheduled send time); errors: non-2xx, no
answer, or given up; wait99ms: p99 of the wait between scheduled and actual send (every client
connection busy: the server is behind); bets0: bets already in the round when the phase starts;
cores: average cores busy during the phase, from /proc."""


def _open_database_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [BENCH_DATABASE],
        )
        return int(cursor.fetchone()[0])


def main() -> None:
    load_before = os.getloadavg()[0]
    setup_started = time.perf_counter()
    table, round_, owners, behind = setup()
    setup_seconds = time.perf_counter() - setup_started
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="api-bench-gunicorn-", suffix=".log", delete=False)  # noqa: SIM115
    server = gunicorn_start(port, log, workers=WORKERS, threads=THREADS)
    rows: list[Row] = []
    answered = {"bets": 0, "bare": 0, "shape": 0}
    slice_ratios: dict[str, list[float]] = {}
    bets_path = f"/api/v1/tables/{table.pk}/rounds/{round_.pk}/bets/"
    bet, bare, shape = (
        Target("bets", bets_path),
        Target("bare", "/bench/bare/"),
        Target("shape", "/bench/shape/"),
    )
    started = time.perf_counter()
    try:
        gunicorn_wait(port, owners[0], server)
        # Warm-up: the box owners' main and side bets, then from every pool client a bare request
        # and a bet (connections opened, each gunicorn thread's database connection made).
        for box, owner in enumerate(owners, start=1):
            client = Client(port, owner)
            for kind, stake in (("main", 1000), ("perfect_pairs", 500), ("twenty_one_plus_three", 500)):
                body = json.dumps({"box": box, "kind": kind, "stake_minor": stake}).encode()
                status, answer = client.post(bets_path, body)
                if status != 201:
                    raise SystemExit(f"warm-up {kind} bet on box {box} refused: {status} {answer[:300]!r}")
                answered["bets"] += 1
            client.close()
        pool = [Client(port, identity) for identity in behind]
        warm = Tally()

        def warm_up(index: int) -> None:
            for target in (bare, shape, bet):
                sent = time.perf_counter()
                status, answer = pool[index].post(target.path, target.body(index))
                warm.record(status, answer, sent, time.perf_counter())

        _run_threads(len(pool), warm_up)
        if warm.errors:
            raise SystemExit(f"warm-up errors: {warm.error_samples}")
        answered["bets"] += len(pool)
        answered["bare"] += len(pool)
        answered["shape"] += len(pool)
        database_connections = _open_database_connections()

        def measured(target: Target, run: Any) -> tuple[Tally, float, dict[str, float], int]:
            before = cpu_sample(server.pid)
            bets_before = answered["bets"]
            tally, seconds = run(target)
            cores = cpu_cores(before, cpu_sample(server.pid), seconds)
            answered[target.name] += tally.ok
            time.sleep(0.5)
            return tally, seconds, cores, bets_before

        # The closed loop in alternating slices (bare, shape, bets, bets, shape, bare, ...): see the docstring.
        closed_name = f"closed C={CLIENTS}"
        slices: dict[str, list[tuple[Tally, float, dict[str, float], int]]] = {
            "bare": [],
            "shape": [],
            "bets": [],
        }
        for index in range(SLICES):
            for target in (bare, shape, bet) if index % 2 == 0 else (bet, shape, bare):
                slices[target.name].append(
                    measured(target, lambda target: closed_loop(pool[:CLIENTS], target, SECONDS / SLICES))
                )
        for target in (bare, shape, bet):
            parts = slices[target.name]
            tally = Tally()
            for part in parts:
                tally.merge(part[0])
            seconds = sum(part[1] for part in parts)
            cores = {key: sum(part[2][key] * part[1] for part in parts) / seconds for key in parts[0][2]}
            rows.append(Row(closed_name, target.name, tally, seconds, cores_text(cores), parts[0][3]))
        for name in ("bets", "shape"):
            slice_ratios[name] = [
                (part[0].ok / part[1]) / (bare_part[0].ok / bare_part[1])
                for bare_part, part in zip(slices["bare"], slices[name], strict=True)
            ]
        phases = [
            (f"open {RATE:g}/s", lambda target: open_loop(pool, target, RATE, int(RATE * RATE_SECONDS))),
            (f"burst {BURST}/1s", lambda target: open_loop(pool, target, float(BURST), BURST)),
        ]
        for phase, run in phases:
            for target in (bare, bet):
                tally, seconds, cores, bets_before = measured(target, run)
                rows.append(Row(phase, target.name, tally, seconds, cores_text(cores), bets_before))
        for client in pool:
            client.close()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    load_seconds = time.perf_counter() - started

    print(
        f"terminal API bench: BJ1 round {round_.pk} open for bets; {len(owners)} box owners (main and side "
        f"bets), {len(behind)} players betting behind, one player terminal each"
    )
    print(
        f"server: gunicorn {WORKERS} workers x {THREADS} threads (gthread, deploy/gunicorn.conf.py), "
        f"{SETTINGS}, {database_connections} persistent database connections, PostgreSQL "
        f"synchronous_commit={_show('synchronous_commit')}"
    )
    print(
        f"machine: {os.cpu_count()} cores shared by the client (this process, {len(behind)} threads with "
        f"http.client), gunicorn, PostgreSQL and anything else running (load average {load_before:.2f} "
        f"before the run); setup {setup_seconds:.0f} s, load {load_seconds:.0f} s"
    )
    print(HEADER)
    for row in rows:
        print(row.line())
    print(LEGEND)
    by = {(row.phase, row.target): row for row in rows}
    closed = {name: by[(f"closed C={CLIENTS}", name)] for name in ("bets", "bare", "shape")}
    # The ratios count 2xx answers only (a refusal is no bet), as the ratios of the slices do.
    done = {name: row.tally.ok / row.seconds for name, row in closed.items()}
    print(
        f"closed loop: {done['bets']:.0f} bets/s, {done['bare']:.0f} bare/s, ratio "
        f"{done['bets'] / done['bare']:.2f} (aim >= 0.7); by pair of slices: "
        f"{' '.join(f'{ratio:.2f}' for ratio in slice_ratios['bets'])}"
    )
    print(
        f"bet's statement count alone (shape): {done['shape']:.0f}/s, ratio "
        f"{done['shape'] / done['bare']:.2f} to bare, the most a bet making its statements could "
        f"reach; by pair of slices: {' '.join(f'{ratio:.2f}' for ratio in slice_ratios['shape'])}"
    )
    steady = by[(f"open {RATE:g}/s", "bets")]
    print(
        f"open loop {RATE:g}/s: bets answered at {steady.rate:.0f}/s, p50 "
        f"{_cell(_ms(steady.tally.latencies, 0.5), 0).strip()} ms, p99 "
        f"{_cell(_ms(steady.tally.latencies, 0.99), 0).strip()} ms (aim < 60 ms; gave up: over {GIVE_UP:g} s), "
        f"{steady.tally.given_up} given up"
    )
    burst = by[(f"burst {BURST}/1s", "bets")]
    print(
        f"burst of {BURST} bets in 1 s: {burst.answered} answered, the last {burst.seconds:.2f} s after the "
        f"first was due (aim <= 3 s), {burst.tally.given_up} given up after {GIVE_UP:g} s"
    )
    errors = sum(row.tally.errors for row in rows)
    given_up = sum(row.tally.given_up for row in rows)
    print(
        f"errors: {errors} (aim 0): {errors - given_up} non-2xx or no answer, {given_up} given up unsent; "
        f"keep-alive connections found closed and resent: {Client.resends}"
    )
    for row in rows:
        for sample in row.tally.error_samples:
            print(f"  {row.phase} {row.target}: {sample}")

    placed = Bet.objects.filter(round=round_, status="placed")
    stakes = placed.aggregate(total=Sum("stake_minor"))["total"]
    held = Account.objects.filter(kind=AccountKind.PLAYER).aggregate(total=Sum("held_minor"))["total"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_bare")
        bare_rows = int(cursor.fetchone()[0])
    verification = ledger_verify()
    count = placed.count()
    print(
        f"check: bets in the round {count} = bets answered 2xx {answered['bets']}; bare rows {bare_rows} = "
        f"bare and shape answered 2xx {answered['bare'] + answered['shape']}; stakes {stakes} = held {held}; ledger_verify "
        f"{'clean' if verification.is_clean else verification.offender} ({verification.transfers} transfers, "
        f"{verification.open_holds} open holds)"
    )
    if not (
        count == answered["bets"]
        and bare_rows == answered["bare"] + answered["shape"]
        and stakes == held
        and verification.is_clean
    ):
        print(f"CHECK FAILED; gunicorn's log: {log.name}")
        raise SystemExit(1)
    Path(log.name).unlink()


def _show(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW {name}")
        return str(cursor.fetchone()[0])


if __name__ == "__main__":
    main()
