"""Builders shared by the canasta engine tests: positions from card codes, deals as data."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from games.canasta import (
    Action,
    CanastaRules,
    Card,
    DealState,
    apply,
    pack,
    preset,
    seating,
    start_deal,
)
from games.canasta.melds import Meld, new_meld
from games.canasta.rules import opening_requirement
from games.canasta.state import Stage
from games.errors import GameError


class Deck:
    """Card instances from codes: each code read gets its next copy number."""

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()

    def __call__(self, codes: str) -> tuple[Card, ...]:
        out: list[Card] = []
        for code in codes.split():
            out.append(Card(code, self.used[code]))
            self.used[code] += 1
        return tuple(out)

    def one(self, code: str) -> Card:
        return self(code)[0]


def run(rank: str, count: int) -> str:
    """``count`` cards of ``rank`` in rotating suits: ``run("7", 3)`` is ``"7S 7H 7D"``."""
    return " ".join(rank + "SHDC"[index % 4] for index in range(count))


def position(
    rules: CanastaRules | str,
    *,
    hands: Mapping[int, str],
    pile: str = "",
    stock: str = "4S 5S 6S 7S 8S 9S 4H 5H 6H 7H 8H 9H",
    melds: Mapping[int, Sequence[str]] | None = None,
    opened: Mapping[int, bool] | None = None,
    scores: Sequence[int] | None = None,
    red_threes: Mapping[int, str] | None = None,
    turn: int = 0,
    stage: Stage = Stage.DRAW,
    deck: Deck | None = None,
    **changes: Any,
) -> DealState:
    """A deal position written with card codes (seat 0 on turn by default, at the draw)."""
    if isinstance(rules, str):
        rules = preset(rules)
    deck = deck or Deck()
    seat_sides = seating(rules)
    side_count = max(seat_sides) + 1
    side_melds: list[tuple[Meld, ...]] = []
    next_id = 1
    for side in range(side_count):
        built: list[Meld] = []
        for codes in (melds or {}).get(side, ()):
            built.append(new_meld(rules, next_id, deck(codes)))
            next_id += 1
        side_melds.append(tuple(built))
    totals = tuple(scores) if scores is not None else (0,) * side_count
    is_open = tuple((opened or {}).get(side, bool(side_melds[side])) for side in range(side_count))
    fields: dict[str, Any] = {
        "rules": rules,
        "seat_sides": seat_sides,
        "dealer": (turn - 1) % rules.players,
        "scores": totals,
        "requirements": tuple(opening_requirement(rules, score) for score in totals),
        "stock": deck(stock),
        "pile": deck(pile),
        "hands": tuple(deck(hands.get(seat, "")) for seat in range(rules.players)),
        "melds": tuple(side_melds),
        "red_threes": tuple(deck((red_threes or {}).get(side, "")) for side in range(side_count)),
        "opened": is_open,
        "has_laid": (False,) * rules.players,
        "has_own_meld": (False,) * rules.players,
        "turn": turn,
        "stage": stage,
        "next_meld_id": next_id,
    }
    fields.update(changes)
    return DealState(**fields)


def refused(state: DealState, action: Action) -> str:
    """The code of a refused action (fails the test if the action is accepted)."""
    with pytest.raises(GameError) as caught:
        apply(state, action)
    return caught.value.code


def shuffled(rules: CanastaRules, seed: int) -> list[Card]:
    cards = list(pack(rules.decks, rules.jokers))
    random.Random(seed).shuffle(cards)
    return cards


def dealt(rules: CanastaRules, seed: int, **kwargs: Any) -> DealState:
    state, _ = start_deal(rules, shuffled(rules, seed), **kwargs)
    return state


def side_data(melds: Sequence[str] = (), red: int = 0, hands: Sequence[str] = ("",)) -> dict[str, Any]:
    """One side of a deal in the JSON format of docs/canasta-deal.md."""
    threes = " ".join(("3H", "3D")[index % 2] for index in range(red))
    return {
        "melds": [codes.split() for codes in melds],
        "red_threes": threes.split(),
        "hands": [hand.split() for hand in hands],
    }


def deal_data(
    name: str,
    sides: Sequence[dict[str, Any]],
    *,
    options: Mapping[str, Any] | None = None,
    scores: Sequence[int] | None = None,
    went_out: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "preset": name,
        "options": dict(options or {}),
        "scores": list(scores) if scores is not None else [0] * len(sides),
        "sides": list(sides),
    }
    if went_out is None:
        data["stock_exhausted"] = True
    else:
        data["went_out"] = dict(went_out)
    return data


def empty_side(players: int) -> dict[str, Any]:
    return side_data(hands=[""] * players)


def stacked(
    rules: CanastaRules, *, hands: Mapping[int, str] | None = None, then: str = "", dealer: int = 0
) -> list[Card]:
    """A shuffle that deals ``hands`` (the rest of each hand plain naturals) and then ``then``
    as the next stock cards; plain naturals follow, threes and wild cards last."""
    pool: dict[str, list[Card]] = {}
    for card in pack(rules.decks, rules.jokers):
        pool.setdefault(card.code, []).append(card)
    slots: list[Card | None] = [None] * rules.cards
    players = rules.players
    for seat, codes in (hands or {}).items():
        for index, code in enumerate(codes.split()):
            slots[index * players + (seat - dealer - 1) % players] = pool[code].pop(0)
    base = rules.hand_size * players + (1 if rules.house_deal else 0)
    for index, code in enumerate(then.split()):
        slots[base + index] = pool[code].pop(0)
    rest = sorted(
        (card for cards in pool.values() for card in cards),
        key=lambda card: (card.is_wild or card.rank == "3", card.copy, card.code),
    )
    filler = iter(rest)
    return [slot if slot is not None else next(filler) for slot in slots]


def pick(state: DealState, seat: int, codes: str) -> tuple[Card, ...]:
    """Instances from the seat's hand (then the pile) for ``codes``, each instance once."""
    pool = list(state.hands[seat]) + list(reversed(state.pile))
    out: list[Card] = []
    for code in codes.split():
        card = next(card for card in pool if card.code == code and card not in out)
        out.append(card)
    return tuple(out)
