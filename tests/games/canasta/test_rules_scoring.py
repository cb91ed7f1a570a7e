"""rules/canasta.md sections 7 and 8: scoring (S1-S5) and the game's end (W1-W3), and the
refusal of deals that cannot have happened. The rule's number is in each test's name."""

from __future__ import annotations

from typing import Any

import pytest

from games.canasta import preset, score_from_dict
from games.canasta.scoring import game_standing, red_three_score
from games.errors import GameError
from tests.games.canasta.helpers import deal_data, empty_side, run, side_data

OUT = {"side": 0, "player": 0}


def side0(
    name: str, side: dict[str, Any], *, options: dict[str, Any] | None = None, went_out: Any = None
) -> dict[str, Any]:
    report = score_from_dict(
        deal_data(name, [side, empty_side(len(side["hands"]))], options=options, went_out=went_out)
    )
    row: dict[str, Any] = report["sides"][0]
    return row


def code_of(data: dict[str, Any]) -> str:
    with pytest.raises(GameError) as caught:
        score_from_dict(data)
    return caught.value.code


def test_rule_S1_melded_cards_plus_or_minus_without_a_canasta() -> None:
    with_canasta = side_data(["QS QH QD JK", run("9", 7)], 0, ["", ""])
    assert side0("classic4", with_canasta)["melded"] == 80 + 70
    alone = side_data(["QS QH QD JK"], 0, ["", ""])
    assert side0("classic4", alone)["melded"] == 80
    assert side0("ru4", alone)["melded"] == -80  # 002 §8: "+80 with a canasta, -80 without"
    assert side0("ru4", with_canasta)["melded"] == 150
    assert side0("classic4", side_data(["3S 3C 3S", run("9", 7)], 0, ["", ""]), went_out=OUT)["melded"] == 85


def test_rule_S2_canasta_bonuses() -> None:
    natural, mixed = run("9", 7), run("8", 5) + " 2S JK"
    row = side0("classic4", side_data([natural, mixed, "KS KH KD KC KS KH"], 0, ["", ""]))
    assert row["canastas"] == {"natural": 500, "mixed": 300} and row["canasta_bonus"] == 800
    graded = [run("9", 6) + " 2S", run("8", 5) + " 2S 2H", run("7", 4) + " 2D 2C JK"]
    assert (
        side0("ru4", side_data(graded[:2], 0, ["", ""]), options={"gradedMixed": True})["canasta_bonus"]
        == 700
    )
    assert (
        side0("classic4", side_data(graded, 0, ["", ""]), options={"gradedMixed": True})["canasta_bonus"]
        == 900
    )
    sevens = side0("classic4", side_data([run("7", 7)], 0, ["", ""]), options={"sevensBonus": True})
    assert sevens["canastas"] == {"natural": 500, "sevens": 100}
    joker = side0(
        "classic4", side_data(["JK JK JK JK 2S 2H 2D"], 0, ["", ""]), options={"jokerCanasta": True}
    )
    assert joker["canastas"] == {"joker": 1000}
    samba = side0("samba", side_data(["4S 5S 6S 7S 8S 9S TS"], 0, ["", ""]))
    assert samba["canastas"] == {"samba": 1500}


@pytest.mark.parametrize(
    ("name", "count", "melds", "canastas", "points"),
    [
        ("classic4", 0, 0, 0, 0),
        ("classic4", 2, 1, 0, 200),
        ("classic4", 2, 0, 0, -200),  # MELD_NEG
        ("classic4", 4, 1, 0, 800),
        ("pl4", 3, 2, 0, -300),  # CANASTA_NEG
        ("pl4", 4, 0, 0, -800),
        ("pl4", 3, 2, 1, 300),
        ("ru4", 3, 2, 0, 0),  # CANASTA_ZERO
        ("ru4", 4, 2, 1, 800),
        ("pl3deck", 6, 2, 2, 1000),
        ("pl3deck", 6, 2, 1, -1000),  # 000 L149
        ("samba", 6, 2, 1, 600),  # [rec] 100 each under CANASTA_ZERO
        ("samba", 6, 2, 0, 0),
        ("pl3deck", 4, 1, 1, 400),  # three packs: 4 or 5 red threes, 100 each
        ("ru6", 6, 1, 1, 1000),
    ],
)
def test_rule_S3_red_threes(name: str, count: int, melds: int, canastas: int, points: int) -> None:
    assert red_three_score(preset(name), count, melds=melds, canastas=canastas) == points


