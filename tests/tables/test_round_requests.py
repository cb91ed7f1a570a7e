"""A dealer's requests that wait for a pit boss (tables/services/requests.py): void the round,
correct a misscan; each a four-eyes approval (casino.four_eyes); approved (done then, as the pit
boss's) or rejected with a reason; never by the requester; insert-only rows."""

from __future__ import annotations

import html
import importlib
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone

from casino.errors import ServiceError
from casino.models import Approval, AuditRecord
from tables.models import Bet, Round, RoundEvent, RoundRequest, RoundRequestDecision, Shoe
from tables.selectors import table_state
from tables.services import (
    Actor,
    bet_place,
    box_take,
    card_enter,
    dealer_sign_on,
    round_close_betting,
    round_open,
    round_request_approve,
    round_request_create,
    round_request_reject,
    shoe_shuffle,
)
from tests.factories import staff_user
from tests.tables.conftest import (
    alice_betting,
    at_terminal,
    balance,
    funded_player,
    physical,
    refused,
)
from tests.tampering import raw

BACKFILL = importlib.import_module("tables.migrations.0010_round_request_approval")


def _written() -> tuple[int, ...]:
    return (
        Approval.objects.count(),
        Approval.objects.filter(status="pending").count(),
        RoundRequest.objects.count(),
        RoundRequestDecision.objects.count(),
        RoundEvent.objects.count(),
        AuditRecord.objects.count(),
        Bet.objects.filter(status="placed").count(),
    )


def _misscanned(table: Any, dealer: Any, operator: Any) -> Round:
    """A physical shoe from which every ace of spades has gone; alice's 10.00 on box 1; betting
    closed, TS dealt to box 1, then AS entered: a misscan (card_not_in_shoe)."""
    physical(table, operator)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe = shoe_shuffle(table=table, actor=Actor.staff(dealer))
    Shoe.objects.filter(pk=shoe.pk).update(dealt_counts={"AS": 6})
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    card_enter(round_id=round_.pk, actor=Actor.staff(dealer), card="TS")
    # (no savepoint around it: the misscan is recorded, its effect stands)
    with pytest.raises(ServiceError) as info:
        card_enter(round_id=round_.pk, actor=Actor.staff(dealer), card="AS")
    assert (info.value.code, info.value.details["reason"]) == ("misscan", "card_not_in_shoe")
    return Round.objects.get(pk=round_.pk)


# -------------------------------------------------------------------------------------- void


