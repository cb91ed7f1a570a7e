"""Exact odds of the side bets (rules/blackjack.md section 8), for any deck count and paytable.

Every probability is a :class:`fractions.Fraction` counted over all ordered deals from a full
shoe of ``decks`` decks (a card type is a rank and a suit; the shoe holds ``decks`` copies of
each). ``X:1`` wins X times the stake and returns it, so a result pays ``X`` and a loss ``-1``;
the house edge is ``-(sum p_i * X_i - p_none)``, positive when it favours the house.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from games.blackjack.rules import PerfectPairsPaytable, TwentyOnePlusThreePaytable
from games.cards import MAX_DECKS, MIN_DECKS, RANKS
from games.errors import InvalidRuleSetError

PERFECT_PAIRS_OUTCOMES: tuple[str, ...] = ("perfect", "coloured", "mixed", "none")
TWENTY_ONE_PLUS_THREE_OUTCOMES: tuple[str, ...] = (
    "suited_trips",
    "straight_flush",
    "three_of_a_kind",
    "straight",
    "flush",
    "none",
)

# Suits 0 and 1 are black (spades, clubs), 2 and 3 red (hearts, diamonds); only equality of
# suits and of colours matters, so the indices stand for the suits of games.cards.SUITS.
_SUIT_COLOUR = (0, 0, 1, 1)
_SUIT_COUNT = 4
_RANK_COUNT = len(RANKS)


@dataclass(frozen=True, slots=True)
class SideBetOdds:
    """The exact distribution of a side bet's outcomes and its house edge under a paytable.

    ``outcomes`` maps every outcome (best first, ``"none"`` last) to its probability;
    ``paytable`` maps every paying outcome to its X of X:1.
    """

    outcomes: dict[str, Fraction]
    paytable: dict[str, int]
    # How many different sets of cards the bet is decided on (unordered): C(52 * decks, 2) for
    # Perfect Pairs, C(52 * decks, 3) for 21+3. Every probability is a whole count over it.
    combinations: int = 1

    def as_count(self, value: Fraction) -> str:
        """``value`` written over :attr:`combinations`, as a combinatorial table gives it
        (``"780/48516"``), not reduced."""
        count = value * self.combinations
        if count.denominator != 1:  # pragma: no cover - every figure is a whole count
            raise AssertionError(f"{value} is not a whole count over {self.combinations}")
        return f"{count.numerator}/{self.combinations}"

    @property
    def expected_return(self) -> Fraction:
        """The player's expected win per unit staked (negative when the house is favoured)."""
        total = Fraction(0)
        for outcome, probability in self.outcomes.items():
            total += probability * (self.paytable[outcome] if outcome != "none" else -1)
        return total

    @property
    def house_edge(self) -> Fraction:
        """``-(sum p_i * X_i - p_none)``: positive when the bet favours the house."""
        return -self.expected_return


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise InvalidRuleSetError(f"decks must be {MIN_DECKS}-{MAX_DECKS}, not {decks!r}")


def _ordered_ways(cards: tuple[tuple[int, int], ...], decks: int) -> int:
    """Ways to deal these card types in this order from a full shoe (copies left per type)."""
    ways = 1
    seen: dict[tuple[int, int], int] = {}
    for card in cards:
        used = seen.get(card, 0)
        ways *= decks - used
        seen[card] = used + 1
    return ways


def perfect_pairs_distribution(decks: int) -> dict[str, Fraction]:
    """Probability of each Perfect Pairs outcome on the box's first two cards.

    perfect: same rank and suit; coloured: same rank and colour, other suit; mixed: same rank,
    other colour; none: no pair. Exact for ``decks`` 1-8 (a perfect pair needs two decks).
    """
    _check_decks(decks)
    cards = 52 * decks
    total = cards * (cards - 1)
    # Per first card: (decks - 1) identical cards, decks cards of the other suit of its
    # colour, 2 * decks cards of its rank in the other colour.
    perfect = cards * (decks - 1)
    coloured = cards * decks
    mixed = cards * 2 * decks
    return {
        "perfect": Fraction(perfect, total),
        "coloured": Fraction(coloured, total),
        "mixed": Fraction(mixed, total),
        "none": Fraction(total - perfect - coloured - mixed, total),
    }


