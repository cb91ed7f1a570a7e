"""Round snapshots as JSON-ready dicts and back (``state_from_dict(state_to_dict(s)) == s``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.blackjack.actions import bet_from_dict
from games.blackjack.jsonable import jsonable
from games.blackjack.rules import ruleset_from_dict
from games.blackjack.state import (
    Box,
    Hand,
    InsuranceChoice,
    InsuranceDecision,
    Phase,
    RoundState,
    Seat,
    Stake,
)
from games.cards import Card
from games.errors import GameError, InvalidSnapshotError

SNAPSHOT_VERSION = 1


def state_to_dict(state: RoundState) -> dict[str, Any]:
    """The whole round state as plain JSON values (rules included, so a snapshot stands alone)."""
    return {
        "version": SNAPSHOT_VERSION,
        "rules": state.rules.to_dict(),
        "phase": state.phase.value,
        "seats": jsonable(state.seats),
        "bets": jsonable(state.bets),
        "boxes": [
            {
                "number": box.number,
                "owner": box.owner,
                "first_cards": jsonable(box.first_cards),
                "hands": [
                    {
                        "cards": jsonable(hand.cards),
                        "stakes": [[stake.bet_id, stake.stake_minor] for stake in hand.stakes],
                        "is_split": hand.is_split,
                        "is_split_aces": hand.is_split_aces,
                        "is_doubled": hand.is_doubled,
                        "is_surrendered": hand.is_surrendered,
                        "is_finished": hand.is_finished,
                    }
                    for hand in box.hands
                ],
            }
            for box in state.boxes
        ],
        "dealer_cards": jsonable(state.dealer_cards),
        "insurance": jsonable(state.insurance),
        "turn_box": state.turn_box,
        "turn_hand": state.turn_hand,
        "card_due": state.card_due,
        "is_hole_card_revealed": state.is_hole_card_revealed,
        "shoe_remaining": None if state.shoe_remaining is None else list(state.shoe_remaining),
    }


def _cards(values: Any) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in values)


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data[key]
    if not isinstance(value, bool):
        raise InvalidSnapshotError(f"{key} must be true or false")
    return value


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidSnapshotError(f"{key} must be a whole number")
    return int(value)


def state_from_dict(data: Mapping[str, Any]) -> RoundState:
    """Read a snapshot written by :func:`state_to_dict`; raises InvalidSnapshotError."""
    try:
        if data.get("version") != SNAPSHOT_VERSION:
            raise InvalidSnapshotError(f"unknown snapshot version {data.get('version')!r}")
        boxes = tuple(
            Box(
                number=_int(box["number"], "number"),
                owner=str(box["owner"]),
                first_cards=_cards(box["first_cards"]),
                hands=tuple(
                    Hand(
                        cards=_cards(hand["cards"]),
                        stakes=tuple(
                            Stake(str(bet_id), _int(stake, "stake_minor")) for bet_id, stake in hand["stakes"]
                        ),
                        is_split=_bool(hand, "is_split"),
                        is_split_aces=_bool(hand, "is_split_aces"),
                        is_doubled=_bool(hand, "is_doubled"),
                        is_surrendered=_bool(hand, "is_surrendered"),
                        is_finished=_bool(hand, "is_finished"),
                    )
                    for hand in box["hands"]
                ),
            )
            for box in data["boxes"]
        )
        insurance = tuple(
            InsuranceDecision(
                bet_id=str(item["bet_id"]),
                player=str(item["player"]),
                box=_int(item["box"], "box"),
                choice=InsuranceChoice(item["choice"]),
                insurance_bet_id=None if item["insurance_bet_id"] is None else str(item["insurance_bet_id"]),
                stake_minor=_int(item["stake_minor"], "stake_minor"),
                by_default=_bool(item, "by_default"),
            )
            for item in data["insurance"]
        )
        remaining = data["shoe_remaining"]
        return RoundState(
            rules=ruleset_from_dict(data["rules"]),
            phase=Phase(data["phase"]),
            seats=tuple(
                Seat(_int(seat["box"], "box"), str(seat["owner"]), _bool(seat, "accepts_bets_behind"))
                for seat in data["seats"]
            ),
            bets=tuple(bet_from_dict(bet) for bet in data["bets"]),
            boxes=boxes,
            dealer_cards=_cards(data["dealer_cards"]),
            insurance=insurance,
            turn_box=_int(data["turn_box"], "turn_box"),
            turn_hand=_int(data["turn_hand"], "turn_hand"),
            card_due=_bool(data, "card_due"),
            is_hole_card_revealed=_bool(data, "is_hole_card_revealed"),
            shoe_remaining=None if remaining is None else tuple(_int(count, "count") for count in remaining),
        )
    except InvalidSnapshotError:
        raise
    except GameError as error:
        raise InvalidSnapshotError(f"snapshot: {error.message}") from error
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InvalidSnapshotError(f"snapshot: {error!r}") from error
