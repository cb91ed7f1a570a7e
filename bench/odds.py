"""Timings of the odds module: side bets per deck count, main game per shipped profile.

Run ``.venv/bin/python bench/odds.py``; other benches call :func:`measure`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.blackjack.rules import PROFILES
from games.odds import (
    main_game_odds,
    perfect_pairs_odds,
    twenty_one_plus_three_odds,
)

DECKS = (1, 2, 4, 6, 8)


def measure() -> dict[str, Any]:
    """Seconds and figures: ``{"side_bets": {decks: {...}}, "main_game": {profile: {...}}}``."""
    side_bets: dict[int, dict[str, Any]] = {}
    for decks in DECKS:
        started = time.perf_counter()
        perfect_pairs = perfect_pairs_odds(decks)
        twenty_one = twenty_one_plus_three_odds(decks)
        side_bets[decks] = {
            "seconds": time.perf_counter() - started,
            "perfect_pairs_house_edge": float(perfect_pairs.house_edge),
            "twenty_one_plus_three_house_edge": float(twenty_one.house_edge),
        }
    main_game: dict[str, dict[str, Any]] = {}
    for name, rules in PROFILES.items():
        started = time.perf_counter()
        odds = main_game_odds(rules)
        main_game[name] = {
            "seconds": time.perf_counter() - started,
            "house_edge": odds.house_edge_text,
        }
    return {"side_bets": side_bets, "main_game": main_game}


def main() -> None:
    results = measure()
    print("side bets (default paytables)")
    print(f"  {'decks':>5}  {'seconds':>8}  {'Perfect Pairs':>14}  {'21+3':>8}")
    for decks, row in results["side_bets"].items():
        print(
            f"  {decks:>5}  {row['seconds']:>8.3f}  {row['perfect_pairs_house_edge'] * 100:>13.4f}%"
            f"  {row['twenty_one_plus_three_house_edge'] * 100:>7.4f}%"
        )
    print("main game (basic strategy)")
    for name, row in results["main_game"].items():
        print(f"  {name:<14} {row['seconds']:>7.1f}s  house edge {row['house_edge']}")


if __name__ == "__main__":
    main()
