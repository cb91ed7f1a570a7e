"""Loading the data a fresh install starts from (`seeds/`). Every step is idempotent:
running it twice changes nothing and writes no audit record the second time.

Each app seeds what it owns, in the steps of its own ``seeding`` module, registered with
``seed_step`` as the module is imported; ``seed_all`` imports every installed app's ``seeding``
module (``autodiscover_modules``) and runs the steps stage by stage (``SeedStage``), within a
stage in the order of the apps in INSTALLED_APPS, then in the order each app registered them.
The venue's own steps are here: the staff roles' permissions, and the demo's casino, pits,
tables, staff and players (``seeds/demo_casino.json``), which every step is given.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.module_loading import autodiscover_modules

from casino.actors import Actor
from casino.audit import audit_append
from casino.models import Casino, Pit, Player, RuleSet, RuleSetVersion, Table
from casino.services import player_create, roles_sync, staff_role_assign

SEEDS_DIR = Path(settings.BASE_DIR) / "seeds"

# A seed step: a function of the demo (seeds/demo_casino.json) and the report, to which it appends
# a line per thing it created.
SeedStep = Callable[[dict[str, Any], list[str]], None]


class SeedStage(enum.IntEnum):
    """When a step runs. A stage's steps run after those of the stages before it."""

    # The staff roles' permissions.
    ROLES = 1
    # Each game's rule sets: a table of the venue names one.
    RULE_SETS = 2
    # What a game pays beside its rules (the side bets' paytables).
    PAYTABLES = 3
    # The demo's casino, pits, tables, staff and players.
    VENUE = 4
    # What builds on the venue: accounts and funds, each table's configuration.
    AFTER_VENUE = 5


_steps: list[tuple[SeedStage, SeedStep]] = []


def seed_step(stage: SeedStage) -> Callable[[SeedStep], SeedStep]:
    """Register the decorated function as a seed step of ``stage`` (once, however often its module
    is imported)."""

    def register(step: SeedStep) -> SeedStep:
        if all(registered is not step for _, registered in _steps):
            _steps.append((stage, step))
        return step

    return register


def seed_steps() -> list[SeedStep]:
    """The registered steps in the order they run: by stage, then by their app's place in
    INSTALLED_APPS, then in the order of registration."""
    app_order = {config.name: index for index, config in enumerate(apps.get_app_configs())}

    def app_index(step: SeedStep) -> int:
        config = apps.get_containing_app_config(step.__module__)
        return app_order[config.name] if config is not None else len(app_order)

    ordered = sorted(enumerate(_steps), key=lambda item: (item[1][0], app_index(item[1][1]), item[0]))
    return [step for _, (_, step) in ordered]


def load_seed(name: str) -> dict[str, Any]:
    with (SEEDS_DIR / name).open(encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def rule_set_seed(
    *, game: str, name: str, options: dict[str, Any], source: str, description: str, report: list[str]
) -> RuleSet:
    """The rule set ``name`` of ``game``, made if missing, with a new approved version (audited)
    unless its current one has ``options``."""
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


@seed_step(SeedStage.ROLES)
def seed_roles(demo: dict[str, Any], report: list[str]) -> None:
    if roles_sync():
        report.append("role permissions")


@seed_step(SeedStage.VENUE)
def seed_demo(demo: dict[str, Any], report: list[str]) -> None:
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


def seed_all() -> list[str]:
    """Load every seed file: every installed app's steps, in one transaction. Returns a line per
    thing created (empty when nothing was new)."""
    autodiscover_modules("seeding")
    demo = load_seed("demo_casino.json")
    report: list[str] = []
    with transaction.atomic():
        for step in seed_steps():
            step(demo, report)
    return report
