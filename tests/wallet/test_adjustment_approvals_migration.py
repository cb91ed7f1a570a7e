"""The migration that links balance adjustments to four-eyes approvals keeps the history of those
that waited before: pending, approved by a second pit boss, rejected (with the reason the audit
trail gave), withdrawn by their requester; an adjustment applied at once gets no approval."""

from __future__ import annotations

import datetime as dt
import importlib
from typing import Any

from django.apps import apps
from django.utils import timezone

from casino.audit import audit_append
from casino.models import Approval
from wallet.models import AdjustmentStatus, BalanceAdjustment
from wallet.selectors import player_account

migration = importlib.import_module("wallet.migrations.0007_balanceadjustment_approval")

REQUESTED_AT = dt.datetime(2026, 3, 2, 4, 30, tzinfo=dt.UTC)  # 05:30 in Budapest: the day before's
DECIDED_AT = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def _adjustment(account: Any, requester: Any, status: str, decider: Any = None, amount: int = 60_000) -> Any:
    adjustment = BalanceAdjustment.objects.create(
        account=account,
        amount_minor=amount,
        reason=f"{status} one",
        status=status,
        requested_by=requester,
        decided_by=decider,
        decided_at=DECIDED_AT if decider else None,
    )
    BalanceAdjustment.objects.filter(pk=adjustment.pk).update(requested_at=REQUESTED_AT)
    return adjustment


def test_the_adjustments_that_waited_become_approvals_once(
    casino: Any, make_player: Any, pit_boss: Any, other_pit_boss: Any
) -> None:
    # given adjustments written before the approvals, in every state (Budapest, days from 06:00)
    casino.time_zone = "Europe/Budapest"
    casino.save(update_fields=["time_zone"])
    account = player_account(make_player(1_000, card_number="1000000077", display_name="Zoe Zimmer"))
    pending = _adjustment(account, pit_boss, AdjustmentStatus.PENDING)
    at_once = _adjustment(account, pit_boss, AdjustmentStatus.APPLIED, pit_boss, amount=100)
    approved = _adjustment(account, pit_boss, AdjustmentStatus.APPLIED, other_pit_boss)
    rejected = _adjustment(account, pit_boss, AdjustmentStatus.REJECTED, other_pit_boss)
    withdrawn = _adjustment(account, pit_boss, AdjustmentStatus.REJECTED, pit_boss)
    audit_append(
        action="wallet.adjustment_rejected",
        actor=other_pit_boss,
        object_type="wallet.balanceadjustment",
        object_id=rejected.pk,
        after={"status": "rejected", "reason": "no evidence"},
    )
    # when the migration's data step runs, twice
    migration.approvals_for_adjustments_that_waited(apps, None)
    migration.approvals_for_adjustments_that_waited(apps, None)
    # then each that waited has one approval, linked, saying who decided what and when
    rows = {
        approval.subject_id: (
            approval.status,
            approval.requested_by_id,
            approval.decided_by_id,
            approval.decided_at,
            approval.decision_reason,
        )
        for approval in Approval.objects.all()
    }
    assert rows == {
        str(pending.pk): ("pending", pit_boss.pk, None, None, ""),
        str(approved.pk): ("approved", pit_boss.pk, other_pit_boss.pk, DECIDED_AT, ""),
        str(rejected.pk): ("rejected", pit_boss.pk, other_pit_boss.pk, DECIDED_AT, "no evidence"),
        str(withdrawn.pk): ("rejected", pit_boss.pk, None, DECIDED_AT, "withdrawn by its requester"),
    }
    links = dict(BalanceAdjustment.objects.values_list("pk", "approval__subject_id"))
    assert links == {
        pending.pk: str(pending.pk),
        at_once.pk: None,
        approved.pk: str(approved.pk),
        rejected.pk: str(rejected.pk),
        withdrawn.pk: str(withdrawn.pk),
    }
    first = Approval.objects.get(subject_id=str(pending.pk))
    assert (
        first.kind,
        first.subject_type,
        first.casino_id,
        first.place,
        first.summary,
        first.amount_minor,
        first.requested_by_name,
        first.requested_at,
        first.request_reason,
        first.gaming_day,
    ) == (
        "balance_adjustment",
        "wallet.balanceadjustment",
        casino.pk,
        "1000000077",
        "Zoe Zimmer: pending one",
        60_000,
        "pitboss",
        REQUESTED_AT,
        "pending one",
        dt.date(2026, 3, 1),
    )
    assert timezone.is_aware(first.requested_at)
