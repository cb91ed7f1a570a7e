"""Versioned configuration: rule set versions, side-bet paytable versions, and each table's
configuration version (rule set and paytable versions, limits per bet type, table settings).

A version is immutable once approved; a table's current version is its highest approved one,
and a round copies the current version when it opens, so a change takes effect from the next
round. Every change is audited with old and new values.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, QuerySet
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import reason_required
from tables.errors import (
    ApprovalByRequesterRefusedError,
    ConfigChangePendingError,
    InvalidConfigurationError,
    ProposalDecidedError,
    VersionImmutableError,
)
from tables.games.blackjack.betting import StakeLimits
from tables.games.blackjack.rules import RuleSet as EngineRuleSet
from tables.games.blackjack.rules import ruleset_from_dict
from tables.games.canasta import preset as canasta_preset
from tables.games.errors import InvalidRuleSetError
from tables.locking import (
    config_proposal_lock,
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
    TableConfigProposal,
    TableConfigVersion,
)

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
            # eyes with the rest of it (tables.services.canasta_config).
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
    ``tables.services.canasta``'s."""
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


def _config_values(table: Table, current: TableConfigVersion | None) -> dict[str, Any]:
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


def _changes_checked(values: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
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


def _changes_stored(changes: dict[str, Any]) -> dict[str, Any]:
    """Changes as JSON (versions by id), for a proposal."""
    return {
        name: (value.pk if name in VERSION_FIELDS and value is not None else value)
        for name, value in changes.items()
    }


def _changes_loaded(stored: dict[str, Any]) -> dict[str, Any]:
    loaded = dict(stored)
    if loaded.get("rule_set_version") is not None:
        loaded["rule_set_version"] = RuleSetVersion.objects.get(pk=loaded["rule_set_version"])
    for name in ("perfect_pairs_version", "twenty_one_plus_three_version"):
        if loaded.get(name) is not None:
            loaded[name] = SideBetPaytableVersion.objects.get(pk=loaded[name])
    return loaded


def _needs_second_person(current: TableConfigVersion | None, values: dict[str, Any]) -> bool:
    if current is None:
        return False
    step = limit_change_approval_step_minor()
    return any(abs(values[name] - getattr(current, name)) > step for name in TableConfigVersion.LIMIT_FIELDS)


def _version_write(
    *,
    table: Table,
    current: TableConfigVersion | None,
    values: dict[str, Any],
    actor: Actor,
    created_by: Any,
    action: str,
) -> TableConfigVersion:
    version = TableConfigVersion.objects.create(
        table=table,
        number=(current.number + 1) if current else 1,
        created_by=created_by,
        approved_at=timezone.now(),
        approved_by=actor.user,
        **values,
    )
    actor.audit(
        action=action,
        object_type="tables.tableconfigversion",
        object_id=version.pk,
        before=current.values() if current else None,
        after={"table": table.name, "number": version.number, **version.values()},
    )
    return version


def table_config_change(
    *, table: Table, actor: Actor, changes: dict[str, Any], action: str = "table.config_changed"
) -> TableConfigVersion | TableConfigProposal:
    """Change a table's configuration from the current version plus ``changes`` (limit and
    setting fields, ``rule_set_version``, ``perfect_pairs_version``,
    ``twenty_one_plus_three_version``). Takes effect from the next round opened.

    A change that moves any limit by more than ``limit_change_approval_step_minor()`` is not
    made: it becomes a ``TableConfigProposal`` that a second person approves
    (``table_config_proposal_approve``); anything else is a new approved version at once. The
    system (seeds) changes directly.

    Needs ``casino.configure_tables``. Locks the table row (two changes never get one number).
    Audited with the old and new values (``before`` is null for the first version).
    Raises ``permission_denied``, ``invalid_configuration``, ``config_change_pending`` (a
    proposal of this table waits: decide it first).
    """
    if not actor.system:
        require_staff(actor, "configure_tables")
    with transaction.atomic():
        table_lock(table.pk)
        if TableConfigProposal.objects.filter(
            table=table, status=TableConfigProposal.Status.PENDING
        ).exists():
            raise ConfigChangePendingError(
                f"A change of {table.name}'s configuration waits for approval: approve or reject it first."
            )
        current = table_config_current(table)
        values = _changes_checked(_config_values(table, current), changes)
        if actor.user is not None and current is not None and _needs_second_person(current, values):
            current_values = {
                **current.values(),
                **{name: getattr(current, f"{name}_id") for name in VERSION_FIELDS},
            }
            proposal = TableConfigProposal.objects.create(
                table=table, changes=_changes_stored(changes), based_on=current, created_by=actor.user
            )
            actor.audit(
                action="table.config_proposed",
                object_type="tables.tableconfigproposal",
                object_id=proposal.pk,
                # The changed fields only, as they are and as proposed (versions by id).
                before={"table": table.name, **{name: current_values[name] for name in proposal.changes}},
                after={"table": table.name, **proposal.changes},
            )
            return proposal
        return _version_write(
            table=table, current=current, values=values, actor=actor, created_by=actor.user, action=action
        )


def _proposal_locked(proposal: TableConfigProposal) -> TableConfigProposal:
    """Locks the proposal's table, then the proposal (the order table_config_change uses)."""
    table_lock(proposal.table_id)
    locked = config_proposal_lock(proposal.pk)
    if locked is None:
        raise ProposalDecidedError("This proposal no longer exists.")
    if locked.status != TableConfigProposal.Status.PENDING:
        raise ProposalDecidedError(f"This proposal is already {locked.get_status_display()}.")
    return locked


def table_config_proposal_approve(*, proposal: TableConfigProposal, actor: Actor) -> TableConfigVersion:
    """Approve a waiting configuration change: it becomes the table's next version (created by the
    proposer, approved by ``actor``), used from the next round.

    Needs ``casino.supervise_pit`` (pit bosses and operators); never the proposer
    (``approval_by_requester_refused``). Locks the table, then the proposal. Raises
    ``proposal_decided``, ``invalid_configuration`` (the change is checked again).
    """
    require_staff(actor, "supervise_pit")
    with transaction.atomic():
        locked = _proposal_locked(proposal)
        if actor.user is not None and locked.created_by_id == actor.user.pk:
            raise ApprovalByRequesterRefusedError(
                "You proposed this change: a second person must approve it."
            )
        current = table_config_current(locked.table)
        values = _changes_checked(_config_values(locked.table, current), _changes_loaded(locked.changes))
        version = _version_write(
            table=locked.table,
            current=current,
            values=values,
            actor=actor,
            created_by=locked.created_by,
            action="table.config_approved",
        )
        TableConfigProposal.objects.filter(pk=locked.pk).update(
            status=TableConfigProposal.Status.APPROVED,
            decided_by=actor.user,
            decided_at=version.approved_at,
            version=version,
        )
    return version


def table_config_proposal_reject(
    *, proposal: TableConfigProposal, actor: Actor, reason: str
) -> TableConfigProposal:
    """Reject a waiting configuration change with a reason; the table keeps its configuration.
    Needs ``casino.supervise_pit``, or is the proposer withdrawing their own. Raises ``reason_required``,
    ``proposal_decided``."""
    withdrawn = actor.user is not None and proposal.created_by_id == actor.user.pk
    if not withdrawn:
        require_staff(actor, "supervise_pit")
    reason = reason_required(reason, "Give the reason for rejecting the change.")
    with transaction.atomic():
        locked = _proposal_locked(proposal)
        TableConfigProposal.objects.filter(pk=locked.pk).update(
            status=TableConfigProposal.Status.REJECTED,
            decided_by=actor.user,
            decided_at=timezone.now(),
            decision_reason=reason,
        )
        actor.audit(
            action="table.config_rejected",
            object_type="tables.tableconfigproposal",
            object_id=locked.pk,
            after={"table": locked.table.name, **locked.changes, "reason": reason},
        )
    return TableConfigProposal.objects.get(pk=locked.pk)


def _default_paytable(kind: str) -> SideBetPaytableVersion | None:
    paytable = (
        SideBetPaytable.objects.filter(kind=kind, name="default").first()
        or SideBetPaytable.objects.filter(kind=kind).order_by("pk").first()
    )
    return paytable.current_version() if paytable else None


def table_limits_change(
    *, table: Table, actor: Actor, limits: dict[str, int]
) -> TableConfigVersion | TableConfigProposal:
    """Change the stake limits (``main_min_minor`` ... ``behind_max_minor``); see table_config_change."""
    unknown = set(limits) - set(TableConfigVersion.LIMIT_FIELDS)
    if unknown:
        raise InvalidConfigurationError(f"unknown limits {sorted(unknown)}")
    return table_config_change(table=table, actor=actor, changes=limits, action="table.limits_changed")


def table_settings_change(
    *, table: Table, actor: Actor, settings: dict[str, Any]
) -> TableConfigVersion | TableConfigProposal:
    """Change table settings (boxes, boxes_per_player, shuffle_every_rounds, decision_seconds,
    betting_seconds, bets_behind_allowed, payout_approval_threshold_minor, shoe_kind) and the
    rule set / paytable versions; see table_config_change."""
    return table_config_change(table=table, actor=actor, changes=settings, action="table.settings_changed")


def rule_set_version_create(
    *, rule_set: RuleSet, options: dict[str, Any], actor: Actor, source: str = ""
) -> RuleSetVersion:
    """A new draft version of a rule set, proposed by ``actor`` (not used by any table until a
    second person approves it). Options are checked by the engine (``invalid_configuration``).
    Needs ``casino.configure_tables``."""
    require_staff(actor, "configure_tables")
    try:
        if rule_set.game == Game.BLACKJACK:
            ruleset_from_dict({**options, "name": rule_set.name})
        elif rule_set.game == Game.CANASTA:
            canasta_preset(rule_set.name, options)
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error
    with transaction.atomic():
        rule_set_lock(rule_set.pk)
        number = (rule_set.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        version = RuleSetVersion.objects.create(
            rule_set=rule_set, number=number, options=options, source=source, created_by=actor.user
        )
        actor.audit(
            action="ruleset.version_created",
            object_type="tables.rulesetversion",
            object_id=version.pk,
            after={"rule_set": rule_set.name, "number": number, "options": options},
        )
    return version


def _second_person_checked(actor: Actor, version: RuleSetVersion | SideBetPaytableVersion) -> None:
    """The rule of every draft version: a pit boss or an operator decides it (``supervise_pit``),
    never its author; an approved version is never decided again."""
    require_staff(actor, "supervise_pit")
    if version.approved_at is not None:
        raise VersionImmutableError(f"{version} is already approved")
    if actor.user is not None and version.created_by_id == actor.user.pk:
        raise ApprovalByRequesterRefusedError("You made this version: a second person must approve it.")


def rule_set_version_approve(*, version: RuleSetVersion, actor: Actor) -> RuleSetVersion:
    """Approve a draft: from now on it is immutable and tables may use it. Audited with the
    options of the version it replaces. Needs ``casino.supervise_pit``, never the author
    (``approval_by_requester_refused``). Raises ``version_immutable`` if already approved."""
    with transaction.atomic():
        locked = rule_set_version_lock(version.pk)
        _second_person_checked(actor, locked)
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


def rule_set_version_reject(*, version: RuleSetVersion, actor: Actor, reason: str) -> None:
    """Reject a draft with a reason: it is removed (its number is free again) and the audit
    record keeps its options. Same rights and refusals as approving, ``reason_required`` too."""
    reason = reason_required(reason, "Give the reason for rejecting the version.")
    with transaction.atomic():
        locked = rule_set_version_lock(version.pk)
        _second_person_checked(actor, locked)
        actor.audit(
            action="ruleset.version_rejected",
            object_type="tables.rulesetversion",
            object_id=locked.pk,
            before={"rule_set": locked.rule_set.name, "number": locked.number, "options": locked.options},
            after={"reason": reason},
        )
        locked.delete()


def paytable_version_create(
    *, paytable: SideBetPaytable, payouts: dict[str, int], actor: Actor
) -> SideBetPaytableVersion:
    """A new draft paytable version (X of X:1 per outcome), checked by the engine, proposed by
    ``actor`` for a second person's approval. Needs ``casino.configure_tables``."""
    require_staff(actor, "configure_tables")
    key = "perfect_pairs" if paytable.kind == SideBetPaytable.Kind.PERFECT_PAIRS else "twenty_one_plus_three"
    try:
        ruleset_from_dict({key: payouts})
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error
    with transaction.atomic():
        paytable_lock(paytable.pk)
        number = (paytable.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        version = SideBetPaytableVersion.objects.create(
            paytable=paytable, number=number, payouts=payouts, created_by=actor.user
        )
        actor.audit(
            action="paytable.version_created",
            object_type="tables.sidebetpaytableversion",
            object_id=version.pk,
            after={"paytable": paytable.name, "kind": paytable.kind, "number": number, "payouts": payouts},
        )
    return version


def paytable_version_approve(*, version: SideBetPaytableVersion, actor: Actor) -> SideBetPaytableVersion:
    """Approve a draft paytable version (immutable afterwards). Needs ``casino.supervise_pit``,
    never the author (``approval_by_requester_refused``). Raises ``version_immutable``."""
    with transaction.atomic():
        locked = paytable_version_lock(version.pk)
        _second_person_checked(actor, locked)
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


def paytable_version_reject(*, version: SideBetPaytableVersion, actor: Actor, reason: str) -> None:
    """Reject a draft paytable version with a reason (removed; the audit record keeps it). Same
    rights and refusals as approving, ``reason_required`` too."""
    reason = reason_required(reason, "Give the reason for rejecting the version.")
    with transaction.atomic():
        locked = paytable_version_lock(version.pk)
        _second_person_checked(actor, locked)
        actor.audit(
            action="paytable.version_rejected",
            object_type="tables.sidebetpaytableversion",
            object_id=locked.pk,
            before={"paytable": locked.paytable.name, "number": locked.number, "payouts": locked.payouts},
            after={"reason": reason},
        )
        locked.delete()
