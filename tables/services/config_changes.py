"""Changing a live table's configuration with four eyes: a change that weakens a control or moves a
limit beyond the step waits as a ``casino.Approval`` linked from the proposal (the shape any
configuration of a table follows: ``config_change_waits_for``, ``config_approval_request``,
``config_approval_decide``); its requester never decides it. The versions themselves:
tables.services.config."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import ApprovalDecidedError, InvalidConfigurationError
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request, weakened_fields
from casino.models import Approval, Casino, Table
from casino.selectors import casino_for_user
from tables.errors import ConfigChangePendingError
from tables.locking import (
    config_proposal_lock,
    table_lock,
)
from tables.models import TableConfigProposal, TableConfigVersion
from tables.services.config import (
    VERSION_FIELDS,
    changes_checked,
    changes_loaded,
    changes_stored,
    config_values,
    limit_change_approval_step_minor,
    table_config_current,
)

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
    after = changes_stored(changes)
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
        values = changes_checked(config_values(table, current), changes)
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
            values = changes_checked(config_values(table, current), changes_loaded(locked.changes))
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