@pytest.mark.django_db
def test_an_approved_void_request_voids_the_round_and_returns_the_stakes(table, dealer, pit_boss):
    # given alice's 10.00 held in an open round
    alice, round_ = alice_betting(table, dealer)
    assert balance(alice) == (10_000, 1000)
    # when the dealer asks to void it
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="  hole card exposed "
    )
    assert (request.kind, request.card, request.misscan, request.reason, request.requested_by_id) == (
        "void",
        "",
        None,
        "hole card exposed",
        dealer.pk,
    )
    # and it waits as a four-eyes approval of the round, the request linked to it
    approval = Approval.objects.get()
    assert request.approval_id == approval.pk
    assert (
        approval.kind,
        approval.subject_type,
        approval.subject_id,
        approval.place,
        approval.summary,
        approval.requested_by_id,
        approval.requested_by_name,
        approval.request_reason,
        approval.status,
    ) == (
        "round_void",
        "tables.round",
        str(round_.pk),
        "BJ1",
        f"Void round {round_.number} at BJ1",
        dealer.pk,
        "dealer-1",
        "hole card exposed",
        "pending",
    )
    made = AuditRecord.objects.filter(action="round.request_made").get()
    assert made.after == {
        "request_id": request.pk,
        "kind": "void",
        "card": None,
        "reason": "hole card exposed",
        "approval_id": approval.pk,
    }
    # then nothing is voided yet
    assert Round.objects.get(pk=round_.pk).status == "betting"
    # when the pit boss approves
    round_request_approve(request_id=request.pk, actor=Actor.staff(pit_boss))
    # then the round is voided, alice's stake returned: her balance as before the bet
    assert Round.objects.get(pk=round_.pk).status == "voided"
    assert balance(alice) == (10_000, 0)
    assert Bet.objects.get(round=round_).status == "voided"
    decision = RoundRequestDecision.objects.get(request=request)
    assert (decision.status, decision.decided_by_id, decision.reason) == ("approved", pit_boss.pk, "")
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by_id, approval.decided_at) == (
        "approved",
        pit_boss.pk,
        decision.decided_at,
    )
    approved = AuditRecord.objects.filter(action="round.request_approved").get()
    assert (approved.actor_id, approved.object_id) == (pit_boss.pk, str(round_.pk))
    assert approved.before == {"request_id": request.pk, "kind": "void", "status": "pending"}
    assert approved.after == {
        "approval_id": approval.pk,
        "approval_kind": "round_void",
        "requested_by": "dealer-1",
        "status": "approved",
        "reason": "hole card exposed",
    }
    voided = AuditRecord.objects.filter(action="round.voided").get()
    assert (voided.actor_id, voided.after["reason"]) == (
        pit_boss.pk,
        f"request {request.pk} of dealer-1: hole card exposed",
    )
    # and deciding it again is refused, with nothing written
    before = _written()
    refused("approval_decided", round_request_approve, request_id=request.pk, actor=Actor.staff(pit_boss))
    refused(
        "approval_decided",
        round_request_reject,
        request_id=request.pk,
        actor=Actor.staff(pit_boss),
        reason="x",
    )
    assert _written() == before


@pytest.mark.django_db
def test_a_rejected_void_request_leaves_the_round_open(table, dealer, pit_boss):
    alice, round_ = alice_betting(table, dealer)
    request = round_request_create(round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="why")
    # when the pit boss rejects without a reason: refused, nothing written
    before = _written()
    refused(
        "reason_required",
        round_request_reject,
        request_id=request.pk,
        actor=Actor.staff(pit_boss),
        reason="  ",
    )
    assert _written() == before
    # when with a reason
    round_request_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="play on")
    # then the round goes on, alice's stake still held
    assert Round.objects.get(pk=round_.pk).status == "betting"
    assert balance(alice) == (10_000, 1000)
    decision = RoundRequestDecision.objects.get(request=request)
    assert (decision.status, decision.decided_by_id, decision.reason) == ("rejected", pit_boss.pk, "play on")
    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.status, approval.decided_by_id, approval.decision_reason) == (
        "rejected",
        pit_boss.pk,
        "play on",
    )
    rejected = AuditRecord.objects.filter(action="round.request_rejected").get()
    assert rejected.after == {
        "approval_id": approval.pk,
        "approval_kind": "round_void",
        "requested_by": "dealer-1",
        "status": "rejected",
        "reason": "play on",
    }
    assert not AuditRecord.objects.filter(action="round.voided").exists()
    # and a new void request may be made once the first is decided
    again = round_request_create(round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="again")
    assert RoundRequest.objects.filter(round=round_, decision__isnull=True).get().pk == again.pk


@pytest.mark.django_db
def test_the_requester_may_not_approve_their_own_request(table, dealer, pit_boss):
    # given a pit boss who also deals, signed on, asks to void
    pit_boss.groups.add(*dealer.groups.all())
    boss_dealer = type(pit_boss).objects.get(pk=pit_boss.pk)
    alice, round_ = alice_betting(table, boss_dealer)
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(boss_dealer), kind="void", reason="r"
    )
    before = _written()
    # when they approve it themselves: refused by the four-eyes rule, nothing written
    refused(
        "four_eyes_required",
        round_request_approve,
        request_id=request.pk,
        actor=Actor.staff(boss_dealer),
    )
    refused(
        "four_eyes_required",
        round_request_reject,
        request_id=request.pk,
        actor=Actor.staff(boss_dealer),
        reason="r",
    )
    assert _written() == before
    assert (Round.objects.get(pk=round_.pk).status, balance(alice)) == ("betting", (10_000, 1000))


