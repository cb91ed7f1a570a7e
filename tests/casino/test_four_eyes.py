"""The four-eyes capability: who may decide, once, with a reason to reject; the policy as data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

from casino.actors import Actor
from casino.errors import (
    ApprovalDecidedError,
    ApprovalPendingError,
    FourEyesRequiredError,
    PermissionRefusedError,
    ReasonRequiredError,
)
from casino.four_eyes import (
    POLICY,
    approval_decide,
    approval_request,
    approvals_waiting_count,
    approvals_waiting_for,
    may_decide,
    weakened_fields,
)
from casino.models import Approval
from casino.roles import AUDITOR, DEALER, OPERATOR, PIT_BOSS
from tests.factories import CasinoFactory, staff_user

pytestmark = pytest.mark.django_db

CONTROLS_DOC = Path(__file__).resolve().parents[2] / "docs" / "controls.md"


def _payout(requester, dealer=None):  # type: ignore[no-untyped-def]
    return approval_request(
        actor=Actor.staff(requester),
        casino=CasinoFactory(),
        kind="payout",
        subject_type="tables.payoutline",
        subject_id=7,
        summary="BJ1 round 3 box 2: blackjack pays 3:2",
        amount_minor=150_000,
        excluded={"round_dealer": dealer.pk} if dealer else None,
    )


def test_a_second_pit_boss_approves_and_the_decision_is_recorded() -> None:
    asker, decider = staff_user(PIT_BOSS), staff_user(PIT_BOSS)
    approval = _payout(asker)

    decided = approval_decide(approval_id=approval.pk, actor=Actor.staff(decider), approve=True)

    approval.refresh_from_db()
    assert (approval.status, approval.decided_by, approval.requested_by) == ("approved", decider, asker)
    assert decided.decided_at is not None and approval.gaming_day == approval.casino.gaming_day(
        approval.requested_at
    )


def test_the_requester_cannot_decide_and_nothing_changes() -> None:
    asker = staff_user(PIT_BOSS)
    approval = _payout(asker)

    with pytest.raises(FourEyesRequiredError) as refused:
        approval_decide(approval_id=approval.pk, actor=Actor.staff(asker), approve=True)

    assert refused.value.code == "four_eyes_required"
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by, approval.decided_at) == ("pending", None, None)


def test_an_excluded_person_cannot_decide() -> None:
    dealer = staff_user(PIT_BOSS)  # a pit boss dealing the round
    approval = _payout(staff_user(PIT_BOSS), dealer=dealer)

    with pytest.raises(FourEyesRequiredError):
        approval_decide(approval_id=approval.pk, actor=Actor.staff(dealer), approve=True)

    assert Approval.objects.get(pk=approval.pk).status == "pending"
    assert not may_decide(approval=approval, user=dealer)


def test_without_the_kinds_permission_nobody_decides() -> None:
    approval = _payout(staff_user(PIT_BOSS))

    with pytest.raises(PermissionRefusedError) as refused:
        approval_decide(approval_id=approval.pk, actor=Actor.staff(staff_user(OPERATOR)), approve=True)

    assert refused.value.code == "permission_denied"
    assert Approval.objects.get(pk=approval.pk).status == "pending"


def test_an_auditor_never_decides_even_with_the_kinds_permission() -> None:
    approval = approval_request(
        actor=Actor.staff(staff_user(PIT_BOSS)),
        casino=CasinoFactory(),
        kind="slip_void",
        subject_type="accounting.slip",
        subject_id=3,
        summary="void of fill 12",
    )
    auditor = staff_user(AUDITOR)  # holds view_accounting, the kind's permission

    with pytest.raises(PermissionRefusedError) as refused:
        approval_decide(approval_id=approval.pk, actor=Actor.staff(auditor), approve=True)

    assert refused.value.code == "independent_role"
    assert Approval.objects.get(pk=approval.pk).status == "pending"
    assert list(approvals_waiting_for(user=auditor, casino_id=approval.casino_id)) == []


def test_a_rejection_says_why_and_a_decision_is_final() -> None:
    approval = _payout(staff_user(PIT_BOSS))
    decider = Actor.staff(staff_user(PIT_BOSS))

    with pytest.raises(ReasonRequiredError):
        approval_decide(approval_id=approval.pk, actor=decider, approve=False, reason="  ")
    assert Approval.objects.get(pk=approval.pk).status == "pending"

    approval_decide(approval_id=approval.pk, actor=decider, approve=False, reason="wrong card read")
    with pytest.raises(ApprovalDecidedError):
        approval_decide(approval_id=approval.pk, actor=decider, approve=True)
    assert Approval.objects.get(pk=approval.pk).decision_reason == "wrong card read"


def test_one_subject_waits_once() -> None:
    asker = staff_user(PIT_BOSS)
    approval = _payout(asker)

    with pytest.raises(ApprovalPendingError):
        approval_request(
            actor=Actor.staff(asker),
            casino=approval.casino,
            kind="payout",
            subject_type="tables.payoutline",
            subject_id=7,
            summary="again",
        )
    assert Approval.objects.count() == 1


def test_the_database_refuses_a_self_approval_written_around_the_service() -> None:
    asker = staff_user(PIT_BOSS)
    approval = _payout(asker)

    with pytest.raises(IntegrityError), transaction.atomic():
        Approval.objects.filter(pk=approval.pk).update(
            status="approved", decided_by=asker, decided_at=approval.requested_at
        )


def test_the_queue_holds_what_this_person_may_decide() -> None:
    asker, dealer, other = staff_user(PIT_BOSS), staff_user(PIT_BOSS), staff_user(PIT_BOSS)
    approval = _payout(asker, dealer=dealer)

    assert list(approvals_waiting_for(user=other, casino_id=approval.casino_id)) == [approval]
    assert approvals_waiting_count(user=other, casino_id=approval.casino_id) == 1
    assert approvals_waiting_count(user=asker, casino_id=approval.casino_id) == 0
    assert approvals_waiting_count(user=dealer, casino_id=approval.casino_id) == 0
    assert approvals_waiting_count(user=staff_user(DEALER), casino_id=approval.casino_id) == 0


def test_raising_the_payout_threshold_weakens_a_control_and_lowering_it_does_not() -> None:
    before = {"payout_approval_threshold_minor": 1_000_000, "main_max_minor": 50_000}

    raised = weakened_fields(
        scope="table_config", before=before, after={"payout_approval_threshold_minor": 1_000_000_000}
    )
    lowered = weakened_fields(
        scope="table_config", before=before, after={"payout_approval_threshold_minor": 500_000}
    )

    assert (raised, lowered) == (["payout_approval_threshold_minor"], [])


def test_every_entry_of_the_policy_is_in_the_controls_document() -> None:
    text = CONTROLS_DOC.read_text(encoding="utf-8")
    kinds = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M))
    fields = set(
        re.findall(r"`([a-z_]+\.[a-z_]+)` (?:raised|lowered|switched off|switched on|changed)", text)
    )

    assert kinds == set(POLICY.kinds)
    assert fields == {f"{weakening.scope}.{weakening.field}" for weakening in POLICY.weakenings}
