"""Cards, decks and hand values.

A card is written as two characters: rank (``A 2 3 4 5 6 7 8 9 T J Q K``) then suit
(``S H D C``), for example ``AS``, ``TD``, ``7H``. Suits have no ranking
(rules/blackjack.md 1.1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from games.errors import InvalidCardError

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
MIN_DECKS = 1
MAX_DECKS = 8


class Colour(Enum):
    BLACK = "black"
    RED = "red"


SUIT_COLOURS: dict[str, Colour] = {
    "S": Colour.BLACK,
    "C": Colour.BLACK,
    "H": Colour.RED,
    "D": Colour.RED,
}


# What a refused card code is told: how a card is typed.
HOW_TO_TYPE = "type it as KH, TD or 10d"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card of a standard 52-card deck."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS or self.suit not in SUITS:
            raise InvalidCardError(f"not a card: {self.rank}{self.suit} ({HOW_TO_TYPE})")

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a card code such as ``AS``, ``TD`` or ``7H`` (``10H`` is read as ``TH``)."""
        if not isinstance(code, str):
            raise InvalidCardError(f"not a card: {code!r} ({HOW_TO_TYPE})")
        text = code.strip().upper()
        if text.startswith("10"):
            text = "T" + text[2:]
        if len(text) != 2:
            raise InvalidCardError(f"not a card: {code!r} ({HOW_TO_TYPE})")
        return cls(text[0], text[1])

    @property
    def code(self) -> str:
        return f"{self.rank}{self.suit}"

    @property
    def value(self) -> int:
        """Blackjack value: 2-10 face value, J Q K ten, ace one (the hand decides on eleven)."""
        return rank_value(self.rank)

    @property
    def colour(self) -> Colour:
        return SUIT_COLOURS[self.suit]

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    @property
    def is_ten_valued(self) -> bool:
        return self.value == 10

    def __str__(self) -> str:
        return self.code


def rank_value(rank: str) -> int:
    """Blackjack value of a rank, counting the ace as one."""
    if rank == "A":
        return 1
    if rank in ("T", "J", "Q", "K"):
        return 10
    return int(rank)


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def deck() -> tuple[Card, ...]:
    """One 52-card deck in a fixed order (suit by suit, ace to king)."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)


def shoe_cards(decks: int) -> tuple[Card, ...]:
    """All the cards of a shoe of ``decks`` decks, unshuffled."""
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise InvalidCardError(f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks}")
    return deck() * decks


@dataclass(frozen=True, slots=True)
class HandValue:
    """The best total of a hand, and whether an ace counts eleven in it (a soft hand)."""

    total: int
    is_soft: bool

    @property
    def is_bust(self) -> bool:
        return self.total > 21


def hand_value(cards: Iterable[Card]) -> HandValue:
    """Best value of a hand: an ace counts 11 unless that busts (rules/blackjack.md 1.3).

    >>> hand_value(parse_cards(["AS", "7H"]))
    HandValue(total=18, is_soft=True)
    >>> hand_value(parse_cards(["AS", "7H", "TD"]))
    HandValue(total=18, is_soft=False)
    """
    total = 0
    has_ace = False
    for card in cards:
        total += card.value
        has_ace = has_ace or card.is_ace
    if has_ace and total + 10 <= 21:
        return HandValue(total + 10, True)
    return HandValue(total, False)


def is_blackjack(cards: tuple[Card, ...]) -> bool:
    """Two cards worth 21 (ace and a ten-valued card). Split hands are never blackjack."""
    return len(cards) == 2 and hand_value(cards).total == 21
