"""The tables' seed steps: boxes and a first configuration version (default limits and settings)
for every blackjack table; a first canasta configuration version for every canasta table of the
demo (its ``canasta`` entry: physical or virtual deals, the fee). Idempotent: a table that has
them is left alone."""

from __future__ import annotations

from typing import Any

from cardroom.models import CanastaTableSettings
from cardroom.services.config import canasta_config_change
from casino.actors import Actor
from casino.models import Game, Table
from tables.models import TableConfigVersion
from tables.services.config_changes import table_config_change
from tables.services.seats import boxes_ensure


def seed_live_tables(demo: dict[str, Any], report: list[str]) -> None:
    actor = Actor.automatic("seed")
    for table in Table.objects.filter(game=Game.BLACKJACK).order_by("pk"):
        if len(boxes_ensure(table=table)) and not TableConfigVersion.objects.filter(table=table).exists():
            table_config_change(table=table, actor=actor, changes={})
            report.append(f"table config {table.name} v1")


def seed_canasta_tables(demo: dict[str, Any], report: list[str]) -> None:
    actor = Actor.automatic("seed")
    for item in demo["tables"]:
        if item["game"] != Game.CANASTA:
            continue
        table = Table.objects.get(casino__code=demo["casino"]["code"], name=item["name"])
        if not CanastaTableSettings.objects.filter(table=table).exists():
            canasta_config_change(table=table, actor=actor, changes=item.get("canasta", {}))
            report.append(f"canasta config {table.name} v1")


__all__ = ["seed_canasta_tables", "seed_live_tables"]
