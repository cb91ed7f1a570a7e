"""Holds per second: many players betting on one table, two designs side by side.

- ``hold`` (ours): ``wallet.services.hold_place`` — each bet updates only its player's own account
  row and inserts a hold; nothing the table's bettors share is written per bet.
- ``shared row`` (naive): each bet is a transfer player -> one table account, so every bet locks
  and updates the same row and bets on one table queue behind each other.

Both run the same idempotency record and neither writes an audit record, so the difference is
the shared row. Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino
.venv/bin/python bench/ledger.py``. Uses (and creates, then migrates) the database
``casino_bench`` on that server; never touches the database named in the URL.

Options (environment): BENCH_PLAYERS (400), BENCH_SECONDS (5 per run), BENCH_THREADS ("1,8,16"),
BENCH_SYNCHRONOUS_COMMIT ("on": the server default; "off" to take the disk's fsync out).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

BENCH_DATABASE = "casino_bench"


def _bench_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        sys.exit("bench/ledger.py needs DATABASE_URL=postgres://... (a PostgreSQL server)")
    parts = urlsplit(url)
    server = urlunsplit(parts._replace(path="/postgres"))
    import psycopg

    with psycopg.connect(server.replace("postgres://", "postgresql://", 1), autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [BENCH_DATABASE]
        ).fetchone()
        if not exists:
            connection.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    return urlunsplit(parts._replace(path=f"/{BENCH_DATABASE}"))


os.environ["DATABASE_URL"] = _bench_url()

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, connections, transaction  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402

from casino.models import Casino, Pit, Player  # noqa: E402
from tables.models import Game, RuleSet, Table  # noqa: E402
from wallet.idempotency import idempotent  # noqa: E402
from wallet.locking import AccountSpec, accounts_lock  # noqa: E402
from wallet.models import AccountKind, TransferKind  # noqa: E402
from wallet.services import _transfer_write, hold_place, system_buy_in  # noqa: E402

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
        # a large balance so that no bet is refused; idempotent across runs
        system_buy_in(player=player, amount_minor=10**12, by="bench", idempotency_key=f"fund-{player.pk}")
    return casino, table, players


def bet_with_hold(casino: Casino, table: Table, player: Player, key: str) -> None:
    hold_place(player=player, amount_minor=100, table=table, idempotency_key=key, scope="bench-hold")


def bet_on_shared_row(casino: Casino, table: Table, player: Player, key: str) -> None:
    """The naive design: the stake moves at once to one account of the table."""
    shared = AccountSpec(AccountKind.TABLE_TRAY, table_id=table.pk)
    mine = AccountSpec(AccountKind.PLAYER, player_id=player.pk)

    def perform() -> dict[str, Any]:
        locked = accounts_lock(casino=casino, specs=[shared, mine])
        by_kind = {account.kind: account for account in locked}
        transfer = _transfer_write(
            casino=casino,
            kind=TransferKind.ROUND_SETTLEMENT,
            accounts={account.pk: account for account in locked},
            amounts={by_kind[AccountKind.PLAYER].pk: -100, by_kind[AccountKind.TABLE_TRAY].pk: 100},
        )
        return {"transfer_id": transfer.pk}

    with transaction.atomic():
        idempotent(
            scope="bench-shared",
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


if __name__ == "__main__":
    main()