def test_rule_S4_going_out_bonuses() -> None:
    melds = [run("9", 7)]
    assert side0("classic4", side_data(melds, 0, ["", ""]), went_out=OUT)["going_out"] == 100
    concealed = {**OUT, "concealed": True}
    assert side0("classic4", side_data(melds, 0, ["", ""]), went_out=concealed)["going_out"] == 200
    double = {**OUT, "double": True}
    assert side0("pl4", side_data(melds, 0, ["", ""]), went_out=double)["going_out"] == 200
    samba = [run("9", 7), run("8", 7)]
    assert side0("samba", side_data(samba, 0, ["", ""]), went_out=concealed)["going_out"] == 200
    assert side0("classic4", side_data(melds, 0, ["", ""]))["going_out"] == 0  # stock ran out


def test_rule_S5_cards_left_in_hand() -> None:
    row = side0("classic4", side_data([], 0, ["JK 2S AS KS 7S", "3S 3H"]))
    assert row["hand"] == -(50 + 20 + 20 + 10 + 5) - 100 - 500
    assert side0("ru4", side_data([], 0, ["3C", ""]))["hand"] == -500


def test_rule_W1_the_game_ends_after_the_deal_a_side_reaches_the_target() -> None:
    rules = preset("classic4")
    assert game_standing(rules, [4995, 4000]) == (False, None, None)
    assert game_standing(rules, [5000, 4000]) == (True, 0, 1000)
    data = deal_data("classic4", [side_data([run("9", 7)], 0, ["", ""]), empty_side(2)], scores=[4500, 100])
    assert score_from_dict(data)["game"] == {"is_over": True, "winner": 0, "margin": 5070 - 100}


def test_rule_W2_targets() -> None:
    targets = {name: preset(name).target for name in ("classic4", "pl4", "ru2", "ru3", "classic2", "samba")}
    assert targets == {
        "classic4": 5000,
        "pl4": 5000,
        "ru2": 3000,
        "ru3": 3000,
        "classic2": 5000,
        "samba": 10000,
    }
    assert preset("pl4", {"target7500": True}).target == 7500
    assert preset("pl4", {"target10000": True}).target == 10000


def test_rule_W3_highest_total_wins_a_tie_for_first_plays_on() -> None:
    rules = preset("classic3")
    assert game_standing(rules, [5200, 5600, 3000]) == (True, 1, 400)
    assert game_standing(rules, [5600, 5600, 3000]) == (False, None, None)


def test_impossible_deals_are_refused_with_a_code() -> None:
    out_side = side_data([run("9", 7)], 0, ["", "KS"])
    base = deal_data("classic4", [out_side, empty_side(2)], went_out=OUT)
    assert code_of({**base, "stock_exhausted": True}) == "impossible_deal"
    unfinished = dict(base)
    del unfinished["went_out"]
    assert code_of(unfinished) == "deal_not_finished"
    holding = deal_data("classic4", [side_data([run("9", 7)], 0, ["4S", ""]), empty_side(2)], went_out=OUT)
    assert code_of(holding) == "out_player_holds_cards"
    no_canasta = deal_data("classic4", [side_data(["9S 9H 9D"], 0, ["", ""]), empty_side(2)], went_out=OUT)
    assert code_of(no_canasta) == "not_enough_canastas"
    too_many = deal_data("classic4", [side_data([run("9", 7), "9S 9H 9D"], 0, ["", ""]), empty_side(2)])
    assert code_of(too_many) in ("too_many_copies", "rank_already_melded")
    copies = deal_data("classic4", [side_data(["AS AS AS"], 0, ["", ""]), empty_side(2)])
    assert code_of(copies) == "too_many_copies"
    threes = deal_data("classic4", [side_data(["3S 3C 3S"], 0, ["", ""]), empty_side(2)])
    assert code_of(threes) == "black_threes_not_going_out"
    assert (
        code_of(deal_data("classic4", [side_data(["KS QS JS"], 0, ["", ""]), empty_side(2)])) == "mixed_ranks"
    )
    assert code_of(deal_data("classic4", [empty_side(2)])) == "wrong_side_count"
    assert code_of(deal_data("classic4", [side_data([], 0, [""]), empty_side(2)])) == "wrong_player_count"
    assert (
        code_of(deal_data("classic4", [empty_side(2), empty_side(2)], options={"nope": 1}))
        == "unknown_option"
    )
    assert code_of(deal_data("nope", [empty_side(2), empty_side(2)])) == "unknown_preset"


def test_rule_O3_next_opening_from_the_total_or_from_this_deals_score() -> None:
    # given a side at 4000 that scores -80 in the deal (E11's position under kurnik2's rules)
    sides = [side_data([], 0, ["QS JS 9S 7S 7H AS 2S"]), side_data([], 0, [""])]
    data = deal_data("kurnik2", sides, scores=[4000, 0])
    # then the next minimum comes from the cumulative 3920 (120), or from -80 alone (15)
    assert score_from_dict(data)["sides"][0]["next_opening"]["minimum"] == 120
    data["options"] = {"openingBasis": "PREVIOUS_HAND"}
    assert score_from_dict(data)["sides"][0]["next_opening"]["minimum"] == 15
