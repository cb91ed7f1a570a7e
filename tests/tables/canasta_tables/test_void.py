"""Voiding an abandoned canasta game: the host asks with a reason, a pit boss who is not the
requester approves; the holds are released and nothing is transferred."""

from __future__ import annotations

import pytest

from casino.models import AuditRecord
from tables.errors import ApprovalByRequesterRefusedError, TableReasonRequiredError
from tables.models import CanastaDeal, CanastaGame, CanastaGameStatus, CanastaVoidDecision, CanastaVoidRequest
from tables.services import (
    Actor,
    canasta_game_open,
    canasta_game_start,
    canasta_seat_take,
    canasta_void_approve,
    canasta_void_reject,
    canasta_void_request,
)
from tests.factories import staff_user
from tests.tables.canasta_tables.conftest import at_terminal, balance
from wallet.models import Hold, HoldStatus, Transfer


def started_game(table, players, host) -> CanastaGame:  # type: ignore[no-untyped-def]
    game = canasta_game_open(table=table, actor=Actor.staff(host), stake_minor=100)
    for seat, player in enumerate(players):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=at_terminal(table, player))
    canasta_game_start(game_id=game.pk, actor=Actor.staff(host))
    return game


@pytest.mark.django_db
def test_a_void_approved_by_a_pit_boss_releases_every_hold_and_moves_nothing(
    canasta_table, four_players, host, pit_boss
):
    game = started_game(canasta_table, four_players, host)
    transfers = Transfer.objects.count()
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="  players left  ")

    canasta_void_approve(request_id=request.pk, actor=Actor.staff(pit_boss))

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.VOIDED
    assert CanastaDeal.objects.get(game=game).status == "voided"
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4
    assert set(Hold.objects.filter(reference_type="canasta_game").values_list("status", flat=True)) == {
        HoldStatus.VOIDED
    }
    assert Transfer.objects.count() == transfers
    assert CanastaVoidDecision.objects.get(request=request).status == "approved"
    assert request.reason == "players left"
    assert AuditRecord.objects.filter(action="canasta.void_approved", object_id=str(game.pk)).count() == 1


@pytest.mark.django_db
def test_a_void_approved_by_its_requester_is_refused_and_writes_nothing(
    canasta_table, four_players, pit_boss
):
    # Given: the pit boss hosting the table asks for the void himself
    game = started_game(canasta_table, four_players, pit_boss)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(pit_boss), reason="abandoned")
    audit = AuditRecord.objects.count()

    with pytest.raises(ApprovalByRequesterRefusedError):
        canasta_void_approve(request_id=request.pk, actor=Actor.staff(pit_boss))

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.PLAYING
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
    assert CanastaVoidDecision.objects.count() == 0 and AuditRecord.objects.count() == audit
    # another pit boss approves it
    canasta_void_approve(request_id=request.pk, actor=Actor.staff(staff_user("pit_boss", "pitboss-2")))
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4


@pytest.mark.django_db
def test_a_rejected_void_leaves_the_game_playing_and_a_void_needs_a_reason(
    canasta_table, four_players, host, pit_boss
):
    game = started_game(canasta_table, four_players, host)
    with pytest.raises(TableReasonRequiredError):
        canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="   ")
    assert CanastaVoidRequest.objects.count() == 0
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="abandoned")
    with pytest.raises(Exception) as pending:
        canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="again")
    assert getattr(pending.value, "code", None) == "request_pending"

    canasta_void_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="they came back")

    game.refresh_from_db()
    assert game.status == CanastaGameStatus.PLAYING
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
    with pytest.raises(Exception) as decided:
        canasta_void_approve(request_id=request.pk, actor=Actor.staff(pit_boss))
    assert getattr(decided.value, "code", None) == "request_decided"


@pytest.mark.django_db
def test_a_dealer_cannot_approve_a_void(canasta_table, four_players, host):
    game = started_game(canasta_table, four_players, host)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="abandoned")
    other_dealer = staff_user("dealer", "dealer-2")

    with pytest.raises(Exception) as refused:
        canasta_void_approve(request_id=request.pk, actor=Actor.staff(other_dealer))

    assert getattr(refused.value, "code", None) == "permission_denied"
    assert CanastaVoidDecision.objects.count() == 0
