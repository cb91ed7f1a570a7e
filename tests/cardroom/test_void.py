"""Voiding an abandoned canasta game: the host asks with a reason, the request waits as a
four-eyes approval (``casino.four_eyes``, kind ``canasta_void``) and a second person decides it;
approved, the holds are released and nothing is transferred."""

from __future__ import annotations

import pytest

from cardroom.errors import CanastaReasonRequiredError
from cardroom.models import CanastaDeal, CanastaGame, CanastaGameStatus, CanastaVoidRequest
from cardroom.services import (
    canasta_game_open,
    canasta_game_start,
    canasta_seat_take,
    canasta_void_approve,
    canasta_void_reject,
    canasta_void_request,
)
from casino.errors import FourEyesRequiredError, ServiceError
from casino.models import Approval, AuditRecord
from tables.services import Actor
from tests.cardroom.conftest import at_terminal, balance
from tests.factories import staff_user
from wallet.models import Hold, HoldStatus, Transfer


def started_game(table, players, host) -> CanastaGame:  # type: ignore[no-untyped-def]
    game = canasta_game_open(table=table, actor=Actor.staff(host), stake_minor=100)
    for seat, player in enumerate(players):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=at_terminal(table, player))
    canasta_game_start(game_id=game.pk, actor=Actor.staff(host))
    return game


def code_of(call, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError) as refused:
        call(**kwargs)
    return refused.value.code


@pytest.mark.django_db
def test_a_void_request_waits_as_a_four_eyes_approval(canasta_table, four_players, host):
    game = started_game(canasta_table, four_players, host)

    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="  players left  ")

    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.kind, approval.subject_type, approval.subject_id, approval.place) == (
        "canasta_void",
        "tables.canastagame",
        str(game.pk),
        "CA1",
    )
    assert (approval.status, approval.requested_by_id, approval.request_reason) == (
        "pending",
        host.pk,
        "players left",
    )
    assert (approval.before, approval.after) == ({"status": "playing"}, {"status": "voided"})
    assert approval.summary == f"Void canasta game {game.number} at CA1"
    assert request.reason == "players left"


@pytest.mark.django_db
def test_a_void_approved_by_a_pit_boss_releases_every_hold_and_moves_nothing(
    canasta_table, four_players, host, pit_boss
):
    game = started_game(canasta_table, four_players, host)
    transfers = Transfer.objects.count()
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="players left")

    canasta_void_approve(request_id=request.pk, actor=Actor.staff(pit_boss))

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.VOIDED
    assert CanastaDeal.objects.get(game=game).status == "voided"
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4
    assert set(Hold.objects.filter(reference_type="canasta_game").values_list("status", flat=True)) == {
        HoldStatus.VOIDED
    }
    assert Transfer.objects.count() == transfers
    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.status, approval.decided_by_id) == ("approved", pit_boss.pk)
    assert game.ended_at == approval.decided_at
    record = AuditRecord.objects.get(action="canasta.void_approved", object_id=str(game.pk))
    assert (record.before, record.after) == (
        {"request_id": request.pk, "status": "playing"},
        {
            "status": "voided",
            "request": "approved",
            "approval_id": approval.pk,
            "approval_kind": "canasta_void",
            "requested_by": host.username,
            "reason": "players left",
        },
    )


@pytest.mark.django_db
def test_a_void_decided_by_its_requester_is_refused_and_writes_nothing(canasta_table, four_players, pit_boss):
    # Given: the pit boss hosting the table asks for the void himself
    game = started_game(canasta_table, four_players, pit_boss)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(pit_boss), reason="abandoned")
    audit = AuditRecord.objects.count()

    with pytest.raises(FourEyesRequiredError):
        canasta_void_approve(request_id=request.pk, actor=Actor.staff(pit_boss))
    assert (
        code_of(canasta_void_reject, request_id=request.pk, actor=Actor.staff(pit_boss), reason="no")
        == "four_eyes_required"
    )

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.PLAYING
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
    assert Approval.objects.get(pk=request.approval_id).status == "pending"
    assert AuditRecord.objects.count() == audit
    # another pit boss approves it
    canasta_void_approve(request_id=request.pk, actor=Actor.staff(staff_user("pit_boss", "pitboss-2")))
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4


@pytest.mark.django_db
def test_a_rejected_void_leaves_the_game_playing_and_a_void_needs_a_reason(
    canasta_table, four_players, host, pit_boss
):
    game = started_game(canasta_table, four_players, host)
    with pytest.raises(CanastaReasonRequiredError):
        canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="   ")
    assert CanastaVoidRequest.objects.count() == 0 and Approval.objects.count() == 0
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="abandoned")
    audit = AuditRecord.objects.count()
    assert code_of(canasta_void_request, game_id=game.pk, actor=Actor.staff(host), reason="again") == (
        "approval_pending"
    )
    assert code_of(canasta_void_reject, request_id=request.pk, actor=Actor.staff(pit_boss), reason=" ") == (
        "reason_required"
    )
    assert CanastaVoidRequest.objects.count() == 1 and AuditRecord.objects.count() == audit

    canasta_void_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="they came back")

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.PLAYING
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
    approval = Approval.objects.get(pk=request.approval_id)
    assert (approval.status, approval.decision_reason) == ("rejected", "they came back")
    assert (
        code_of(canasta_void_approve, request_id=request.pk, actor=Actor.staff(pit_boss))
        == "approval_decided"
    )
    # the game may be asked to void again
    again = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="they left again")
    assert again.approval_id != request.approval_id


@pytest.mark.django_db
def test_a_dealer_cannot_decide_a_void(canasta_table, four_players, host):
    game = started_game(canasta_table, four_players, host)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="abandoned")
    other_dealer = staff_user("dealer", "dealer-2")

    assert code_of(canasta_void_approve, request_id=request.pk, actor=Actor.staff(other_dealer)) == (
        "permission_denied"
    )
    assert Approval.objects.get(pk=request.approval_id).status == "pending"
    assert CanastaGame.objects.get(pk=game.pk).status == CanastaGameStatus.PLAYING


@pytest.mark.django_db
def test_a_void_of_a_game_already_over_is_refused_and_the_approval_stays_pending(
    canasta_table, four_players, host, pit_boss
):
    game = started_game(canasta_table, four_players, host)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="abandoned")
    CanastaGame.objects.filter(pk=game.pk).update(status=CanastaGameStatus.ENDED)

    assert (
        code_of(canasta_void_approve, request_id=request.pk, actor=Actor.staff(pit_boss)) == "game_not_open"
    )

    assert Approval.objects.get(pk=request.approval_id).status == "pending"
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