@pytest.mark.django_db
def test_a_dealer_may_not_approve_or_reject(table, dealer):
    alice, round_ = alice_betting(table, dealer)
    request = round_request_create(round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="r")
    other = Actor.staff(staff_user("dealer", "dealer-2"))
    before = _written()
    for actor in (Actor.staff(dealer), other):
        error = refused("permission_denied", round_request_approve, request_id=request.pk, actor=actor)
        assert error.details == {"permission": "void_round"}
        refused("permission_denied", round_request_reject, request_id=request.pk, actor=actor, reason="no")
    assert _written() == before
    assert (Round.objects.get(pk=round_.pk).status, balance(alice)) == ("betting", (10_000, 1000))


@pytest.mark.django_db
def test_a_second_pending_void_request_isrefused(table, dealer):
    _alice, round_ = alice_betting(table, dealer)
    round_request_create(round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="one")
    before = _written()
    refused(
        "approval_pending",
        round_request_create,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        kind="void",
        reason="2",
    )
    assert _written() == before


@pytest.mark.django_db
def test_request_refusals_write_nothing(table, dealer, pit_boss):
    _alice, round_ = alice_betting(table, dealer)
    other = Actor.staff(staff_user("dealer", "dealer-2"))
    before = _written()
    as_dealer = Actor.staff(dealer)
    refused(
        "reason_required", round_request_create, round_id=round_.pk, actor=as_dealer, kind="void", reason=""
    )
    refused(
        "invalid_request", round_request_create, round_id=round_.pk, actor=as_dealer, kind="nap", reason="r"
    )
    refused(
        "not_table_dealer", round_request_create, round_id=round_.pk, actor=other, kind="void", reason="r"
    )
    refused(
        "permission_denied",
        round_request_create,
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        kind="void",
        reason="r",
    )
    refused("not_found", round_request_approve, request_id=987654, actor=Actor.staff(pit_boss))
    assert _written() == before


@pytest.mark.django_db
def test_a_void_request_on_a_settled_round_isrefused(table, dealer, pit_boss):
    _alice, round_ = alice_betting(table, dealer)
    from tables.services import round_void

    round_void(round_id=round_.pk, actor=Actor.staff(pit_boss), reason="done")
    before = _written()
    refused(
        "round_not_open",
        round_request_create,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        kind="void",
        reason="r",
    )
    assert _written() == before


# -------------------------------------------------------------------------------- correction


@pytest.mark.django_db
def test_a_correction_request_needs_a_misscan(table, dealer):
    _alice, round_ = alice_betting(table, dealer)
    before = _written()
    refused(
        "no_misscan",
        round_request_create,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        kind="correction",
        reason="r",
        card="7H",
    )
    assert _written() == before


