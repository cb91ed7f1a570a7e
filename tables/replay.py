"""Replays and exports of recorded rounds.

A round is rebuilt from its events alone: the engine state written when betting closed
(``payload["initial"]``, the seats before any bet) plus every engine action stored in the
events, in sequence order. Its settlement is then compared, line by line and to the cent, with
the payout lines stored when the round was settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.blackjack import RoundState, action_from_dict, apply, settlement, state_from_dict, totals
from games.blackjack.actions import DealCard, Decision, TakeEvenMoney, TakeInsurance
from games.blackjack.rules import PROFILES
from games.blackjack.state import BetKind
from tables.errors import ReplayError
from tables.models import Bet, PayoutLine, Round, RoundEvent


def round_events(round_: Round) -> list[RoundEvent]:
    """The round's events in order, without their engine snapshots (a replay rebuilds the state
    from the actions; the snapshots are most of the log's bytes)."""
    return list(RoundEvent.objects.filter(round=round_).defer("snapshot").order_by("sequence"))


def round_rebuild(round_: Round, events: list[RoundEvent] | None = None) -> tuple[RoundState, list[Any]]:
    """The engine state rebuilt from the round's events, and the actions applied."""
    events = events if events is not None else round_events(round_)
    initial = next((event.payload["initial"] for event in events if event.payload.get("initial")), None)
    if initial is None:
        raise ReplayError(f"round {round_.pk} never closed betting")
    state = state_from_dict(initial)
    actions = []
    for event in events:
        data = event.payload.get("action")
        if not data or event.kind == "betting_opened":
            continue
        action = action_from_dict(data)
        state, _ = apply(state, action)
        actions.append(action)
    return state, actions


@dataclass(frozen=True)
class ReplayResult:
    round_id: int
    differences: list[str]

    @property
    def is_equal(self) -> bool:
        return not self.differences


def _line_key(
    bet_id: str, hand: int | None, outcome: str, stake: int, net: int, paid: int, multiplier: str
) -> tuple[Any, ...]:
    return (bet_id, hand, outcome, stake, net, paid, multiplier)


def round_replay_check(round_: Round) -> ReplayResult:
    """Replay a settled round and compare its payout lines with the stored ones, to the cent."""
    try:
        state, _ = round_rebuild(round_)
        replayed = [
            _line_key(
                line.bet_id,
                line.hand,
                line.outcome,
                line.stake_minor,
                line.net_minor,
                line.paid_minor,
                f"{line.multiplier.numerator}/{line.multiplier.denominator}",
            )
            for line in settlement(state)
        ]
    except Exception as error:
        return ReplayResult(round_.pk, [f"replay failed: {error!r}"])
    stored = [
        _line_key(
            str(line.bet_id),
            line.hand,
            line.outcome,
            line.stake_minor,
            line.net_minor,
            line.paid_minor,
            f"{line.multiplier_numerator}/{line.multiplier_denominator}",
        )
        for line in PayoutLine.objects.filter(round=round_).order_by("pk")
    ]
    differences = []
    if len(stored) != len(replayed):
        differences.append(f"{len(stored)} stored lines, {len(replayed)} replayed")
    for index, (left, right) in enumerate(zip(stored, replayed, strict=False)):
        if left != right:
            differences.append(f"line {index}: stored {left} != replayed {right}")
    return ReplayResult(round_.pk, differences)


def round_export(round_: Round) -> dict[str, Any]:
    """The round as a round script (docs/round-script.md) with its recorded payout lines under
    ``expected`` (bet ids translated to the script's generated ids)."""
    state, actions = round_rebuild(round_)
    rules = state.rules
    profile_name = rules.name if rules.name in PROFILES else "live-american"
    overrides = {key: value for key, value in rules.to_dict().items() if key != "name"}
    shoe = [action.card.code for action in actions if isinstance(action, DealCard)]
    insurance = _InsuranceChoices(actions)
    boxes, ids = _script_boxes(state, actions, insurance)
    for bet_id, action in insurance.insured.items():
        if action.insurance_bet_id:
            ids[action.insurance_bet_id] = f"{ids[bet_id]}/insurance"
    lines = _expected_lines(round_, ids)
    return {
        "name": f"{round_.table.name}-round-{round_.number}",
        "description": f"round {round_.number} of table {round_.table.name}, exported from its event log",
        "source": f"tables.round {round_.pk}",
        "profile": profile_name,
        "rules": overrides,
        "shoe": shoe,
        "boxes": boxes,
        "expected": {
            "lines": lines,
            "totals": {
                "stake_minor": sum(line["stake_minor"] for line in lines),
                "paid_minor": sum(line["paid_minor"] for line in lines),
                "house_net_minor": sum(line["stake_minor"] - line["paid_minor"] for line in lines),
            },
        },
    }