def _is_straight(ranks: tuple[int, int, int]) -> bool:
    """Three distinct consecutive ranks; the ace (0) is low (A-2-3) or high (Q-K-A), never K-A-2."""
    ordered = sorted(ranks)
    if ordered[0] == ordered[1] or ordered[1] == ordered[2]:
        return False
    if ordered[2] - ordered[0] == 2:
        return True
    return ordered == [0, _RANK_COUNT - 2, _RANK_COUNT - 1]


def _classify_three(ranks: tuple[int, int, int], suits: tuple[int, int, int]) -> str:
    """The best 21+3 combination of three cards (fixed ranking, whatever the paytable pays)."""
    flush = suits[0] == suits[1] == suits[2]
    trips = ranks[0] == ranks[1] == ranks[2]
    if trips and flush:
        return "suited_trips"
    straight = _is_straight(ranks)
    if straight and flush:
        return "straight_flush"
    if trips:
        return "three_of_a_kind"
    if straight:
        return "straight"
    if flush:
        return "flush"
    return "none"


def _suit_patterns() -> tuple[tuple[tuple[int, int, int], int], ...]:
    """Ordered suit triples up to relabelling of suits, with how many triples each stands for.

    Colours do not matter to 21+3, so suit triples are grouped by their equality pattern.
    """
    return (
        ((0, 0, 0), 4),
        ((0, 0, 1), 12),
        ((0, 1, 0), 12),
        ((1, 0, 0), 12),
        ((0, 1, 2), 24),
    )


def twenty_one_plus_three_distribution(decks: int) -> dict[str, Fraction]:
    """Probability of each 21+3 outcome on the box's first two cards and the dealer's upcard.

    Exact count over ordered deals of three cards from a full shoe of ``decks`` decks.
    """
    _check_decks(decks)
    counts = dict.fromkeys(TWENTY_ONE_PLUS_THREE_OUTCOMES, 0)
    patterns = _suit_patterns()
    for first in range(_RANK_COUNT):
        for second in range(_RANK_COUNT):
            for third in range(_RANK_COUNT):
                ranks = (first, second, third)
                for suits, multiplicity in patterns:
                    cards = ((first, suits[0]), (second, suits[1]), (third, suits[2]))
                    ways = _ordered_ways(cards, decks)
                    if ways:
                        counts[_classify_three(ranks, suits)] += ways * multiplicity
    shoe = 52 * decks
    total = shoe * (shoe - 1) * (shoe - 2)
    if sum(counts.values()) != total:  # pragma: no cover - a broken enumeration, not input
        raise AssertionError("21+3 enumeration does not cover every deal")
    return {outcome: Fraction(count, total) for outcome, count in counts.items()}


def perfect_pairs_odds(decks: int, paytable: PerfectPairsPaytable | None = None) -> SideBetOdds:
    """Perfect Pairs outcome probabilities and house edge (default paytable 25/12/6)."""
    table = paytable if paytable is not None else PerfectPairsPaytable()
    pays = {"perfect": table.perfect, "coloured": table.coloured, "mixed": table.mixed}
    cards = 52 * decks
    return SideBetOdds(
        outcomes=perfect_pairs_distribution(decks), paytable=pays, combinations=math.comb(cards, 2)
    )


def twenty_one_plus_three_odds(decks: int, paytable: TwentyOnePlusThreePaytable | None = None) -> SideBetOdds:
    """21+3 outcome probabilities and house edge (default paytable 100/40/25/10/5)."""
    table = paytable if paytable is not None else TwentyOnePlusThreePaytable()
    pays = {
        "suited_trips": table.suited_trips,
        "straight_flush": table.straight_flush,
        "three_of_a_kind": table.three_of_a_kind,
        "straight": table.straight,
        "flush": table.flush,
    }
    cards = 52 * decks
    return SideBetOdds(
        outcomes=twenty_one_plus_three_distribution(decks), paytable=pays, combinations=math.comb(cards, 3)
    )


__all__ = [
    "PERFECT_PAIRS_OUTCOMES",
    "TWENTY_ONE_PLUS_THREE_OUTCOMES",
    "SideBetOdds",
    "perfect_pairs_distribution",
    "perfect_pairs_odds",
    "twenty_one_plus_three_distribution",
    "twenty_one_plus_three_odds",
]
