"""A dealer's requests that wait for a pit boss (tables/services/requests.py): void the round,
correct a misscan; approved (done then, as the pit boss's) or rejected with a reason; never by
the requester; insert-only rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, transaction

from casino.errors import ServiceError
from casino.models import AuditRecord
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


def _written() -> tuple[int, int, int, int, int]:
    return (
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
    made = AuditRecord.objects.filter(action="round.request_made").get()
    assert made.after == {
        "request_id": request.pk,
        "kind": "void",
        "card": None,
        "reason": "hole card exposed",
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
    approved = AuditRecord.objects.filter(action="round.request_approved").get()
    assert (approved.actor_id, approved.object_id) == (pit_boss.pk, str(round_.pk))
    assert approved.before == {"request_id": request.pk, "kind": "void", "status": "pending"}
    assert approved.after == {"status": "approved", "reason": ""}
    voided = AuditRecord.objects.filter(action="round.voided").get()
    assert (voided.actor_id, voided.after["reason"]) == (
        pit_boss.pk,
        f"request {request.pk} of dealer-1: hole card exposed",
    )
    # and deciding it again is refused
    refused("request_decided", round_request_approve, request_id=request.pk, actor=Actor.staff(pit_boss))
    refused(
        "request_decided",
        round_request_reject,
        request_id=request.pk,
        actor=Actor.staff(pit_boss),
        reason="x",
    )


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
    rejected = AuditRecord.objects.filter(action="round.request_rejected").get()
    assert rejected.after == {"status": "rejected", "reason": "play on"}
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
    # when they approve it themselves: refused, nothing written
    refused(
        "approval_by_requester_refused",
        round_request_approve,
        request_id=request.pk,
        actor=Actor.staff(boss_dealer),
    )
    refused(
        "approval_by_requester_refused",
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
        "request_pending",
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
    # and a second correction request meanwhile is refused
    refused(
        "request_pending",
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
