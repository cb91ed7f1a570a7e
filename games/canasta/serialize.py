"""Deal snapshots as JSON: :func:`state_to_dict` and its inverse :func:`state_from_dict`.

Cards are written ``KS:1``, melds as objects, the rule set as its preset name and every
parameter (so a snapshot reads back the same rules even after a preset changes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from enum import Enum
from typing import Any

from games.canasta.cards import Card, parse_card
from games.canasta.melds import Meld, MeldKind
from games.canasta.rules import CanastaRules, OpeningRequirement, rules_from_parameters
from games.canasta.state import Answer, DealState, EndReason, Phase, Stage
from games.errors import GameError, InvalidSnapshotError

_CARD_TUPLES = frozenset({"stock", "pile"})
_ENUMS: dict[str, type[Enum]] = {"phase": Phase, "stage": Stage, "answer": Answer, "end_reason": EndReason}


def _cards(cards: Sequence[Card]) -> list[str]:
    return [card.key for card in cards]


def _meld(meld: Meld) -> dict[str, Any]:
    return {
        "meld_id": meld.meld_id,
        "kind": meld.kind.value,
        "cards": _cards(meld.cards),
        "rank": meld.rank,
        "suit": meld.suit,
    }


def state_to_dict(state: DealState) -> dict[str, Any]:
    """A JSON-ready snapshot of a deal."""
    out: dict[str, Any] = {}
    for item in fields(state):
        value = getattr(state, item.name)
        if item.name == "rules":
            out["rules"] = {"name": value.name, "parameters": value.to_parameters()}
        elif item.name == "requirements":
            out[item.name] = [
                {"minimum": r.minimum, "canasta_at_once": r.canasta_at_once, "naturals": r.naturals}
                for r in value
            ]
        elif item.name in _CARD_TUPLES:
            out[item.name] = _cards(value)
        elif item.name in ("hands", "red_threes"):
            out[item.name] = [_cards(cards) for cards in value]
        elif item.name == "melds":
            out[item.name] = [[_meld(meld) for meld in side] for side in value]
        elif isinstance(value, Enum):
            out[item.name] = value.value
        elif isinstance(value, tuple):
            out[item.name] = list(value)
        else:
            out[item.name] = value
    return out


def _card_tuple(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise InvalidSnapshotError("cards must be a list")
    return tuple(parse_card(item) for item in value)


def _read_meld(data: Mapping[str, Any]) -> Meld:
    return Meld(
        meld_id=int(data["meld_id"]),
        kind=MeldKind(data["kind"]),
        cards=_card_tuple(data["cards"]),
        rank=data.get("rank"),
        suit=data.get("suit"),
    )


def state_from_dict(data: Mapping[str, Any]) -> DealState:
    """Read back a snapshot written by :func:`state_to_dict`; raises InvalidSnapshotError."""
    try:
        rules_data = data["rules"]
        rules: CanastaRules = rules_from_parameters(rules_data["parameters"], name=rules_data["name"])
        values: dict[str, Any] = {"rules": rules}
        for item in fields(DealState):
            name = item.name
            if name == "rules":
                continue
            raw = data[name]
            if name == "requirements":
                values[name] = tuple(
                    OpeningRequirement(r["minimum"], r["canasta_at_once"], r["naturals"]) for r in raw
                )
            elif name in _CARD_TUPLES:
                values[name] = _card_tuple(raw)
            elif name in ("hands", "red_threes"):
                values[name] = tuple(_card_tuple(cards) for cards in raw)
            elif name == "melds":
                values[name] = tuple(tuple(_read_meld(meld) for meld in side) for side in raw)
            elif name in _ENUMS:
                values[name] = None if raw is None else _ENUMS[name](raw)
            elif isinstance(raw, list):
                values[name] = tuple(raw)
            else:
                values[name] = raw
        return DealState(**values)
    except InvalidSnapshotError:
        raise
    except (GameError, KeyError, TypeError, ValueError) as error:
        raise InvalidSnapshotError(f"not a canasta deal snapshot: {error}") from error
