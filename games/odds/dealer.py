"""The dealer's final-total probabilities for any shoe composition, exactly.

Cards are handled by value only: index 0 is the ace, 1-8 the twos to nines, 9 every ten-valued
card. A composition is how many cards of each value are left in the shoe.

The dealer's play is fixed, so the probability that the dealer draws a given ordered sequence of
cards depends on the composition only through the multiset of those cards:
``prod_v N_v (N_v - 1) ... / T (T - 1) ...``. For each upcard we therefore list once every
multiset the dealer can end with, the outcome it ends in and the number of orders in which the
dealer really draws it (every proper prefix must leave the dealer drawing). The distribution for
a composition is then one vectorised sum over that list (numpy), with no recursion per shoe.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

VALUES = 10
ACE = 0
TEN = 9
# Outcome indices of a dealer distribution: 17, 18, 19, 20, 21 (three or more cards, or two
# cards without the hole card making a natural), bust, blackjack (upcard plus hole card).
OUTCOMES = 7
BUST = 5
BLACKJACK = 6

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def card_value(index: int) -> int:
    """Blackjack value of a value index, the ace counting one."""
    return index + 1


def hand_total(hard_sum: int, has_ace: bool) -> tuple[int, bool]:
    """Best total of a hand from its sum with aces as one: ``(total, is_soft)``."""
    if has_ace and hard_sum + 10 <= 21:
        return hard_sum + 10, True
    return hard_sum, False


def full_shoe(decks: int) -> tuple[int, ...]:
    """Cards of each value in a full shoe: 4 per deck of each, 16 per deck of ten-valued cards."""
    return (4 * decks,) * 9 + (16 * decks,)


def _dealer_stops(hard_sum: int, has_ace: bool, hits_soft_17: bool) -> bool:
    total, soft = hand_total(hard_sum, has_ace)
    if total > 17:
        return True
    if total == 17:
        return not (soft and hits_soft_17)
    return False


@dataclass(frozen=True, slots=True)
class DealerTable:
    """Every multiset of cards the dealer can draw after one upcard, with its outcome.

    ``counts[e, v]`` cards of value ``v`` drawn (hole card included), ``outcome[e]`` an outcome
    index, ``orders[e]`` how many drawing orders reach it, ``sizes[e]`` cards drawn.
    """

    counts: IntArray
    outcome: IntArray
    orders: FloatArray
    sizes: IntArray
    max_per_value: int
    max_size: int
    # Per entry, indices into the flattened falling-factorial table (values x counts) of its
    # non-zero counts, padded with 0 (the table's first cell, always 1.0).
    gather: IntArray


@lru_cache(maxsize=64)
def dealer_table(upcard: int, hits_soft_17: bool) -> DealerTable:
    """The drawing multisets of the dealer after ``upcard`` (value index), built level by level."""
    start_sum = card_value(upcard)
    start_ace = upcard == ACE
    drawing: dict[tuple[int, ...], int] = {(0,) * VALUES: 1}
    finished: dict[tuple[tuple[int, ...], int], int] = {}
    size = 0
    while drawing:
        size += 1
        next_drawing: dict[tuple[int, ...], int] = {}
        for multiset, ways in drawing.items():
            hard = start_sum + sum(card_value(v) * n for v, n in enumerate(multiset))
            has_ace = start_ace or multiset[ACE] > 0
            for card in range(VALUES):
                grown = list(multiset)
                grown[card] += 1
                key = tuple(grown)
                new_hard = hard + card_value(card)
                new_ace = has_ace or card == ACE
                if new_hard > 21:
                    finished[(key, BUST)] = finished.get((key, BUST), 0) + ways
                elif _dealer_stops(new_hard, new_ace, hits_soft_17):
                    total, _ = hand_total(new_hard, new_ace)
                    outcome = BLACKJACK if size == 1 and total == 21 else total - 17
                    finished[(key, outcome)] = finished.get((key, outcome), 0) + ways
                else:
                    next_drawing[key] = next_drawing.get(key, 0) + ways
        drawing = next_drawing
    items = sorted(finished.items())
    counts = np.array([key for (key, _), _ in items], dtype=np.int64)
    outcomes = np.array([out for (_, out), _ in items], dtype=np.int64)
    orders = np.array([ways for _, ways in items], dtype=np.float64)
    sizes = counts.sum(axis=1)
    max_per_value = int(counts.max())
    width = int((counts > 0).sum(axis=1).max())
    gather = np.zeros((len(items), width), dtype=np.int64)
    for row, entry in enumerate(counts):
        cells = [v * (max_per_value + 1) + int(n) for v, n in enumerate(entry) if n > 0]
        gather[row, : len(cells)] = cells
    return DealerTable(
        counts=counts,
        outcome=outcomes,
        orders=orders,
        sizes=sizes,
        max_per_value=max_per_value,
        max_size=int(sizes.max()),
        gather=gather,
    )


def dealer_distribution(upcard: int, shoe: tuple[int, ...], hits_soft_17: bool) -> FloatArray:
    """Probabilities of the dealer's outcomes (17..21, bust, blackjack) drawing from ``shoe``.

    ``shoe`` is the composition left after the upcard and every other known card was removed.
    The result sums to one; index :data:`BLACKJACK` is the chance that the hole card makes a
    natural (zero unless the upcard is an ace or a ten).
    """
    table = dealer_table(upcard, hits_soft_17)
    left = np.asarray(shoe, dtype=np.float64)
    total = float(left.sum())
    steps = np.arange(table.max_per_value + 1, dtype=np.float64)
    # falling[v, j] = N_v (N_v - 1) ... (N_v - j + 1); a zero factor zeroes the rest.
    factors = np.maximum(left[:, None] - steps[None, :-1], 0.0)
    falling = np.ones((VALUES, table.max_per_value + 1))
    falling[:, 1:] = np.cumprod(factors, axis=1)
    draws = np.arange(table.max_size + 1, dtype=np.float64)
    denominators = np.ones(table.max_size + 1)
    denominators[1:] = np.cumprod(np.maximum(total - draws[:-1], 0.0))
    numerators = falling.ravel()[table.gather].prod(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = np.where(
            denominators[table.sizes] > 0,
            table.orders * numerators / denominators[table.sizes],
            0.0,
        )
    return np.bincount(table.outcome, weights=weights, minlength=OUTCOMES).astype(np.float64)


def blackjack_chance(upcard: int, shoe: tuple[int, ...]) -> float:
    """Chance that the hole card drawn from ``shoe`` gives the dealer a natural."""
    total = sum(shoe)
    if total == 0:
        return 0.0
    if upcard == ACE:
        return shoe[TEN] / total
    if upcard == TEN:
        return shoe[ACE] / total
    return 0.0
