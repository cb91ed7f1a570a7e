"""Round scripts: one blackjack round written as JSON, played by the engine (docs/round-script.md).

A script names a rule profile (plus overrides), the shoe order and, per box, the stakes, the
side bets, the insurance choices, the bets behind with their presets and the decisions in
order. :func:`play_script` returns the settlement as JSON-ready data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.blackjack.drivers import play_round
from games.blackjack.rules import RuleSet, profile
from games.blackjack.settlement import PayoutLine, dealer_summary, settlement, totals
from games.blackjack.state import Bet, BetKind, RoundState, Seat
from games.cards import Card, hand_value
from games.errors import GameError, InvalidScriptError

SCRIPT_KEYS = {"name", "description", "source", "profile", "rules", "shoe", "boxes", "expected"}
BOX_KEYS = {
    "box",
    "player",
    "stake_minor",
    "perfect_pairs_minor",
    "twenty_one_plus_three_minor",
    "insurance",
    "insurance_minor",
    "accepts_bets_behind",
    "decisions",
    "behind",
}
BEHIND_KEYS = {
    "player",
    "stake_minor",
    "follow_double",
    "follow_split",
    "insurance",
    "insurance_minor",
    "bet_id",
}
DECISION_NAMES = {"hit", "stand", "double", "split", "surrender"}


@dataclass(frozen=True, slots=True)
class RoundScript:
    rules: RuleSet
    seats: tuple[Seat, ...]
    bets: tuple[Bet, ...]
    shoe: tuple[Card, ...]
    decisions: dict[int, tuple[str, ...]]
    insurance: dict[str, str]
    insurance_stakes: dict[str, int]


def _fail(message: str) -> InvalidScriptError:
    return InvalidScriptError(message)


def _keys(data: Any, allowed: set[str], where: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise _fail(f"{where} must be an object")
    unknown = set(data) - allowed
    if unknown:
        raise _fail(f"{where}: unknown keys {sorted(unknown)}")
    return data


def _stake(value: Any, where: str, *, optional: bool = True) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"{where} must be a whole number of minor units")
    return int(value)


def _flag(data: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _fail(f"{where}.{key} must be true or false")
    return value


def _insurance_choice(data: Mapping[str, Any], where: str) -> tuple[str, int | None]:
    """A bet's ``insurance`` choice and the amount of a take (``insurance_minor``)."""
    value = data.get("insurance")
    amount = _stake(data.get("insurance_minor"), f"{where}.insurance_minor")
    if value is None:
        choice = "take" if amount is not None else "decline"
    elif value is False:
        choice = "decline"
    elif value is True:
        choice = "take"
    elif value in ("take", "decline", "even_money"):
        choice = str(value)
    else:
        raise _fail(f"{where}.insurance must be take, decline, even_money, true or false")
    if amount is not None and choice != "take":
        raise _fail(f"{where}.insurance_minor is the amount of a take, not of {choice}")
    return choice, amount


def load_script(data: Any) -> RoundScript:
    """Validate a script (already parsed from JSON); raises InvalidScriptError or InvalidRuleSetError."""
    script = _keys(data, SCRIPT_KEYS, "script")
    rules = _script_rules(script)
    shoe = _script_shoe(script)
    boxes = script.get("boxes")
    if not isinstance(boxes, list) or not boxes:
        raise _fail("boxes must be a non-empty list")
    collected = _ScriptBoxes()
    for position, raw_box in enumerate(boxes):
        collected.add_box(raw_box, f"boxes[{position}]")
    return RoundScript(
        rules=rules,
        seats=tuple(collected.seats),
        bets=(*collected.mains, *collected.others),
        shoe=shoe,
        decisions=collected.decisions,
        insurance=collected.insurance,
        insurance_stakes=collected.insurance_stakes,
    )


def _script_rules(script: Mapping[str, Any]) -> RuleSet:
    """The rule set: a shipped profile by name (rules 9) with the script's overrides."""
    name = script.get("profile")
    if not isinstance(name, str):
        raise _fail("profile must be a rule profile name such as live-american")
    overrides = script.get("rules") or {}
    if not isinstance(overrides, Mapping):
        raise _fail("rules must be an object of rule overrides")
    return profile(name, overrides)


def _script_shoe(script: Mapping[str, Any]) -> tuple[Card, ...]:
    """The shoe order as card codes, first card first (rules 1.1, 4.1)."""
    shoe_codes = script.get("shoe")
    if not isinstance(shoe_codes, list) or not all(isinstance(code, str) for code in shoe_codes):
        raise _fail("shoe must be a list of card codes such as AS, TD, 7H")
    return tuple(Card.parse(code) for code in shoe_codes)


