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
from collections.abc import Collection, Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Model, QuerySet
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import InvalidConfigurationError
from casino.four_eyes import (
    ApprovalDecidedError,
    approval_audit_fields,
    approval_decide,
    approval_request,
    weakened_fields,
)
from casino.models import Approval, Casino, Game, RuleSet, RuleSetVersion, Table
from casino.selectors import casino_for_user
from games.blackjack.betting import StakeLimits
from games.blackjack.rules import RuleSet as EngineRuleSet
from games.blackjack.rules import ruleset_from_dict
from games.canasta import preset as canasta_preset
from games.errors import InvalidRuleSetError
from tables.errors import ConfigChangePendingError, HouseEdgeNotComputedError
from tables.locking import (
    config_proposal_lock,
    paytable_lock,
    paytable_version_lock,
    rule_set_lock,
    rule_set_version_lock,
    table_lock,
)
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.odds_jobs import main_game_edge, main_game_edge_start

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


# ------------------------------------------------------------------------------ four eyes
#
# A configuration change waits for a second person when it weakens a control (the policy,
# casino/controls.toml) or moves a limit beyond the step; every new rule-set or paytable version
# waits. The three functions below are the shape every configuration of the back office follows
# (a table's blackjack configuration here, a canasta table's settings too): which fields make a
# change wait, the request (the row that waits linked to its casino.Approval), and the decision.
# Who may decide is casino.four_eyes' alone.


def config_change_waits_for(
    *,
    scope: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    limit_fields: Collection[str] = (),
) -> list[str]:
    """The fields of a configuration change that make it wait for a second person: those whose
    change weakens a control by the policy (``casino.four_eyes.weakened_fields`` of ``scope``:
    ``"table_config"``, ``"canasta_config"``...), then those of ``limit_fields`` (amounts in
    minor units) moved by more than ``limit_change_approval_step_minor()``. ``before`` and
    ``after`` hold the changed fields' values. Empty: the change applies on its author's word."""
    waiting = weakened_fields(scope=scope, before=before, after=after)
    step = limit_change_approval_step_minor()
    for name in limit_fields:
        if name in waiting or name not in after or before.get(name) is None or after[name] is None:
            continue
        if abs(after[name] - before[name]) > step:
            waiting.append(name)
    return waiting


def config_approval_request(
    *,
    actor: Actor,
    casino: Casino,
    kind: str,
    subject: Model,
    place: str,
    summary: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any],
    reason: str = "",
) -> Approval:
    """Make ``subject``, a configuration row just written (a proposal, a draft version), wait for
    a second person: its pending ``casino.Approval`` of ``kind`` (a kind of the policy) with the
    values ``before`` and ``after`` (JSON: versions by id), asked by ``actor``, and the row's
    ``approval`` field linked to it. Call it in the requesting service's transaction, under the
    lock of what the row belongs to (the table, the rule set, the paytable); write the command's
    audit record after it. Raises ``approval_pending`` (nothing written)."""
    approval = approval_request(
        actor=actor,
        casino=casino,
        kind=kind,
        subject_type=subject._meta.label_lower,
        subject_id=subject.pk,
        place=place,
        summary=summary,
        before=before,
        after=after,
        reason=reason,
    )
    type(subject)._default_manager.filter(pk=subject.pk).update(approval=approval)
    subject.approval = approval  # type: ignore[attr-defined]  # every such row has the field
    return approval


def config_approval_decide(*, subject: Model, actor: Actor, approve: bool, reason: str = "") -> Approval:
    """Decide the approval a configuration row waits for, by ``casino.four_eyes.approval_decide``
    (the policy's permission, ``permission_denied``; never its requester, ``four_eyes_required``;
    once, ``approval_decided``; a rejection with a reason, ``reason_required``). A row the system
    made waited for nobody: it is decided already (``approval_decided``). Call it under the lock
    of the row (after what it belongs to), in the deciding service's transaction; the service
    then makes the effect (or not) and writes the audit record: a refusal raised after this
    call rolls the decision back with everything else."""
    approval_id = getattr(subject, "approval_id", None)
    if approval_id is None:
        raise ApprovalDecidedError("This was made by the system and waits for nobody.")
    return approval_decide(approval_id=approval_id, actor=actor, approve=approve, reason=reason)


def venue_of(actor: Actor) -> Casino:
    """The casino a staff member's configuration approval belongs to: rule sets and paytables
    are the venue's (one per installation, ``casino.selectors.casino_for_user``)."""
    casino = casino_for_user(actor.user) if actor.user is not None else None
    if casino is None:
        raise InvalidConfigurationError("there is no casino for this configuration to be approved in")
    return casino


# ------------------------------------------------------------------------------ a table's configuration


