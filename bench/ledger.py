"""Holds per second: many players betting on one table, two designs side by side.

- ``hold`` (ours): ``wallet.services.hold_place`` — each bet updates only its player's own account
  row and inserts a hold; nothing the table's bettors share is written per bet.
- ``shared row`` (naive, rejected): each bet is a transfer player -> one table account, so every
  bet locks and updates the same row and bets on one table queue behind each other. Written here
  from the wallet's public lock helpers, since no service of the wallet makes such a transfer.

Each bet is one request: one ``idempotent`` record around it, as the terminal API makes, and
neither design writes an audit record, so the difference is the shared row. Needs PostgreSQL:
``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/ledger.py``.
Uses (and creates, then migrates) the database ``casino_bench`` on that server; never touches the
database named in the URL.

Then the CPU of one bet, on one thread, in interleaved blocks (the machine's speed drifts): the
hold in its one statement (``wallet/sql.py``) against the plainest ORM shape of the same writes
(read the wallet's id, conditional ``UPDATE``, ``Hold.objects.create``), each inside its request's
idempotency record: this process's CPU (Python and the driver) and, when the server runs on this
machine and its processes are readable, the server process's (``/proc/<pid>/stat``).

Options (environment): BENCH_PLAYERS (400), BENCH_SECONDS (5 per run), BENCH_THREADS ("1,8,16"),
BENCH_SYNCHRONOUS_COMMIT ("on": the server default; "off" to take the disk's fsync out),
BENCH_CPU_BLOCKS (6 per shape) and BENCH_CPU_BETS (1000 per block).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from casino.actors import Actor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

from _scratch import scratch_database_url

os.environ["DATABASE_URL"] = scratch_database_url("ledger.py", "casino_bench")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402
from django.db.models import F  # noqa: E402

from casino.idempotency import Outcome, idempotent  # noqa: E402
from casino.models import Casino, Game, Pit, Player, RuleSet, Table  # noqa: E402
from wallet.locking import AccountSpec, accounts_lock, check_and_apply  # noqa: E402
from wallet.models import Account, AccountKind, Hold, Posting, Transfer, TransferKind  # noqa: E402
from wallet.services import hold_place, system_buy_in  # noqa: E402

SYNCHRONOUS_COMMIT = os.environ.get("BENCH_SYNCHRONOUS_COMMIT", "on")


def _session_settings(sender: Any, connection: Any, **kwargs: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SET synchronous_commit TO {'off' if SYNCHRONOUS_COMMIT == 'off' else 'on'}")


connection_created.connect(_session_settings, weak=False)


def setup(players_wanted: int) -> tuple[Casino, Table, list[Player]]:
    call_command("migrate", verbosity=0)
    casino, _ = Casino.objects.get_or_create(code="bench", defaults={"name": "Bench", "currency": "EUR"})
    pit, _ = Pit.objects.get_or_create(casino=casino, name="Bench pit")
    rule_set, _ = RuleSet.objects.get_or_create(game=Game.BLACKJACK, name="bench")
    table, _ = Table.objects.get_or_create(
        casino=casino, name="BENCH", defaults={"pit": pit, "game": Game.BLACKJACK, "rule_set": rule_set}
    )
    players = list(Player.objects.filter(casino=casino).order_by("pk")[:players_wanted])
    for index in range(len(players), players_wanted):
        player = Player.objects.create(
            casino=casino, card_number=f"bench-{index:06d}", display_name=f"Bench {index}", pin_hash="!"
        )
        players.append(player)
    for player in players:
        # a large balance so that no bet is refused; once per player across runs
        idempotent(
            scope="bench",
            key=f"fund-{player.pk}",
            payload={"command": "cage_buy_in", "player_id": player.pk, "amount_minor": 10**12},
            perform=lambda player=player: Outcome(
                {
                    "transfer_id": system_buy_in(
                        player=player, amount_minor=10**12, actor=Actor.automatic("bench")
                    ).pk
                }
            ),
        )
    return casino, table, players


def bet_with_hold(casino: Casino, table: Table, player: Player, key: str) -> None:
    idempotent(
        scope="bench-hold",
        key=key,
        payload={"player_id": player.pk, "amount_minor": 100},
        perform=lambda: Outcome({"hold_id": hold_place(player=player, amount_minor=100, table=table).pk}),
    )


def bet_on_shared_row(casino: Casino, table: Table, player: Player, key: str) -> None:
    """The naive design: the stake moves at once to one account of the table."""
    shared = AccountSpec(AccountKind.TABLE_TRAY, table_id=table.pk)
    mine = AccountSpec(AccountKind.PLAYER, player_id=player.pk)

    def perform() -> Outcome:
        locked = accounts_lock(casino=casino, specs=[shared, mine])
        by_kind = {account.kind: account for account in locked}
        amounts = {by_kind[AccountKind.PLAYER].pk: -100, by_kind[AccountKind.TABLE_TRAY].pk: 100}
        check_and_apply({account.pk: account for account in locked}, amounts)
        transfer = Transfer.objects.create(
            casino=casino, kind=TransferKind.ROUND_SETTLEMENT, currency=casino.currency
        )
        Posting.objects.bulk_create(
            [
                Posting(transfer=transfer, account_id=account_id, amount_minor=amount)
                for account_id, amount in amounts.items()
            ]
        )
        return Outcome({"transfer_id": transfer.pk})

    idempotent(
        scope="bench-shared", key=key, payload={"player_id": player.pk, "amount_minor": 100}, perform=perform
    )


def bet_with_orm_hold(casino: Casino, table: Table, player: Player, key: str) -> None:
    """The same bet with the hold written by the ORM, in three statements (the shape rejected in
    ``wallet/sql.py``)."""

    def perform() -> Outcome:
        account_id = (
            Account.objects.filter(player_id=player.pk, kind=AccountKind.PLAYER)
            .values_list("pk", flat=True)
            .first()
        )
        covered = Account.objects.filter(pk=account_id, balance_minor__gte=F("held_minor") + 100)
        if not covered.update(held_minor=F("held_minor") + 100):
            raise RuntimeError("the bench funds every player far above its stakes")
        hold = Hold.objects.create(account_id=account_id, amount_minor=100, table_id=table.pk)
        return Outcome({"hold_id": hold.pk})

    idempotent(
        scope="bench-orm-hold",
        key=key,
        payload={"player_id": player.pk, "amount_minor": 100},
        perform=perform,
    )


def run(
    design: Any, threads: int, seconds: float, casino: Casino, table: Table, players: list[Player]
) -> float:
    run_id = uuid.uuid4().hex[:8]
    counts = [0] * threads
    errors: list[BaseException] = []
    start = threading.Barrier(threads + 1)
    deadline = [0.0]

    def worker(index: int) -> None:
        mine = players[index::threads]  # many players, each thread its own: no player row is shared
        try:
            connection.ensure_connection()
            start.wait()
            step = 0
            while time.perf_counter() < deadline[0]:
                design(casino, table, mine[step % len(mine)], f"{run_id}-{index}-{step}")
                step += 1
            counts[index] = step
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    pool = [threading.Thread(target=worker, args=(index,)) for index in range(threads)]
    for thread in pool:
        thread.start()
    deadline[0] = time.perf_counter() + seconds
    started = time.perf_counter()
    start.wait()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return sum(counts) / elapsed


def _server_cpu_seconds() -> float | None:
    """CPU used so far by this connection's server process, None when it cannot be read here."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_bet(
    design: Any, bets: int, casino: Casino, table: Table, players: list[Player]
) -> tuple[float, float, float | None]:
    """Wall time, this process's CPU and the server's CPU per bet, in microseconds."""
    run_id = uuid.uuid4().hex[:8]
    server_before = _server_cpu_seconds()
    wall_before, client_before = time.perf_counter(), time.process_time()
    for step in range(bets):
        design(casino, table, players[step % len(players)], f"{run_id}-{step}")
    wall, client = time.perf_counter() - wall_before, time.process_time() - client_before
    server_after = _server_cpu_seconds()
    server = None if server_before is None or server_after is None else server_after - server_before
    return wall / bets * 1e6, client / bets * 1e6, None if server is None else server / bets * 1e6


