"""Server time of the dealer console's actions: each request through Django's test client as the
console sends it (htmx: ``HX-Request``), its wall time and its SQL statement count.

Setup: the demo casino; the demo ``dealer`` signs on to BJ1 and opens it (virtual shoe); a second
staff dealer signs on to BJ2, switched to a physical shoe (``shoe_kind: physical``). Four players
own boxes 1-4 of each table, funded through the system cage. Then:

- BJ1, ROUNDS rounds (200): ``do/open-betting/``, (the players' main bets through ``bet_place``),
  ``do/close-betting/`` (the virtual shoe deals), ``do/close-insurance/`` when the dealer shows an
  ace, (the players stand through ``decision_make``), ``do/settle/``, and ``do/shuffle/`` when the
  console offers it (every 5 rounds);
- BJ2, PHYSICAL_ROUNDS rounds (ROUNDS / 4): the same, with ``do/card/`` for every card the round
  expects (``table_state``'s ``card_expected``), a card still in the shoe picked at random.

Every POST carries ``round`` and ``round_version`` as the console's hidden inputs hold them (read
from the Round row; the page answered is checked to carry the same). After each action the bench
also times ``GET live/?version=<current>`` (the 204 path) and the full console ``GET``. Only the
requests are measured; the players' bets and decisions through the services are not.

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/console.py [--rounds N] [--physical-rounds N] [--quick]``. Drops and creates the database
``casino_bench_console`` on that server (BENCH_DATABASE to change it); never touches the database
named in the URL.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The production settings as the API bench serves them (DEBUG off, synchronous commits).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.api_bench_settings")

from _scratch import scratch_database_url
from _statements import StatementCount

os.environ["DATABASE_URL"] = scratch_database_url("console.py", "casino_bench_console", fresh=True)

import django

django.setup()

from django.conf import settings  # noqa: E402

settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402

from casino.models import Player, Table  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from casino.services import staff_role_assign  # noqa: E402
from floor.console import console_version  # noqa: E402
from games.cards import shoe_cards  # noqa: E402
from tables.models import Round, RoundStatus, Shoe  # noqa: E402
from tables.selectors import table_state  # noqa: E402
from tables.services import (  # noqa: E402
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    decision_make,
    table_open_for_play,
    table_settings_change,
)
from wallet.services import system_buy_in, system_table_fill  # noqa: E402

HTMX = {"HX-Request": "true"}
BOXES = 4
STAKE = 1000
HIDDEN = re.compile(r'name="round" value="([^"]*)"><input type="hidden" name="round_version" value="([^"]*)"')


class Samples:
    """Per request kind: wall milliseconds and SQL statement counts."""

    def __init__(self) -> None:
        self.millis: dict[str, list[float]] = defaultdict(list)
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.statements: dict[str, list[int]] = defaultdict(list)
        self.failures: Counter[str] = Counter()
        self.failure_samples: list[str] = []

    def request(self, kind: str, call: Any, expect: int) -> Any:
        statements = StatementCount()
        with statements.counting():
            cpu = time.thread_time_ns()
            started = time.perf_counter_ns()
            response = call()
            elapsed = time.perf_counter_ns() - started
            cpu = time.thread_time_ns() - cpu
        self.millis[kind].append(elapsed / 1e6)
        self.cpu[kind].append(cpu / 1e6)
        self.statements[kind].append(statements.count)
        if response.status_code != expect:
            self.failures[kind] += 1
            if len(self.failure_samples) < 5:
                body = response.content[:2000].decode("utf-8", "replace")
                error = re.search(r'class="[^"]*error[^"]*"[^>]*>(.*?)<', body, re.S)
                self.failure_samples.append(
                    f"{kind}: {response.status_code} {error.group(1).strip() if error else body[:200]!r}"
                )
        return response

    def table(self) -> str:
        def p95(values: list[float]) -> float:
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

        lines = [
            f"{'request':<28} {'count':>6} {'median':>8} {'p95':>8} {'max':>8} {'CPU med':>8}"
            f" {'SQL (median)':>13} {'SQL min-max':>12}",
        ]
        for kind in sorted(self.millis, key=_order):
            millis, statements = self.millis[kind], self.statements[kind]
            lines.append(
                f"{kind:<28} {len(millis):>6} {statistics.median(millis):>8.1f} {p95(millis):>8.1f}"
                f" {max(millis):>8.1f} {statistics.median(self.cpu[kind]):>8.1f}"
                f" {statistics.median(statements):>13.0f}"
                f" {f'{min(statements)}-{max(statements)}':>12}"
            )
        return "\n".join(lines)


def _order(kind: str) -> tuple[int, str]:
    table, _, action = kind.partition(" ")
    ranks = [
        "open-betting",
        "close-betting",
        "close-insurance",
        "card",
        "settle",
        "shuffle",
        "GET live",
        "GET console",
    ]
    return (
        0 if table == "BJ1" else 1,
        f"{next((i for i, r in enumerate(ranks) if action.startswith(r)), 9)}{action}",
    )


class Console:
    """One dealer's console at one table, through the test client."""

    def __init__(self, table: Table, dealer: Any, samples: Samples) -> None:
        self.table = table
        self.samples = samples
        self.client = Client()
        self.client.force_login(dealer)
        self.base = f"/dealer/tables/{table.name}/"
        self.checked = 0
        self.mismatches: list[str] = []

    def hidden(self) -> dict[str, str]:
        """What the console's hidden inputs hold: the table's latest round and its version."""
        latest = (
            Round.objects.filter(table=self.table).order_by("-number").values_list("pk", "version").first()
        )
        return {"round": str(latest[0]), "round_version": str(latest[1])} if latest else {}

    def do(self, action: str, **fields: str) -> Any:
        data = {**self.hidden(), **fields}
        response = self.samples.request(
            f"{self.table.name} {action}",
            lambda: self.client.post(f"{self.base}do/{action}/", data, headers=HTMX),
            200,
        )
        self._check_page(response)
        self.look()
        return response

    def look(self) -> None:
        """The console's own requests between actions: a poll that finds nothing new, the page."""
        version = console_version(self.table)
        self.samples.request(
            f"{self.table.name} GET live (204)",
            lambda: self.client.get(f"{self.base}live/", {"version": version}, headers=HTMX),
            204,
        )
        self.samples.request(f"{self.table.name} GET console (full)", lambda: self.client.get(self.base), 200)

    def _check_page(self, response: Any) -> None:
        """The redrawn console's hidden inputs name the round and version the table has now."""
        found = HIDDEN.search(response.content.decode())
        if found is None:
            return
        self.checked += 1
        wanted = self.hidden()
        if wanted and (found.group(1), found.group(2)) != (wanted["round"], wanted["round_version"]):
            self.mismatches.append(f"page {found.groups()} against the row {wanted}")

    def state(self) -> dict[str, Any]:
        self.table.refresh_from_db()
        return table_state(table=self.table)


