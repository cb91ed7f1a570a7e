"""``manage.py simulate_table --table NAME_OR_ID --rounds N --players P --seed S``."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.errors import ServiceError
from casino.selectors import access_table
from tables.simulation import simulate_table


class Command(BaseCommand):
    help = "Play complete rounds at a table through the services (virtual shoe, random legal play)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--table", required=True, help="table name or id")
        parser.add_argument("--rounds", type=int, default=100)
        parser.add_argument("--players", type=int, default=4)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            table = access_table(table_id=options["table"])
            started = time.perf_counter()
            result = simulate_table(
                table=table, rounds=options["rounds"], players=options["players"], seed=options["seed"]
            )
        except ServiceError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        elapsed = time.perf_counter() - started
        self.stdout.write(
            f"{result.rounds} rounds, {result.bets} bets at {table.name} in {elapsed:.1f}s "
            f"(rounds {result.round_ids[0] if result.round_ids else '-'}..{result.round_ids[-1] if result.round_ids else '-'})"
        )