@pytest.mark.django_db
def test_an_approved_correction_deals_the_card(table, dealer, operator, pit_boss):
    # given a misscan of AS on a physical shoe
    round_ = _misscanned(table, dealer, operator)
    misscan = round_.awaiting_correction
    # when the dealer asks for the correction to 7h (parsed to its code)
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(dealer), kind="correction", reason="reader misread", card="7h"
    )
    assert (request.kind, request.card, request.misscan) == ("correction", "7H", misscan)
    # (waiting as a four-eyes approval of the round: the misscan before, the card after)
    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.kind, approval.subject_id, approval.summary, approval.before, approval.after) == (
        "round_correction",
        str(round_.pk),
        f"Correct the misscan of round {round_.number} at BJ1 to 7H",
        {"misscan": misscan},
        {"card": "7H"},
    )
    # and a second correction request meanwhile is refused
    refused(
        "approval_pending",
        round_request_create,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        kind="correction",
        reason="r",
        card="8H",
    )
    # when the pit boss approves
    round_request_approve(request_id=request.pk, actor=Actor.staff(pit_boss))
    # then 7H is the dealer's up card, and the round no longer waits
    refreshed = Round.objects.get(pk=round_.pk)
    assert refreshed.awaiting_correction is None
    state = table_state(table=table)
    assert state["round"]["dealer"]["cards"] == ["7H"]
    assert state["boxes"][0]["hands"][0]["cards"] == ["TS"]
    corrected = AuditRecord.objects.filter(action="round.card_corrected").get()
    assert (corrected.actor_id, corrected.before, corrected.after) == (
        pit_boss.pk,
        {"misscan": misscan},
        {"card": "7H", "reason": f"request {request.pk} of dealer-1: reader misread"},
    )
    assert RoundRequestDecision.objects.get(request=request).status == "approved"
    assert Approval.objects.get(pk=approval.pk).status == "approved"
    # and the deal goes on
    card_enter(round_id=round_.pk, actor=Actor.staff(dealer), card="9D")
    assert table_state(table=table)["boxes"][0]["hands"][0]["cards"] == ["TS", "9D"]


@pytest.mark.django_db
def test_a_correction_for_no_card_clears_the_misscan(table, dealer, operator, pit_boss):
    round_ = _misscanned(table, dealer, operator)
    version = round_.version
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(dealer), kind="correction", reason="double read"
    )
    assert request.card == ""
    round_request_approve(request_id=request.pk, actor=Actor.staff(pit_boss))
    refreshed = Round.objects.get(pk=round_.pk)
    assert (refreshed.awaiting_correction, refreshed.version) == (None, version + 1)
    assert table_state(table=table)["round"]["dealer"]["cards"] == []


@pytest.mark.django_db
def test_approving_a_correction_whose_card_is_refused_too_writes_nothing(table, dealer, operator, pit_boss):
    # given a misscan of AS, and a correction request to AS, which the shoe cannot hold either
    round_ = _misscanned(table, dealer, operator)
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(dealer), kind="correction", reason="it was AS", card="AS"
    )
    before = _written()
    version = Round.objects.get(pk=round_.pk).version
    # when the pit boss approves: the engine's refusal, no decision row, the request pending
    refused("card_not_in_shoe", round_request_approve, request_id=request.pk, actor=Actor.staff(pit_boss))
    assert _written() == before
    assert not RoundRequestDecision.objects.filter(request=request).exists()
    refreshed = Round.objects.get(pk=round_.pk)
    assert (refreshed.version, refreshed.awaiting_correction) == (version, round_.awaiting_correction)
    # and it can be rejected then
    round_request_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="not an ace")
    assert RoundRequestDecision.objects.get(request=request).status == "rejected"


# ------------------------------------------------------------------------------- append-only


@pytest.mark.django_db
def test_requests_and_decisions_are_append_only(table, dealer, pit_boss):
    _alice, round_ = alice_betting(table, dealer)
    request = round_request_create(round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="r")
    round_request_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="no")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw("UPDATE tables_roundrequest SET reason = 'edited' WHERE id = %s", [request.pk])
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw("DELETE FROM tables_roundrequest WHERE id = %s", [request.pk])
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw("UPDATE tables_roundrequestdecision SET status = 'approved' WHERE request_id = %s", [request.pk])
    assert RoundRequest.objects.get(pk=request.pk).reason == "r"
    assert RoundRequestDecision.objects.get(request=request).status == "rejected"


# ------------------------------------------------------------------------- the requests before