def cpu_table(casino: Casino, table: Table, players: list[Player]) -> None:
    blocks = int(os.environ.get("BENCH_CPU_BLOCKS", "6"))
    bets = int(os.environ.get("BENCH_CPU_BETS", "1000"))
    shapes = {"one statement (ours)": bet_with_hold, "ORM, three statements": bet_with_orm_hold}
    for design in shapes.values():
        cpu_per_bet(design, 200, casino, table, players)  # warm-up
    figures: dict[str, list[tuple[float, float, float | None]]] = {name: [] for name in shapes}
    for block in range(blocks):
        names = list(shapes) if block % 2 == 0 else list(reversed(shapes))
        for name in names:
            figures[name].append(cpu_per_bet(shapes[name], bets, casino, table, players))
    print(f"\nCPU per bet, one thread, median of {blocks} interleaved blocks of {bets} bets (microseconds):")
    print(f"{'hold':>22}  {'wall':>6}  {'client CPU':>10}  {'server CPU':>10}  {'CPU':>6}")
    for name, rows in figures.items():
        wall = statistics.median(row[0] for row in rows)
        client = statistics.median(row[1] for row in rows)
        servers = [row[2] for row in rows if row[2] is not None]
        server = statistics.median(servers) if len(servers) == len(rows) else None
        total = f"{client + server:>6.0f}" if server is not None else f"{'n/a':>6}"
        server_text = f"{server:>10.0f}" if server is not None else f"{'n/a':>10}"
        print(f"{name:>22}  {wall:>6.0f}  {client:>10.0f}  {server_text}  {total}")


def main() -> None:
    players_wanted = int(os.environ.get("BENCH_PLAYERS", "400"))
    seconds = float(os.environ.get("BENCH_SECONDS", "5"))
    thread_counts = [int(item) for item in os.environ.get("BENCH_THREADS", "1,8,16").split(",")]
    casino, table, players = setup(players_wanted)
    print(
        f"ledger bench: {len(players)} players betting on one table, {seconds:g} s per run, "
        f"synchronous_commit={SYNCHRONOUS_COMMIT}, {os.cpu_count()} CPUs"
    )
    print(f"{'threads':>7}  {'holds/s (own row)':>18}  {'bets/s (shared row)':>19}  {'ratio':>6}")
    for threads in thread_counts:
        holds = run(bet_with_hold, threads, seconds, casino, table, players)
        shared = run(bet_on_shared_row, threads, seconds, casino, table, players)
        print(f"{threads:>7}  {holds:>18.0f}  {shared:>19.0f}  {holds / shared:>6.2f}")
    connection.ensure_connection()
    cpu_table(casino, table, players)


if __name__ == "__main__":
    main()
