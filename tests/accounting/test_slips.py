"""Fills and credits: requested by a pit boss, issued by a cashier (the ledger moves), received
by someone else at the table; numbered per casino and calendar year; voids with a reason and two
signatures keep their numbers; the report of the sequence."""

from __future__ import annotations

import pytest

from accounting.models import CountKind, SlipKind, SlipSignature, SlipStep
from accounting.selectors import slip_report, slip_state
from accounting.services import (
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    slip_void_decide,
    tray_count_record,
)
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Approval, AuditRecord
from tests.accounting.conftest import (
    TRAY,
    closer_signed_as_before,
    counted,
    received,
    snapshot,
    tray_balance,
)
from wallet.models import Account, AccountKind, Transfer, TransferKind

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("bj1_open")]

FILL = {10_000: 500_000, 2_500: 100_000}  # 6 000.00


def cage_balance(table) -> int:
    return Account.objects.get(casino=table.casino, kind=AccountKind.CAGE).balance_minor


def test_a_fill_is_requested_issued_and_received_and_moves_the_chips_once(table, pit_boss, cashier, dealer):
    tray, cage = tray_balance(table), cage_balance(table)
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    assert (slip.number, slip.total_minor, slip_state(slip)) == (1, 600_000, "requested")
    assert tray_balance(table) == tray  # nothing moves at the request
    issue = slip_issue(slip=slip, actor=Actor.staff(cashier))
    assert (tray_balance(table), cage_balance(table)) == (tray + 600_000, cage - 600_000)
    assert issue.transfer.kind == TransferKind.TABLE_FILL
    # the ledger's transfer names its slip
    assert (issue.transfer.reference_type, issue.transfer.reference_id) == ("accounting.slip", str(slip.pk))
    slip_receive(slip=slip, actor=Actor.staff(dealer))
    assert slip_state(slip) == "received"
    assert list(slip.signatures.values_list("step", "role", "signer__username")) == [
        ("requested", "pit_boss", "pitboss-1"),
        ("issued", "cashier", "cashier-1"),
        ("received", "dealer", "dealer-1"),
    ]
    assert tray_balance(table) == tray + 600_000
    assert list(
        AuditRecord.objects.filter(action__startswith="accounting.slip").values_list("action", flat=True)
    ) == [
        "accounting.slip_requested",
        "accounting.slip_issued",
        "accounting.slip_received",
    ]


def test_a_credit_takes_the_chips_back_to_the_cage(table, pit_boss, cashier, dealer):
    tray = tray_balance(table)
    slip = received(table, SlipKind.CREDIT, {50_000: 1_000_000}, pit_boss, cashier, dealer)
    assert tray_balance(table) == tray - 1_000_000
    transfer = SlipSignature.objects.get(slip=slip, step=SlipStep.ISSUED).transfer
    assert (transfer.kind, transfer.reference_type, transfer.reference_id) == (
        TransferKind.TABLE_CREDIT,
        "accounting.slip",
        str(slip.pk),
    )


def test_a_credit_above_the_tray_is_refused_and_records_nothing(table, pit_boss, cashier):
    slip = slip_request(
        table=table, kind=SlipKind.CREDIT, amounts={50_000: 2_500_000}, actor=Actor.staff(pit_boss)
    )
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        slip_issue(slip=slip, actor=Actor.staff(cashier))
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before
    assert slip_state(slip) == "requested"