class _InsuranceChoices:
    """The insurance choices recorded among a round's actions: the bets insured (with the
    action, which names the insurance bet) and those that took even money."""

    def __init__(self, actions: list[Any]) -> None:
        self.insured = {action.bet_id: action for action in actions if isinstance(action, TakeInsurance)}
        self.even_money = {action.bet_id for action in actions if isinstance(action, TakeEvenMoney)}

    def of(self, bet_id: str) -> dict[str, Any]:
        """The script's insurance keys for a bet: the recorded choice, and a take's amount."""
        taken = self.insured.get(bet_id)
        if taken is not None:
            if taken.stake_minor is None:
                return {"insurance": "take"}
            return {"insurance": "take", "insurance_minor": taken.stake_minor}
        return {"insurance": "even_money" if bet_id in self.even_money else "decline"}


def _script_boxes(
    state: RoundState, actions: list[Any], insurance: _InsuranceChoices
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The script's boxes (each box with a bet: its player, decisions, stakes, side bets and bets
    behind), and the script's id of each engine bet id."""
    decisions: dict[int, list[str]] = {}
    for action in actions:
        if isinstance(action, Decision):
            decisions.setdefault(action.box, []).append(action.type)
    numbers = sorted({bet.box for bet in state.bets})
    ids: dict[str, str] = {}
    boxes = []
    for number in numbers:
        owner = state.box_owner(number) or f"player-{number}"
        seat = state.seat(number)
        entry: dict[str, Any] = {"box": number, "player": owner, "decisions": decisions.get(number, [])}
        if seat is not None and not seat.accepts_bets_behind:
            entry["accepts_bets_behind"] = False
        behind = []
        for bet in state.bets:
            if bet.box != number:
                continue
            if bet.kind is BetKind.MAIN:
                entry["stake_minor"] = bet.stake_minor
                entry.update(insurance.of(bet.bet_id))
                ids[bet.bet_id] = f"box{number}-main"
            elif bet.kind is BetKind.PERFECT_PAIRS:
                entry["perfect_pairs_minor"] = bet.stake_minor
                ids[bet.bet_id] = f"box{number}-perfect-pairs"
            elif bet.kind is BetKind.TWENTY_ONE_PLUS_THREE:
                entry["twenty_one_plus_three_minor"] = bet.stake_minor
                ids[bet.bet_id] = f"box{number}-21+3"
            elif bet.kind is BetKind.BEHIND:
                behind.append(
                    {
                        "player": bet.player,
                        "stake_minor": bet.stake_minor,
                        "follow_double": bet.follow_double,
                        "follow_split": bet.follow_split,
                        **insurance.of(bet.bet_id),
                        "bet_id": f"bet-{bet.bet_id}",
                    }
                )
                ids[bet.bet_id] = f"bet-{bet.bet_id}"
        if behind:
            entry["behind"] = behind
        boxes.append(entry)
    return boxes, ids


def _expected_lines(round_: Round, ids: dict[str, str]) -> list[dict[str, Any]]:
    """The round's recorded payout lines as the script expects them, each bet by its script id
    (``ids``; its database id when it has none)."""
    kinds = dict(Bet.objects.filter(round=round_).values_list("pk", "kind"))
    lines: list[dict[str, Any]] = []
    for line in PayoutLine.objects.filter(round=round_).order_by("pk"):
        lines.append(
            {
                "bet_id": ids.get(str(line.bet_id), str(line.bet_id)),
                "player": str(line.bet.player_id),
                "box": line.bet.box_number,
                "hand": line.hand,
                "kind": kinds[line.bet_id],
                "outcome": line.outcome,
                "rule": line.rule,
                "multiplier": str(line.multiplier_numerator)
                if line.multiplier_denominator == 1
                else f"{line.multiplier_numerator}/{line.multiplier_denominator}",
                "stake_minor": line.stake_minor,
                "net_minor": line.net_minor,
                "paid_minor": line.paid_minor,
                "rounding_remainder_minor": line.rounding_remainder,
            }
        )
    return lines


__all__ = ["ReplayResult", "round_export", "round_rebuild", "round_replay_check", "totals"]
