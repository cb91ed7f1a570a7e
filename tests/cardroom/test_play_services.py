"""A canasta game through the services: seats and holds, deals played by the engine's legal
actions, the score sheet, settlement to the cent with the fee, replay and the audit chain."""

from __future__ import annotations

from typing import Any

import pytest

from cardroom.models import (
    CanastaDeal,
    CanastaDealEvent,
    CanastaDealScore,
    CanastaGame,
    CanastaGamePlayer,
    CanastaGameStatus,
)
from cardroom.services import (
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_move,
    canasta_seat_take,
)
from cardroom.services.common import deal_hash
from cardroom.services.games import deal_replay
from casino.models import AuditRecord, Table
from games.canasta import action_from_dict, legal_actions, state_from_dict, state_to_dict
from tables.services import Actor
from tests.cardroom.conftest import at_terminal, balance, configured, greedy, venue_balance
from wallet.models import AccountKind, Hold, HoldStatus, Transfer


def play_game(table: Table, players: list[Any], host: Any, stake_minor: int = 100) -> CanastaGame:
    game = canasta_game_open(table=table, actor=Actor.staff(host), stake_minor=stake_minor)
    actors = [at_terminal(table, player) for player in players]
    for seat, actor in enumerate(actors):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=actor)
    deal = canasta_game_start(game_id=game.pk, actor=Actor.staff(host))
    while True:
        deal.refresh_from_db()
        while deal.status == "playing":
            state = state_from_dict(deal.snapshot)
            action = greedy(state, legal_actions(state))
            data = {key: value for key, value in action.to_dict().items() if key != "seat"}
            deal = canasta_move(
                game_id=game.pk, actor=actors[action.seat], actions=[data], version=deal.version
            )
            deal.refresh_from_db()
        game.refresh_from_db()
        if game.status != CanastaGameStatus.PLAYING:
            return game
        deal = canasta_deal_start(game_id=game.pk, actor=Actor.staff(host))


@pytest.mark.django_db
def test_a_classic4_game_to_5000_is_scored_deal_by_deal_and_settled_with_a_pot_share(
    canasta_table, four_players, host, operator
):
    # Given: CA1 takes 5% of the pot; the stake is 100 cents per 100 points, a hold of 100 EUR
    configured(canasta_table, operator, fee_kind="pot_share", fee_basis_points=500)

    # When: four players play to 5000 (the engine's legal actions, melding much)
    game = play_game(canasta_table, four_players, host)

    # Then: the game ended with one side over the target and highest
    assert game.status == CanastaGameStatus.ENDED
    totals = game.totals
    winner = 0 if totals[0] > totals[1] else 1
    assert max(totals) >= 5000 and game.winner_side == winner and game.margin == abs(totals[0] - totals[1])
    # the score sheet adds up deal by deal
    deals = list(CanastaDeal.objects.filter(game=game).order_by("number"))
    assert game.deals_scored == len(deals) >= 2
    running = [0, 0]
    for deal in deals:
        scores = list(CanastaDealScore.objects.filter(deal=deal).order_by("side"))
        for score in scores:
            assert score.score_before == running[score.side]
            assert (
                score.deal_total
                == score.melded + score.canasta_bonus + score.red_threes + score.going_out + score.hand
            )
            running[score.side] += score.deal_total
            assert score.total == running[score.side]
        assert [deal.dealer_seat for deal in deals][: len(deals)] == [n % 4 for n in range(len(deals))]
    assert running == totals
    # settled to the cent: each loser pays margin * 100 // 100, capped at the hold; 5% fee
    loss = min(game.margin * 100 // 100, 10_000)
    pot = 2 * loss
    fee = pot * 500 // 10_000
    share, remainder = divmod(pot - fee, 2)
    seats = {row.seat: row for row in CanastaGamePlayer.objects.filter(game=game)}
    for seat, player in enumerate(four_players):
        expected = 100_000 + (share if seat % 2 == winner else -loss)
        assert balance(player) == (expected, 0)
        assert Hold.objects.get(pk=seats[seat].hold_id).status == HoldStatus.POSTED
    assert venue_balance(canasta_table, AccountKind.HOUSE) == fee
    assert venue_balance(canasta_table, AccountKind.HOUSE_ROUNDING) == remainder
    assert game.fee_charged_minor == fee
    transfer = Transfer.objects.get(reference_type="canasta_game", reference_id=str(game.pk))
    assert sum(transfer.postings.values_list("amount_minor", flat=True)) == 0
    # every deal's events replay to its state, and its hash is in the audit chain
    for deal in deals:
        assert state_to_dict(deal_replay(deal)) == deal.snapshot
        record = AuditRecord.objects.get(action="canasta.deal_scored", object_id=str(deal.pk))
        assert record.after["deal_hash"] == deal_hash(deal)
    assert AuditRecord.objects.filter(action="canasta.game_settled", object_id=str(game.pk)).count() == 1
    # and each move's stored actions are the engine's
    move = CanastaDealEvent.objects.filter(deal=deals[0], kind="move").first()
    assert move is not None and action_from_dict(move.payload["actions"][0]).seat == move.payload["seat"]
