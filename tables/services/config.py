"""Versioned configuration: rule set versions, side-bet paytable versions, and each table's
configuration version (rule set and paytable versions, limits per bet type, table settings).

A version is immutable once approved; a table's current version is its highest approved one,
and a round copies the current version when it opens, so a change takes effect from the next
round. Every change is audited with old and new values.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from tables.errors import InvalidConfigurationError, VersionImmutableError
from tables.games.blackjack.betting import StakeLimits
from tables.games.blackjack.rules import RuleSet as EngineRuleSet
from tables.games.blackjack.rules import ruleset_from_dict
from tables.games.errors import InvalidRuleSetError
from tables.locking import (
    paytable_lock,
    paytable_version_lock,
    rule_set_lock,
    rule_set_version_lock,
    table_lock,
)
from tables.models import (
    Game,
    RuleSet,
    RuleSetVersion,
    SideBetPaytable,
    SideBetPaytableVersion,
    Table,
    TableConfigVersion,
)
from tables.services.common import Actor, require_staff

# Limits a fresh blackjack table starts from (EUR cents).
DEFAULT_LIMITS: dict[str, int] = {
    "main_min_minor": 500,
    "main_max_minor": 500_000,
    "perfect_pairs_min_minor": 100,
    "perfect_pairs_max_minor": 10_000,
    "twenty_one_plus_three_min_minor": 100,
    "twenty_one_plus_three_max_minor": 10_000,
    "behind_min_minor": 500,
    "behind_max_minor": 100_000,
}
DEFAULT_SETTINGS: dict[str, Any] = {
    "boxes": 7,
    "boxes_per_player": 2,
    "shuffle_every_rounds": 5,
    "decision_seconds": 15,
    "betting_seconds": 30,
    "bets_behind_allowed": True,
    "payout_approval_threshold_minor": 1_000_000,
    "shoe_kind": "virtual",
    "dealer_records_decisions": False,
}
SHOE_KINDS = ("virtual", "physical")


def table_config_current(table: Table) -> TableConfigVersion | None:
    """The table's current (latest approved) configuration version, with its rule set and
    paytable versions: one query for its id, the version itself from ``config_get``'s cache.
    The instance is shared: read it, never change it."""
    config_id = (
        TableConfigVersion.objects.filter(table=table, approved_at__isnull=False)
        .order_by("-number")
        .values_list("pk", flat=True)
        .first()
    )
    return config_get(config_id) if config_id is not None else None


def _validate(values: dict[str, Any]) -> None:
    for name in TableConfigVersion.LIMIT_FIELDS:
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InvalidConfigurationError(f"{name} must be a positive whole number of minor units")
    for kind in ("main", "perfect_pairs", "twenty_one_plus_three", "behind"):
        if values[f"{kind}_min_minor"] > values[f"{kind}_max_minor"]:
            raise InvalidConfigurationError(f"the {kind} minimum is above its maximum")
    checks = {
        "boxes": (1, 7),
        "boxes_per_player": (1, 7),
        "shuffle_every_rounds": (3, 6),
        "decision_seconds": (3, 600),
        "betting_seconds": (3, 600),
    }
    for name, (low, high) in checks.items():
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidConfigurationError(f"{name} must be {low} to {high}")
    if values["boxes_per_player"] > values["boxes"]:
        raise InvalidConfigurationError("boxes_per_player cannot exceed boxes")
    for name in ("bets_behind_allowed", "dealer_records_decisions"):
        if not isinstance(values[name], bool):
            raise InvalidConfigurationError(f"{name} must be true or false")
    threshold = values["payout_approval_threshold_minor"]
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise InvalidConfigurationError("payout_approval_threshold_minor must be a whole number >= 0")
    if values["shoe_kind"] not in SHOE_KINDS:
        raise InvalidConfigurationError(f"shoe_kind must be one of {SHOE_KINDS}")
    rule_version = values["rule_set_version"]
    if rule_version.approved_at is None:
        raise InvalidConfigurationError("the rule set version is not approved")
    for name in ("perfect_pairs_version", "twenty_one_plus_three_version"):
        paytable_version = values[name]
        if paytable_version is not None and paytable_version.approved_at is None:
            raise InvalidConfigurationError(f"{name} is not approved")
    try:
        rules_for(
            values["rule_set_version"],
            values["perfect_pairs_version"],
            values["twenty_one_plus_three_version"],
            values,
        )
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error


def rules_for(
    rule_set_version: RuleSetVersion,
    perfect_pairs_version: SideBetPaytableVersion | None,
    twenty_one_plus_three_version: SideBetPaytableVersion | None,
    settings: dict[str, Any],
) -> EngineRuleSet:
    """The engine rule set a round runs: the rule set version's options, with the table's boxes,
    boxes per player and bets behind, and the table's paytable versions where the options offer
    the side bet."""
    options = dict(rule_set_version.options)
    options["name"] = rule_set_version.rule_set.name
    options["boxes"] = settings["boxes"]
    options["boxes_per_player"] = settings["boxes_per_player"]
    options["bet_behind"] = bool(options.get("bet_behind", True)) and settings["bets_behind_allowed"]
    rules = ruleset_from_dict(options)
    overrides: dict[str, Any] = {}
    if rules.perfect_pairs is not None and perfect_pairs_version is not None:
        overrides["perfect_pairs"] = perfect_pairs_version.payouts
    if rules.twenty_one_plus_three is not None and twenty_one_plus_three_version is not None:
        overrides["twenty_one_plus_three"] = twenty_one_plus_three_version.payouts
    return rules.with_overrides(overrides) if overrides else rules


_RULES_CACHE: dict[str, EngineRuleSet] = {}
_RULES_BY_CONFIG: dict[int, EngineRuleSet] = {}


_CONFIG_CACHE: dict[int, TableConfigVersion] = {}


def config_get(config_id: int) -> TableConfigVersion:
    """A configuration version with its rule set and paytable versions. Approved versions are
    immutable, so they are cached in the process; the cache forgets an id whenever a version is
    saved under it (a rolled-back id reused, in tests)."""
    config = _CONFIG_CACHE.get(config_id)
    if config is None:
        config = TableConfigVersion.objects.select_related(
            "rule_set_version__rule_set", "perfect_pairs_version", "twenty_one_plus_three_version"
        ).get(pk=config_id)
        if config.approved_at is not None and len(_CONFIG_CACHE) < 10_000:
            _CONFIG_CACHE[config_id] = config
    return config


@receiver(post_save, sender=TableConfigVersion)
def _config_saved(sender: Any, instance: TableConfigVersion, **kwargs: Any) -> None:
    _CONFIG_CACHE.pop(instance.pk, None)
    _RULES_BY_CONFIG.pop(instance.pk, None)


def config_limits(config: TableConfigVersion) -> StakeLimits:
    """The table's stake limits per bet type of a configuration version (rules 2.8), as the
    engine's bet check takes them."""
    return StakeLimits(
        main=(config.main_min_minor, config.main_max_minor),
        behind=(config.behind_min_minor, config.behind_max_minor),
        perfect_pairs=(config.perfect_pairs_min_minor, config.perfect_pairs_max_minor),
        twenty_one_plus_three=(
            config.twenty_one_plus_three_min_minor,
            config.twenty_one_plus_three_max_minor,
        ),
    )


