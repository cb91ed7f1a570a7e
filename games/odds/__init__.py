"""Exact odds of the blackjack side bets and the main game's house edge under basic strategy.

Pure engine code: no Django, no clock, no randomness (docs/odds.md).
"""

from __future__ import annotations

from games.odds.main_game import (
    METHOD,
    BasicStrategy,
    MainGameOdds,
    derive_strategy,
    expected_return,
    main_game_odds,
    refine_strategy,
)
from games.odds.side_bets import (
    PERFECT_PAIRS_OUTCOMES,
    TWENTY_ONE_PLUS_THREE_OUTCOMES,
    SideBetOdds,
    perfect_pairs_distribution,
    perfect_pairs_odds,
    twenty_one_plus_three_distribution,
    twenty_one_plus_three_odds,
)

__all__ = [
    "METHOD",
    "PERFECT_PAIRS_OUTCOMES",
    "TWENTY_ONE_PLUS_THREE_OUTCOMES",
    "BasicStrategy",
    "MainGameOdds",
    "SideBetOdds",
    "derive_strategy",
    "expected_return",
    "main_game_odds",
    "perfect_pairs_distribution",
    "perfect_pairs_odds",
    "refine_strategy",
    "twenty_one_plus_three_distribution",
    "twenty_one_plus_three_odds",
]
