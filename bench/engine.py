"""Blackjack engine throughput: full 7-box rounds per second under random legal play.

Every round: 7 main bets, Perfect Pairs and 21+3 on each box, two bets behind per box (one
following doubles and splits), insurance choices, random decisions from ``legal_actions``.
Randomness lives here (a seeded random.Random), never in the engine.

    .venv/bin/python bench/engine.py [ROUNDS]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.blackjack import (
    LIVE_AMERICAN,
    Bet,
    BetKind,
    RoundState,
    new_round,
    run_round,
    state_to_dict,
)
from games.blackjack.events import RoundSettled
from games.cards import shoe_cards


def full_table_bets(round_number: int) -> list[Bet]:
    bets: list[Bet] = []
    for box in range(1, 8):
        owner = f"owner{box}"
        bets.append(Bet(f"r{round_number}-m{box}", owner, box, BetKind.MAIN, 1000))
        bets.append(Bet(f"r{round_number}-pp{box}", owner, box, BetKind.PERFECT_PAIRS, 100))
        bets.append(Bet(f"r{round_number}-t{box}", owner, box, BetKind.TWENTY_ONE_PLUS_THREE, 100))
        bets.append(Bet(f"r{round_number}-ba{box}", f"behind{box}a", box, BetKind.BEHIND, 500, True, True))
        bets.append(Bet(f"r{round_number}-bb{box}", f"behind{box}b", box, BetKind.BEHIND, 300))
    return bets


def one_box_bets(round_number: int) -> list[Bet]:
    return [Bet(f"r{round_number}", "solo", 1, BetKind.MAIN, 1000)]


def play_rounds(
    count: int, seed: int = 20240601, bets: Callable[[int], list[Bet]] = full_table_bets
) -> tuple[float, int, int, RoundState]:
    rng = random.Random(seed)
    rules = LIVE_AMERICAN
    shoe = list(shoe_cards(rules.decks))
    position = len(shoe)
    actions_total = 0
    lines_total = 0
    state = new_round(rules)
    started = time.perf_counter()
    for number in range(count):
        if position > len(shoe) - 80:  # cut card: reshuffle well before the shoe runs out
            rng.shuffle(shoe)
            position = 0
        state = new_round(rules, bets(number))
        cards = iter(shoe[position:])
        state, events, actions = run_round(state, cards, lambda _state, legal: rng.choice(legal))
        position += len(state.cards_on_table())
        actions_total += len(actions)
        settled = events[-1]
        assert isinstance(settled, RoundSettled)  # the payout lines come with the last event
        lines_total += len(settled.lines)
    return time.perf_counter() - started, actions_total, lines_total, state


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    play_rounds(50)  # warm up
    elapsed, actions, lines, last = play_rounds(count)
    print(
        f"blackjack engine: {count} full 7-box rounds (side bets, 2 bets behind per box, random legal play)"
    )
    print(f"  {elapsed:.3f} s  ->  {count / elapsed:,.0f} rounds/s, {actions / elapsed:,.0f} actions/s")
    print(f"  {actions / count:.1f} actions and {lines / count:.1f} payout lines per round")
    elapsed, actions, _, _ = play_rounds(count * 5, bets=one_box_bets)
    print(f"blackjack engine: {count * 5} one-box rounds (a simulation seat)")
    print(f"  {elapsed:.3f} s  ->  {count * 5 / elapsed:,.0f} rounds/s, {actions / elapsed:,.0f} actions/s")
    started = time.perf_counter()
    for _ in range(200):
        state_to_dict(last)
    print(f"  snapshot of a settled round: {(time.perf_counter() - started) / 200 * 1e6:,.0f} us")
    try:
        from bench import odds  # type: ignore[attr-defined]
    except ImportError:
        try:
            import odds  # type: ignore[import-not-found,no-redef]
        except ImportError:
            print("bench/odds.py: not there yet")
            return
    print("odds (bench/odds.py measure()):")
    for key, value in odds.measure().items():
        print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
