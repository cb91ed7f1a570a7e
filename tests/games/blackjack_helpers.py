"""Small builders shared by the blackjack engine tests."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

import pytest

from games.blackjack import (
    HOME_POLISH,
    LIVE_AMERICAN,
    Action,
    Bet,
    BetKind,
    CloseBetting,
    DealCard,
    Event,
    PayoutLine,
    PlaceBet,
    RoundState,
    RuleSet,
    Seat,
    apply,
    new_round,
    play_round,
    run_round,
    settlement,
    validate_bet,
)
from games.cards import Card, parse_cards, shoe_cards
from games.errors import GameError


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


def deal(state: RoundState, *codes: str) -> RoundState:
    for code in codes:
        state, _ = apply(state, DealCard(Card.parse(code)))
    return state


def refused(state: RoundState, action: Action) -> str:
    """The error code of a refused action (and proof that the state did not change)."""
    before = state
    with pytest.raises(GameError) as info:
        apply(state, action)
    assert state == before
    return info.value.code


def dealt_round(rules: RuleSet, bets: Iterable[Bet], *codes: str) -> RoundState:
    state, _ = apply(new_round(rules, bets), CloseBetting())
    return deal(state, *codes)


def play(
    rules: RuleSet,
    bets: Iterable[Bet],
    shoe: Sequence[str],
    decisions: Mapping[int, Sequence[str]] | None = None,
    *,
    insurance: Mapping[str, str] | None = None,
    insurance_stakes: Mapping[str, int] | None = None,
    seats: Iterable[Seat] = (),
) -> tuple[RoundState, tuple[Event, ...], dict[str, list[PayoutLine]]]:
    state, events, _ = play_round(
        rules,
        bets,
        parse_cards(shoe),
        decisions or {},
        insurance=insurance,
        insurance_stakes=insurance_stakes,
        seats=seats,
    )
    lines: dict[str, list[PayoutLine]] = {}
    for line in settlement(state):
        lines.setdefault(line.bet_id, []).append(line)
    return state, events, lines


def nets(lines: dict[str, list[PayoutLine]]) -> dict[str, list[int]]:
    return {bet_id: [line.net_minor for line in bet_lines] for bet_id, bet_lines in lines.items()}


RULE_VARIANTS: tuple[RuleSet, ...] = (
    LIVE_AMERICAN,
    HOME_POLISH,
    LIVE_AMERICAN.with_overrides(
        {
            "dealer_hits_soft_17": True,
            "surrender": "late",
            "even_money": True,
            "payout_rounding_unit_minor": 5,
            "insurance_stake": "up_to_half",
        }
    ),
    HOME_POLISH.with_overrides({"no_peek_loss": "original_stake", "resplit_aces": True, "split_by": "rank"}),
    LIVE_AMERICAN.with_overrides(
        {"decks": 2, "max_hands": 4, "double_on": "10_or_11", "blackjack_pays": "6/5"}
    ),
    LIVE_AMERICAN.with_overrides(
        {
            "split_aces_one_card": False,
            "resplit_aces": True,
            "max_hands": 3,
            "surrender": "late",
            "payout_rounding_unit_minor": 250,
            "insurance_stake": "up_to_half",
        }
    ),
    HOME_POLISH.with_overrides({"surrender": "late", "even_money": True}),
    HOME_POLISH.with_overrides(
        {
            "no_peek_loss": "original_stake",
            "double_on": "any_two",
            "bet_behind": True,
            "payout_rounding_unit_minor": 50,
        }
    ),
)

PLAYERS = ("ann", "bob", "cy", "dee", "eve")


def random_bets(rng: random.Random, state: RoundState) -> tuple[RoundState, list[Action], list[Event]]:
    """Random bets, each validated first; refused ones are skipped (only GameError may refuse)."""
    actions: list[Action] = []
    events: list[Event] = []
    kinds = (BetKind.MAIN, BetKind.MAIN, BetKind.BEHIND, BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)
    for number in range(rng.randint(1, 14)):
        stake = rng.choice((100, 250, 500, 901, 1000, 2500))
        bet = Bet(
            f"bet{number}",
            rng.choice(PLAYERS),
            rng.randint(1, state.rules.boxes),
            rng.choice(kinds),
            stake,
            follow_double=rng.random() < 0.5,
            follow_split=rng.random() < 0.5,
        )
        try:
            validate_bet(state, bet)
        except GameError:
            continue
        action = PlaceBet(bet)
        state, new_events = apply(state, action)
        actions.append(action)
        events.extend(new_events)
    return state, actions, events


def random_round(
    seed: int,
) -> tuple[RoundState, RoundState, tuple[Event, ...], tuple[Action, ...], tuple[Card, ...]]:
    """A round of random legal play: (initial state, final state, events, actions, shoe)."""
    rng = random.Random(seed)
    rules = rng.choice(RULE_VARIANTS)
    shoe = list(shoe_cards(rules.decks))
    rng.shuffle(shoe)
    initial = new_round(rules)
    state, bet_actions, bet_events = random_bets(rng, initial)
    final, events, actions = run_round(state, shoe, lambda _state, legal: rng.choice(legal))
    return initial, final, (*bet_events, *events), (*bet_actions, *actions), tuple(shoe)
