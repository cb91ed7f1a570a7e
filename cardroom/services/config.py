"""A canasta table's configuration: its versions, and a change through four eyes.

A version (``CanastaTableSettings``) holds the rule set version (the preset and its options), how
deals are run (``virtual``: the server shuffles and the players move at their terminals;
``physical``: real cards, the host enters each finished deal), the stake rules a game is agreed
within and the house fee. The highest number is current; a game copies it when it opens, so a
change takes effect from the next game (a game already open keeps what it agreed).

A staff member's change never applies on one person's word: :func:`canasta_config_change` asks
for it as a four-eyes approval (``casino.four_eyes``, kind ``canasta_config``, one pending change
per table) and :func:`canasta_config_decide` decides it: approved by a second person, it becomes
the table's next version; rejected, with a reason, nothing changes. A change that weakens a
control (``casino/controls.toml``, scope ``canasta_config``: a lower house fee, a smaller hold, a
higher stake maximum...) is named so on the approval. The system (the seeds) writes a version at
once: a fresh install has nobody to ask.

Locks: the table row, then the approval (``casino.locking`` 3, 6a), the audit chain last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from cardroom.errors import CanastaNoChangeError, NotACanastaTableError
from cardroom.models import CanastaDealKind, CanastaFeeKind, CanastaTableSettings
from casino.actors import Actor, require_staff
from casino.errors import ApprovalNotFoundError, InvalidConfigurationError
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request, weakened_fields
from casino.locking import row_lock
from casino.models import Approval, Game, RuleSetVersion, Table
from games.canasta import preset, seating
from games.errors import GameError

# The four-eyes kind of a change, and the scope of its weakening rules in casino/controls.toml.
KIND = "canasta_config"
SUBJECT_TYPE = "tables.table"
STAKE_POINTS = (1, 100)
# The settings of a canasta table that has no version yet (its rule set's current version besides).
DEFAULT_SETTINGS: dict[str, Any] = {
    "deal_kind": CanastaDealKind.VIRTUAL,
    "teams": None,
    "stake_points": 100,
    "stake_min_minor": 10,
    "stake_max_minor": 10_000,
    "max_loss_points": 10_000,
    "fee_kind": CanastaFeeKind.NONE,
    "fee_basis_points": 0,
    "fee_minor": 0,
}


def canasta_table_checked(table: Table) -> None:
    if table.game != Game.CANASTA:
        raise NotACanastaTableError(f"{table.name} is not a canasta table")


def canasta_config_current(table: Table) -> CanastaTableSettings | None:
    """The table's current version (its highest number), None before the first."""
    return (
        CanastaTableSettings.objects.filter(table=table)
        .select_related("rule_set_version__rule_set", "created_by", "approval__decided_by")
        .order_by("-number")
        .first()
    )


def canasta_config_values(table: Table) -> dict[str, Any]:
    """The values a new game of the table copies, by name (the rule set version by id): the
    current version's, or the defaults with the table's rule set's current version."""
    current = canasta_config_current(table)
    if current is not None:
        return current.values()
    version = table.rule_set.current_version()
    if version is None:
        raise InvalidConfigurationError(f"rule set {table.rule_set} has no approved version")
    return {"rule_set_version": version.pk, **DEFAULT_SETTINGS}


def canasta_config_pending(table: Table) -> Approval | None:
    """The change of the table's configuration that waits for a second person, if any."""
    return Approval.objects.filter(
        kind=KIND, subject_type=SUBJECT_TYPE, subject_id=str(table.pk), status=Approval.Status.PENDING
    ).first()


def _whole(values: Mapping[str, Any], name: str, low: int, high: int | None = None) -> None:
    value = values[name]
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        raise InvalidConfigurationError(
            f"{name} must be a whole number from {low}" + (f" to {high}" if high else "")
        )


def canasta_config_checked(values: Mapping[str, Any]) -> RuleSetVersion:
    """Refuse values no game can be played with (``invalid_configuration``); return the rule set
    version they name, whose preset and options the engine checked with the teams."""
    if values["deal_kind"] not in CanastaDealKind.values:
        raise InvalidConfigurationError(f"deal_kind must be one of {CanastaDealKind.values}")
    if values["teams"] not in (None, 2, 3):
        raise InvalidConfigurationError("teams is 2 or 3 (six players) or none")
    if values["stake_points"] not in STAKE_POINTS:
        raise InvalidConfigurationError("the stake is agreed per point (1) or per 100 points (100)")
    _whole(values, "stake_min_minor", 1)
    _whole(values, "stake_max_minor", 1)
    _whole(values, "max_loss_points", 1, 1_000_000)
    _whole(values, "fee_basis_points", 0, 10_000)
    _whole(values, "fee_minor", 0, 10**9)
    if values["stake_min_minor"] > values["stake_max_minor"]:
        raise InvalidConfigurationError("the stake minimum is above its maximum")
    if values["fee_kind"] not in CanastaFeeKind.values:
        raise InvalidConfigurationError(f"fee_kind must be one of {CanastaFeeKind.values}")
    version = (
        RuleSetVersion.objects.select_related("rule_set")
        .filter(pk=values["rule_set_version"], rule_set__game=Game.CANASTA, approved_at__isnull=False)
        .first()
    )
    if version is None:
        raise InvalidConfigurationError("a canasta table plays an approved canasta rule set version")
    try:
        seating(preset(version.rule_set.name, version.options), values["teams"])
    except GameError as error:
        raise InvalidConfigurationError(error.message) from error
    return version


