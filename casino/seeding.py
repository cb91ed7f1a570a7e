"""Loading the data a fresh install starts from (`seeds/`). Every step is idempotent:
running it twice changes nothing and writes no audit record the second time."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from casino.actors import Actor
from casino.audit import audit_append
from casino.models import Casino, Game, Pit, Player, RuleSet, RuleSetVersion, Table
from casino.services import player_create, roles_sync, staff_role_assign
from games.blackjack.rules import ruleset_from_dict
from tables.models import SideBetPaytable, SideBetPaytableVersion
from tables.odds_jobs import main_game_edge_compute

SEEDS_DIR = Path(settings.BASE_DIR) / "seeds"

# Other apps add steps (e.g. the wallet funds the demo players): name -> function(demo data, report).
EXTRA_STEPS: list[Callable[[dict[str, Any], list[str]], None]] = []


def load_seed(name: str) -> dict[str, Any]:
    with (SEEDS_DIR / name).open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def _rule_set(
    game: str, name: str, options: dict[str, Any], source: str, description: str, report: list[str]
) -> RuleSet:
    rule_set, _ = RuleSet.objects.get_or_create(game=game, name=name, defaults={"description": description})
    current = rule_set.current_version()
    if current is not None and current.options == options:
        return rule_set
    number = (rule_set.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    version = RuleSetVersion.objects.create(
        rule_set=rule_set, number=number, options=options, source=source, approved_at=dt.datetime.now(dt.UTC)
    )
    audit_append(
        action="ruleset.version_approved",
        actor_name="seed",
        object_type="tables.rulesetversion",
        object_id=version.pk,
        before={"options": current.options} if current else None,
        after={"rule_set": name, "game": game, "number": number, "options": options},
    )
    report.append(f"rule set {game}/{name} v{number}")
    return rule_set


def seed_rule_sets(report: list[str]) -> None:
    for item in load_seed("blackjack_rulesets.json")["rule_sets"]:
        ruleset_from_dict({**item["options"], "name": item["name"]})  # refuse a seed the engine cannot run
        rule_set = _rule_set(
            Game.BLACKJACK, item["name"], item["options"], item["source"], item["description"], report
        )
        # Its main game's house edge, before the command ends (a thread of the command would
        # end with it): a version is approved with its edge in view, and the pages show it.
        version = rule_set.current_version()
        if (
            version is not None
            and main_game_edge_compute(version, actor=Actor.automatic("system")) is not None
        ):
            report.append(f"house edge of rule set {item['name']} v{version.number}")
    canasta = load_seed("canasta_presets.json")
    for name, preset in canasta["presets"].items():
        source = f"rules/canasta.md section 9 ({preset.get('sources', '')})"[:200]
        _rule_set(Game.CANASTA, name, preset["parameters"], source, preset.get("label", ""), report)


def seed_paytables(report: list[str]) -> None:
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


def seed_demo(report: list[str]) -> dict[str, Any]:
    demo = load_seed("demo_casino.json")
    spec = demo["casino"]
    casino, created = Casino.objects.get_or_create(
        code=spec["code"],
        defaults={
            "name": spec["name"],
            "currency": spec["currency"],
            "currency_exponent": spec["currency_exponent"],
            "time_zone": spec["time_zone"],
            "gaming_day_starts_at": dt.time.fromisoformat(spec["gaming_day_starts_at"]),
        },
    )
    if created:
        audit_append(
            action="casino.created",
            actor_name="seed",
            object_type="casino.casino",
            object_id=casino.pk,
            after=spec,
        )
        report.append(f"casino {casino.code}")
    pits = {}
    for pit_name in demo["pits"]:
        pits[pit_name], created = Pit.objects.get_or_create(casino=casino, name=pit_name)
        if created:
            report.append(f"pit {pit_name}")
    for item in demo["tables"]:
        rule_set = RuleSet.objects.get(game=item["game"], name=item["rule_set"])
        table, created = Table.objects.get_or_create(
            casino=casino,
            name=item["name"],
            defaults={"pit": pits[item["pit"]], "game": item["game"], "rule_set": rule_set},
        )
        if created:
            audit_append(
                action="table.created",
                actor_name="seed",
                object_type="tables.table",
                object_id=table.pk,
                after={"name": table.name, "game": table.game, "rule_set": rule_set.name},
            )
            report.append(f"table {table.name}")
    user_model = get_user_model()
    for item in demo["staff"]:
        user = user_model.objects.filter(username=item["username"]).first()
        if user is None:
            user = user_model.objects.create_user(
                username=item["username"],
                password=item["password"],
                first_name=item["first_name"],
                last_name=item["last_name"],
            )
            audit_append(
                action="staff.created",
                actor_name="seed",
                object_type="auth.user",
                object_id=user.pk,
                after={"username": user.username},
            )
            report.append(f"staff {user.username}")
        staff_role_assign(user=user, role=item["role"], actor=Actor.automatic("system"))
    for item in demo["players"]:
        if not Player.objects.filter(card_number=item["card_number"]).exists():
            player_create(
                casino=casino,
                card_number=item["card_number"],
                display_name=item["display_name"],
                pin=item["pin"],
                actor=Actor.automatic("system"),
            )
            report.append(f"player {item['card_number']}")
    return demo


def seed_all() -> list[str]:
    """Load every seed file. Returns a line per thing created (empty when nothing was new)."""
    report: list[str] = []
    with transaction.atomic():
        if roles_sync():
            report.append("role permissions")
        seed_rule_sets(report)
        seed_paytables(report)
        demo = seed_demo(report)
        for step in EXTRA_STEPS:
            step(demo, report)
    return report