def config_rules(config: TableConfigVersion) -> EngineRuleSet:
    """The engine rule set of a configuration version, cached by content (building and checking
    a rule set costs more than the query), and by id for an approved (immutable) version: every
    bet asks, and the content's key costs a JSON encoding of the options."""
    if config.approved_at is not None and config.pk in _RULES_BY_CONFIG:
        return _RULES_BY_CONFIG[config.pk]
    key = json.dumps(
        [
            config.rule_set_version.rule_set.name,
            config.rule_set_version.options,
            config.perfect_pairs_version.payouts if config.perfect_pairs_version else None,
            config.twenty_one_plus_three_version.payouts if config.twenty_one_plus_three_version else None,
            [getattr(config, name) for name in TableConfigVersion.SETTING_FIELDS],
        ],
        sort_keys=True,
    )
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _config_rules(config)
        if len(_RULES_CACHE) < 1000:
            _RULES_CACHE[key] = rules
    if config.approved_at is not None and len(_RULES_BY_CONFIG) < 10_000:
        _RULES_BY_CONFIG[config.pk] = rules
    return rules


def _config_rules(config: TableConfigVersion) -> EngineRuleSet:
    return rules_for(
        config.rule_set_version,
        config.perfect_pairs_version,
        config.twenty_one_plus_three_version,
        {name: getattr(config, name) for name in TableConfigVersion.SETTING_FIELDS},
    )


