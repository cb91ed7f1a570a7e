"""The engine's refusals number seats and sides from 1, as the table and the host's page do (the
engine's own indexes count from 0)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from games.canasta import Draw, apply, deal_from_dict, preset, score_finished, start_deal
from games.errors import GameError
from tests.games.canasta.helpers import position, shuffled


def message(call: Any) -> tuple[str, str]:
    with pytest.raises(GameError) as caught:
        call()
    return caught.value.code, caught.value.message


def test_a_move_out_of_turn_names_the_seats_from_1() -> None:
    state = position("classic4", hands={0: "5S 6S", 1: "7S 8S"}, turn=0)

    assert message(lambda: apply(state, Draw(1))) == ("not_your_turn", "seat 1 is on turn, not seat 2")


def test_a_dealer_the_table_lacks_is_named_from_1() -> None:
    rules = preset("classic4")

    assert message(lambda: start_deal(rules, shuffled(rules, 1), dealer=4)) == (
        "invalid_dealer",
        "no seat 5 to deal",
    )


def test_an_entered_deal_names_its_sides_from_1() -> None:
    two_hands_short = {
        "preset": "classic4",
        "sides": [
            {"melds": [], "red_threes": [], "hands": [["5S"], ["6S"]]},
            {"melds": [], "red_threes": [], "hands": [["7S"]]},
        ],
        "went_out": None,
        "stock_exhausted": True,
    }

    assert message(lambda: deal_from_dict(two_hands_short)) == (
        "wrong_player_count",
        "side 2 has 2 player(s)",
    )


def test_going_out_from_a_side_the_game_lacks_is_named_from_1() -> None:
    deal = deal_from_dict(
        {
            "preset": "classic4",
            "sides": [
                {"melds": [], "red_threes": [], "hands": [["5S"], ["6S"]]},
                {"melds": [], "red_threes": [], "hands": [["7S"], ["8S"]]},
            ],
            "went_out": None,
            "stock_exhausted": True,
        }
    )
    beyond = dataclasses.replace(deal, went_out=2, stock_exhausted=False)

    assert message(lambda: score_finished(beyond)) == ("wrong_side_count", "no side 3: the game has 2")
