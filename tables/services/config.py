"""Versioned configuration: rule set versions, side-bet paytable versions, and each table's
configuration version (rule set and paytable versions, limits per bet type, table settings).

A version is immutable once approved; a table's current version is its highest approved one,
and a round copies the current version when it opens, so a change takes effect from the next
round. Every change is audited with old and new values.

Four eyes (``casino.four_eyes``, the policy in ``casino/controls.toml``, ``docs/controls.md``):
every new rule-set or paytable version, and every change of a table's configuration that weakens
a control or moves a limit beyond the step, waits as a ``casino.Approval`` linked from the row
that waits (``config_change_waits_for``, ``config_approval_request``, ``config_approval_decide``:
the shape any configuration of a table follows); its requester never decides it.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.db.models.signals import post_save
from django.dispatch import receiver

from casino.errors import InvalidConfigurationError
from casino.models import Game, RuleSetVersion, Table
from games.blackjack.betting import StakeLimits
from games.blackjack.rules import RuleSet as EngineRuleSet
from games.blackjack.rules import ruleset_from_dict
from games.errors import InvalidRuleSetError
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigVersion

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
VERSION_FIELDS = ("rule_set_version", "perfect_pairs_version", "twenty_one_plus_three_version")
# A limit moved by more than this (EUR 1,000.00) waits for a second person; the setting
# TABLE_LIMIT_CHANGE_APPROVAL_MINOR overrides it.
DEFAULT_LIMIT_CHANGE_APPROVAL_MINOR = 100_000


def table_config_current(table: Table) -> TableConfigVersion | None:
    """The table's current (latest approved) configuration version, with its rule set and
    paytable versions: one query for its id, the version itself from ``config_get``'s cache.
    The instance is shared: read it, never change it."""
    config_id = config_current_ids(table.pk).first()
    return config_get(config_id) if config_id is not None else None


def config_current_ids(table: Any) -> QuerySet[TableConfigVersion, int]:
    """The ids of the table's approved configuration versions, the current one first (a table
    id, or ``OuterRef`` of a query that names the table: ``round_open`` reads it so)."""
    return (
        TableConfigVersion.objects.filter(table_id=table, approved_at__isnull=False)
        .order_by("-number")
        .values_list("pk", flat=True)
    )


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
        if rule_version.rule_set.game == Game.CANASTA:
            # A canasta table's rule set is part of its own configuration, changed through four
            # eyes with the rest of it (cardroom.services.config).
            raise InvalidConfigurationError(
                "a canasta table's rule set is changed with its canasta configuration"
            )
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
    the side bet. A canasta rule set runs no round (``invalid_configuration``): its games are
    ``cardroom.services.games``'s."""
    if rule_set_version.rule_set.game != Game.BLACKJACK:
        raise InvalidConfigurationError("a canasta table plays canasta games, not blackjack rounds")
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


def limit_change_approval_step_minor() -> int:
    """A limit moved by more than this many minor units waits for a second person."""
    return int(getattr(settings, "TABLE_LIMIT_CHANGE_APPROVAL_MINOR", DEFAULT_LIMIT_CHANGE_APPROVAL_MINOR))


def config_values(table: Table, current: TableConfigVersion | None) -> dict[str, Any]:
    """The values a new version starts from: the current version's, or the defaults."""
    if current is None:
        rule_version = table.rule_set.current_version()
        if rule_version is None:
            raise InvalidConfigurationError(f"rule set {table.rule_set} has no approved version")
        return {
            **DEFAULT_LIMITS,
            **DEFAULT_SETTINGS,
            "rule_set_version": rule_version,
            "perfect_pairs_version": _default_paytable(SideBetPaytable.Kind.PERFECT_PAIRS),
            "twenty_one_plus_three_version": _default_paytable(SideBetPaytable.Kind.TWENTY_ONE_PLUS_THREE),
        }
    values: dict[str, Any] = {
        name: getattr(current, name)
        for name in (*TableConfigVersion.LIMIT_FIELDS, *TableConfigVersion.SETTING_FIELDS)
    }
    values["rule_set_version"] = current.rule_set_version
    values["perfect_pairs_version"] = current.perfect_pairs_version
    values["twenty_one_plus_three_version"] = current.twenty_one_plus_three_version
    return values


def changes_checked(values: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``values`` with ``changes`` applied, validated (``invalid_configuration``)."""
    known = {*TableConfigVersion.LIMIT_FIELDS, *TableConfigVersion.SETTING_FIELDS, *VERSION_FIELDS}
    unknown = set(changes) - known
    if unknown:
        raise InvalidConfigurationError(f"unknown settings {sorted(unknown)}")
    merged = {**values, **changes}
    game = values["rule_set_version"].rule_set.game  # the table's game: its first version is its rule set's
    if merged["rule_set_version"].rule_set.game != game:
        raise InvalidConfigurationError(f"a {game} table needs a {game} rule set")
    _validate(merged)
    return merged


def changes_stored(changes: dict[str, Any]) -> dict[str, Any]:
    """Changes as JSON (versions by id), for a proposal."""
    return {
        name: (value.pk if name in VERSION_FIELDS and value is not None else value)
        for name, value in changes.items()
    }


def changes_loaded(stored: dict[str, Any]) -> dict[str, Any]:
    loaded = dict(stored)
    if loaded.get("rule_set_version") is not None:
        loaded["rule_set_version"] = RuleSetVersion.objects.get(pk=loaded["rule_set_version"])
    for name in ("perfect_pairs_version", "twenty_one_plus_three_version"):
        if loaded.get(name) is not None:
            loaded[name] = SideBetPaytableVersion.objects.get(pk=loaded[name])
    return loaded


def _default_paytable(kind: str) -> SideBetPaytableVersion | None:
    paytable = (
        SideBetPaytable.objects.filter(kind=kind, name="default").first()
        or SideBetPaytable.objects.filter(kind=kind).order_by("pk").first()
    )
    return paytable.current_version() if paytable else None
