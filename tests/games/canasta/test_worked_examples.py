"""rules/canasta.md section 11: every worked example as a test (E01-E41 here; the opening
vectors O-a..O-i and the pile vectors P-a..P-i in test_rules_opening.py and test_rules_pile.py).

Each deal goes through the JSON format of docs/canasta-deal.md and the scorer; the expected
columns are the digest's: melded (S1), bonus (S2), red threes (S3), going out (S4), hand (S5),
total.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.canasta import opening_requirement, preset, score_from_dict
from games.errors import GameError
from tests.games.canasta.helpers import deal_data, empty_side, run, side_data

E01_MELDS = [run("7", 7), "KS KH KD KC JK 2S JK"]
E05 = side_data(["QS QH QD JK", "5S 5H 5D"], 1, ["AS 8S 3S", "JK 6S"])
E15_MELDS = [run("J", 6) + " JK", "6S 6H 6D"]
E18_MELDS = [run("Q", 8), run("5", 5) + " JK 2S", "AS AH AD"]
E26_MELDS = ["JK JK JK JK 2S 2H 2D", run("4", 7)]

OUT = {"side": 0, "player": 0}
CONCEALED = {"side": 0, "player": 0, "concealed": True}

# id: (preset, options, side 0, went out, (melded, bonus, red threes, going out, hand, total))
EXAMPLES: dict[str, tuple[str, dict[str, Any], dict[str, Any], dict[str, Any] | None, tuple[int, ...]]] = {
    "E01": ("classic2", {}, side_data(E01_MELDS, 2, [""]), OUT, (195, 800, 200, 100, 0, 1295)),
    "E02": ("classic4", {}, side_data(E01_MELDS, 2, ["", "9S 4S"]), OUT, (195, 800, 200, 100, -15, 1280)),
    "E03": (
        "pl4",
        {"sevensBonus": True},
        side_data(E01_MELDS, 2, ["", "9S 4S"]),
        OUT,
        (195, 900, 200, 100, -15, 1380),
    ),
    "E04": (
        "ru4",
        {"gradedMixed": True},
        side_data(E01_MELDS, 2, ["", "9S 4S"]),
        OUT,
        (195, 700, 200, 100, -15, 1180),
    ),
    "E05": ("classic4", {}, E05, None, (95, 0, 100, 0, -185, 10)),
    "E06": ("pl4", {}, E05, None, (95, 0, -100, 0, -185, -190)),
    "E07": ("ru4", {}, E05, None, (-95, 0, 0, 0, -585, -680)),
    "E08": (
        "classic4",
        {},
        side_data([run("8", 5) + " 2S 2H"], 4, ["4S 4H", "KS"]),
        None,
        (90, 300, 800, 0, -20, 1170),
    ),
    "E09": ("classic4", {}, side_data([], 4, ["QS JS 9S 7S 7H", "AS 2S"]), None, (0, 0, -800, 0, -80, -880)),
    "E10": ("pl4", {}, side_data([], 4, ["QS JS 9S 7S 7H", "AS 2S"]), None, (0, 0, -800, 0, -80, -880)),
    "E11": ("ru4", {}, side_data([], 4, ["QS JS 9S 7S 7H", "AS 2S"]), None, (0, 0, 0, 0, -80, -80)),
    "E12": ("classic4", {}, side_data(["AS AH AD"], 4, ["5S", "KS KH"]), None, (60, 0, 800, 0, -25, 835)),
    "E13": ("pl4", {}, side_data(["AS AH AD"], 4, ["5S", "KS KH"]), None, (60, 0, -800, 0, -25, -765)),
    "E14": ("ru4", {}, side_data(["AS AH AD"], 4, ["5S", "KS KH"]), None, (-60, 0, 0, 0, -25, -85)),
    "E15": (
        "classic4",
        {},
        side_data(E15_MELDS, 1, ["", "TS TH"]),
        CONCEALED,
        (125, 300, 100, 200, -20, 705),
    ),
    "E16": (
        "ru4",
        {},
        side_data([*E15_MELDS, "9S 9H 9D"], 1, ["", "TS TH"]),
        {**CONCEALED, "partner_had_melded": True},
        (155, 300, 100, 100, -20, 635),
    ),
    "E17": (
        "pl4",
        {},
        side_data([*E15_MELDS, "9S 9H 9D"], 1, ["", "TS TH"]),
        {**CONCEALED, "partner_had_melded": True},
        (155, 300, 100, 200, -20, 735),
    ),
    "E18": (
        "pl4",
        {},
        side_data(E18_MELDS, 0, ["", ""]),
        {**OUT, "double": True},
        (235, 800, 0, 200, 0, 1235),
    ),
    "E19": (
        "pl4",
        {},
        side_data([run("T", 7), "KS KH 2S"], 1, ["7S 7H", "JS"]),
        None,
        (110, 500, 100, 0, -20, 690),
    ),
    "E20": (
        "classic4",
        {},
        side_data(["3S 3C 3S", run("9", 5) + " 2S 2H"], 0, ["", "AS"]),
        {**OUT, "discard": "4S"},
        (105, 300, 0, 100, -20, 485),
    ),
    "E21": ("ru4", {}, side_data([run("A", 7)], 2, ["3C 3S 4S", ""]), None, (140, 500, 200, 0, -1005, -165)),
    "E22": ("pl4", {}, side_data([run("A", 7)], 2, ["3C 3S 4S", ""]), None, (140, 500, 200, 0, -205, 635)),
    "E23": ("pl4", {}, side_data(["KS KH KD"], 0, ["3H 8S", ""]), None, (30, 0, 0, 0, -510, -480)),
    "E24": (
        "samba",
        {},
        side_data(["8S 9S TS JS QS KS AS", run("6", 7), run("K", 5) + " JK 2S"], 6, ["", "9S"]),
        OUT,
        (235, 2300, 1000, 200, -10, 3725),
    ),
    "E25": ("pl3deck", {}, side_data([run("J", 7)], 6, ["QS", "5S"]), None, (70, 500, -1000, 0, -15, -445)),
    "E26": (
        "ru4",
        {"jokerCanasta": True},
        side_data(E26_MELDS, 0, ["", "5S 5H"]),
        OUT,
        (295, 1500, 0, 100, -10, 1885),
    ),
    "E27": (
        "pl4",
        {"jokerCanasta": True},
        side_data(E26_MELDS, 0, ["", "5S 5H"]),
        OUT,
        (295, 900, 0, 100, -10, 1285),
    ),
    "E29": ("ru2", {}, side_data(["TS TH TD TC"], 1, ["JK AS 7S"]), None, (-40, 0, 0, 0, -75, -115)),
    "E31": (
        "classic4",
        {},
        side_data([run("9", 7) + " 2S"], 0, ["6S", "8S"]),
        None,
        (90, 300, 0, 0, -15, 375),
    ),
    "E32": (
        "ru4",
        {"gradedMixed": True},
        side_data([run("9", 7) + " 2S"], 0, ["6S", "8S"]),
        None,
        (90, 400, 0, 0, -15, 475),
    ),
    "E33": (
        "ru4",
        {"gradedMixed": True},
        side_data([run("T", 5) + " 2S JK", run("A", 6) + " 2H"], 0, ["", "KS"]),
        OUT,
        (260, 700, 0, 100, -10, 1050),
    ),
    "E34": ("classic4", {}, side_data([run("4", 7)], 0, ["", "QS"]), CONCEALED, (35, 500, 0, 200, -10, 725)),
    "E35": (
        "samba",
        {},
        side_data([run("Q", 7), run("5", 5) + " 2S JK"], 3, ["3C", ""]),
        None,
        (165, 800, 300, 0, -500, 765),
    ),
    "E36": ("ru3", {}, side_data([], 1, ["KS QS 2S 3S"]), None, (0, 0, 0, 0, -540, -540)),
    "E37": ("classic3", {}, side_data([], 1, ["KS QS 2S 3S"]), None, (0, 0, -100, 0, -140, -240)),
    "E38": ("kurnik2", {}, side_data(["9S 9H 9D"], 2, ["6S"]), None, (30, 0, 200, 0, -5, 225)),
    "E39": ("kurnik2", {}, side_data(["5S 5H 5D"], 4, ["KS"]), None, (15, 0, 800, 0, -10, 805)),
}


def _columns(report: dict[str, Any], side: int) -> tuple[int, ...]:
    row = report["sides"][side]
    return (
        row["melded"],
        row["canasta_bonus"],
        row["red_threes"],
        row["going_out"],
        row["hand"],
        row["deal_total"],
    )


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_section_11_worked_example(example: str) -> None:
    # given the side of the example and an opponent with nothing, in the example's preset
    name, options, side, went_out, expected = EXAMPLES[example]
    players = len(side["hands"])
    sides = [side] + [empty_side(players) for _ in range(max(preset(name).players // players, 2) - 1)]
    data = deal_data(name, sides, options=options, went_out=went_out)
    # when the deal is scored, then every column is the digest's
    report = score_from_dict(data)
    assert _columns(report, 0) == expected


def test_section_11_E03_E24_bonus_by_kind() -> None:
    # the breakdown names each canasta bonus: sevens +100 on top (E03), the samba 1500 (E24)
    name, options, side, went_out, _ = EXAMPLES["E03"]
    report = score_from_dict(deal_data(name, [side, empty_side(2)], options=options, went_out=went_out))
    assert report["sides"][0]["canastas"] == {"natural": 500, "sevens": 100, "mixed": 300}
    name, options, side, went_out, _ = EXAMPLES["E24"]
    report = score_from_dict(deal_data(name, [side, empty_side(2)], options=options, went_out=went_out))
    assert report["sides"][0]["canastas"] == {"samba": 1500, "natural": 500, "mixed": 300}


def test_section_11_E20_is_illegal_in_pl4() -> None:
    # given E20's black threes melded and a final discard, in pl4 (000 L98)
    _, _, side, went_out, _ = EXAMPLES["E20"]
    data = deal_data("pl4", [side, empty_side(2)], went_out=went_out)
    with pytest.raises(GameError) as caught:
        score_from_dict(data)
    assert caught.value.code == "black_threes_final_discard"


def test_section_11_E28_E29_E30_two_players() -> None:
    # given E28's side out with two canastas and E30's side as its opponent (classic2)
    e28 = side_data([run("8", 7), run("4", 5) + " 2S 2H"], 1, [""])
    e30 = side_data(["TS TH TD TC"], 1, ["JK AS 7S"])
    report = score_from_dict(deal_data("classic2", [e28, e30], went_out=OUT))
    assert _columns(report, 0) == (135, 800, 100, 100, 0, 1135)
    assert _columns(report, 1) == (40, 0, 100, 0, -75, 65)
    # and E29 is the opponent under ru2: no canasta, melds and red threes count nothing or minus
    report = score_from_dict(deal_data("ru2", [e28, e30], went_out=OUT))
    assert _columns(report, 1) == (-40, 0, 0, 0, -75, -115)


def test_section_11_E40_game_end() -> None:
    # given totals 4720 and 4990 and the deal of E02 (side 0) against E05 (side 1)
    e02 = side_data(E01_MELDS, 2, ["", "9S 4S"])
    data = deal_data("classic4", [e02, E05], scores=[4720, 4990], went_out=OUT)
    report = score_from_dict(data)
    # then 6000 and 5000: both reach 5000, the game ends, the 6000 side wins by 1000
    assert [row["total"] for row in report["sides"]] == [6000, 5000]
    assert report["game"] == {"is_over": True, "winner": 0, "margin": 1000}


def test_section_11_E41_next_opening_minimums() -> None:
    classic4, ru4 = preset("classic4"), preset("ru4")
    assert opening_requirement(classic4, -190).minimum == 15
    assert opening_requirement(ru4, 990).minimum == 30
    assert opening_requirement(ru4, 1010).minimum == 60
    assert opening_requirement(classic4, 2995).minimum == 90
    assert opening_requirement(classic4, 3000).minimum == 120
