"""Canasta engine throughput: random legal deals per second, two packs and three packs.

Each deal: a shuffled pack (a seeded random.Random, never the engine), ``start_deal``, then
random choices among ``legal_actions`` until the deal ends, then ``score_deal``. Reported: the
median of repeated runs, with actions per deal. Two packs are ``classic4`` (108 cards, four
players); three packs ``samba`` (162 cards, four players) and ``ru6`` (162 cards, six players).

    .venv/bin/python bench/canasta_engine.py [DEALS_PER_RUN] [RUNS]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.canasta import PRESETS, pack, run_deal, score_deal, start_deal

CASES = (("classic4", "two packs"), ("samba", "three packs"), ("ru6", "three packs, six players"))


def play(name: str, deals: int, seed: int) -> tuple[float, int]:
    """Seconds for ``deals`` random legal deals of preset ``name``, and the actions they took."""
    rules = PRESETS[name]
    rng = random.Random(seed)
    cards = list(pack(rules.decks, rules.jokers))
    actions = 0
    started = time.perf_counter()
    for number in range(deals):
        rng.shuffle(cards)
        state, _ = start_deal(rules, cards, dealer=number % rules.players)
        final, _, taken = run_deal(state, lambda _state, legal: rng.choice(legal))
        score_deal(final)
        actions += len(taken)
    return time.perf_counter() - started, actions


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    play("classic4", 3, 1)  # warm up
    print(f"canasta engine: random legal deals, median of {runs} runs of {deals} deals")
    print(
        f"  {'preset':<10} {'packs':<26} {'deals/s':>8} {'min':>8} {'max':>8} {'actions/deal':>13} {'us/action':>10}"
    )
    for name, label in CASES:
        rates: list[float] = []
        per_action: list[float] = []
        actions_per_deal: list[float] = []
        for run in range(runs):
            seconds, actions = play(name, deals, 20260601 + run)
            rates.append(deals / seconds)
            per_action.append(seconds / actions * 1e6)
            actions_per_deal.append(actions / deals)
        print(
            f"  {name:<10} {label:<26} {statistics.median(rates):>8.1f} {min(rates):>8.1f} {max(rates):>8.1f}"
            f" {statistics.median(actions_per_deal):>13.0f} {statistics.median(per_action):>10.0f}"
        )


if __name__ == "__main__":
    main()
