"""Side bets decided on the first cards (rules/blackjack.md 4.2 and 8)."""

from __future__ import annotations

from games.blackjack.rules import PerfectPairsPaytable, TwentyOnePlusThreePaytable
from games.cards import RANKS, Card

# Rank order for straights: ace low (1) here, ace high handled as 14.
_ORDER = {rank: position + 1 for position, rank in enumerate(RANKS)}


def perfect_pairs_outcome(first: Card, second: Card) -> str | None:
    """``perfect`` (same rank and suit), ``coloured`` (same colour), ``mixed``, or None, on the
    box's first two cards (rules 4.2, 8)."""
    if first.rank != second.rank:
        return None
    if first.suit == second.suit:
        return "perfect"
    if first.colour is second.colour:
        return "coloured"
    return "mixed"


def is_straight(cards: tuple[Card, Card, Card]) -> bool:
    """Three consecutive ranks; the ace is low (A-2-3) or high (Q-K-A), never around (K-A-2)."""
    low = sorted(_ORDER[card.rank] for card in cards)
    if low[0] + 1 == low[1] and low[1] + 1 == low[2]:
        return True
    return low == [1, 12, 13]


def twenty_one_plus_three_combinations(cards: tuple[Card, Card, Card]) -> tuple[str, ...]:
    """Every 21+3 combination the three cards make (a suited trips is also trips and a flush)."""
    is_flush = cards[0].suit == cards[1].suit == cards[2].suit
    is_trips = cards[0].rank == cards[1].rank == cards[2].rank
    straight = is_straight(cards)
    found: list[str] = []
    if is_trips and is_flush:
        found.append("suited_trips")
    if straight and is_flush:
        found.append("straight_flush")
    if is_trips:
        found.append("three_of_a_kind")
    if straight:
        found.append("straight")
    if is_flush:
        found.append("flush")
    return tuple(found)


def twenty_one_plus_three_outcome(
    cards: tuple[Card, Card, Card], paytable: TwentyOnePlusThreePaytable
) -> str | None:
    """The best combination only (rules 8) of the box's first two cards and the dealer's upcard
    (4.2): the one that pays most under this paytable."""
    best: str | None = None
    best_pays = 0
    for combination in twenty_one_plus_three_combinations(cards):
        pays = paytable.payout(combination)
        if pays > best_pays:
            best, best_pays = combination, pays
    return best


def perfect_pairs_pays(first: Card, second: Card, paytable: PerfectPairsPaytable) -> tuple[str | None, int]:
    outcome = perfect_pairs_outcome(first, second)
    return outcome, paytable.payout(outcome) if outcome is not None else 0