def table_config_change(
    *, table: Table, actor: Actor, changes: dict[str, Any], action: str = "table.config_changed"
) -> TableConfigVersion:
    """Make and approve a new configuration version of a table from the current one plus
    ``changes`` (limit and setting fields, ``rule_set_version``, ``perfect_pairs_version``,
    ``twenty_one_plus_three_version``). Takes effect from the next round opened.

    Needs ``casino.configure_tables``. Locks the table row (two changes never get one number).
    Audited with the old and new values (``before`` is null for the first version).
    Raises ``permission_denied``, ``invalid_configuration``.
    """
    if not actor.system:
        require_staff(actor, "configure_tables")
    known = {
        *TableConfigVersion.LIMIT_FIELDS,
        *TableConfigVersion.SETTING_FIELDS,
        "rule_set_version",
        "perfect_pairs_version",
        "twenty_one_plus_three_version",
    }
    unknown = set(changes) - known
    if unknown:
        raise InvalidConfigurationError(f"unknown settings {sorted(unknown)}")
    with transaction.atomic():
        table_lock(table.pk)
        current = table_config_current(table)
        values: dict[str, Any]
        if current is None:
            rule_version = table.rule_set.current_version()
            if rule_version is None:
                raise InvalidConfigurationError(f"rule set {table.rule_set} has no approved version")
            values = {
                **DEFAULT_LIMITS,
                **DEFAULT_SETTINGS,
                "rule_set_version": rule_version,
                "perfect_pairs_version": _default_paytable(SideBetPaytable.Kind.PERFECT_PAIRS),
                "twenty_one_plus_three_version": _default_paytable(
                    SideBetPaytable.Kind.TWENTY_ONE_PLUS_THREE
                ),
            }
        else:
            values = {
                name: getattr(current, name)
                for name in (*TableConfigVersion.LIMIT_FIELDS, *TableConfigVersion.SETTING_FIELDS)
            }
            values["rule_set_version"] = current.rule_set_version
            values["perfect_pairs_version"] = current.perfect_pairs_version
            values["twenty_one_plus_three_version"] = current.twenty_one_plus_three_version
        values.update(changes)
        if values["rule_set_version"].rule_set.game != Game.BLACKJACK:
            raise InvalidConfigurationError("a blackjack table needs a blackjack rule set")
        _validate(values)
        version = TableConfigVersion.objects.create(
            table=table,
            number=(current.number + 1) if current else 1,
            approved_at=timezone.now(),
            approved_by=actor.user,
            **values,
        )
        before = current.values() if current else None
        after = version.values()
        actor.audit(
            action=action,
            object_type="tables.tableconfigversion",
            object_id=version.pk,
            before=before,
            after={"table": table.name, "number": version.number, **after},
        )
    return version


def _default_paytable(kind: str) -> SideBetPaytableVersion | None:
    paytable = (
        SideBetPaytable.objects.filter(kind=kind, name="default").first()
        or SideBetPaytable.objects.filter(kind=kind).order_by("pk").first()
    )
    return paytable.current_version() if paytable else None


def table_limits_change(*, table: Table, actor: Actor, limits: dict[str, int]) -> TableConfigVersion:
    """Change the stake limits (``main_min_minor`` ... ``behind_max_minor``); see table_config_change."""
    unknown = set(limits) - set(TableConfigVersion.LIMIT_FIELDS)
    if unknown:
        raise InvalidConfigurationError(f"unknown limits {sorted(unknown)}")
    return table_config_change(table=table, actor=actor, changes=limits, action="table.limits_changed")


