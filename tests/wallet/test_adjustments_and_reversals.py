"""Balance adjustments (four eyes above the threshold) and reversing transfers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Approval, AuditRecord
from tests.wallet.payouts import payout_approval, pending_payout_release
from wallet.models import Account, AccountKind, AdjustmentStatus, Transfer, TransferKind
from wallet.selectors import account_balance
from wallet.services import (
    adjustment_approve,
    adjustment_reject,
    balance_adjust,
    cage_buy_in,
    cage_cash_out,
    transfer_reverse,
)


def test_an_adjustment_up_to_the_threshold_applies_at_once(
    casino: Any, make_player: Any, pit_boss: Any
) -> None:
    player = make_player(1_000)
    adjustment = balance_adjust(
        player=player,
        amount_minor=50_000,
        reason="slot ticket not credited",
        actor=Actor.staff(pit_boss),
    )
    assert adjustment.status == AdjustmentStatus.APPLIED
    assert adjustment.transfer.kind == TransferKind.ADJUSTMENT
    assert adjustment.transfer.memo == "slot ticket not credited"
    assert account_balance(player).balance_minor == 51_000
    assert Account.objects.get(casino=casino, kind=AccountKind.HOUSE).balance_minor == -50_000
    assert AuditRecord.objects.order_by("-sequence").first().action == "wallet.adjustment_applied"


def test_a_negative_adjustment_cannot_overdraw_the_player(
    make_player: Any, pit_boss: Any, snapshot: Any
) -> None:
    player = make_player(1_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        balance_adjust(player=player, amount_minor=-1_001, reason="x", actor=Actor.staff(pit_boss))
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def test_an_adjustment_needs_a_reason(make_player: Any, pit_boss: Any, snapshot: Any) -> None:
    player = make_player(1_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        balance_adjust(player=player, amount_minor=100, reason="  ", actor=Actor.staff(pit_boss))
    assert refused.value.code == "reason_required"
    assert snapshot() == before


def test_a_cashier_cannot_adjust_balances(make_player: Any, cashier: Any, snapshot: Any) -> None:
    player = make_player(1_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        balance_adjust(player=player, amount_minor=100, reason="x", actor=Actor.staff(cashier))
    assert refused.value.code == "permission_denied"
    assert snapshot() == before


@override_settings(ADJUSTMENT_APPROVAL_THRESHOLD_MINOR=10_000)
def test_an_adjustment_above_the_threshold_waits_for_another_pit_boss(
    make_player: Any, pit_boss: Any, other_pit_boss: Any, snapshot: Any
) -> None:
    # given a request of 100.01 with a threshold of 100.00
    player = make_player(1_000)
    adjustment = balance_adjust(
        player=player, amount_minor=10_001, reason="jackpot", actor=Actor.staff(pit_boss)
    )
    # then nothing moved yet: it waits as a four-eyes approval, linked to it
    assert (adjustment.status, adjustment.transfer) == (AdjustmentStatus.PENDING, None)
    assert account_balance(player).balance_minor == 1_000
    approval = Approval.objects.get()
    assert adjustment.approval == approval
    assert (
        approval.kind,
        approval.subject_type,
        approval.subject_id,
        approval.status,
        approval.amount_minor,
        approval.requested_by,
        approval.request_reason,
        approval.place,
    ) == (
        "balance_adjustment",
        "wallet.balanceadjustment",
        str(adjustment.pk),
        "pending",
        10_001,
        pit_boss,
        "jackpot",
        player.card_number,
    )
    record = AuditRecord.objects.order_by("-sequence").first()
    assert (record.action, record.after["approval_id"]) == ("wallet.adjustment_requested", approval.pk)
    # when the requester tries to approve it, or to withdraw it: four eyes refuse, nothing changes
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        adjustment_approve(adjustment=adjustment, actor=Actor.staff(pit_boss))
    assert (refused.value.code, refused.value.status) == ("four_eyes_required", 403)
    with pytest.raises(ServiceError) as refused:
        adjustment_reject(adjustment=adjustment, actor=Actor.staff(pit_boss), reason="withdrawn")
    assert (refused.value.code, refused.value.status) == ("four_eyes_required", 403)
    assert snapshot() == before
    # when another pit boss approves it, the money moves and the approval says who and when
    approved = adjustment_approve(adjustment=adjustment, actor=Actor.staff(other_pit_boss))
    assert (approved.status, approved.decided_by) == (AdjustmentStatus.APPLIED, other_pit_boss)
    assert account_balance(player).balance_minor == 11_001
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by, approval.decided_at) == (
        "approved",
        other_pit_boss,
        approved.decided_at,
    )
    record = AuditRecord.objects.order_by("-sequence").first()
    assert (record.action, record.actor_id, record.after["approval_id"], record.after["requested_by"]) == (
        "wallet.adjustment_approved",
        other_pit_boss.pk,
        approval.pk,
        "pitboss",
    )
    # and a second approval is refused
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        adjustment_approve(adjustment=adjustment, actor=Actor.staff(other_pit_boss))
    assert refused.value.code == "approval_decided"
    assert snapshot() == before


@override_settings(ADJUSTMENT_APPROVAL_THRESHOLD_MINOR=10_000)
def test_a_rejected_adjustment_moves_nothing(make_player: Any, pit_boss: Any, other_pit_boss: Any) -> None:
    player = make_player(1_000)
    adjustment = balance_adjust(player=player, amount_minor=-20_000, reason="x", actor=Actor.staff(pit_boss))
    rejected = adjustment_reject(
        adjustment=adjustment, actor=Actor.staff(other_pit_boss), reason="no evidence"
    )
    assert (rejected.status, rejected.decided_by) == (AdjustmentStatus.REJECTED, other_pit_boss)
    assert account_balance(player).balance_minor == 1_000
    assert Transfer.objects.filter(kind=TransferKind.ADJUSTMENT).count() == 0
    approval = Approval.objects.get(pk=adjustment.approval_id)
    assert (approval.status, approval.decided_by, approval.decision_reason) == (
        "rejected",
        other_pit_boss,
        "no evidence",
    )
    assert AuditRecord.objects.order_by("-sequence").first().after["reason"] == "no evidence"


@override_settings(ADJUSTMENT_APPROVAL_THRESHOLD_MINOR=10_000)
def test_a_decided_adjustment_cannot_be_rejected_or_approved_again(
    make_player: Any, pit_boss: Any, other_pit_boss: Any, snapshot: Any
) -> None:
    # given a pending adjustment rejected once
    player = make_player(1_000)
    adjustment = balance_adjust(player=player, amount_minor=20_000, reason="x", actor=Actor.staff(pit_boss))
    adjustment_reject(adjustment=adjustment, actor=Actor.staff(other_pit_boss), reason="no evidence")
    before = snapshot()
    # when it is rejected again, or approved after all
    with pytest.raises(ServiceError) as rejected_again:
        adjustment_reject(adjustment=adjustment, actor=Actor.staff(other_pit_boss), reason="no evidence")
    with pytest.raises(ServiceError) as approved_after:
        adjustment_approve(adjustment=adjustment, actor=Actor.staff(other_pit_boss))
    # then its approval refuses both: nothing moved, nothing audited
    assert rejected_again.value.code == approved_after.value.code == "approval_decided"
    assert snapshot() == before
    assert account_balance(player).balance_minor == 1_000


@override_settings(ADJUSTMENT_APPROVAL_THRESHOLD_MINOR=10_000)
@pytest.mark.parametrize(
    ("decider", "reason", "code"),
    [("cashier", "no evidence", "permission_denied"), ("other_pit_boss", "  ", "reason_required")],
)
def test_a_refused_decision_writes_nothing(
    make_player: Any, pit_boss: Any, request: Any, snapshot: Any, decider: str, reason: str, code: str
) -> None:
    # given a pending adjustment
    player = make_player(1_000)
    adjustment = balance_adjust(player=player, amount_minor=20_000, reason="x", actor=Actor.staff(pit_boss))
    deciding = Actor.staff(request.getfixturevalue(decider))
    before = snapshot()
    # when a cashier decides it, or a pit boss rejects it without a reason
    with pytest.raises(ServiceError) as refused:
        adjustment_reject(adjustment=adjustment, actor=deciding, reason=reason)
    # then nothing is written: the adjustment and its approval still wait
    assert refused.value.code == code
    assert snapshot() == before
    assert Approval.objects.get(pk=adjustment.approval_id).status == "pending"


def test_an_adjustment_applied_at_once_waits_for_no_one(
    make_player: Any, pit_boss: Any, other_pit_boss: Any, snapshot: Any
) -> None:
    player = make_player(1_000)
    adjustment = balance_adjust(player=player, amount_minor=500, reason="x", actor=Actor.staff(pit_boss))
    assert (adjustment.approval, Approval.objects.count()) == (None, 0)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        adjustment_approve(adjustment=adjustment, actor=Actor.staff(other_pit_boss))
    assert refused.value.code == "approval_not_found"
    assert snapshot() == before


def test_a_reversal_negates_every_posting_and_points_to_the_original(
    casino: Any, make_player: Any, cashier: Any, pit_boss: Any
) -> None:
    player = make_player()
    original = cage_buy_in(player=player, amount_minor=7_000, actor=Actor.staff(cashier))
    reversal = transfer_reverse(transfer=original, reason="wrong player", actor=Actor.staff(pit_boss))
    assert (reversal.kind, reversal.reverses_id, reversal.memo) == (
        TransferKind.REVERSAL,
        original.pk,
        "wrong player",
    )
    assert sorted(reversal.postings.values_list("account_id", "amount_minor")) == sorted(
        (account_id, -amount)
        for account_id, amount in original.postings.values_list("account_id", "amount_minor")
    )
    assert account_balance(player).balance_minor == 0
    assert Account.objects.get(casino=casino, kind=AccountKind.CAGE).balance_minor == 0


def test_a_transfer_is_reversed_at_most_once(
    make_player: Any, cashier: Any, pit_boss: Any, snapshot: Any
) -> None:
    player = make_player()
    original = cage_buy_in(player=player, amount_minor=7_000, actor=Actor.staff(cashier))
    reversal = transfer_reverse(transfer=original, reason="wrong player", actor=Actor.staff(pit_boss))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        transfer_reverse(transfer=original, reason="again", actor=Actor.staff(pit_boss))
    assert refused.value.code == "transfer_already_reversed"
    with pytest.raises(ServiceError) as refused:
        transfer_reverse(transfer=reversal, reason="undo", actor=Actor.staff(pit_boss))
    assert refused.value.code == "transfer_not_reversible"
    assert snapshot() == before


def test_a_reversal_cannot_take_money_the_player_already_spent(
    make_player: Any, cashier: Any, pit_boss: Any, snapshot: Any
) -> None:
    player = make_player()
    original = cage_buy_in(player=player, amount_minor=7_000, actor=Actor.staff(cashier))
    cage_cash_out(player=player, amount_minor=5_000, actor=Actor.staff(cashier))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        transfer_reverse(transfer=original, reason="wrong player", actor=Actor.staff(pit_boss))
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def _settle_with_a_pending_payout(make_player: Any, table: Any, casino: Any, cashier: Any) -> Any:
    from wallet.services import SettlementLine, SettlementReference, hold_place, holds_settle, table_fill

    table_fill(table=table, amount_minor=100_000, actor=Actor.staff(cashier))
    player = make_player(10_000)
    hold = hold_place(player=player, amount_minor=1_000, table=table)
    line = SettlementLine(
        account_id=hold.account_id,
        hold_id=hold.pk,
        stake_minor=1_000,
        payout_minor=30_000,
        needs_approval=True,
        approval_id=payout_approval(casino),
    )
    return holds_settle(
        casino=casino,
        table=table,
        reference=SettlementReference("round", 1),
        lines=[line],
        actor=Actor.automatic("test"),
    )


def test_a_settlement_with_a_payout_awaiting_approval_cannot_be_reversed(
    make_player: Any, table: Any, casino: Any, cashier: Any, pit_boss: Any, snapshot: Any
) -> None:
    # given a settlement that parked 300.00 for approval
    settlement = _settle_with_a_pending_payout(make_player, table, casino, cashier)
    before = snapshot()
    # when a pit boss tries to reverse the settlement
    with pytest.raises(ServiceError) as refused:
        transfer_reverse(transfer=settlement.transfer, reason="misdeal", actor=Actor.staff(pit_boss))
    # then it is refused: the parked payout would stay pending with no money behind it
    assert refused.value.code == "transfer_not_reversible"
    assert snapshot() == before


def test_a_payout_release_cannot_be_reversed(
    make_player: Any, table: Any, casino: Any, cashier: Any, pit_boss: Any, other_pit_boss: Any, snapshot: Any
) -> None:
    from wallet.models import PendingPayout

    # given a released payout
    settlement = _settle_with_a_pending_payout(make_player, table, casino, cashier)
    release = pending_payout_release(
        payout=PendingPayout.objects.get(pk=settlement.pending_payout_ids[0]),
        actor=Actor.staff(pit_boss),
    )
    before = snapshot()
    # when a pit boss tries to reverse the release
    with pytest.raises(ServiceError) as refused:
        transfer_reverse(transfer=release, reason="oops", actor=Actor.staff(other_pit_boss))
    # then it is refused: the money would sit on the pending account with no payout to decide
    assert refused.value.code == "transfer_not_reversible"
    assert snapshot() == before
