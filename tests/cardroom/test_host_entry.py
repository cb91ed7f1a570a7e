"""A canasta game at a physical-cards table: the host enters each finished deal (the format of
docs/canasta-deal.md), the engine checks and scores it, the game ends at 5000 and settles to
the cent with a time charge; an impossible deal is refused with the engine's code, writing
nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from cardroom.models import CanastaDeal, CanastaDealEvent, CanastaDealScore, CanastaGame, CanastaGameStatus
from cardroom.selectors import canasta_table_state
from cardroom.services import (
    canasta_deal_enter,
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_seat_take,
)
from cardroom.services.common import deal_hash
from casino.errors import GameRefusedError
from casino.models import AuditRecord, Table
from tables.services import Actor
from tests.cardroom.conftest import at_terminal, balance, configured, venue_balance
from wallet.models import AccountKind

# rules section 11 E02/E05 (docs/canasta-deal.md): side 0 goes out with a natural canasta of
# sevens and a mixed canasta of kings, two red threes, the partner holding 9 4.
DEAL: dict[str, Any] = {
    "sides": [
        {
            "melds": [
                ["7S", "7H", "7D", "7C", "7S", "7H", "7D"],
                ["KS", "KH", "KD", "KC", "JK", "2S", "JK"],
            ],
            "red_threes": ["3H", "3D"],
            "hands": [[], ["9S", "4S"]],
        },
        {
            "melds": [["QS", "QH", "QD", "JK"], ["5S", "5H", "5D"]],
            "red_threes": ["3H"],
            "hands": [["AS", "8S", "3S"], ["JK", "6S"]],
        },
    ],
    "went_out": {"side": 0, "player": 0, "concealed": False, "discard": "9D"},
}


def physical_game(table: Table, players: list[Any], host: Any, operator: Any, **changes: Any) -> CanastaGame:
    configured(table, operator, deal_kind="physical", **changes)
    game = canasta_game_open(table=table, actor=Actor.staff(host), stake_minor=50)
    for seat, player in enumerate(players):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=Actor.staff(host), player=player)
    canasta_game_start(game_id=game.pk, actor=Actor.staff(host))
    return game


@pytest.mark.django_db
def test_a_game_scored_by_the_host_deal_by_deal_ends_at_5000_and_settles_with_a_time_charge(
    canasta_table, four_players, host, operator
):
    # Given: a physical-cards game at EUR 0.50 per 100 points, EUR 4.00 per started hour
    game = physical_game(canasta_table, four_players, host, operator, fee_kind="per_hour", fee_minor=400)
    assert [balance(player) for player in four_players] == [(100_000, 5_000)] * 4
    host_actor = Actor.staff(host)

    # When: the host enters the same finished deal four times (1280 and 10 each), the game having
    # run for 2 hours and 10 minutes
    for number in range(1, 5):
        if number > 1:
            canasta_deal_start(game_id=game.pk, actor=host_actor)
        if number == 4:
            CanastaGame.objects.filter(pk=game.pk).update(
                started_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=2, minutes=10)
            )
        canasta_deal_enter(game_id=game.pk, actor=host_actor, deal_data=DEAL)
        state = canasta_table_state(table=canasta_table)
        assert state["game"]["totals"] == [1280 * number, 10 * number]

    # Then: the score sheet, the dealers (to the left), the next opening minimums
    game.refresh_from_db()
    assert game.status == CanastaGameStatus.ENDED
    assert (game.totals, game.winner_side, game.margin) == ([5120, 40], 0, 5080)
    sheet = state["game"]["score_sheet"]
    assert [line["dealer_seat"] for line in sheet] == [0, 1, 2, 3]
    assert sheet[0]["sides"][0] == {
        "side": 0,
        "melded": 195,
        "canasta_bonus": 800,
        "canastas": {"natural": 500, "mixed": 300},
        "red_threes": 200,
        "going_out": 100,
        "hand": -15,
        "deal_total": 1280,
        "total": 1280,
    }
    assert state["game"]["next_opening"] == [
        {"side": 0, "minimum": 120, "canasta_at_once": False, "naturals": 0},
        {"side": 1, "minimum": 50, "canasta_at_once": False, "naturals": 0},
    ]
    # each loser pays 5080 * 50 // 100 = 2540; the time charge is 3 started hours * 400 = 1200
    # from the pot of 5080; each winner gets (5080 - 1200) / 2 = 1940
    assert [balance(player) for player in four_players] == [
        (101_940, 0),
        (97_460, 0),
        (101_940, 0),
        (97_460, 0),
    ]
    assert venue_balance(canasta_table, AccountKind.HOUSE) == 1200
    assert venue_balance(canasta_table, AccountKind.HOUSE_ROUNDING) == 0
    # each deal's entry is its event log, its hash in the audit chain
    for deal in CanastaDeal.objects.filter(game=game):
        assert list(CanastaDealEvent.objects.filter(deal=deal).values_list("kind", flat=True)) == [
            "deal_started",
            "deal_entered",
        ]
        record = AuditRecord.objects.get(action="canasta.deal_scored", object_id=str(deal.pk))
        assert record.after["deal_hash"] == deal_hash(deal)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"went_out": {"side": 0, "player": 1}}, "out_player_holds_cards"),
        ({"went_out": None}, "deal_not_finished"),
        (
            {
                "went_out": None,
                "stock_exhausted": True,
                "sides": [{**DEAL["sides"][0], "melds": [["7S"] * 3]}, DEAL["sides"][1]],
            },
            "too_many_copies",
        ),
        (
            {"sides": [{**DEAL["sides"][0], "melds": [["7S", "7H", "7D", "7C"]]}, DEAL["sides"][1]]},
            "not_enough_canastas",
        ),
        ({"sides": [DEAL["sides"][0]]}, "wrong_side_count"),
        ({"sides": "none"}, "invalid_deal_data"),
    ],
)
@pytest.mark.django_db
def test_an_impossible_deal_is_refused_with_the_engines_code_and_nothing_is_written(
    canasta_table, four_players, host, operator, change, code
):
    # Given: a physical-cards game waiting for its first deal
    game = physical_game(canasta_table, four_players, host, operator)
    deal = CanastaDeal.objects.get(game=game)
    audit = AuditRecord.objects.count()

    # When: the host enters a deal that cannot have happened
    with pytest.raises(GameRefusedError) as refused:
        canasta_deal_enter(game_id=game.pk, actor=Actor.staff(host), deal_data={**DEAL, **change})

    # Then: refused with the engine's code; no event, no score, no audit record
    assert refused.value.code == code
    deal.refresh_from_db()
    assert (deal.status, deal.version) == ("playing", 1)
    assert CanastaDealEvent.objects.filter(deal=deal).count() == 1
    assert CanastaDealScore.objects.count() == 0
    assert AuditRecord.objects.count() == audit
    game.refresh_from_db()
    assert game.totals == [0, 0]


@pytest.mark.django_db
def test_a_virtual_deal_takes_no_host_entry_and_a_physical_one_no_moves(
    canasta_table, four_players, host, operator
):
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=50)
    actors = [at_terminal(canasta_table, player) for player in four_players]
    for seat, actor in enumerate(actors):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=actor)
    canasta_game_start(game_id=game.pk, actor=Actor.staff(host))

    with pytest.raises(Exception) as refused:
        canasta_deal_enter(game_id=game.pk, actor=Actor.staff(host), deal_data=DEAL)

    assert getattr(refused.value, "code", None) == "wrong_deal_kind"
    assert CanastaDealScore.objects.count() == 0


@pytest.mark.django_db
def test_a_scored_deal_exports_its_events_and_scores_with_its_hash(canasta_table):
    from cardroom.selectors import canasta_deal_export
    from tests.cardroom.conftest import canasta_deal_scored

    canasta_deal_scored(canasta_table)
    deal = CanastaDeal.objects.get()

    exported = canasta_deal_export(deal)

    assert [event["kind"] for event in exported["events"]] == ["deal_started", "deal_entered"]
    assert [score["deal_total"] for score in exported["scores"]] == [1280, 10]
    record = AuditRecord.objects.get(action="canasta.deal_scored", object_id=str(deal.pk))
    assert exported["deal_hash"] == record.after["deal_hash"]