def _changes_read(changes: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(changes) - set(CanastaTableSettings.VALUE_FIELDS)
    if unknown:
        raise InvalidConfigurationError(f"unknown settings {sorted(unknown)}")
    return {name: value.pk if isinstance(value, RuleSetVersion) else value for name, value in changes.items()}


def _version_write(
    *,
    table: Table,
    values: Mapping[str, Any],
    actor: Actor,
    action: str,
    approval: Approval | None = None,
) -> CanastaTableSettings:
    """The table's next version with ``values`` (the table locked by the caller), audited with
    the values before and after."""
    current = canasta_config_current(table)
    fields = {name: value for name, value in values.items() if name != "rule_set_version"}
    row = CanastaTableSettings.objects.create(
        table=table,
        number=(current.number + 1) if current else 1,
        rule_set_version_id=values["rule_set_version"],
        created_by=approval.requested_by if approval is not None else actor.user,
        approval=approval,
        **fields,
    )
    actor.audit(
        action=action,
        object_type="tables.canastatablesettings",
        object_id=row.pk,
        before=current.values() if current else None,
        after={
            "table": table.name,
            "number": row.number,
            **row.values(),
            **(approval_audit_fields(approval) if approval is not None else {}),
        },
    )
    return row


def canasta_config_change(
    *, table: Table, actor: Actor, changes: Mapping[str, Any], reason: str = ""
) -> Approval | CanastaTableSettings:
    """Ask for a change of a canasta table's configuration: the current values with ``changes``
    (``rule_set_version`` as a version or its id, ``deal_kind``, ``teams``, ``stake_points``,
    ``stake_min_minor``, ``stake_max_minor``, ``max_loss_points``, ``fee_kind``,
    ``fee_basis_points``, ``fee_minor``), checked as a game would play them.

    A staff member's change (needs ``casino.configure_tables``) waits for a second person: the
    pending approval is returned, with the changed fields before and after; audited
    ``table.canasta_config_proposed`` (with the fields that weaken a control). The system's is
    the next version at once (``table.canasta_settings_changed``).

    Locks the table row. Raises ``permission_denied``, ``not_a_canasta_table``,
    ``invalid_configuration``, ``no_change``, ``approval_pending`` (a change of this table waits:
    decide it first); a refusal writes nothing.
    """
    if not actor.system:
        require_staff(actor, "configure_tables")
    canasta_table_checked(table)
    asked = _changes_read(changes)
    with transaction.atomic():
        row_lock(Table.objects.filter(pk=table.pk))
        before = canasta_config_values(table)
        after = {**before, **asked}
        canasta_config_checked(after)
        if actor.system:
            return _version_write(
                table=table, values=after, actor=actor, action="table.canasta_settings_changed"
            )
        changed = [name for name in CanastaTableSettings.VALUE_FIELDS if after[name] != before[name]]
        if not changed:
            error = CanastaNoChangeError("nothing changed: these are the current values")
            error.status = 422
            raise error
        old = {name: before[name] for name in changed}
        new = {name: after[name] for name in changed}
        approval = approval_request(
            actor=actor,
            casino=table.casino,
            kind=KIND,
            subject_type=SUBJECT_TYPE,
            subject_id=table.pk,
            place=table.name,
            summary=f"Canasta table {table.name}: "
            + ", ".join(f"{name} {old[name]} -> {new[name]}" for name in changed),
            before=old,
            after=new,
            reason=reason,
        )
        actor.audit(
            action="table.canasta_config_proposed",
            object_type="tables.table",
            object_id=table.pk,
            before={"table": table.name, **old},
            after={
                "table": table.name,
                **new,
                "weakens": weakened_fields(scope=KIND, before=old, after=new),
                **approval_audit_fields(approval),
            },
        )
    return approval


def canasta_config_decide(
    *, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> CanastaTableSettings | None:
    """Decide a waiting change of a canasta table's configuration: approved, it is the table's
    next version (made by the requester, its approval linked), used from the next game opened,
    audited ``table.canasta_config_approved`` with the values before and after; rejected with a
    reason, nothing changes (``table.canasta_config_rejected``), and None is returned.

    Who may decide is ``casino.four_eyes``'s: ``casino.supervise_pit`` (an operator or a pit boss), never the requester
    (``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``).
    The change is checked again against the current values (``invalid_configuration``). Locks
    the table row, then the approval. Raises ``approval_not_found`` for an approval that is no
    canasta configuration change; a refusal writes nothing.
    """
    approval = Approval.objects.filter(pk=approval_id, kind=KIND, subject_type=SUBJECT_TYPE).first()
    if approval is None:
        raise ApprovalNotFoundError(f"There is no change of a canasta table's configuration {approval_id}.")
    with transaction.atomic():
        table = row_lock(Table.objects.select_related("casino").filter(pk=int(approval.subject_id)))
        if table is None:
            raise ApprovalNotFoundError(f"There is no table {approval.subject_id}.")
        decided = approval_decide(approval_id=approval.pk, actor=actor, approve=approve, reason=reason)
        if not approve:
            actor.audit(
                action="table.canasta_config_rejected",
                object_type="tables.table",
                object_id=table.pk,
                before={"table": table.name, **(decided.before or {})},
                after={"table": table.name, **(decided.after or {}), **approval_audit_fields(decided)},
            )
            return None
        values = {**canasta_config_values(table), **(decided.after or {})}
        canasta_config_checked(values)
        return _version_write(
            table=table, values=values, actor=actor, action="table.canasta_config_approved", approval=decided
        )
