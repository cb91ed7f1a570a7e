"""A pit boss's correction of a player's balance, with a reason; above the threshold it waits for a
second person's approval (four eyes)."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import ApprovalNotFoundError
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request
from casino.gaming_day_state import gaming_day_writable
from casino.models import Casino, Player
from wallet.locking import accounts_lock, adjustment_lock, spec_of
from wallet.models import Account, AccountKind, AdjustmentStatus, BalanceAdjustment, TransferKind
from wallet.services.ledger import (
    Written,
    accounts_by_id,
    accounts_by_spec,
    audited,
    player_spec,
    require_amount,
    require_reason,
    transfer_write,
    venue_spec,
)

DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR = 50_000
# The four-eyes kind of an adjustment above the threshold (casino/controls.toml).
ADJUSTMENT_APPROVAL_KIND = "balance_adjustment"


def adjustment_approval_threshold_minor() -> int:
    return int(
        getattr(settings, "ADJUSTMENT_APPROVAL_THRESHOLD_MINOR", DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR)
    )


def balance_adjust(*, player: Player, amount_minor: int, reason: str, actor: Actor) -> BalanceAdjustment:
    """A pit boss corrects a player's balance (house <-> player) with a reason.

    Up to the threshold (setting ``ADJUSTMENT_APPROVAL_THRESHOLD_MINOR``, default 50 000, compared
    with the absolute amount) it applies at once; above it, it is recorded as pending, waits for a
    second person as a four-eyes approval (``casino.four_eyes``, kind ``balance_adjustment``,
    linked by ``BalanceAdjustment.approval``) and moves nothing until it is approved
    (``adjustment_approve``). Needs ``casino.adjust_balance``. Locks the player and house accounts
    (id order), then the audit chain. Raises ``reason_required``, ``invalid_amount`` (zero),
    ``insufficient_funds`` (a debit beyond the available balance), ``permission_denied``.
    """
    requested_by = require_staff(actor, "adjust_balance")
    require_amount(amount_minor, positive=False)
    reason = require_reason(reason)
    casino = player.casino
    applies_now = abs(amount_minor) <= adjustment_approval_threshold_minor()
    with transaction.atomic():
        gaming_day_writable(casino=casino)
        locked = accounts_lock(casino=casino, specs=[player_spec(player), venue_spec(AccountKind.HOUSE)])
        player_account = accounts_by_spec(locked)[player_spec(player)]
        written = None
        if applies_now:
            written = _adjustment_transfer(
                casino=casino,
                accounts=locked,
                player_account=player_account,
                amount_minor=amount_minor,
                reason=reason,
                actor=actor,
            )
        transfer = written.transfer if written else None
        adjustment = BalanceAdjustment.objects.create(
            account=player_account,
            amount_minor=amount_minor,
            reason=reason,
            status=AdjustmentStatus.APPLIED if applies_now else AdjustmentStatus.PENDING,
            requested_by=requested_by,
            decided_by=requested_by if applies_now else None,
            decided_at=timezone.now() if applies_now else None,
            transfer=transfer,
        )
        approval = None
        if not applies_now:
            approval = approval_request(
                actor=actor,
                casino=casino,
                kind=ADJUSTMENT_APPROVAL_KIND,
                subject_type="wallet.balanceadjustment",
                subject_id=adjustment.pk,
                place=player.card_number,
                summary=f"{player.display_name}: {reason}",
                amount_minor=amount_minor,
                after={"player_id": player.pk, "amount_minor": amount_minor},
                reason=reason,
            )
            BalanceAdjustment.objects.filter(pk=adjustment.pk).update(approval=approval)
            adjustment.approval = approval
        actor.audit(
            action="wallet.adjustment_applied" if applies_now else "wallet.adjustment_requested",
            object_type="wallet.balanceadjustment",
            object_id=adjustment.pk,
            after={
                "adjustment_id": adjustment.pk,
                "status": adjustment.status,
                "transfer_id": transfer.pk if transfer else None,
                "player_id": player.pk,
                "amount_minor": amount_minor,
                "reason": reason,
                "approval_id": approval.pk if approval else None,
                **audited(written),
            },
        )
    return adjustment


def _adjustment_transfer(
    *,
    casino: Casino,
    accounts: Sequence[Account],
    player_account: Account,
    amount_minor: int,
    reason: str,
    actor: Actor,
) -> Written:
    house = accounts_by_spec(accounts)[venue_spec(AccountKind.HOUSE)]
    return transfer_write(
        casino=casino,
        kind=TransferKind.ADJUSTMENT,
        accounts=accounts_by_id(accounts),
        amounts={house.pk: -amount_minor, player_account.pk: amount_minor},
        created_by=actor.user,
        memo=reason,
    )


def adjustment_approve(*, adjustment: BalanceAdjustment, actor: Actor) -> BalanceAdjustment:
    """A second person approves a pending adjustment; its money moves now.

    Who may decide is the four-eyes capability's rule (``casino.four_eyes.approval_decide``): the
    approver holds ``casino.adjust_balance`` (``permission_denied``) and is not the requester
    (``four_eyes_required``). Locks the adjustment's approval, then the adjustment row, then the
    accounts, then the audit chain. An adjustment is decided once: a second approval finds it
    decided and is refused with ``approval_decided``, moving nothing; one applied at once waits
    for no one (``approval_not_found``). Raises those, and ``insufficient_funds``."""
    return _adjustment_decide(adjustment=adjustment, actor=actor, approve=True)


def adjustment_reject(*, adjustment: BalanceAdjustment, actor: Actor, reason: str) -> BalanceAdjustment:
    """A second person rejects a pending adjustment, with a reason (moves nothing). The same
    rules and locks as ``adjustment_approve`` (nobody decides their own request, not even to
    withdraw it), and ``reason_required``."""
    return _adjustment_decide(adjustment=adjustment, actor=actor, approve=False, reason=reason)


def _adjustment_decide(
    *, adjustment: BalanceAdjustment, actor: Actor, approve: bool, reason: str = ""
) -> BalanceAdjustment:
    with transaction.atomic():
        gaming_day_writable(casino=adjustment.account.casino)
        if adjustment.approval_id is None:
            raise ApprovalNotFoundError(f"Adjustment {adjustment.pk} waits for no one's approval.")
        approval = approval_decide(
            approval_id=adjustment.approval_id, actor=actor, approve=approve, reason=reason
        )
        locked_adjustment = adjustment_lock(adjustment.pk)
        player_account = locked_adjustment.account
        written = None
        if approve:
            casino = Casino.objects.get(pk=player_account.casino_id)
            locked = accounts_lock(
                casino=casino, specs=[spec_of(player_account), venue_spec(AccountKind.HOUSE)]
            )
            written = _adjustment_transfer(
                casino=casino,
                accounts=locked,
                player_account=accounts_by_id(locked)[player_account.pk],
                amount_minor=locked_adjustment.amount_minor,
                reason=locked_adjustment.reason,
                actor=actor,
            )
        status = AdjustmentStatus.APPLIED if approve else AdjustmentStatus.REJECTED
        BalanceAdjustment.objects.filter(pk=adjustment.pk).update(
            status=status,
            decided_by=approval.decided_by,
            decided_at=approval.decided_at,
            transfer=written.transfer if written else None,
        )
        actor.audit(
            action="wallet.adjustment_approved" if approve else "wallet.adjustment_rejected",
            object_type="wallet.balanceadjustment",
            object_id=adjustment.pk,
            before={"status": AdjustmentStatus.PENDING},
            after={
                "adjustment_id": adjustment.pk,
                "transfer_id": written.transfer.pk if written else None,
                "amount_minor": locked_adjustment.amount_minor,
                "status": status,
                **approval_audit_fields(approval),
                **audited(written),
            },
        )
    return BalanceAdjustment.objects.get(pk=adjustment.pk)
