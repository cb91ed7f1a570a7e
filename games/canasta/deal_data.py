"""A finished deal as JSON (docs/canasta-deal.md) in and its score as JSON out.

:func:`deal_from_dict` reads the format the host enters and ``manage.py canasta_score`` reads;
:func:`score_report` is the JSON the command prints. Refusals are GameErrors with the engine's
codes (``invalid_deal_data``, ``unknown_preset``, ``unknown_option``, ``invalid_meld`` codes
of section 3, ``too_many_copies`` ...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.canasta.cards import Card, parse_code
from games.canasta.dealing import seating
from games.canasta.errors import InvalidDealError
from games.canasta.rules import PRESETS, CanastaRules, Sides, preset
from games.canasta.scoring import (
    DealScore,
    FinishedDeal,
    SideDeal,
    finished_deal,
    melds_from_cards,
    score_finished,
)
from games.canasta.state import DealState

_TOP_KEYS = frozenset({"preset", "options", "teams", "scores", "sides", "went_out", "stock_exhausted"})
_SIDE_KEYS = frozenset({"melds", "red_threes", "hands"})
_OUT_KEYS = frozenset({"side", "player", "concealed", "partner_had_melded", "double", "discard"})


def _bad(message: str) -> InvalidDealError:
    return InvalidDealError(message, code="invalid_deal_data")


def _object(value: Any, what: str, keys: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad(f"{what} must be an object")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise _bad(f"{what}: unknown keys {unknown}")
    return value


def _list(value: Any, what: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise _bad(f"{what} must be a list")
    return value


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{what} must be a whole number")
    return int(value)


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"{what} must be true or false")
    return value


class _Instances:
    """Gives each code read its next copy number, so every card of the deal is an instance."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def card(self, text: Any) -> Card:
        code = parse_code(text)
        card = Card(code, self.seen[code])
        self.seen[code] += 1
        return card

    def cards(self, value: Any, what: str) -> tuple[Card, ...]:
        return tuple(self.card(item) for item in _list(value, what))


def rules_from_dict(data: Mapping[str, Any]) -> CanastaRules:
    """The deal's rules: ``preset`` (default ``classic4``) with ``options`` (``unknown_preset``,
    ``unknown_option``, ``invalid_ruleset``)."""
    name = data.get("preset", "classic4")
    options = data.get("options") or {}
    if not isinstance(name, str) or not isinstance(options, Mapping):
        raise _bad("preset is a name and options an object")
    return preset(name, options)


def deal_from_dict(data: Any) -> FinishedDeal:
    """Read a finished deal (docs/canasta-deal.md); melds are checked as melds of the rules."""
    top = _object(data, "the deal", _TOP_KEYS)
    rules = rules_from_dict(top)
    teams = top.get("teams")
    seat_sides = seating(rules, None if teams is None else _int(teams, "teams"))
    side_count = max(seat_sides) + 1
    players_per_side = [seat_sides.count(side) for side in range(side_count)]
    scores = tuple(_int(item, "scores[]") for item in _list(top.get("scores", [0] * side_count), "scores"))
    raw_sides = _list(top.get("sides"), "sides")
    if len(raw_sides) != side_count or len(scores) != side_count:
        raise InvalidDealError(f"this game has {side_count} sides", code="wrong_side_count")
    instances = _Instances()
    sides: list[SideDeal] = []
    for index, raw in enumerate(raw_sides):
        side = _object(raw, f"sides[{index}]", _SIDE_KEYS)
        groups = [instances.cards(group, "a meld") for group in _list(side.get("melds", []), "melds")]
        threes = instances.cards(side.get("red_threes", []), "red_threes")
        hands_raw = _list(side.get("hands", [[]] * players_per_side[index]), "hands")
        if len(hands_raw) != players_per_side[index]:
            raise InvalidDealError(
                f"side {index + 1} has {players_per_side[index]} player(s)", code="wrong_player_count"
            )
        hands = tuple(instances.cards(hand, "a hand") for hand in hands_raw)
        sides.append(SideDeal(melds_from_cards(rules, groups), threes, hands))
    went_out_raw = top.get("went_out")
    stock_exhausted = _bool(top.get("stock_exhausted", False), "stock_exhausted")
    went_out = None
    out_player = 0
    concealed = partner_had_melded = double = False
    discard = None
    if went_out_raw is not None:
        out = _object(went_out_raw, "went_out", _OUT_KEYS)
        went_out = _int(out.get("side"), "went_out.side")
        out_player = _int(out.get("player", 0), "went_out.player")
        concealed = _bool(out.get("concealed", False), "went_out.concealed")
        partner_had_melded = _bool(out.get("partner_had_melded", False), "went_out.partner_had_melded")
        double = _bool(out.get("double", False), "went_out.double")
        if out.get("discard") is not None:
            discard = instances.card(out.get("discard"))
    return FinishedDeal(
        rules=rules,
        scores=scores,
        sides=tuple(sides),
        went_out=went_out,
        out_player=out_player,
        concealed=concealed,
        partner_had_melded=partner_had_melded,
        double_out=double,
        stock_exhausted=stock_exhausted,
        final_discard=discard,
    )


