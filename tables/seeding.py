"""The live tables' seed step: boxes and a first configuration version (default limits and
settings) for every blackjack table. Idempotent: a table that has them is left alone."""

from __future__ import annotations

from typing import Any

from casino.actors import Actor
from tables.models import Game, Table, TableConfigVersion
from tables.services.config import table_config_change
from tables.services.seats import boxes_ensure


def seed_live_tables(demo: dict[str, Any], report: list[str]) -> None:
    actor = Actor.automatic("seed")
    for table in Table.objects.filter(game=Game.BLACKJACK).order_by("pk"):
        if len(boxes_ensure(table=table)) and not TableConfigVersion.objects.filter(table=table).exists():
            table_config_change(table=table, actor=actor, changes={})
            report.append(f"table config {table.name} v1")


__all__ = ["seed_live_tables"]
