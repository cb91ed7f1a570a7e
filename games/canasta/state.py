"""The immutable state of one canasta deal (rules/canasta.md sections 2-6).

Every field is a tuple or a scalar, so a state can be shared, compared and kept. Seats are
numbered 0.. clockwise (the turn passes to the left, T4); ``seat_sides[seat]`` is the side of a
seat (D2). The stock's top card is ``stock[0]``, the discard pile's top card ``pile[-1]``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, TypeVar

from games.canasta.cards import Card
from games.canasta.melds import Meld
from games.canasta.rules import CanastaRules, FreezeUntil, OpeningRequirement


class Phase(Enum):
    PLAYING = "playing"
    ASKED = "asked"  # G3: the partner must answer yes or no
    DOUBLE_OUT = "double_out"  # G7: the partner of the player who went out may lay his hand
    FINISHED = "finished"


class Stage(Enum):
    DRAW = "draw"  # T1: draw from the stock or take the pile
    MELD = "meld"  # T2, T3: meld, add, discard


class Answer(Enum):
    NONE = "none"
    YES = "yes"
    NO = "no"


class EndReason(Enum):
    WENT_OUT = "went_out"  # G1
    STOCK_EXHAUSTED = "stock_exhausted"  # G9


@dataclass(frozen=True, slots=True)
class DealState:
    """One deal. ``has_laid[seat]``: the player laid a card in an earlier turn (G6);
    ``has_own_meld[seat]``: he started a meld himself (M9). ``pile_deal_cards`` is how many of
    the pile's bottom cards the deal turned up (D5, D6). The ``turn_*`` fields describe the turn
    in progress."""

    rules: CanastaRules
    seat_sides: tuple[int, ...]
    dealer: int
    scores: tuple[int, ...]
    requirements: tuple[OpeningRequirement, ...]
    stock: tuple[Card, ...]
    pile: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    melds: tuple[tuple[Meld, ...], ...]
    red_threes: tuple[tuple[Card, ...], ...]
    opened: tuple[bool, ...]
    has_laid: tuple[bool, ...]
    has_own_meld: tuple[bool, ...]
    turn: int
    phase: Phase = Phase.PLAYING
    stage: Stage = Stage.DRAW
    pile_deal_cards: int = 0
    turn_laid: bool = False
    turn_drew: bool = False
    turn_took_pile: bool = False
    turn_new_melds: tuple[int, ...] = ()
    asked: bool = False
    answer: Answer = Answer.NONE
    must_go_out: bool = False
    no_discard: bool = False
    stock_exhausted: bool = False
    next_meld_id: int = 1
    turn_number: int = 1
    went_out: int | None = None
    concealed: bool = False
    partner_had_melded: bool = False
    double_out: bool = False
    out_by_discard: bool = False
    end_reason: EndReason | None = None

    @property
    def side_count(self) -> int:
        return len(self.scores)

    def side_of(self, seat: int) -> int:
        return self.seat_sides[seat]

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(seat for seat, owner in enumerate(self.seat_sides) if owner == side)

    def partner_of(self, seat: int) -> int | None:
        """The next player to the left on the same side (G3, G7), or None without partners."""
        players = len(self.seat_sides)
        for step in range(1, players):
            other = (seat + step) % players
            if self.seat_sides[other] == self.seat_sides[seat]:
                return other
        return None

    @property
    def top_card(self) -> Card | None:
        return self.pile[-1] if self.pile else None

    @property
    def is_pile_frozen(self) -> bool:
        """rules P5 / D6 (``freezeUntil``): a wild card or a red three in the pile freezes it
        until the pile is taken (TAKEN), or only while it lies on top (COVERED). Cards the deal
        turned up freeze only under ``upcardFreezes``."""
        if not self.pile:
            return False
        if self.rules.freeze_until is FreezeUntil.COVERED:
            top = self.pile[-1]
            if len(self.pile) <= self.pile_deal_cards and not self.rules.upcard_freezes:
                return False
            return top.is_wild or top.is_red_three
        start = 0 if self.rules.upcard_freezes else self.pile_deal_cards
        return any(card.is_wild or card.is_red_three for card in self.pile[start:])

    def canasta_count(self, side: int) -> int:
        return sum(1 for meld in self.melds[side] if meld.is_canasta)

    def all_cards(self) -> tuple[Card, ...]:
        """Every card of the deal wherever it lies (stock, pile, hands, melds, red threes)."""
        out: list[Card] = [*self.stock, *self.pile]
        for hand in self.hands:
            out.extend(hand)
        for side_melds in self.melds:
            for meld in side_melds:
                out.extend(meld.cards)
        for threes in self.red_threes:
            out.extend(threes)
        return tuple(out)


_T = TypeVar("_T")
_FIELD_NAMES: dict[type[Any], tuple[tuple[str, ...], frozenset[str]]] = {}
_set = object.__setattr__


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of a frozen state dataclass with some fields changed (as ``dataclasses.replace``,
    faster; these classes have no ``__post_init__``)."""
    cls = type(obj)
    known = _FIELD_NAMES.get(cls)
    if known is None:
        names = tuple(item.name for item in fields(cls))  # type: ignore[arg-type]
        known = _FIELD_NAMES[cls] = (names, frozenset(names))
    names, name_set = known
    if not name_set.issuperset(changes):
        raise TypeError(f"{cls.__name__} has no fields {sorted(set(changes) - name_set)}")
    new = object.__new__(cls)
    for name in names:
        _set(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
