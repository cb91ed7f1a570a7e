"""Settlement cost of a full live round: SQL statements and milliseconds of ``round_settle``.

Each measured round: 7 boxes, each with a main bet, Perfect Pairs, 21+3 and a bet behind
(following doubles and splits), the dealer shows an ace and all 7 main bets take insurance:
35 bets. Only ``tables.services.round_settle`` is measured (payout lines stored, bets and win
streaks updated, the ledger posted in bulk through ``wallet.services.holds_settle``, audit records).

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/settle.py [ROUNDS]``. Drops, creates and migrates the database ``casino_bench_settle`` on
that server (a second run finds its table open otherwise) and never touches the database named
in the URL.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")

from _scratch import scratch_database_url
from _statements import StatementCount

os.environ["DATABASE_URL"] = scratch_database_url("settle.py", "casino_bench_settle", fresh=True)

import django

django.setup()

from django.core.management import call_command  # noqa: E402

from casino.models import Player, Table  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from tables.models import OPEN_ROUND_STATUSES, Bet, Box, PayoutLine, Round, Shoe  # noqa: E402
from tables.services import (  # noqa: E402
    Actor,
    bet_place,
    box_take,
    decision_make,
    insurance_close,
    insurance_decide,
    round_close_betting,
    round_open,
    round_settle,
    shoe_shuffle,
    table_open_for_play,
)
from tables.services.shoes import shoe_commitment  # noqa: E402
from wallet.services import system_buy_in, system_table_fill  # noqa: E402

FIRST = ["8S", "9H", "TD", "7C", "6S", "5H", "4D"]
SECOND = ["TS", "TH", "9D", "TC", "TD", "9S", "8H"]
DEALER = ["AS", "7D"]  # soft 18: insurance offered, no blackjack, the dealer stands


def _players(table: Table, prefix: str) -> list[Player]:
    players = []
    for index in range(7):
        player, created = Player.objects.get_or_create(
            card_number=f"{prefix}{index:04d}",
            defaults={"casino": table.casino, "display_name": f"{prefix} {index}", "pin_hash": "!"},
        )
        if created:
            system_buy_in(player=player, amount_minor=10**10, actor=Actor.automatic("bench"))
        players.append(player)
    return players


def _stack(table: Table, system: Actor) -> None:
    shoe = shoe_shuffle(table=table, actor=system)
    order = list(shoe.order)
    top = [*FIRST, DEALER[0], *SECOND, DEALER[1]]
    for code in top:
        order.remove(code)
    order = top + order
    Shoe.objects.filter(pk=shoe.pk).update(order=order, commitment=shoe_commitment(shoe.secret, order))


def main(rounds: int) -> None:
    call_command("migrate", verbosity=0)
    seed_all()
    table = Table.objects.get(name="BJ1")
    system = Actor.automatic("bench")
    # a round left open by an interrupted run of this bench (its own database only)
    Round.objects.filter(table=table, status__in=OPEN_ROUND_STATUSES).update(status="voided")
    system_table_fill(table=table, amount_minor=10**11, actor=Actor.automatic("bench"))
    owners, behind = _players(table, "bench-owner-"), _players(table, "bench-behind-")
    for number, owner in enumerate(owners, start=1):
        box = Box.objects.get(table=table, number=number)
        if box.owner_id is None:
            box_take(table=table, box_number=number, actor=Actor(player=owner))
    statements: list[int] = []
    millis: list[float] = []
    bets_per_round = 0
    table_open_for_play(table=table, actor=system)
    for index in range(rounds):
        _stack(table, system)
        round_ = round_open(table=table, actor=system)
        for number, (owner, other) in enumerate(zip(owners, behind, strict=True), start=1):
            as_owner = Actor(player=owner)
            for kind, stake in (("main", 1000), ("perfect_pairs", 100), ("twenty_one_plus_three", 100)):
                bet_place(
                    round_id=round_.pk,
                    actor=as_owner,
                    box_number=number,
                    kind=kind,
                    stake_minor=stake,
                    idempotency_key=f"{round_.pk}-{number}-{kind}",
                )
            bet_place(
                round_id=round_.pk,
                actor=Actor(player=other),
                box_number=number,
                kind="behind",
                stake_minor=500,
                idempotency_key=f"{round_.pk}-{number}-behind",
                follow_double=True,
                follow_split=True,
            )
        round_close_betting(round_id=round_.pk, actor=system)
        for main in Bet.objects.filter(round=round_, kind="main").order_by("pk"):
            owner = next(player for player in owners if player.pk == main.player_id)
            insurance_decide(round_id=round_.pk, actor=Actor(player=owner), bet_id=main.pk, take=True)
        insurance_close(round_id=round_.pk, actor=system)  # the bettors behind decline
        for number, owner in enumerate(owners, start=1):
            decision_make(round_id=round_.pk, actor=Actor(player=owner), box_number=number, decision="stand")
        bets_per_round = Bet.objects.filter(round=round_).count()
        counted = StatementCount()
        with counted.counting():
            started = time.perf_counter()
            round_settle(round_id=round_.pk, actor=system)
            elapsed = (time.perf_counter() - started) * 1000
        lines = PayoutLine.objects.filter(round=round_).count()
        if index:  # the first round warms caches
            statements.append(counted.count)
            millis.append(elapsed)
    print(
        f"round_settle on PostgreSQL, {rounds - 1} measured rounds of {bets_per_round} bets ({lines} payout lines):"
    )
    print(f"  SQL statements per settlement: {min(statements)}-{max(statements)}")
    print(
        f"  milliseconds: median {statistics.median(millis):.1f}, min {min(millis):.1f}, max {max(millis):.1f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 21)
