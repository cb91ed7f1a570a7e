"""Side-bet odds (rules/blackjack.md section 8): exact fractions checked against published tables.

Published references (Wizard of Odds, Michael Shackleford):
- Perfect Pairs, https://wizardofodds.com/games/blackjack/side-bets/perfect-pairs/ : pay table A
  (25/12/6) on 8 decks, combinations 1456 / 1664 / 3328 / 79872 of 86320, expected return
  -0.040964 (house edge 4.10%); on 2 decks expected return -0.223301.
- 21+3, https://wizardofodds.com/games/blackjack/side-bets/21plus3/ : version 1 (every hand
  pays 9 to 1), six decks: straight flush 10368, three of a kind 26312, straight 155520,
  flush 236736 + pair-and-flush 56160 of 5013320 combinations, expected return -0.032386;
  house edge 13.30% (1 deck), 7.26% (2), 4.24% (4), 3.24% (6), 2.74% (8). Version 3, six
  decks: suited three of a kind 1040 combinations (probability 0.000207).
Note: the 4.10% Perfect Pairs figure is the 8-deck one; on 6 decks 25/12/6 is 19/311 = 6.11%.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.blackjack.rules import PerfectPairsPaytable, TwentyOnePlusThreePaytable
from games.errors import InvalidRuleSetError
from games.odds import (
    perfect_pairs_distribution,
    perfect_pairs_odds,
    twenty_one_plus_three_distribution,
    twenty_one_plus_three_odds,
)
from games.odds.side_bets import _classify_three

NINE_TO_ONE = TwentyOnePlusThreePaytable(9, 9, 9, 9, 9)


def test_perfect_pairs_six_decks_exact() -> None:
    # given six decks and the default paytable 25/12/6
    odds = perfect_pairs_odds(6)
    # then the outcomes are counted out of 312 * 311 ordered pairs
    assert odds.outcomes == {
        "perfect": Fraction(5, 311),
        "coloured": Fraction(6, 311),
        "mixed": Fraction(12, 311),
        "none": Fraction(288, 311),
    }
    assert odds.outcomes["perfect"] == Fraction(780, 48516)
    assert odds.house_edge == Fraction(19, 311)


def test_perfect_pairs_eight_decks_matches_wizard_of_odds_pay_table_a() -> None:
    # given eight decks, 25/12/6 (Wizard of Odds pay table A)
    odds = perfect_pairs_odds(8, PerfectPairsPaytable(25, 12, 6))
    # then the combination counts and the house edge are the published ones
    assert odds.outcomes["perfect"] == Fraction(1456, 86320)
    assert odds.outcomes["coloured"] == Fraction(1664, 86320)
    assert odds.outcomes["mixed"] == Fraction(3328, 86320)
    assert odds.outcomes["none"] == Fraction(79872, 86320)
    assert odds.house_edge == Fraction(17, 415)
    assert round(float(odds.house_edge), 6) == 0.040964


@pytest.mark.parametrize(
    ("paytable", "expected_return"),
    [((30, 10, 5), -0.033735), ((25, 12, 5), -0.079518), ((25, 15, 5), -0.021687)],
)
def test_perfect_pairs_eight_decks_other_published_paytables(
    paytable: tuple[int, int, int], expected_return: float
) -> None:
    # given Wizard of Odds pay tables B, C, D on eight decks
    odds = perfect_pairs_odds(8, PerfectPairsPaytable(*paytable))
    # then the expected return is the published one
    assert round(float(odds.expected_return), 6) == expected_return


def test_perfect_pairs_two_decks_and_one_deck() -> None:
    # given two decks, the published expected return is -0.223301
    assert round(float(perfect_pairs_odds(2).expected_return), 6) == -0.223301
    # given one deck, a perfect pair is impossible
    assert perfect_pairs_distribution(1)["perfect"] == 0
    assert perfect_pairs_odds(1).house_edge == Fraction(8, 17)


def test_twenty_one_plus_three_six_decks_matches_published_combinations() -> None:
    # given six decks (5013320 unordered three-card combinations)
    outcomes = twenty_one_plus_three_distribution(6)
    total = 5013320
    # then every outcome has the published number of combinations
    assert outcomes["suited_trips"] == Fraction(1040, total)
    assert outcomes["straight_flush"] == Fraction(10368, total)
    assert outcomes["three_of_a_kind"] == Fraction(26312 - 1040, total)
    assert outcomes["straight"] == Fraction(155520, total)
    assert outcomes["flush"] == Fraction(236736 + 56160, total)
    assert sum(outcomes.values()) == 1


@pytest.mark.parametrize(
    ("decks", "published_edge"),
    [(1, 0.1330), (2, 0.0726), (4, 0.0424), (6, 0.0324), (8, 0.0274)],
)
def test_classic_21_plus_3_house_edge_per_deck_count(decks: int, published_edge: float) -> None:
    # given the original 21+3 (every hand 9 to 1)
    odds = twenty_one_plus_three_odds(decks, NINE_TO_ONE)
    # then the house edge rounds to the published figure
    assert round(float(odds.house_edge), 4) == published_edge


def test_classic_21_plus_3_six_decks_exact_edge() -> None:
    odds = twenty_one_plus_three_odds(6, NINE_TO_ONE)
    assert odds.house_edge == Fraction(162360, 5013320)
    assert round(float(odds.expected_return), 6) == -0.032386


def test_default_21_plus_3_paytable_house_edge_per_deck_count() -> None:
    # given the default paytable 100/40/25/10/5 (rules/blackjack.md section 8)
    edges = {decks: twenty_one_plus_three_odds(decks).house_edge for decks in (1, 2, 6, 8)}
    # then (exact): note six decks is about 7.14%, not the 3.24% of the classic 9:1 bet
    assert edges == {
        1: Fraction(63, 325),
        2: Fraction(2997, 22763),
        6: Fraction(44753, 626665),
        8: Fraction(23408, 372255),
    }


@pytest.mark.parametrize(
    ("ranks", "suits", "expected"),
    [
        ((0, 1, 2), (0, 1, 2), "straight"),  # A-2-3
        ((11, 12, 0), (0, 1, 2), "straight"),  # Q-K-A
        ((12, 0, 1), (0, 1, 2), "none"),  # K-A-2 never wraps
        ((12, 0, 1), (0, 0, 0), "flush"),
        ((4, 5, 6), (3, 3, 3), "straight_flush"),
        ((7, 7, 7), (1, 1, 1), "suited_trips"),
        ((7, 7, 7), (1, 1, 2), "three_of_a_kind"),
        ((7, 7, 3), (1, 1, 1), "flush"),
    ],
)
def test_21_plus_3_best_combination(
    ranks: tuple[int, int, int], suits: tuple[int, int, int], expected: str
) -> None:
    assert _classify_three(ranks, suits) == expected


@settings(max_examples=25, deadline=None)
@given(
    decks=st.integers(min_value=1, max_value=8),
    pays=st.tuples(*(st.integers(min_value=0, max_value=200) for _ in range(5))),
)
def test_house_edge_is_minus_the_paytable_weighted_sum(
    decks: int, pays: tuple[int, int, int, int, int]
) -> None:
    # given any deck count and paytable
    odds = twenty_one_plus_three_odds(decks, TwentyOnePlusThreePaytable(*pays))
    # then probabilities sum to one and edge = -(sum p_i X_i - p_none)
    assert sum(odds.outcomes.values()) == 1
    wins = sum(odds.outcomes[name] * odds.paytable[name] for name in odds.paytable)
    assert odds.house_edge == -(wins - odds.outcomes["none"])


@pytest.mark.parametrize("decks", [0, 9, True])
def test_deck_count_out_of_range_is_refused(decks: int) -> None:
    with pytest.raises(InvalidRuleSetError) as error:
        perfect_pairs_odds(decks)
    assert error.value.code == "invalid_ruleset"