def _change_sides(
    current: TableConfigVersion, changes: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The changed fields as they are and as asked, as JSON (versions by id): what a proposal's
    approval and audit record show."""
    after = _changes_stored(changes)
    before = {name: getattr(current, f"{name}_id" if name in VERSION_FIELDS else name) for name in after}
    return before, after


def _change_summary(table: Table, before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    changed = "; ".join(f"{name} {before.get(name)} -> {value}" for name, value in after.items())
    return f"Configuration of {table.name}: {changed}"


def _version_write(
    *,
    table: Table,
    current: TableConfigVersion | None,
    values: dict[str, Any],
    actor: Actor,
    created_by: Any,
    action: str,
    approval: Approval | None = None,
) -> TableConfigVersion:
    version = TableConfigVersion.objects.create(
        table=table,
        number=(current.number + 1) if current else 1,
        created_by=created_by,
        approved_at=approval.decided_at if approval is not None else timezone.now(),
        approved_by=actor.user,
        approval=approval,
        **values,
    )
    after: dict[str, Any] = {"table": table.name, "number": version.number, **version.values()}
    if approval is not None:
        after.update(approval_audit_fields(approval))
    actor.audit(
        action=action,
        object_type="tables.tableconfigversion",
        object_id=version.pk,
        before=current.values() if current else None,
        after=after,
    )
    return version


def table_config_change(
    *,
    table: Table,
    actor: Actor,
    changes: dict[str, Any],
    action: str = "table.config_changed",
    reason: str = "",
) -> TableConfigVersion | TableConfigProposal:
    """Change a table's configuration from the current version plus ``changes`` (limit and
    setting fields, ``rule_set_version``, ``perfect_pairs_version``,
    ``twenty_one_plus_three_version``). Takes effect from the next round opened.

    A change that weakens a control by the policy (``casino/controls.toml``, scope
    ``table_config``: the payout approval threshold raised, the shoe made physical, the dealer
    entering the players' decisions, more rounds per shuffle) or moves a limit by more than
    ``limit_change_approval_step_minor()`` is not made: it becomes a ``TableConfigProposal``
    waiting for a second person as an approval of kind ``table_config`` (``reason``, optional,
    is the requester's), decided with ``table_config_proposal_approve`` / ``_reject``. Anything
    else is a new version at once, approved by its author. The system (seeds) changes directly.

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
        if current is not None and not actor.system:
            before, after = _change_sides(current, changes)
            waiting = config_change_waits_for(
                scope="table_config", before=before, after=after, limit_fields=TableConfigVersion.LIMIT_FIELDS
            )
            if waiting:
                assert actor.user is not None  # require_staff: a staff member asks
                proposal = TableConfigProposal.objects.create(
                    table=table, changes=after, based_on=current, created_by=actor.user
                )
                approval = config_approval_request(
                    actor=actor,
                    casino=table.casino,
                    kind="table_config",
                    subject=proposal,
                    place=table.name,
                    summary=_change_summary(table, before, after),
                    before=before,
                    after=after,
                    reason=reason,
                )
                actor.audit(
                    action="table.config_proposed",
                    object_type="tables.tableconfigproposal",
                    object_id=proposal.pk,
                    # The changed fields only, as they are and as proposed (versions by id).
                    before={"table": table.name, **before},
                    after={"table": table.name, **after, "waits_for": waiting, "approval_id": approval.pk},
                )
                return proposal
        return _version_write(
            table=table, current=current, values=values, actor=actor, created_by=actor.user, action=action
        )


def table_config_proposal_decide(
    *, proposal: TableConfigProposal, actor: Actor, approve: bool, reason: str = ""
) -> TableConfigProposal:
    """Decide a waiting configuration change (``config_approval_decide``: a pit boss or another
    operator, never its requester). Approved, it becomes the table's next version, made by the
    requester and approved by ``actor``, used from the next round (the change is checked again:
    ``invalid_configuration``); rejected (``reason`` required), the table keeps its
    configuration. Locks the table, the proposal, then its approval. Audited
    ``table.config_approved`` (the version) or ``table.config_rejected``. Returns the proposal
    as decided. Raises ``permission_denied``, ``four_eyes_required``, ``approval_decided``,
    ``reason_required``, ``invalid_configuration``; nothing is written then."""
    with transaction.atomic():
        table_lock(proposal.table_id)
        locked = config_proposal_lock(proposal.pk)
        if locked is None:
            raise TableConfigProposal.DoesNotExist(f"no configuration proposal {proposal.pk}")
        approval = config_approval_decide(subject=locked, actor=actor, approve=approve, reason=reason)
        table = locked.table
        if approve:
            current = table_config_current(table)
            values = _changes_checked(_config_values(table, current), _changes_loaded(locked.changes))
            version = _version_write(
                table=table,
                current=current,
                values=values,
                actor=actor,
                created_by=locked.created_by,
                action="table.config_approved",
                approval=approval,
            )
            TableConfigProposal.objects.filter(pk=locked.pk).update(
                status=TableConfigProposal.Status.APPROVED, version=version
            )
        else:
            TableConfigProposal.objects.filter(pk=locked.pk).update(
                status=TableConfigProposal.Status.REJECTED
            )
            actor.audit(
                action="table.config_rejected",
                object_type="tables.tableconfigproposal",
                object_id=locked.pk,
                after={"table": table.name, **locked.changes, **approval_audit_fields(approval)},
            )
    return TableConfigProposal.objects.select_related("approval", "version").get(pk=locked.pk)


def table_config_proposal_approve(*, proposal: TableConfigProposal, actor: Actor) -> TableConfigVersion:
    """Approve a waiting configuration change: the table's next version (see
    ``table_config_proposal_decide``)."""
    decided = table_config_proposal_decide(proposal=proposal, actor=actor, approve=True)
    assert decided.version is not None  # approved: its version was written
    return decided.version


def table_config_proposal_reject(
    *, proposal: TableConfigProposal, actor: Actor, reason: str
) -> TableConfigProposal:
    """Reject a waiting configuration change with a reason (see ``table_config_proposal_decide``).
    Its requester cannot withdraw it alone: a second person rejects it."""
    return table_config_proposal_decide(proposal=proposal, actor=actor, approve=False, reason=reason)


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


# ------------------------------------------------------------------------------ rule-set and paytable versions


def rule_set_version_create(
    *, rule_set: RuleSet, options: dict[str, Any], actor: Actor, source: str = ""
) -> RuleSetVersion:
    """A new draft version of a rule set, proposed by ``actor``: it waits for a second person as
    an approval of kind ``rule_set_version`` (``source``, the reason, goes with it), and no table
    uses it before. Options are checked by the engine (``invalid_configuration``). A blackjack
    version's main-game house edge starts computing at once (``tables.odds_jobs``: a background
    job run on the commit). Needs ``casino.configure_tables``. Locks the rule set."""
    require_staff(actor, "configure_tables")
    try:
        if rule_set.game == Game.BLACKJACK:
            ruleset_from_dict({**options, "name": rule_set.name})
        elif rule_set.game == Game.CANASTA:
            canasta_preset(rule_set.name, options)
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error
    casino = venue_of(actor)
    with transaction.atomic():
        rule_set_lock(rule_set.pk)
        number = (rule_set.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        current = rule_set.current_version()
        version = RuleSetVersion.objects.create(
            rule_set=rule_set, number=number, options=options, source=source, created_by=actor.user
        )
        approval = config_approval_request(
            actor=actor,
            casino=casino,
            kind="rule_set_version",
            subject=version,
            place=rule_set.name,
            summary=f"Rule set {rule_set.name} v{number}",
            before=current.options if current else None,
            after=options,
            reason=source,
        )
        if rule_set.game == Game.BLACKJACK:
            main_game_edge_start(version, actor=actor)
        actor.audit(
            action="ruleset.version_created",
            object_type="tables.rulesetversion",
            object_id=version.pk,
            after={
                "rule_set": rule_set.name,
                "number": number,
                "options": options,
                "approval_id": approval.pk,
            },
        )
    return version


def rule_set_version_approve(*, version: RuleSetVersion, actor: Actor) -> RuleSetVersion:
    """Approve a draft: from now on it is immutable and tables may use it. A blackjack version
    is approved with its main game's house edge in view: not before the edge is computed
    (``house_edge_not_computed``); the audit record keeps the edge, with the options of the
    version it replaces. Decided by ``config_approval_decide`` (a pit boss or another operator,
    never its author). Locks the version, then its approval. Raises ``permission_denied``,
    ``four_eyes_required``, ``approval_decided``, ``house_edge_not_computed``."""
    with transaction.atomic():
        locked = rule_set_version_lock(version.pk)
        approval = config_approval_decide(subject=locked, actor=actor, approve=True)
        edge = main_game_edge(locked) if locked.rule_set.game == Game.BLACKJACK else None
        if locked.rule_set.game == Game.BLACKJACK and edge is None:
            raise HouseEdgeNotComputedError(
                f"The main game's house edge of {locked} is not computed yet: approve it once it is shown."
            )
        previous = locked.rule_set.current_version()
        RuleSetVersion.objects.filter(pk=locked.pk).update(
            approved_at=approval.decided_at, approved_by=actor.user
        )
        after: dict[str, Any] = {
            "rule_set": locked.rule_set.name,
            "number": locked.number,
            "options": locked.options,
            **approval_audit_fields(approval),
        }
        if edge is not None:
            after["house_edge"] = f"{Decimal(edge.numerator) / Decimal(edge.denominator):.6f}"
        actor.audit(
            action="ruleset.version_approved",
            object_type="tables.rulesetversion",
            object_id=locked.pk,
            before={"options": previous.options, "number": previous.number} if previous else None,
            after=after,
        )
    return RuleSetVersion.objects.select_related("approval").get(pk=version.pk)


def rule_set_version_reject(*, version: RuleSetVersion, actor: Actor, reason: str) -> RuleSetVersion:
    """Reject a draft with a reason: it stays, rejected (its approval says by whom and why), and
    no table can use it. Same rights and refusals as approving (the edge aside), and
    ``reason_required``. Locks the version, then its approval."""
    with transaction.atomic():
        locked = rule_set_version_lock(version.pk)
        approval = config_approval_decide(subject=locked, actor=actor, approve=False, reason=reason)
        actor.audit(
            action="ruleset.version_rejected",
            object_type="tables.rulesetversion",
            object_id=locked.pk,
            before={"rule_set": locked.rule_set.name, "number": locked.number, "options": locked.options},
            after=approval_audit_fields(approval),
        )
    return RuleSetVersion.objects.select_related("approval").get(pk=version.pk)


def paytable_version_create(
    *, paytable: SideBetPaytable, payouts: dict[str, int], actor: Actor
) -> SideBetPaytableVersion:
    """A new draft paytable version (X of X:1 per outcome), checked by the engine, proposed by
    ``actor``: it waits for a second person as an approval of kind ``paytable_version``. Needs
    ``casino.configure_tables``. Locks the paytable."""
    require_staff(actor, "configure_tables")
    key = "perfect_pairs" if paytable.kind == SideBetPaytable.Kind.PERFECT_PAIRS else "twenty_one_plus_three"
    try:
        ruleset_from_dict({key: payouts})
    except InvalidRuleSetError as error:
        raise InvalidConfigurationError(error.message) from error
    casino = venue_of(actor)
    with transaction.atomic():
        paytable_lock(paytable.pk)
        number = (paytable.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        current = paytable.current_version()
        version = SideBetPaytableVersion.objects.create(
            paytable=paytable, number=number, payouts=payouts, created_by=actor.user
        )
        approval = config_approval_request(
            actor=actor,
            casino=casino,
            kind="paytable_version",
            subject=version,
            place=paytable.name,
            summary=f"Paytable {paytable.kind} {paytable.name} v{number}",
            before=current.payouts if current else None,
            after=payouts,
        )
        actor.audit(
            action="paytable.version_created",
            object_type="tables.sidebetpaytableversion",
            object_id=version.pk,
            after={
                "paytable": paytable.name,
                "kind": paytable.kind,
                "number": number,
                "payouts": payouts,
                "approval_id": approval.pk,
            },
        )
    return version


def paytable_version_approve(*, version: SideBetPaytableVersion, actor: Actor) -> SideBetPaytableVersion:
    """Approve a draft paytable version (immutable afterwards), decided by
    ``config_approval_decide`` (a pit boss or another operator, never its author). Locks the
    version, then its approval. Raises ``permission_denied``, ``four_eyes_required``,
    ``approval_decided``."""
    with transaction.atomic():
        locked = paytable_version_lock(version.pk)
        approval = config_approval_decide(subject=locked, actor=actor, approve=True)
        previous = locked.paytable.current_version()
        SideBetPaytableVersion.objects.filter(pk=locked.pk).update(
            approved_at=approval.decided_at, approved_by=actor.user
        )
        actor.audit(
            action="paytable.version_approved",
            object_type="tables.sidebetpaytableversion",
            object_id=locked.pk,
            before={"payouts": previous.payouts, "number": previous.number} if previous else None,
            after={
                "paytable": locked.paytable.name,
                "number": locked.number,
                "payouts": locked.payouts,
                **approval_audit_fields(approval),
            },
        )
    return SideBetPaytableVersion.objects.select_related("approval").get(pk=version.pk)


def paytable_version_reject(
    *, version: SideBetPaytableVersion, actor: Actor, reason: str
) -> SideBetPaytableVersion:
    """Reject a draft paytable version with a reason: it stays, rejected, unused. Same rights
    and refusals as approving, and ``reason_required``."""
    with transaction.atomic():
        locked = paytable_version_lock(version.pk)
        approval = config_approval_decide(subject=locked, actor=actor, approve=False, reason=reason)
        actor.audit(
            action="paytable.version_rejected",
            object_type="tables.sidebetpaytableversion",
            object_id=locked.pk,
            before={"paytable": locked.paytable.name, "number": locked.number, "payouts": locked.payouts},
            after=approval_audit_fields(approval),
        )
    return SideBetPaytableVersion.objects.select_related("approval").get(pk=version.pk)
