"""What callers ask of a round: bets, cards, insurance and player decisions.

Every action is a small frozen dataclass with ``to_dict()``; :func:`action_from_dict` reads
one back, so the live table can store actions and replay a round from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games.blackjack.jsonable import Tagged
from games.blackjack.state import Bet, BetKind
from games.cards import Card
from games.errors import GameError, InvalidSnapshotError


@dataclass(frozen=True, slots=True)
class Action(Tagged):
    type: ClassVar[str] = "action"


@dataclass(frozen=True, slots=True)
class PlaceBet(Action):
    """Place a main bet, a bet behind or a side bet (rules 3). Refused with BetRefusedError."""

    type: ClassVar[str] = "place_bet"
    bet: Bet


@dataclass(frozen=True, slots=True)
class CancelBet(Action):
    """Take back a bet before "no more bets"; a main bet takes its side bets with it."""

    type: ClassVar[str] = "cancel_bet"
    bet_id: str
    player: str


@dataclass(frozen=True, slots=True)
class CloseBetting(Action):
    """ "No more bets" (rules 3.1)."""

    type: ClassVar[str] = "close_betting"


@dataclass(frozen=True, slots=True)
class DealCard(Action):
    """The next card out of the shoe; it goes to :func:`next_card_target`."""

    type: ClassVar[str] = "deal_card"
    card: Card


@dataclass(frozen=True, slots=True)
class TakeInsurance(Action):
    """Insure a main bet or a bet behind (rules 3.3, 2.4) while the dealer shows an ace.

    ``stake_minor`` is the insurance stake asked for: None means exactly half the bet's stake.
    The engine decides the stake (:func:`~games.blackjack.insurance.insurance_stake`) and
    reports it in ``InsuranceTaken.stake_minor``. Under ``InsuranceStake.HALF`` only the half
    is allowed; under ``UP_TO_HALF`` any positive multiple of the table's smallest chip up to
    half. ``insurance_bet_id`` is the id the live table gives the new insurance bet; without
    one the engine uses ``"<bet_id>/insurance"``.

    Refused (IllegalActionError) with ``insurance_not_offered``, ``not_bet_owner``,
    ``insurance_already_decided``, ``duplicate_bet_id``, ``insurance_stake_not_exact``,
    ``invalid_stake``, ``insurance_stake_not_allowed``, ``insurance_stake_above_half``,
    ``insurance_stake_not_unit_multiple``.
    """

    type: ClassVar[str] = "take_insurance"
    player: str
    bet_id: str
    insurance_bet_id: str | None = None
    stake_minor: int | None = None


@dataclass(frozen=True, slots=True)
class DeclineInsurance(Action):
    type: ClassVar[str] = "decline_insurance"
    player: str
    bet_id: str


@dataclass(frozen=True, slots=True)
class TakeEvenMoney(Action):
    """A blackjack against an ace upcard taken at 1:1 at once (only with ``rules.even_money``)."""

    type: ClassVar[str] = "take_even_money"
    player: str
    bet_id: str


@dataclass(frozen=True, slots=True)
class CloseInsurance(Action):
    """End the insurance phase; every bet still undecided declines (rules 2.6 default)."""

    type: ClassVar[str] = "close_insurance"


@dataclass(frozen=True, slots=True)
class Decision(Action):
    """A decision of the box owner for the box's current hand (rules 5)."""

    player: str
    box: int


@dataclass(frozen=True, slots=True)
class Hit(Decision):
    type: ClassVar[str] = "hit"


@dataclass(frozen=True, slots=True)
class Stand(Decision):
    type: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True)
class Double(Decision):
    type: ClassVar[str] = "double"


@dataclass(frozen=True, slots=True)
class Split(Decision):
    type: ClassVar[str] = "split"


@dataclass(frozen=True, slots=True)
class Surrender(Decision):
    type: ClassVar[str] = "surrender"


DECISIONS: dict[str, type[Decision]] = {kind.type: kind for kind in (Hit, Stand, Double, Split, Surrender)}


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidSnapshotError(f"{key} must be a non-empty string")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSnapshotError(f"{key} must be a whole number")
    return value


def bet_from_dict(data: Mapping[str, Any]) -> Bet:
    try:
        kind = BetKind(data.get("kind"))
    except ValueError as error:
        raise InvalidSnapshotError(f"unknown bet kind {data.get('kind')!r}") from error
    return Bet(
        bet_id=_text(data, "bet_id"),
        player=_text(data, "player"),
        box=_int(data, "box"),
        kind=kind,
        stake_minor=_int(data, "stake_minor"),
        follow_double=bool(data.get("follow_double", False)),
        follow_split=bool(data.get("follow_split", False)),
    )


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Read back an action written by ``to_dict()``; raises InvalidSnapshotError."""
    if not isinstance(data, Mapping):
        raise InvalidSnapshotError("an action must be an object")
    kind = data.get("type")
    try:
        if kind == PlaceBet.type:
            bet = data.get("bet")
            if not isinstance(bet, Mapping):
                raise InvalidSnapshotError("place_bet needs a bet object")
            return PlaceBet(bet_from_dict(bet))
        if kind == CancelBet.type:
            return CancelBet(_text(data, "bet_id"), _text(data, "player"))
        if kind == CloseBetting.type:
            return CloseBetting()
        if kind == DealCard.type:
            return DealCard(Card.parse(_text(data, "card")))
        if kind == TakeInsurance.type:
            insurance_bet_id = data.get("insurance_bet_id")
            if insurance_bet_id is not None and not isinstance(insurance_bet_id, str):
                raise InvalidSnapshotError("insurance_bet_id must be a string")
            # Recorded before insurance amounts existed: no key, exactly half.
            stake = None if data.get("stake_minor") is None else _int(data, "stake_minor")
            return TakeInsurance(_text(data, "player"), _text(data, "bet_id"), insurance_bet_id, stake)
        if kind == DeclineInsurance.type:
            return DeclineInsurance(_text(data, "player"), _text(data, "bet_id"))
        if kind == TakeEvenMoney.type:
            return TakeEvenMoney(_text(data, "player"), _text(data, "bet_id"))
        if kind == CloseInsurance.type:
            return CloseInsurance()
        if isinstance(kind, str) and kind in DECISIONS:
            return DECISIONS[kind](_text(data, "player"), _int(data, "box"))
    except InvalidSnapshotError:
        raise
    except GameError as error:
        raise InvalidSnapshotError(f"{kind}: {error.message}") from error
    raise InvalidSnapshotError(f"unknown action type {kind!r}")
