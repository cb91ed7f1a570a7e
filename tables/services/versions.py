"""Rule-set and side-bet paytable versions: proposed by one person, approved by a second (with the
main game's house edge in view), immutable once approved."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Max

from casino.actors import Actor, require_staff
from casino.errors import InvalidConfigurationError
from casino.four_eyes import (
    approval_audit_fields,
)
from casino.models import Game, RuleSet, RuleSetVersion
from games.blackjack.rules import ruleset_from_dict
from games.canasta import preset as canasta_preset
from games.errors import InvalidRuleSetError
from tables.errors import HouseEdgeNotComputedError
from tables.locking import (
    paytable_lock,
    paytable_version_lock,
    rule_set_lock,
    rule_set_version_lock,
)
from tables.models import SideBetPaytable, SideBetPaytableVersion
from tables.odds_jobs import main_game_edge, main_game_edge_start
from tables.services.config_changes import config_approval_decide, config_approval_request, venue_of

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
