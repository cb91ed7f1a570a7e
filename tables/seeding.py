"""The live tables' seed steps (``casino.seeding``): the blackjack rule sets with their main game's
house edge, the side bets' paytables, and boxes and a first configuration version (default limits
and settings) for every blackjack table. Idempotent: what is there is left alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from casino.actors import Actor
from casino.audit import audit_append
from casino.models import Game, Table
from casino.seeding import SeedStage, load_seed, rule_set_seed, seed_step
from games.blackjack.rules import ruleset_from_dict
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigVersion
from tables.odds_jobs import main_game_edge_compute
from tables.services.config_changes import table_config_change
from tables.services.seats import boxes_ensure


@seed_step(SeedStage.RULE_SETS)
def seed_rule_sets(demo: dict[str, Any], report: list[str]) -> None:
    for item in load_seed("blackjack_rulesets.json")["rule_sets"]:
        ruleset_from_dict({**item["options"], "name": item["name"]})  # refuse a seed the engine cannot run
        rule_set = rule_set_seed(
            game=Game.BLACKJACK,
            name=item["name"],
            options=item["options"],
            source=item["source"],
            description=item["description"],
            report=report,
        )
        # Its main game's house edge, before the command ends (a thread of the command would
        # end with it): a version is approved with its edge in view, and the pages show it.
        version = rule_set.current_version()
        if (
            version is not None
            and main_game_edge_compute(version, actor=Actor.automatic("system")) is not None
        ):
            report.append(f"house edge of rule set {item['name']} v{version.number}")


@seed_step(SeedStage.PAYTABLES)
def seed_paytables(demo: dict[str, Any], report: list[str]) -> None:
    for item in load_seed("paytables.json")["paytables"]:
        paytable, _ = SideBetPaytable.objects.get_or_create(kind=item["kind"], name=item["name"])
        current = paytable.current_version()
        if current is not None and current.payouts == item["payouts"]:
            continue
        number = (current.number if current else 0) + 1
        version = SideBetPaytableVersion.objects.create(
            paytable=paytable, number=number, payouts=item["payouts"], approved_at=dt.datetime.now(dt.UTC)
        )
        audit_append(
            action="paytable.version_approved",
            actor_name="seed",
            object_type="tables.sidebetpaytableversion",
            object_id=version.pk,
            before={"payouts": current.payouts} if current else None,
            after={"kind": item["kind"], "name": item["name"], "payouts": item["payouts"]},
        )
        report.append(f"paytable {item['kind']}/{item['name']} v{number}")


@seed_step(SeedStage.AFTER_VENUE)
def seed_live_tables(demo: dict[str, Any], report: list[str]) -> None:
    actor = Actor.automatic("seed")
    for table in Table.objects.filter(game=Game.BLACKJACK).order_by("pk"):
        if len(boxes_ensure(table=table)) and not TableConfigVersion.objects.filter(table=table).exists():
            table_config_change(table=table, actor=actor, changes={})
            report.append(f"table config {table.name} v1")


__all__ = ["seed_live_tables", "seed_paytables", "seed_rule_sets"]
