"""The immutable state of one blackjack round (rules/blackjack.md).

Everything is a frozen dataclass holding tuples, so a state can be shared, compared and
kept as a snapshot without copying. The engine (:mod:`games.blackjack.engine`) is the
only code that builds new states.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, TypeVar

from games.blackjack.rules import RuleSet
from games.cards import RANKS, SUITS, Card, HandValue, hand_value, is_blackjack


class Phase(Enum):
    """Round states (DESIGN.md "The round is an event log")."""

    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    PLAYERS = "players"
    DEALER = "dealer"
    SETTLED = "settled"


class BetKind(Enum):
    MAIN = "main"
    BEHIND = "behind"
    PERFECT_PAIRS = "perfect_pairs"
    TWENTY_ONE_PLUS_THREE = "twenty_one_plus_three"
    INSURANCE = "insurance"


SIDE_BET_KINDS = (BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)


@dataclass(frozen=True, slots=True)
class Bet:
    """One bet as the live table stores it; ``bet_id`` is opaque to the engine.

    ``follow_double`` and ``follow_split`` are the presets of a bet behind (rules 2.4); they
    mean nothing on the other kinds.
    """

    bet_id: str
    player: str
    box: int
    kind: BetKind
    stake_minor: int
    follow_double: bool = False
    follow_split: bool = False


@dataclass(frozen=True, slots=True)
class Seat:
    """A box taken by a player before the round (rules 2.3, 2.4): its owner and their setting."""

    box: int
    owner: str
    accepts_bets_behind: bool = True


@dataclass(frozen=True, slots=True)
class Stake:
    """The stake one bet has on one hand (grows when a double is followed)."""

    bet_id: str
    stake_minor: int


@dataclass(frozen=True, slots=True)
class Hand:
    cards: tuple[Card, ...] = ()
    stakes: tuple[Stake, ...] = ()
    is_split: bool = False
    is_split_aces: bool = False
    is_doubled: bool = False
    is_surrendered: bool = False
    is_finished: bool = False

    @property
    def value(self) -> HandValue:
        return hand_value(self.cards)

    @property
    def is_bust(self) -> bool:
        return self.value.total > 21

    @property
    def is_blackjack(self) -> bool:
        """A natural: the first two cards of an unsplit hand (rules 5.5: never after a split)."""
        return not self.is_split and is_blackjack(self.cards)


@dataclass(frozen=True, slots=True)
class Box:
    """A box that plays the round: its owner, its first two cards and its hands left to right."""

    number: int
    owner: str
    hands: tuple[Hand, ...]
    first_cards: tuple[Card, ...] = ()


class InsuranceChoice(Enum):
    TAKEN = "taken"
    DECLINED = "declined"
    EVEN_MONEY = "even_money"


@dataclass(frozen=True, slots=True)
class InsuranceDecision:
    """What the bettor of a main bet or a bet behind chose when insurance was offered."""

    bet_id: str
    player: str
    box: int
    choice: InsuranceChoice
    insurance_bet_id: str | None = None
    stake_minor: int = 0
    by_default: bool = False


@dataclass(frozen=True, slots=True)
class RoundState:
    """One round. ``boxes`` holds the boxes that play (set when betting closes).

    ``turn_box`` indexes ``boxes`` and ``turn_hand`` the hands of that box while players act;
    ``card_due`` says the current hand waits for the card of a hit or a double.
    ``shoe_remaining`` optionally holds, per card (see :func:`card_index`), how many copies the
    shoe still held when the round started; without it a card may appear ``decks`` times.
    """

    rules: RuleSet
    phase: Phase = Phase.BETTING
    seats: tuple[Seat, ...] = ()
    bets: tuple[Bet, ...] = ()
    boxes: tuple[Box, ...] = ()
    dealer_cards: tuple[Card, ...] = ()
    insurance: tuple[InsuranceDecision, ...] = ()
    turn_box: int = 0
    turn_hand: int = 0
    card_due: bool = False
    is_hole_card_revealed: bool = False
    shoe_remaining: tuple[int, ...] | None = None

    def bet(self, bet_id: str) -> Bet | None:
        for bet in self.bets:
            if bet.bet_id == bet_id:
                return bet
        return None

    def main_bet(self, box: int) -> Bet | None:
        for bet in self.bets:
            if bet.box == box and bet.kind is BetKind.MAIN:
                return bet
        return None

    def seat(self, box: int) -> Seat | None:
        for seat in self.seats:
            if seat.box == box:
                return seat
        return None

    def box_owner(self, box: int) -> str | None:
        """The seated owner, else the player of the main bet (rules 2.3: who started first)."""
        seat = self.seat(box)
        if seat is not None:
            return seat.owner
        main = self.main_bet(box)
        return main.player if main is not None else None

    @property
    def dealer_upcard(self) -> Card | None:
        return self.dealer_cards[0] if self.dealer_cards else None

    def cards_on_table(self) -> tuple[Card, ...]:
        """Every card this round has received, boxes first (dealt order is not kept here)."""
        cards: list[Card] = []
        for box in self.boxes:
            for hand in box.hands:
                cards.extend(hand.cards)
        cards.extend(self.dealer_cards)
        return tuple(cards)


def card_index(card: Card) -> int:
    """Position of a card in :data:`games.cards.RANKS` x ``SUITS`` order (0-51)."""
    return RANKS.index(card.rank) * len(SUITS) + SUITS.index(card.suit)


_T = TypeVar("_T")
_FIELD_NAMES: dict[type[Any], tuple[tuple[str, ...], frozenset[str]]] = {}
_set = object.__setattr__


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of a frozen state dataclass with some fields changed.

    Same result as :func:`dataclasses.replace` for these classes (they have no
    ``__post_init__``), several times faster: the engine makes a few of these per action.
    """
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