@dataclass
class _ScriptBoxes:
    """What the script's boxes add up to, box by box: the seats, the main bets, then the other
    bets in the order they are placed, each box's decisions and each bet's insurance choice."""

    seats: list[Seat] = field(default_factory=list)
    mains: list[Bet] = field(default_factory=list)
    others: list[Bet] = field(default_factory=list)
    decisions: dict[int, tuple[str, ...]] = field(default_factory=dict)
    insurance: dict[str, str] = field(default_factory=dict)
    insurance_stakes: dict[str, int] = field(default_factory=dict)

    def add_box(self, raw_box: Any, where: str) -> None:
        """One box: its seat and owner (rules 2.3), its decisions in order (rules 5), the owner's
        main bet with its insurance choice (rules 3.3), side bets (rules 3.2), bets behind (2.4)."""
        box_data = _keys(raw_box, BOX_KEYS, where)
        number, player = self._add_seat(box_data, where)
        names = box_data.get("decisions", [])
        if not isinstance(names, list) or not all(name in DECISION_NAMES for name in names):
            raise _fail(f"{where}.decisions must list {sorted(DECISION_NAMES)}")
        self.decisions[number] = tuple(names)
        self._add_main_bet(box_data, number, player, where)
        self._add_side_bets(box_data, number, player, where)
        behind = box_data.get("behind", [])
        if not isinstance(behind, list):
            raise _fail(f"{where}.behind must be a list")
        for index, raw_behind in enumerate(behind, start=1):
            self._add_bet_behind(raw_behind, number, index, f"{where}.behind[{index - 1}]")

    def _add_seat(self, box_data: Mapping[str, Any], where: str) -> tuple[int, str]:
        """Rules 2.1-2.3: a box once, its owner (``player-<box>`` unless named) and whether he
        takes bets behind. The box number and the owner."""
        number = box_data.get("box")
        if isinstance(number, bool) or not isinstance(number, int):
            raise _fail(f"{where}.box must be a box number")
        if number in self.decisions:
            raise _fail(f"box {number} appears twice")
        player = box_data.get("player", f"player-{number}")
        if not isinstance(player, str) or not player:
            raise _fail(f"{where}.player must be a name")
        self.seats.append(Seat(number, player, _flag(box_data, "accepts_bets_behind", True, where)))
        return number, player

    def _insure(self, bet_id: str, choice: str, amount: int | None) -> None:
        """Rule 3.3: the bet's insurance choice, and the amount of a take when one is given."""
        self.insurance[bet_id] = choice
        if amount is not None:
            self.insurance_stakes[bet_id] = amount

    def _add_main_bet(self, box_data: Mapping[str, Any], number: int, player: str, where: str) -> None:
        """The owner's main bet (rules 2.3) and its insurance choice (rules 3.3); a box without a
        stake plays no main bet and makes no insurance choice."""
        stake = _stake(box_data.get("stake_minor"), f"{where}.stake_minor")
        main_id = f"box{number}-main"
        choice, amount = _insurance_choice(box_data, where)
        if stake is not None:
            self.mains.append(Bet(main_id, player, number, BetKind.MAIN, stake))
            self._insure(main_id, choice, amount)
        elif choice != "decline":
            raise _fail(f"{where}: an insurance choice needs the owner's stake_minor")

    def _add_side_bets(self, box_data: Mapping[str, Any], number: int, player: str, where: str) -> None:
        """The owner's side bets (rules 3.2, 4.2): Perfect Pairs and 21+3."""
        for key, kind, suffix in (
            ("perfect_pairs_minor", BetKind.PERFECT_PAIRS, "perfect-pairs"),
            ("twenty_one_plus_three_minor", BetKind.TWENTY_ONE_PLUS_THREE, "21+3"),
        ):
            side = _stake(box_data.get(key), f"{where}.{key}")
            if side is not None:
                self.others.append(Bet(f"box{number}-{suffix}", player, number, kind, side))

    def _add_bet_behind(self, raw_behind: Any, number: int, index: int, where: str) -> None:
        """A bet behind the box (rules 2.4): its bettor, stake, whether it follows the owner's
        doubles and splits, and its insurance choice (rules 3.3)."""
        behind_data = _keys(raw_behind, BEHIND_KEYS, where)
        bettor = behind_data.get("player")
        if not isinstance(bettor, str) or not bettor:
            raise _fail(f"{where}.player must be a name")
        bet_id = behind_data.get("bet_id", f"box{number}-behind{index}")
        if not isinstance(bet_id, str) or not bet_id:
            raise _fail(f"{where}.bet_id must be a string")
        behind_stake = _stake(behind_data.get("stake_minor"), f"{where}.stake_minor", optional=False)
        assert behind_stake is not None
        self.others.append(
            Bet(
                bet_id,
                bettor,
                number,
                BetKind.BEHIND,
                behind_stake,
                follow_double=_flag(behind_data, "follow_double", False, where),
                follow_split=_flag(behind_data, "follow_split", False, where),
            )
        )
        self._insure(bet_id, *_insurance_choice(behind_data, where))