@pytest.mark.django_db
def test_the_migration_gives_every_earlier_request_its_approval(table, dealer, pit_boss):
    # given two requests made before requests waited as approvals (no approval linked): a void
    # rejected by the pit boss, and a correction still pending
    _alice, round_ = alice_betting(table, dealer)
    moment = timezone.now()
    rejected = RoundRequest.objects.create(
        round=round_, kind="void", reason="wrong shoe", requested_by=dealer, requested_at=moment
    )
    RoundRequestDecision.objects.create(
        request=rejected, status="rejected", decided_by=pit_boss, decided_at=moment, reason="play on"
    )
    pending = RoundRequest.objects.create(
        round=round_,
        kind="correction",
        card="7H",
        misscan={"card": "AS", "reason": "card_not_in_shoe"},
        reason="misread",
        requested_by=dealer,
        requested_at=moment,
    )
    # when the migration's data step runs
    with connection.schema_editor() as editor:
        BACKFILL.forward(django_apps, editor)
    # then each has its approval, decided as its decision says, and the rows stay append-only
    by_request = {request.pk: request.approval for request in RoundRequest.objects.select_related("approval")}
    assert [
        (
            approval.kind,
            approval.subject_type,
            approval.subject_id,
            approval.requested_by_id,
            approval.requested_at,
            approval.request_reason,
            approval.status,
            approval.decided_by_id,
            approval.decision_reason,
            approval.gaming_day,
        )
        for approval in (by_request[rejected.pk], by_request[pending.pk])
    ] == [
        (
            "round_void",
            "tables.round",
            str(round_.pk),
            dealer.pk,
            moment,
            "wrong shoe",
            "rejected",
            pit_boss.pk,
            "play on",
            table.casino.gaming_day(moment),
        ),
        (
            "round_correction",
            "tables.round",
            str(round_.pk),
            dealer.pk,
            moment,
            "misread",
            "pending",
            None,
            "",
            table.casino.gaming_day(moment),
        ),
    ]
    assert by_request[pending.pk].after == {"card": "7H"}
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw("UPDATE tables_roundrequest SET approval_id = NULL WHERE id = %s", [pending.pk])
    # and the pending one is decided through the four-eyes rule like any new one
    before = _written()
    refused(
        "permission_denied",
        round_request_reject,
        request_id=pending.pk,
        actor=Actor.staff(dealer),
        reason="x",
    )
    assert _written() == before
    round_request_reject(request_id=pending.pk, actor=Actor.staff(pit_boss), reason="no misscan now")
    assert Approval.objects.get(pk=by_request[pending.pk].pk).status == "rejected"


# ----------------------------------------------------------------------------- the pit's page


@pytest.mark.django_db
def test_on_the_pit_page_the_requester_is_refused_and_a_second_pit_boss_decides(table, dealer, pit_boss):
    # given a pit boss who also deals, signed on, who asks to void alice's round
    pit_boss.groups.add(*dealer.groups.all())
    boss_dealer = type(pit_boss).objects.get(pk=pit_boss.pk)
    alice, round_ = alice_betting(table, boss_dealer)
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(boss_dealer), kind="void", reason="r"
    )
    asker = Client()
    asker.force_login(boss_dealer)
    before = _written()
    # when they approve it on the pit's queue: refused in words, nothing written
    response = asker.post(f"/pit/requests/{request.pk}/approve/", HTTP_HX_REQUEST="true")
    page = html.unescape(response.content.decode())
    assert response.status_code == 403
    assert (
        "A second person must decide: whoever asked for it cannot, nor, for a payout, the round's dealer."
        in page
    )
    assert _written() == before
    assert (Round.objects.get(pk=round_.pk).status, balance(alice)) == ("betting", (10_000, 1000))
    # when another pit boss approves it there
    second = Client()
    second.force_login(staff_user("pit_boss", "pitboss-2"))
    response = second.post(f"/pit/requests/{request.pk}/approve/", HTTP_HX_REQUEST="true")
    # then the round is voided, the approval decided by them
    assert response.status_code == 200 and "Request approved." in response.content.decode()
    assert (Round.objects.get(pk=round_.pk).status, balance(alice)) == ("voided", (10_000, 0))
    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.status, approval.decided_by.username) == ("approved", "pitboss-2")
