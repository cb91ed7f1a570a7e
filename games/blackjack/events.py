"""What happened: every :func:`apply` returns a tuple of these.

Each event is a small frozen dataclass with ``to_dict()`` (``{"type": ..., fields ...}``) so
the live table can store it with the round. Events that move money carry the amounts:
``BetPlaced``, ``StakeAdded`` (a double or split, including bets behind that follow it),
``InsuranceTaken``, ``BetRefunded``, ``BetCancelled`` and ``RoundSettled`` (the payout lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.blackjack.jsonable import Tagged
from games.blackjack.settlement import PayoutLine
from games.blackjack.state import Bet, BetKind
from games.cards import Card


@dataclass(frozen=True, slots=True)
class Event(Tagged):
    type: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    type: ClassVar[str] = "bet_placed"
    bet: Bet


@dataclass(frozen=True, slots=True)
class BetCancelled(Event):
    type: ClassVar[str] = "bet_cancelled"
    bet_id: str
    player: str
    box: int
    kind: BetKind
    stake_minor: int


@dataclass(frozen=True, slots=True)
class BettingClosed(Event):
    type: ClassVar[str] = "betting_closed"
    boxes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BetRefunded(Event):
    """A bet behind a box whose owner does not play, returned at once (rules 2.4)."""

    type: ClassVar[str] = "bet_refunded"
    bet_id: str
    player: str
    box: int
    stake_minor: int
    reason: str


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """A card placed: ``to`` is ``"box"`` (with box and hand) or ``"dealer"``."""

    type: ClassVar[str] = "card_dealt"
    card: Card
    to: str
    box: int | None
    hand: int | None
    is_face_up: bool


@dataclass(frozen=True, slots=True)
class InsuranceOffered(Event):
    type: ClassVar[str] = "insurance_offered"
    bet_ids: tuple[str, ...]
    even_money_bet_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InsuranceTaken(Event):
    type: ClassVar[str] = "insurance_taken"
    bet_id: str
    insurance_bet_id: str
    player: str
    box: int
    stake_minor: int


@dataclass(frozen=True, slots=True)
class InsuranceDeclined(Event):
    type: ClassVar[str] = "insurance_declined"
    bet_id: str
    player: str
    box: int
    by_default: bool


@dataclass(frozen=True, slots=True)
class EvenMoneyTaken(Event):
    type: ClassVar[str] = "even_money_taken"
    bet_id: str
    player: str
    box: int


@dataclass(frozen=True, slots=True)
class DealerPeeked(Event):
    type: ClassVar[str] = "dealer_peeked"
    has_blackjack: bool


@dataclass(frozen=True, slots=True)
class HoleCardRevealed(Event):
    type: ClassVar[str] = "hole_card_revealed"
    card: Card


@dataclass(frozen=True, slots=True)
class PlayerToAct(Event):
    """The box owner must decide for this hand now (a decision countdown starts, rules 2.6)."""

    type: ClassVar[str] = "player_to_act"
    box: int
    hand: int
    player: str
    legal: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DecisionTaken(Event):
    type: ClassVar[str] = "decision_taken"
    player: str
    box: int
    hand: int
    decision: str


@dataclass(frozen=True, slots=True)
class StakeAdded(Event):
    """A new stake of a bettor on a double or a split; the live table must hold this money."""

    type: ClassVar[str] = "stake_added"
    bet_id: str
    player: str
    box: int
    hand: int
    stake_minor: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandFinished(Event):
    type: ClassVar[str] = "hand_finished"
    box: int
    hand: int
    total: int
    reason: str


@dataclass(frozen=True, slots=True)
class DealerDrawSkipped(Event):
    """No dealer card (rules 6.2): every box already lost, or every box has blackjack."""

    type: ClassVar[str] = "dealer_draw_skipped"
    reason: str


@dataclass(frozen=True, slots=True)
class DealerFinished(Event):
    type: ClassVar[str] = "dealer_finished"
    total: int
    is_blackjack: bool
    is_bust: bool


@dataclass(frozen=True, slots=True)
class RoundSettled(Event):
    type: ClassVar[str] = "round_settled"
    lines: tuple[PayoutLine, ...]