def _net(lines: Sequence[PayoutLine]) -> int:
    return sum(line.net_minor for line in lines)


def _bet_summary(lines: Sequence[PayoutLine]) -> dict[str, Any] | None:
    if not lines:
        return None
    outcomes = [line.outcome for line in lines]
    return {
        "bet_id": lines[0].bet_id,
        "player": lines[0].player,
        "outcome": outcomes[0] if len(set(outcomes)) == 1 else outcomes,
        "stake_minor": sum(line.stake_minor for line in lines),
        "net_minor": _net(lines),
    }


def settlement_report(state: RoundState) -> dict[str, Any]:
    """The settlement of a settled round as JSON-ready data (the format of docs/round-script.md)."""
    lines = settlement(state)
    total, is_blackjack, is_bust = dealer_summary(state)
    playing = {box.number: box for box in state.boxes}
    numbers = sorted({bet.box for bet in state.bets})
    boxes: list[dict[str, Any]] = []
    for number in numbers:
        box_lines = [line for line in lines if line.box == number]
        box = playing.get(number)
        hands: list[dict[str, Any]] = []
        main_lines = [line for line in box_lines if line.kind is BetKind.MAIN]
        if box is not None:
            for index, hand in enumerate(box.hands):
                value = hand_value(hand.cards)
                main_line = next(line for line in main_lines if line.hand == index)
                hands.append(
                    {
                        "cards": [card.code for card in hand.cards],
                        "total": value.total,
                        "is_soft": value.is_soft,
                        "is_doubled": hand.is_doubled,
                        "outcome": main_line.outcome,
                        "stake_minor": main_line.stake_minor,
                        "net_minor": main_line.net_minor,
                    }
                )
        behind_ids = list(dict.fromkeys(line.bet_id for line in box_lines if line.kind is BetKind.BEHIND))
        insurance_lines = [line for line in box_lines if line.kind is BetKind.INSURANCE]
        boxes.append(
            {
                "box": number,
                "player": box.owner if box is not None else state.box_owner(number),
                "plays": box is not None,
                "first_cards": [card.code for card in box.first_cards] if box is not None else [],
                "hands": hands,
                "main": _bet_summary(main_lines),
                "perfect_pairs": _bet_summary(
                    [line for line in box_lines if line.kind is BetKind.PERFECT_PAIRS]
                ),
                "twenty_one_plus_three": _bet_summary(
                    [line for line in box_lines if line.kind is BetKind.TWENTY_ONE_PLUS_THREE]
                ),
                "insurance": [_bet_summary([line]) for line in insurance_lines],
                "behind": [
                    _bet_summary(
                        [line for line in box_lines if line.bet_id == bet_id and line.kind is BetKind.BEHIND]
                    )
                    for bet_id in behind_ids
                ],
                "net_minor": _net(box_lines),
            }
        )
    return {
        "rules": state.rules.name,
        "dealer": {
            "cards": [card.code for card in state.dealer_cards],
            "total": total,
            "is_blackjack": is_blackjack,
            "is_bust": is_bust,
        },
        "boxes": boxes,
        "lines": [line.to_dict() for line in lines],
        "totals": totals(lines),
    }


def play_script(data: Any) -> dict[str, Any]:
    """Load, validate and play a script; the settlement report. Raises GameError subclasses."""
    script = load_script(data)
    state, _, _ = play_round(
        script.rules,
        script.bets,
        script.shoe,
        script.decisions,
        insurance=script.insurance,
        insurance_stakes=script.insurance_stakes,
        seats=script.seats,
    )
    return settlement_report(state)


def play_script_file(path: str | Path) -> dict[str, Any]:
    """Read a JSON script file and play it (InvalidScriptError when it is not JSON)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidScriptError(f"{path}: {error}") from error
    return play_script(data)


__all__ = ["GameError", "RoundScript", "load_script", "play_script", "play_script_file", "settlement_report"]