def table_settings_change(*, table: Table, actor: Actor, settings: dict[str, Any]) -> TableConfigVersion:
    """Change table settings (boxes, boxes_per_player, shuffle_every_rounds, decision_seconds,
    betting_seconds, bets_behind_allowed, payout_approval_threshold_minor, shoe_kind) and the
    rule set / paytable versions; see table_config_change."""
    return table_config_change(table=table, actor=actor, changes=settings, action="table.settings_changed")


def rule_set_version_create(
    *, rule_set: RuleSet, options: dict[str, Any], actor: Actor, source: str = ""
) -> RuleSetVersion:
    """A new draft version of a rule set (not used by any table until approved). Options are
    checked by the engine (``invalid_configuration``). Needs ``casino.configure_tables``."""
    require_staff(actor, "configure_tables")
    if rule_set.game == Game.BLACKJACK:
        try:
            ruleset_from_dict({**options, "name": rule_set.name})
        except InvalidRuleSetError as error:
            raise InvalidConfigurationError(error.message) from error
    with transaction.atomic():
        rule_set_lock(rule_set.pk)
        number = (rule_set.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        version = RuleSetVersion.objects.create(
            rule_set=rule_set, number=number, options=options, source=source
        )
        actor.audit(
            action="ruleset.version_created",
            object_type="tables.rulesetversion",
            object_id=version.pk,
            after={"rule_set": rule_set.name, "number": number, "options": options},
        )
    return version


def rule_set_version_approve(*, version: RuleSetVersion, actor: Actor) -> RuleSetVersion:
    """Approve a draft: from now on it is immutable and tables may use it. Audited with the
    options of the version it replaces. Raises ``version_immutable`` if already approved."""
    require_staff(actor, "configure_tables")
    with transaction.atomic():
        locked = rule_set_version_lock(version.pk)
        if locked.approved_at is not None:
            raise VersionImmutableError(f"{locked} is already approved")
        previous = locked.rule_set.current_version()
        RuleSetVersion.objects.filter(pk=locked.pk).update(approved_at=timezone.now(), approved_by=actor.user)
        actor.audit(
            action="ruleset.version_approved",
            object_type="tables.rulesetversion",
            object_id=locked.pk,
            before={"options": previous.options, "number": previous.number} if previous else None,
            after={"rule_set": locked.rule_set.name, "number": locked.number, "options": locked.options},
        )
    return RuleSetVersion.objects.get(pk=version.pk)


def paytable_version_create(
    *, paytable: SideBetPaytable, payouts: dict[str, int], actor: Actor
) -> SideBetPaytableVersion:
    """A new draft paytable version (X of X:1 per outcome), checked by the engine."""
    require_staff(actor, "configure_tables")
    key = "perfect_pairs" if paytable.kind == SideBetPaytable.Kind.PERFECT_PAIRS else "twenty_one_plus_three"
    try:
        ruleset_from_dict({key: payouts})
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error
    with transaction.atomic():
        paytable_lock(paytable.pk)
        number = (paytable.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        version = SideBetPaytableVersion.objects.create(paytable=paytable, number=number, payouts=payouts)
        actor.audit(
            action="paytable.version_created",
            object_type="tables.sidebetpaytableversion",
            object_id=version.pk,
            after={"paytable": paytable.name, "kind": paytable.kind, "number": number, "payouts": payouts},
        )
    return version


def paytable_version_approve(*, version: SideBetPaytableVersion, actor: Actor) -> SideBetPaytableVersion:
    """Approve a draft paytable version (immutable afterwards). Raises ``version_immutable``."""
    require_staff(actor, "configure_tables")
    with transaction.atomic():
        locked = paytable_version_lock(version.pk)
        if locked.approved_at is not None:
            raise VersionImmutableError(f"{locked} is already approved")
        previous = locked.paytable.current_version()
        SideBetPaytableVersion.objects.filter(pk=locked.pk).update(
            approved_at=timezone.now(), approved_by=actor.user
        )
        actor.audit(
            action="paytable.version_approved",
            object_type="tables.sidebetpaytableversion",
            object_id=locked.pk,
            before={"payouts": previous.payouts, "number": previous.number} if previous else None,
            after={"paytable": locked.paytable.name, "number": locked.number, "payouts": locked.payouts},
        )
    return SideBetPaytableVersion.objects.get(pk=version.pk)