def score_report(deal: FinishedDeal, score: DealScore) -> dict[str, Any]:
    """The JSON the ``canasta_score`` command prints (docs/canasta-deal.md)."""
    sides: list[dict[str, Any]] = []
    for index, side in enumerate(score.sides):
        requirement = score.next_requirements[index]
        sides.append(
            {
                "side": index,
                "score_before": score.totals_before[index],
                "melded": side.melded,
                "canasta_bonus": side.canasta_bonus,
                "canastas": dict(side.canastas),
                "red_threes": side.red_threes,
                "going_out": side.going_out,
                "hand": side.hand,
                "deal_total": side.total,
                "total": score.totals[index],
                "next_opening": {
                    "minimum": requirement.minimum,
                    "canasta_at_once": requirement.canasta_at_once,
                    "naturals": requirement.naturals,
                },
            }
        )
    return {
        "preset": deal.rules.name,
        "target": deal.rules.target,
        "sides": sides,
        "game": {"is_over": score.is_game_over, "winner": score.winner, "margin": score.margin},
    }


def score_from_dict(data: Any) -> dict[str, Any]:
    """Read, check and score a finished deal: the command's whole job."""
    deal = deal_from_dict(data)
    return score_report(deal, score_finished(deal))


def deal_to_dict(state: DealState) -> dict[str, Any]:
    """A finished engine deal in the format of :func:`deal_from_dict` (what a host would enter)."""
    deal = finished_deal(state)
    base = preset(state.rules.name).to_parameters() if state.rules.name in PRESETS else {}
    sides = [
        {
            "melds": [[card.code for card in meld.cards] for meld in side.melds],
            "red_threes": [card.code for card in side.red_threes],
            "hands": [[card.code for card in hand] for hand in side.hands],
        }
        for side in deal.sides
    ]
    out: dict[str, Any] = {
        "preset": state.rules.name,
        "options": {
            key: value for key, value in state.rules.to_parameters().items() if base.get(key) != value
        },
        "scores": list(deal.scores),
        "sides": sides,
    }
    if state.rules.sides is Sides.TEAMS_2X3_OR_3X2:
        out["teams"] = deal.rules.players // len(deal.sides[0].hands)
    if deal.went_out is None:
        out["stock_exhausted"] = True
    else:
        discard = state.pile[-1].code if state.out_by_discard else None
        out["went_out"] = {
            "side": deal.went_out,
            "player": deal.out_player,
            "concealed": deal.concealed,
            "partner_had_melded": deal.partner_had_melded,
            "double": deal.double_out,
            "discard": discard,
        }
    return out
