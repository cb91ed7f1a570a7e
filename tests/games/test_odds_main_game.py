"""Main-game house edge under basic strategy, against published combinatorial figures.

Published references: Wizard of Odds (Michael Shackleford), "Blackjack Appendix 9", expected
return of the whole game for rules: 3:2, double on any two cards, resplit to four hands except
aces, no drawing to split aces, no surrender, double after split allowed:
- 1 deck, dealer stands on soft 17, peek: +0.001839
  (https://wizardofodds.com/games/blackjack/appendix/9/1ds17r4/)
- 5 decks, dealer stands on soft 17, peek: -0.003804
  (https://wizardofodds.com/games/blackjack/appendix/9/5ds17r4/)
- 6 decks, dealer hits soft 17, no hole card, a dealer blackjack takes doubles and splits:
  -0.0072705 (https://wizardofodds.com/games/blackjack/appendix/9/euro-6dh17r4/)
Those figures play the best decision for the exact cards of every hand (composition-dependent
strategy); ours play a total-dependent basic strategy, which is worth a little less to the
player: measured gaps 0.046 (1 deck), 0.005 (5 decks), 0.004 (6 decks) percentage points, in
line with the usual composition-dependent gain (largest with one deck).
"""

from __future__ import annotations

import pytest

from games.blackjack.rules import HoleCard, RuleSet, Surrender
from games.odds import METHOD, main_game_odds
from games.odds.dealer import BLACKJACK, BUST, dealer_distribution, full_shoe
from games.odds.main_game import SPLIT, STAND, deal_probabilities, derive_strategy


def test_deal_probabilities_sum_to_one() -> None:
    for decks in (1, 6):
        assert sum(chance for *_, chance in deal_probabilities(decks)) == pytest.approx(1.0, abs=1e-12)


def test_dealer_distribution_of_a_six_up_on_one_deck() -> None:
    # given one deck less a six (the upcard)
    shoe = list(full_shoe(1))
    shoe[5] -= 1
    # when the dealer (stands on soft 17) plays it out
    distribution = dealer_distribution(5, tuple(shoe), hits_soft_17=False)
    # then the outcomes sum to one, no natural is possible and the bust chance is about 42%
    assert float(distribution.sum()) == pytest.approx(1.0, abs=1e-12)
    assert distribution[BLACKJACK] == 0.0
    assert float(distribution[BUST]) == pytest.approx(0.4208, abs=0.0001)


def test_dealer_natural_chance_with_an_ace_up() -> None:
    shoe = list(full_shoe(6))
    shoe[0] -= 1
    distribution = dealer_distribution(0, tuple(shoe), hits_soft_17=False)
    assert float(distribution[BLACKJACK]) == pytest.approx(96 / 311, abs=1e-12)


def test_six_deck_basic_strategy_landmarks() -> None:
    # given six decks, S17, DAS, peek
    strategy = derive_strategy(RuleSet(decks=6, max_hands=4))
    ten, ace = 9, 0
    # then the well-known plays come out (keys: total, soft, upcard index)
    assert strategy.first_two[(11, False, ten)] == "D"
    assert strategy.first_two[(11, False, ace)] == "H"
    assert strategy.first_two[(16, False, ten)] == "H"
    assert strategy.first_two[(12, False, 3)] == STAND  # 12 against a 4
    assert strategy.first_two[(18, True, 8)] == "H"  # soft 18 against a 9
    assert strategy.split[(ace, ten)] and strategy.split[(7, ten)]  # A,A and 8,8
    assert not strategy.split[(ten, 5)]
    assert strategy.chart()["pair 8"]["T"] == SPLIT


def test_no_hole_card_all_stakes_strategy_avoids_doubling_and_splitting_into_a_ten() -> None:
    strategy = derive_strategy(RuleSet(decks=6, hole_card=HoleCard.NO_PEEK, max_hands=4))
    assert strategy.first_two[(11, False, 9)] == "H"
    assert not strategy.split[(7, 9)]


@pytest.mark.parametrize(
    ("rules", "published_return", "tolerance"),
    [
        (RuleSet(decks=1, max_hands=4), 0.001839, 0.0006),
        (RuleSet(decks=5, max_hands=4), -0.003804, 0.00015),
        (
            RuleSet(decks=6, max_hands=4, dealer_hits_soft_17=True, hole_card=HoleCard.NO_PEEK),
            -0.0072705,
            0.00015,
        ),
    ],
    ids=["1d-s17-das-r4", "5d-s17-das-r4", "6d-h17-enhc-das-r4"],
)
def test_house_edge_matches_published_figures(
    rules: RuleSet, published_return: float, tolerance: float
) -> None:
    # when the house edge is computed
    odds = main_game_odds(rules)
    # then it is within the tolerance of the published (composition-dependent) figure and not
    # better for the player than it (a total-dependent strategy cannot beat it)
    published_edge = -published_return
    assert abs(odds.house_edge - published_edge) < tolerance
    assert odds.house_edge > published_edge - 0.00002
    assert odds.method == METHOD
    assert len(odds.house_edge_text.split(".")[1]) == 6


def test_no_peek_surrender_keeps_half_the_stake_even_against_a_dealer_blackjack() -> None:
    # given no peek (all stakes) with late surrender, as the round engine settles it
    strategy = derive_strategy(RuleSet(decks=6, hole_card=HoleCard.NO_PEEK, surrender=Surrender.LATE))
    # then giving up half is better than playing 16 against an ace or a ten (it works as an
    # early surrender: the dealer blackjack cannot take the kept half)
    assert strategy.first_two[(16, False, 0)] == "R"
    assert strategy.first_two[(16, False, 9)] == "R"
