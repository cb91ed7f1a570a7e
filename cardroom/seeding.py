"""The card room's seed steps (``casino.seeding``): the canasta rule sets (the presets of
rules/canasta.md section 9), and a first canasta configuration version for every canasta table
of the demo (its ``canasta`` entry: physical or virtual deals, the fee). Idempotent: what is
there is left alone."""

from __future__ import annotations

from typing import Any

from cardroom.models import CanastaTableSettings
from cardroom.services.config import canasta_config_change
from casino.actors import Actor
from casino.models import Game, Table
from casino.seeding import SeedStage, load_seed, rule_set_seed, seed_step


@seed_step(SeedStage.RULE_SETS)
def seed_canasta_rule_sets(demo: dict[str, Any], report: list[str]) -> None:
    canasta = load_seed("canasta_presets.json")
    for name, preset in canasta["presets"].items():
        rule_set_seed(
            game=Game.CANASTA,
            name=name,
            options=preset["parameters"],
            source=f"rules/canasta.md section 9 ({preset.get('sources', '')})"[:200],
            description=preset.get("label", ""),
            report=report,
        )


@seed_step(SeedStage.AFTER_VENUE)
def seed_canasta_tables(demo: dict[str, Any], report: list[str]) -> None:
    actor = Actor.automatic("seed")
    for item in demo["tables"]:
        if item["game"] != Game.CANASTA:
            continue
        table = Table.objects.get(casino__code=demo["casino"]["code"], name=item["name"])
        if not CanastaTableSettings.objects.filter(table=table).exists():
            canasta_config_change(table=table, actor=actor, changes=item.get("canasta", {}))
            report.append(f"canasta config {table.name} v1")


__all__ = ["seed_canasta_rule_sets", "seed_canasta_tables"]