def _players(table: Table, prefix: str) -> list[Player]:
    players = []
    for number in range(1, BOXES + 1):
        player = Player.objects.create(
            casino=table.casino,
            card_number=f"{prefix}{number:04d}",
            display_name=f"{prefix} {number}",
            pin_hash="!",
        )
        system_buy_in(player=player, amount_minor=10**10, actor=Actor.automatic("bench"))
        box_take(table=table, box_number=number, actor=Actor(player=player))
        players.append(player)
    return players


def _card(shoe_id: int, entered: Counter[str], rng: random.Random) -> str:
    """A card the shoe still holds: its decks less the cards dealt before this round and now."""
    shoe = Shoe.objects.get(pk=shoe_id)
    dealt = Counter({code: int(n) for code, n in (shoe.dealt_counts or {}).items()}) + entered
    remaining = [card.code for card in shoe_cards(shoe.decks)]
    pool = Counter(remaining) - dealt
    return rng.choice(list(pool.elements()))


def play(console: Console, players: list[Player], rounds: int, physical: bool, rng: random.Random) -> None:
    for _ in range(rounds):
        state = console.state()
        if state["shuffle_due"]:
            console.do("shuffle", **({"cut_card": str(rng.randint(60, 90))} if physical else {}))
        console.do("open-betting")
        round_id = (
            Round.objects.filter(table=console.table).order_by("-number").values_list("pk", flat=True)[0]
        )
        for number, player in enumerate(players, start=1):
            bet_place(
                round_id=round_id,
                actor=Actor(player=player),
                box_number=number,
                kind="main",
                stake_minor=STAKE,
                idempotency_key=f"{round_id}-{number}",
            )
        console.do("close-betting")
        entered: Counter[str] = Counter()
        for _step in range(200):
            state = console.state()
            round_ = state["round"]
            status = round_["status"]
            if status in (RoundStatus.SETTLING, RoundStatus.SETTLED, RoundStatus.VOIDED):
                break
            if round_["awaiting_correction"]:
                raise SystemExit(f"{console.table.name}: a misscan: {round_['awaiting_correction']}")
            if round_["card_expected"]:
                card = _card(state["shoe"]["id"], entered, rng)
                entered[card] += 1
                console.do("card", card=card)
            elif status == RoundStatus.INSURANCE:
                console.do("close-insurance")
            elif status == RoundStatus.PLAYERS and round_["turn"]:
                box = round_["turn"]["box"]
                decision_make(
                    round_id=round_["id"],
                    actor=Actor(player=players[box - 1]),
                    box_number=box,
                    decision="stand",
                )
            else:
                raise SystemExit(f"{console.table.name}: stuck in {status}: {round_}")
        if console.state()["round"]["status"] == RoundStatus.SETTLING:
            console.do("settle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds on BJ1, virtual shoe (200)")
    parser.add_argument(
        "--physical-rounds", type=int, default=None, help="rounds on BJ2, physical shoe (rounds / 4)"
    )
    parser.add_argument("--quick", action="store_true", help="20 and 5 rounds")
    args = parser.parse_args()
    rounds = 20 if args.quick else args.rounds
    physical_rounds = (
        5 if args.quick else args.physical_rounds if args.physical_rounds is not None else max(1, rounds // 4)
    )

    call_command("migrate", verbosity=0)
    seed_all()
    users = get_user_model().objects
    operator, dealer = users.get(username="operator"), users.get(username="dealer")
    second = users.create_user(username="bench-dealer-2", password="!")
    staff_role_assign(user=second, role="dealer", actor=Actor.automatic("system"))
    virtual, physical = Table.objects.get(name="BJ1"), Table.objects.get(name="BJ2")
    table_settings_change(table=physical, actor=Actor.staff(operator), settings={"shoe_kind": "physical"})
    samples, warm = Samples(), Samples()
    consoles = []
    for table, user in ((virtual, dealer), (physical, second)):
        system_table_fill(table=table, amount_minor=10**11, actor=Actor.automatic("bench"))
        dealer_sign_on(table=table, actor=Actor.staff(user))
        table_open_for_play(table=table, actor=Actor.staff(user))
        consoles.append((Console(table, user, warm), _players(table, f"bench-{table.name}-")))
    rng = random.Random(1)
    # Warm-up: one round on each table, not counted.
    for console, players in consoles:
        play(console, players, 1, console.table is physical, rng)
        console.samples = samples
    started = time.perf_counter()
    play(consoles[0][0], consoles[0][1], rounds, False, rng)
    play(consoles[1][0], consoles[1][1], physical_rounds, True, rng)
    took = time.perf_counter() - started
    settled = {
        table.name: Round.objects.filter(table=table, status=RoundStatus.SETTLED).count()
        for table in (virtual, physical)
    }
    print(
        f"dealer console through django.test.Client (HX-Request), {connection.vendor} "
        f"{connection.pg_version // 10000 if connection.vendor == 'postgresql' else ''}, settings {os.environ['DJANGO_SETTINGS_MODULE']}: "
        f"BJ1 (virtual shoe) {rounds} rounds, BJ2 (physical shoe) {physical_rounds} rounds, "
        f"4 boxes with a main bet each; {took:.0f} s"
    )
    print(f"settled rounds (1 warm-up each included): {settled}")
    print(
        "milliseconds of wall time per request (median, p95, max) and of this process's CPU"
        " (CPU med: Django's share, PostgreSQL's not in it); SQL statements per request"
    )
    print(samples.table())
    pages = sum(console.checked for console, _ in consoles)
    mismatches = [m for console, _ in consoles for m in console.mismatches]
    print(
        f"pages answered whose hidden round/round_version match the Round row: {pages - len(mismatches)}/{pages}"
    )
    for mismatch in mismatches[:5]:
        print(f"  MISMATCH {mismatch}")
    if samples.failures:
        print(f"unexpected statuses: {dict(samples.failures)}")
        for sample in samples.failure_samples:
            print(f"  {sample}")


if __name__ == "__main__":
    main()