def test_each_step_is_signed_by_its_role(table, pit_boss, cashier, dealer):
    before = snapshot()
    with pytest.raises(ServiceError) as dealer_requests:
        slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(dealer))
    with pytest.raises(ServiceError) as cashier_requests:
        slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(cashier))
    assert (dealer_requests.value.code, cashier_requests.value.code) == (
        "permission_denied",
        "permission_denied",
    )
    assert snapshot() == before
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    before = snapshot()
    with pytest.raises(ServiceError) as pit_boss_issues:
        slip_issue(slip=slip, actor=Actor.staff(pit_boss))
    with pytest.raises(ServiceError) as received_early:
        slip_receive(slip=slip, actor=Actor.staff(dealer))
    assert (pit_boss_issues.value.code, received_early.value.code) == (
        "permission_denied",
        "slip_step_refused",
    )
    assert snapshot() == before
    slip_issue(slip=slip, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as cashier_receives:
        slip_receive(slip=slip, actor=Actor.staff(cashier))
    assert cashier_receives.value.code == "permission_denied"
    with pytest.raises(ServiceError) as issued_twice:
        slip_issue(slip=slip, actor=Actor.staff(cashier))
    assert issued_twice.value.code == "slip_step_refused"
    # the seed's fill of the tray and this one
    assert Transfer.objects.filter(kind=TransferKind.TABLE_FILL, postings__account__table=table).count() == 2


def test_the_issuer_does_not_receive_the_slip(table, pit_boss, operator):
    # an operator holding the cage's permission too signs both the cage's and the table's steps
    from django.contrib.auth.models import Permission

    operator.user_permissions.add(Permission.objects.get(codename="operate_cage"))
    from django.contrib.auth import get_user_model

    both = get_user_model().objects.get(pk=operator.pk)
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    slip_issue(slip=slip, actor=Actor.staff(both))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        slip_receive(slip=slip, actor=Actor.staff(both))
    assert refused.value.code == "same_person_signed_twice"
    assert snapshot() == before


def test_slip_numbers_follow_each_other_and_a_void_keeps_its_number(
    table, pit_boss, pit_boss_two, cashier, dealer
):
    first = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    second = slip_request(
        table=table, kind=SlipKind.CREDIT, amounts={100: 1_000}, actor=Actor.staff(pit_boss)
    )
    # a void without a reason is refused
    before = snapshot()
    with pytest.raises(ServiceError) as no_reason:
        slip_void(slip=second, actor=Actor.staff(pit_boss), reason=" ")
    assert no_reason.value.code == "reason_required"
    assert snapshot() == before
    # proposed with a reason, it waits for a second person: the cage no longer issues it, it is
    # not proposed twice, and the proposer may not approve it
    proposal = slip_void(slip=second, actor=Actor.staff(pit_boss), reason="wrong table")
    approval = Approval.objects.get(pk=proposal.approval_id)
    assert (approval.kind, approval.subject_type, approval.subject_id, approval.status) == (
        "slip_void",
        "accounting.slip",
        str(second.pk),
        "pending",
    )
    assert (approval.requested_by, approval.request_reason, approval.amount_minor, approval.place) == (
        pit_boss,
        "wrong table",
        1_000,
        "BJ1",
    )
    assert slip_state(second) == "void_proposed"
    before = snapshot()
    with pytest.raises(ServiceError) as issue_refused:
        slip_issue(slip=second, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as twice:
        slip_void(slip=second, actor=Actor.staff(pit_boss_two), reason="again")
    with pytest.raises(ServiceError) as same_person:
        slip_void_decide(slip=second, approval_id=approval.pk, actor=Actor.staff(pit_boss), approve=True)
    with pytest.raises(ServiceError) as cashier_decides:
        slip_void_decide(slip=second, approval_id=approval.pk, actor=Actor.staff(cashier), approve=True)
    assert (
        issue_refused.value.code,
        twice.value.code,
        same_person.value.code,
        cashier_decides.value.code,
    ) == ("slip_step_refused", "approval_pending", "four_eyes_required", "permission_denied")
    assert snapshot() == before
    # a second person approves it: voided, number 2 kept; the next slip is number 3
    voided = slip_void_decide(
        slip=second, approval_id=approval.pk, actor=Actor.staff(pit_boss_two), approve=True
    )
    assert voided is not None and voided.approval_id == approval.pk
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by) == ("approved", pit_boss_two)
    third = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss_two))
    assert [slip.number for slip in (first, second, third)] == [1, 2, 3]
    assert slip_state(second) == "voided"
    assert list(second.signatures.values_list("step", "signer__username", "reason")) == [
        ("requested", "pitboss-1", ""),
        ("void_proposed", "pitboss-1", "wrong table"),
        ("voided", "pitboss-2", "wrong table"),
    ]
    assert list(
        AuditRecord.objects.filter(object_type="accounting.slip", object_id=str(second.pk))
        .order_by("sequence")
        .values_list("action", "actor_name")
    ) == [
        ("accounting.slip_requested", "pitboss-1"),
        ("accounting.slip_void_proposed", "pitboss-1"),
        ("accounting.slip_voided", "pitboss-2"),
    ]
    # an issued slip is not voided
    slip_issue(slip=first, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as issued:
        slip_void(slip=first, actor=Actor.staff(pit_boss), reason="late")
    assert issued.value.code == "slip_step_refused"
    slip_receive(slip=first, actor=Actor.staff(dealer))
    # the report: the sequence, the void, no unused number
    report = slip_report(table.casino, first.year)
    assert [(number, state) for number, _slip, state in report.rows] == [
        (1, "received"),
        (2, "voided"),
        (3, "requested"),
    ]
    assert (report.last_number, [slip.number for slip in report.voids], report.unused) == (3, [2], [])
    assert report.totals_minor == {"fill": 600_000, "credit": 0}


def test_a_rejected_void_leaves_the_slip_to_the_cage_and_it_may_be_proposed_again(
    table, pit_boss, pit_boss_two, accountant, cashier, dealer
):
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    first = slip_void(slip=slip, actor=Actor.staff(pit_boss), reason="asked twice")
    # a rejection needs a reason
    before = snapshot()
    with pytest.raises(ServiceError) as no_reason:
        slip_void_decide(
            slip=slip, approval_id=first.approval_id, actor=Actor.staff(accountant), approve=False, reason=""
        )
    assert no_reason.value.code == "reason_required"
    assert snapshot() == before
    # the accounting office rejects it: the slip is requested again, the proposal kept as history
    assert (
        slip_void_decide(
            slip=slip,
            approval_id=first.approval_id,
            actor=Actor.staff(accountant),
            approve=False,
            reason="it was asked once",
        )
        is None
    )
    assert slip_state(slip) == "requested"
    assert Approval.objects.get(pk=first.approval_id).status == "rejected"
    assert (
        AuditRecord.objects.filter(action="accounting.slip_void_rejected").get().actor_name == "accountant-1"
    )
    # the decided approval is not decided again
    with pytest.raises(ServiceError) as decided:
        slip_void_decide(
            slip=slip, approval_id=first.approval_id, actor=Actor.staff(pit_boss_two), approve=True
        )
    assert decided.value.code == "approval_decided"
    # proposed again, and approved by the accounting office: voided, signed as the accounting office
    second = slip_void(slip=slip, actor=Actor.staff(pit_boss_two), reason="the table closed early")
    with pytest.raises(ServiceError) as stale:
        slip_void_decide(
            slip=slip, approval_id=first.approval_id, actor=Actor.staff(accountant), approve=True
        )
    assert stale.value.code == "approval_not_found"
    voided = slip_void_decide(
        slip=slip, approval_id=second.approval_id, actor=Actor.staff(accountant), approve=True
    )
    assert (voided.role, voided.signer, voided.reason) == ("accounting", accountant, "the table closed early")
    assert slip_state(slip) == "voided"
    assert list(slip.signatures.values_list("step", "signer__username")) == [
        ("requested", "pitboss-1"),
        ("void_proposed", "pitboss-1"),
        ("void_proposed", "pitboss-2"),
        ("voided", "accountant-1"),
    ]


def test_a_slip_in_flight_at_a_table_that_closed_is_neither_issued_nor_received(
    table, pit_boss, cashier, dealer
):
    # given a fill and a credit requested at BJ1, the credit issued, and then BJ1's closer signed
    # with both in flight (as the back office let happen before a closer waited for its slips)
    fill = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    credit = slip_request(
        table=table, kind=SlipKind.CREDIT, amounts={100: 1_000}, actor=Actor.staff(pit_boss)
    )
    slip_issue(slip=credit, actor=Actor.staff(cashier))
    closer_signed_as_before(table, TRAY, dealer, pit_boss)
    tray = tray_balance(table)
    before = snapshot()
    # when the cage issues the fill, or the table receives the credit
    with pytest.raises(ServiceError) as issue:
        slip_issue(slip=fill, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as receipt:
        slip_receive(slip=credit, actor=Actor.staff(dealer))
    # then both are refused in words, and no chip moves
    assert (issue.value.code, receipt.value.code) == ("slip_table_closed", "slip_table_closed")
    assert issue.value.message == (
        "BJ1 is closed, or its closing count is taken: no fill or credit moves chips to or from it "
        "until its next opening count is signed."
    )
    assert snapshot() == before
    assert tray_balance(table) == tray
    assert (slip_state(fill), slip_state(credit)) == ("requested", "issued")
    # the fill not yet issued may still be voided (no chip moves)
    assert (
        slip_void(slip=fill, actor=Actor.staff(pit_boss), reason="the table closed").step == "void_proposed"
    )


def test_a_slip_for_a_closed_table_is_refused_and_draws_no_number(table, pit_boss, dealer):
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    assert refused.value.code == "slip_table_closed"
    assert snapshot() == before


def test_a_slip_while_the_closer_waits_for_its_signature_is_refused(table, pit_boss, dealer):
    # given BJ1's closer counted by the dealer, waiting for the pit boss's signature
    tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    before = snapshot()
    # when the pit boss asks for a fill, then it is refused: the closer did not count its chips
    for kind in (SlipKind.FILL, SlipKind.CREDIT):
        with pytest.raises(ServiceError) as refused:
            slip_request(table=table, kind=kind, amounts=FILL, actor=Actor.staff(pit_boss))
        assert refused.value.code == "slip_table_closed"
    assert snapshot() == before


def test_a_slip_without_chips_is_refused_and_draws_no_number(table, pit_boss):
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        slip_request(table=table, kind=SlipKind.FILL, amounts={}, actor=Actor.staff(pit_boss))
    assert refused.value.code == "invalid_count"
    assert snapshot() == before
    assert (
        slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss)).number == 1
    )


def test_the_report_names_a_number_no_slip_holds(table, pit_boss):
    from accounting.models import SlipCounter

    slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    # a counter moved on past its slips (as a restore of a partial backup would leave it)
    SlipCounter.objects.update(last_number=3)
    report = slip_report(table.casino, SlipCounter.objects.get().year)
    assert report.unused == [2, 3]
    assert [state for _number, _slip, state in report.rows] == ["requested", "unused", "unused"]
