"""What a player asks of a deal. Every action names its seat; cards are instances.

Each action is a frozen dataclass with ``to_dict()``; :func:`action_from_dict` reads one back,
so a deal can be stored as its starting shuffle and its actions and replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from games.canasta.cards import Card, parse_card
from games.canasta.jsonable import Tagged
from games.errors import GameError, InvalidSnapshotError

Group = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Addition:
    """Cards added to one of the side's melds (M7), by the meld's id."""

    meld_id: int
    cards: Group


@dataclass(frozen=True, slots=True)
class Action(Tagged):
    type: ClassVar[str] = "action"
    seat: int


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """T1: ``drawCount`` cards from the stock (red threes laid out and replaced, D9)."""

    type: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class TakePile(Action):
    """T1, section 5: take the discard pile by melding its top card.

    ``melds`` are new melds and ``additions`` cards added to the side's melds; together they
    must hold the top card once and justify the take (P3, P6, P8); for a side not yet open they
    are its initial meld (P7). ``top_card_only`` is G8 (the rest of the pile stays).
    """

    type: ClassVar[str] = "take_pile"
    melds: tuple[Group, ...] = ()
    additions: tuple[Addition, ...] = ()
    top_card_only: bool = False


@dataclass(frozen=True, slots=True)
class Meld(Action):
    """T2: new melds and additions from the hand, checked together (the opening is one action)."""

    type: ClassVar[str] = "meld"
    melds: tuple[Group, ...] = ()
    additions: tuple[Addition, ...] = ()


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """T3: one card onto the pile; the turn passes (or the player goes out with his last card)."""

    type: ClassVar[str] = "discard"
    card: Card


@dataclass(frozen=True, slots=True)
class AskPartner(Action):
    """G3: "partner, may I go out?" - before melding in the turn."""

    type: ClassVar[str] = "ask_partner"


@dataclass(frozen=True, slots=True)
class AnswerPartner(Action):
    """G3: the partner's yes or no; it binds the player who asked."""

    type: ClassVar[str] = "answer_partner"
    yes: bool


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """End the turn without a discard: "I cannot discard" with one card (G4 SKIP_DISCARD, or a
    last card kept after an unreplaced red three), or after the stock's last card was a red
    three (G9: the deal ends)."""

    type: ClassVar[str] = "end_turn"


@dataclass(frozen=True, slots=True)
class DeclinePile(Action):
    """G9: the stock is empty and the player does not take the pile: the deal ends."""

    type: ClassVar[str] = "decline_pile"


@dataclass(frozen=True, slots=True)
class DeclineDoubleGoOut(Action):
    """G7: the partner of the player who went out does not lay out his hand."""

    type: ClassVar[str] = "decline_double_go_out"


_SIMPLE: dict[str, type[Action]] = {
    kind.type: kind for kind in (Draw, AskPartner, EndTurn, DeclinePile, DeclineDoubleGoOut)
}


def _seat(data: Mapping[str, Any]) -> int:
    value = data.get("seat")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSnapshotError("seat must be a whole number")
    return value


def _cards(value: Any) -> Group:
    if not isinstance(value, (list, tuple)):
        raise InvalidSnapshotError("cards must be a list")
    return tuple(parse_card(item) for item in value)


def _groups(data: Mapping[str, Any]) -> tuple[Group, ...]:
    value = data.get("melds", [])
    if not isinstance(value, (list, tuple)):
        raise InvalidSnapshotError("melds must be a list of card lists")
    return tuple(_cards(group) for group in value)


def _additions(data: Mapping[str, Any]) -> tuple[Addition, ...]:
    value = data.get("additions", [])
    if not isinstance(value, (list, tuple)):
        raise InvalidSnapshotError("additions must be a list")
    out: list[Addition] = []
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("meld_id"), int):
            raise InvalidSnapshotError("an addition is {meld_id, cards}")
        out.append(Addition(item["meld_id"], _cards(item.get("cards"))))
    return tuple(out)


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Read back an action written by ``to_dict()``; raises InvalidSnapshotError."""
    if not isinstance(data, Mapping):
        raise InvalidSnapshotError("an action must be an object")
    kind = data.get("type")
    try:
        seat = _seat(data)
        if isinstance(kind, str) and kind in _SIMPLE:
            return _SIMPLE[kind](seat)
        if kind == TakePile.type:
            return TakePile(seat, _groups(data), _additions(data), bool(data.get("top_card_only", False)))
        if kind == Meld.type:
            return Meld(seat, _groups(data), _additions(data))
        if kind == Discard.type:
            card = data.get("card")
            if not isinstance(card, str):
                raise InvalidSnapshotError("discard needs a card")
            return Discard(seat, parse_card(card))
        if kind == AnswerPartner.type:
            return AnswerPartner(seat, bool(data.get("yes")))
    except InvalidSnapshotError:
        raise
    except GameError as error:
        raise InvalidSnapshotError(f"{kind}: {error.message}") from error
    raise InvalidSnapshotError(f"unknown action type {kind!r}")
