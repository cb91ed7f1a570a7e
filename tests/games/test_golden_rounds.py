"""Golden rounds: every worked example of rules/blackjack.md as a round script (tests/golden/*.json)
with its expected settlement, to the cent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.blackjack.script import play_script

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCRIPTS = sorted(GOLDEN.glob("*.json"))


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data


def test_golden_scripts_exist() -> None:
    assert len(SCRIPTS) >= 14


@pytest.mark.parametrize("path", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_golden_round_settles_as_recorded(path: Path) -> None:
    # given a recorded round script
    script = json.loads(path.read_text(encoding="utf-8"))
    # when it is played
    report = play_script(script)
    # then the settlement is exactly the recorded one
    assert report == script["expected"]


def _box_net(name: str) -> tuple[int, int, int | None]:
    box = play_script(_load(name))["boxes"][0]
    insurance = box["insurance"][0]["net_minor"] if box["insurance"] else None
    return box["main"]["net_minor"], box["net_minor"], insurance


def test_clause_7_blackjack_3_2_stake_4_wins_6() -> None:
    assert _box_net("blackjack_3_2_stake_4_chips") == (600, 600, None)


def test_clause_7_blackjack_3_2_stake_9_wins_13_5() -> None:
    assert _box_net("blackjack_3_2_stake_9_chips") == (1350, 1350, None)


def test_clause_7_blackjack_on_odd_cents_rounds_down_and_reports_remainder() -> None:
    report = play_script(_load("blackjack_3_2_odd_cents"))
    line = report["lines"][0]
    assert (line["net_minor"], line["paid_minor"], line["rounding_remainder_minor"]) == (1351, 2252, "1/2")


def test_clause_7_blackjack_rounds_down_to_smallest_chip() -> None:
    report = play_script(_load("blackjack_3_2_rounded_to_50_cent_chip"))
    line = report["lines"][0]
    assert (line["net_minor"], line["paid_minor"], line["rounding_remainder_minor"]) == (1400, 2350, "25")


def test_clause_7_insurance_example_dealer_blackjack_nets_zero() -> None:
    assert _box_net("insurance_dealer_blackjack") == (-500, 0, 500)


def test_clause_7_insurance_example_dealer_below_18_nets_half_stake() -> None:
    assert _box_net("insurance_dealer_below_18") == (500, 250, -250)


def test_clause_7_insurance_example_dealer_above_18_loses_everything() -> None:
    assert _box_net("insurance_dealer_above_18") == (-500, -750, -250)


def test_clause_7_insurance_example_dealer_exactly_18_loses_insurance_only() -> None:
    assert _box_net("insurance_dealer_exactly_18") == (0, -250, -250)


def test_clause_7_insurance_example_dealer_bust_like_below_18() -> None:
    assert _box_net("insurance_dealer_bust") == (500, 250, -250)


def test_clause_1_3_ace_seven_ten_is_hard_18() -> None:
    hand = play_script(_load("soft_ace_becomes_hard_18"))["boxes"][0]["hands"][0]
    assert (hand["cards"], hand["total"], hand["is_soft"]) == (["AH", "7D", "TD"], 18, False)


def test_clause_4_3_no_peek_original_stake_split_first_hand_busts_loses_1000() -> None:
    report = play_script(_load("no_peek_original_stake_split_first_hand_busts"))
    hands = [(hand["total"], hand["outcome"], hand["net_minor"]) for hand in report["boxes"][0]["hands"]]
    assert hands == [(23, "bust", -1000), (18, "returned", 0)]
    assert (report["totals"]["stake_minor"], report["totals"]["paid_minor"]) == (2000, 1000)


def test_clause_4_3_no_peek_all_stakes_split_first_hand_busts_loses_2000() -> None:
    report = play_script(_load("no_peek_all_stakes_split_first_hand_busts"))
    hands = [(hand["total"], hand["outcome"], hand["net_minor"]) for hand in report["boxes"][0]["hands"]]
    assert hands == [(23, "bust", -1000), (18, "lose", -1000)]
    assert (report["totals"]["stake_minor"], report["totals"]["paid_minor"]) == (2000, 0)


def test_clause_3_3_insurance_up_to_half_200_of_1000_wins_400() -> None:
    assert _box_net("insurance_up_to_half_dealer_blackjack") == (-1000, -600, 400)
