"""What happened in a deal: :func:`~games.canasta.engine.apply` returns these.

Each event is a frozen dataclass with ``to_dict()``. Cards are instances (``KS:1``). Cards that
go into a hand are public in the events; an interface that shows them to other players hides
them (T5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.canasta.cards import Card
from games.canasta.jsonable import Tagged


@dataclass(frozen=True, slots=True)
class Event(Tagged):
    type: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """D3: the cards a seat was dealt, in the order dealt."""

    type: ClassVar[str] = "cards_dealt"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class UpcardTurned(Event):
    """D4, D5: the cards turned to start the pile, the last one showing."""

    type: ClassVar[str] = "upcard_turned"
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RedThreeLaidOut(Event):
    """D8-D10, P13: ``source`` is ``deal``, ``stock`` or ``pile``; ``replacement`` is the card
    drawn for it (None when not replaced)."""

    type: ClassVar[str] = "red_three_laid_out"
    seat: int
    side: int
    card: Card
    source: str
    replacement: Card | None


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    seat: int
    turn_number: int


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    type: ClassVar[str] = "cards_drawn"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PileTaken(Event):
    """Section 5: ``top`` was melded; ``to_hand`` are the rest of the pile's cards that went to
    the hand (none under G8)."""

    type: ClassVar[str] = "pile_taken"
    seat: int
    top: Card
    to_hand: tuple[Card, ...]
    was_frozen: bool
    top_card_only: bool


@dataclass(frozen=True, slots=True)
class MeldLaid(Event):
    type: ClassVar[str] = "meld_laid"
    seat: int
    side: int
    meld_id: int
    kind: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class MeldExtended(Event):
    type: ClassVar[str] = "meld_extended"
    seat: int
    side: int
    meld_id: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CanastaCompleted(Event):
    type: ClassVar[str] = "canasta_completed"
    side: int
    meld_id: int
    kind: str


@dataclass(frozen=True, slots=True)
class SideOpened(Event):
    """O1, O2: the side's initial meld, its points and the minimum it had to reach
    (``without_minimum``: a concealed going out after a stock draw, O7)."""

    type: ClassVar[str] = "side_opened"
    seat: int
    side: int
    points: int
    minimum: int
    without_minimum: bool


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    """T3: ``freezes`` says the discard is a wild card (P5: shown crosswise)."""

    type: ClassVar[str] = "card_discarded"
    seat: int
    card: Card
    freezes: bool


@dataclass(frozen=True, slots=True)
class TurnPassed(Event):
    """The turn ended without a discard (G4 "I cannot discard")."""

    type: ClassVar[str] = "turn_passed"
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class PartnerAsked(Event):
    type: ClassVar[str] = "partner_asked"
    seat: int
    partner: int


@dataclass(frozen=True, slots=True)
class PartnerAnswered(Event):
    type: ClassVar[str] = "partner_answered"
    seat: int
    yes: bool


@dataclass(frozen=True, slots=True)
class StockExhausted(Event):
    """G9: the stock is empty; the next players may still take the pile."""

    type: ClassVar[str] = "stock_exhausted"


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    type: ClassVar[str] = "went_out"
    seat: int
    side: int
    concealed: bool
    partner_had_melded: bool


@dataclass(frozen=True, slots=True)
class DoubleGoOutOffered(Event):
    """G7: the partner of the player who went out may now lay out his whole hand."""

    type: ClassVar[str] = "double_go_out_offered"
    seat: int


@dataclass(frozen=True, slots=True)
class DoubleWentOut(Event):
    type: ClassVar[str] = "double_went_out"
    seat: int


@dataclass(frozen=True, slots=True)
class DealEnded(Event):
    type: ClassVar[str] = "deal_ended"
    reason: str
    went_out: int | None
