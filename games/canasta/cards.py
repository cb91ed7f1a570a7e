"""Canasta cards (rules/canasta.md 1): two or three packs with jokers, every card an instance.

A card code is the rank (``A K Q J T 9 8 7 6 5 4 3 2``) then the suit (``S H D C``), as in
:mod:`games.cards`; the joker is ``JK``. With two or three packs every code exists two or
three times (jokers four or six times), so the engine keys each physical card by its code and a
copy number: :class:`Card` ``("KS", 1)`` is the second king of spades, written ``KS:1``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from games.canasta.errors import InvalidCardCodeError

JOKER = "JK"
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
# Natural ranks, low to high: the order of a sequence (rules 3 M12, ace high only).
NATURAL_RANKS: tuple[str, ...] = ("4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")
RED_THREES: frozenset[str] = frozenset({"3H", "3D"})
BLACK_THREES: frozenset[str] = frozenset({"3S", "3C"})
CODES: tuple[str, ...] = (*tuple(rank + suit for suit in SUITS for rank in RANKS), JOKER)

# rules/canasta.md 1.3: points of a card in a meld, in the opening and (minus) in a hand.
RANK_POINTS: dict[str, int] = {
    "JK": 50,
    "2": 20,
    "A": 20,
    "K": 10,
    "Q": 10,
    "J": 10,
    "T": 10,
    "9": 10,
    "8": 10,
    "7": 5,
    "6": 5,
    "5": 5,
    "4": 5,
    "3": 5,
}


def _rank_of(code: str) -> str:
    return JOKER if code == JOKER else code[0]


_RANK: dict[str, str] = {code: _rank_of(code) for code in CODES}
_POINTS: dict[str, int] = {code: RANK_POINTS[_RANK[code]] for code in CODES}
_WILD: frozenset[str] = frozenset(code for code in CODES if _RANK[code] in (JOKER, "2"))
_NATURAL: frozenset[str] = frozenset(code for code in CODES if _RANK[code] in NATURAL_RANKS)


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card: its code and which copy of that code it is (0-based)."""

    code: str
    copy: int = 0

    @property
    def rank(self) -> str:
        """``A``...``4``, ``3``, ``2`` or ``JK``."""
        return _RANK[self.code]

    @property
    def suit(self) -> str | None:
        return None if self.code == JOKER else self.code[1]

    @property
    def key(self) -> str:
        """``KS:1``: the instance as text (actions and events name cards this way)."""
        return f"{self.code}:{self.copy}"

    @property
    def points(self) -> int:
        """rules 1.3: Jkr 50, 2 and A 20, K to 8 ten, 7 to 4 five, a melded black three five."""
        return _POINTS[self.code]

    @property
    def is_wild(self) -> bool:
        """rules 1.2.1: every 2 and every joker."""
        return self.code in _WILD

    @property
    def is_natural(self) -> bool:
        """rules 1.2.2: 4 through A."""
        return self.code in _NATURAL

    @property
    def is_red_three(self) -> bool:
        return self.code in RED_THREES

    @property
    def is_black_three(self) -> bool:
        return self.code in BLACK_THREES

    def __str__(self) -> str:
        return self.key


def parse_code(text: str) -> str:
    """A card code from its written forms: ``KS``, ``10H`` (= ``TH``), ``jk``, ``Jkr``, ``joker``."""
    if not isinstance(text, str):
        raise InvalidCardCodeError(f"not a card: {text!r}")
    value = text.strip().upper()
    if value in ("JK", "JKR", "JOKER", "X"):
        return JOKER
    if value.startswith("10"):
        value = "T" + value[2:]
    if value not in _RANK:
        raise InvalidCardCodeError(f"not a canasta card: {text!r}")
    return value


def parse_card(text: str) -> Card:
    """A card instance from ``KS:1`` (code and copy) or a bare code (copy 0)."""
    if not isinstance(text, str):
        raise InvalidCardCodeError(f"not a card: {text!r}")
    code_text, _, copy_text = text.partition(":")
    code = parse_code(code_text)
    if not copy_text:
        return Card(code, 0)
    if not copy_text.isdigit():
        raise InvalidCardCodeError(f"not a card instance: {text!r}")
    return Card(code, int(copy_text))


def copies(code: str, decks: int, jokers: int) -> int:
    """How many instances of ``code`` the packs hold (rules 1.1)."""
    return jokers if code == JOKER else decks


def pack(decks: int, jokers: int) -> tuple[Card, ...]:
    """Every card of ``decks`` packs and ``jokers`` jokers, unshuffled (rules 1.1: 108 or 162)."""
    out = [Card(code, copy) for copy in range(decks) for code in CODES if code != JOKER]
    out.extend(Card(JOKER, copy) for copy in range(jokers))
    return tuple(out)


def hand_points(cards: Iterable[Card], *, black_three: int, red_three: int) -> int:
    """What cards left in a hand cost (rules 7 S5, 1.3): the card's points, a black three
    ``black_three`` and a red three ``red_three`` instead (both given as negative numbers)."""
    total = 0
    for card in cards:
        if card.code in BLACK_THREES:
            total += black_three
        elif card.code in RED_THREES:
            total += red_three
        else:
            total -= _POINTS[card.code]
    return total
