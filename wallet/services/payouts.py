"""Payouts that waited for a pit boss's approval: released to the player, or rejected back to the
tray, once the approval is decided."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.four_eyes import approval_audit_fields
from casino.gaming_day_state import gaming_day_writable
from casino.models import Approval, Casino
from wallet.errors import PayoutNotPendingError
from wallet.locking import AccountSpec, accounts_lock, payouts_lock
from wallet.models import Account, AccountKind, PayoutStatus, PendingPayout, Transfer, TransferKind
from wallet.services.ledger import (
    Written,
    accounts_by_id,
    accounts_by_spec,
    audited,
    table_spec,
    transfer_write,
)


def pending_payouts_decide(
    *, approvals: Sequence[Approval], actor: Actor, object_type: str = "", object_id: object = None
) -> list[Transfer]:
    """The effect of decided payout approvals (``casino.four_eyes.approval_decide``, which holds
    the rule of who may decide): each payout waiting on an approved one goes from the table's
    payouts-pending account to the player's wallet, each on a rejected one back to the tray, one
    transfer per payout (``payout_release``, ``payout_reject``). One audit record for them all,
    with each approval, naming ``object_type`` and ``object_id`` (what the deciding command acts
    on: a round; the first payout by default).

    Locks the payouts (id order), then the accounts (id order), then the audit chain: call it
    after the approvals are decided, in the deciding command's transaction. A payout is decided
    once: one that is not pending any more (or waits on no approval given) is refused with
    ``payout_not_pending``, moving nothing. An approval still pending is a caller's bug
    (``ValueError``)."""
    by_approval = {approval.pk: approval for approval in approvals}
    if any(approval.is_pending or approval.kind != "payout" for approval in approvals):
        raise ValueError("only decided payout approvals have an effect")
    with transaction.atomic():
        if approvals:
            gaming_day_writable(casino=approvals[0].casino)
        payouts = _pending_payouts_lock(by_approval)
        if not payouts:
            return []
        casino = payouts[0].table.casino
        specs = [
            table_spec(payout.table, kind)
            for payout in payouts
            for kind in (AccountKind.TABLE_PAYOUTS_PENDING, AccountKind.TABLE_TRAY)
        ]
        locked = accounts_lock(casino=casino, specs=specs, ids={payout.account_id for payout in payouts})
        accounts, by_spec = accounts_by_id(locked), accounts_by_spec(locked)
        now = timezone.now()
        written: list[Written] = []
        decided: list[dict[str, Any]] = []
        for payout in payouts:
            entry, item = _payout_decide(
                payout,
                by_approval[payout.approval_id],  # type: ignore[index]
                casino=casino,
                accounts=accounts,
                by_spec=by_spec,
                actor=actor,
                now=now,
            )
            written.append(entry)
            decided.append(item)
        actor.audit(
            action="wallet.payouts_decided",
            object_type=object_type or "wallet.pendingpayout",
            object_id=payouts[0].pk if object_id is None else object_id,
            before={"status": PayoutStatus.PENDING},
            after={
                "released_minor": sum(
                    item["amount_minor"] for item in decided if item["status"] == Approval.Status.APPROVED
                ),
                "rejected_minor": sum(
                    item["amount_minor"] for item in decided if item["status"] == Approval.Status.REJECTED
                ),
                "payouts": decided,
                **audited(*written),
            },
        )
    return [entry.transfer for entry in written]


def _pending_payouts_lock(by_approval: Mapping[int, Approval]) -> list[PendingPayout]:
    """The payouts waiting on the approvals ``by_approval``, locked (id order). Raises
    ``payout_not_pending`` for an approval no payout waits on, and for a payout decided already."""
    payouts = payouts_lock(approval_ids=by_approval)
    missing = sorted(set(by_approval) - {payout.approval_id for payout in payouts})
    if missing:
        raise PayoutNotPendingError(f"No payout waits on approval {missing[0]}.", approval_id=missing[0])
    for payout in payouts:
        if payout.status != PayoutStatus.PENDING:
            raise PayoutNotPendingError(f"Payout {payout.pk} is {payout.status}.", payout_id=payout.pk)
    return payouts


def _payout_decide(
    payout: PendingPayout,
    approval: Approval,
    *,
    casino: Casino,
    accounts: dict[int, Account],
    by_spec: Mapping[AccountSpec, Account],
    actor: Actor,
    now: dt.datetime,
) -> tuple[Written, dict[str, Any]]:
    """One payout's decision: released to the player's wallet or rejected back to the tray, from
    the table's payouts-pending account (``accounts`` locked), in one transfer. Returns the
    transfer and the payout's part of the audit record."""
    release = approval.status == approval.Status.APPROVED
    pending = by_spec[table_spec(payout.table, AccountKind.TABLE_PAYOUTS_PENDING)]
    target = payout.account_id if release else by_spec[table_spec(payout.table, AccountKind.TABLE_TRAY)].pk
    entry = transfer_write(
        casino=casino,
        kind=TransferKind.PAYOUT_RELEASE if release else TransferKind.PAYOUT_REJECT,
        accounts=accounts,
        amounts={pending.pk: -payout.amount_minor, target: payout.amount_minor},
        created_by=actor.user,
        memo=approval.decision_reason,
        reference_type=payout.reference_type,
        reference_id=payout.reference_id,
    )
    PendingPayout.objects.filter(pk=payout.pk).update(
        status=PayoutStatus.RELEASED if release else PayoutStatus.REJECTED,
        decided_transfer=entry.transfer,
        decided_by=approval.decided_by,
        decided_at=approval.decided_at or now,
        reason=approval.decision_reason,
    )
    return entry, {
        "payout_id": payout.pk,
        "bet_reference": payout.bet_reference,
        "amount_minor": payout.amount_minor,
        "transfer_id": entry.transfer.pk,
        **approval_audit_fields(approval),
    }
