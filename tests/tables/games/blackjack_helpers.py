"""Small builders shared by the blackjack engine tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tables.games.blackjack import (
    Bet,
    BetKind,
    Event,
    PayoutLine,
    RoundState,
    RuleSet,
    Seat,
    play_round,
    settlement,
)
from tables.games.cards import Card, parse_cards


def main(box: int, stake: int = 1000, player: str | None = None) -> Bet:
    return Bet(f"m{box}", player or f"p{box}", box, BetKind.MAIN, stake)


def behind(
    box: int, player: str, stake: int = 500, *, follow_double: bool = False, follow_split: bool = False
) -> Bet:
    return Bet(f"b{box}-{player}", player, box, BetKind.BEHIND, stake, follow_double, follow_split)


def side(box: int, kind: BetKind, stake: int = 100, player: str | None = None) -> Bet:
    return Bet(f"{kind.value}{box}", player or f"p{box}", box, kind, stake)


def cards(*codes: str) -> tuple[Card, ...]:
    return parse_cards(codes)


def play(
    rules: RuleSet,
    bets: Iterable[Bet],
    shoe: Sequence[str],
    decisions: Mapping[int, Sequence[str]] | None = None,
    *,
    insurance: Mapping[str, str] | None = None,
    seats: Iterable[Seat] = (),
) -> tuple[RoundState, tuple[Event, ...], dict[str, list[PayoutLine]]]:
    state, events, _ = play_round(
        rules, bets, parse_cards(shoe), decisions or {}, insurance=insurance, seats=seats
    )
    lines: dict[str, list[PayoutLine]] = {}
    for line in settlement(state):
        lines.setdefault(line.bet_id, []).append(line)
    return state, events, lines


def nets(lines: dict[str, list[PayoutLine]]) -> dict[str, list[int]]:
    return {bet_id: [line.net_minor for line in bet_lines] for bet_id, bet_lines in lines.items()}
