"""Hypothesis properties of the blackjack engine under random legal play: cards and money are
conserved, replay and snapshots reproduce the round, nothing but GameError is ever raised, and a
no-peek dealer blackjack takes no more than the rule set says (rules 4.3)."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from games.blackjack import (
    HOME_POLISH,
    BetKind,
    CloseBetting,
    DealCard,
    Hit,
    PayoutLine,
    Phase,
    action_from_dict,
    apply,
    legal_actions,
    new_round,
    replay,
    run_round,
    settlement,
    state_from_dict,
    state_to_dict,
)
from games.blackjack.events import BetCancelled, BetPlaced, InsuranceTaken, RoundSettled, StakeAdded
from games.cards import Card, shoe_cards
from games.errors import GameError
from tests.games.blackjack_helpers import PLAYERS, random_bets, random_round

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=200, deadline=None)


@FAST
@given(SEEDS)
def test_property_cards_are_conserved(seed: int) -> None:
    # given a round of random legal play from a shuffled shoe
    _, final, _, actions, shoe = random_round(seed)
    dealt = sum(1 for action in actions if isinstance(action, DealCard))
    # then the cards on the table are exactly the first cards of the shoe, the rest are left
    assert Counter(final.cards_on_table()) == Counter(shoe[:dealt])
    assert Counter(final.cards_on_table()) + Counter(shoe[dealt:]) == Counter(shoe)


@FAST
@given(SEEDS)
def test_property_money_is_conserved(seed: int) -> None:
    _, final, events, _, _ = random_round(seed)
    lines = settlement(final)
    # stakes the events asked the table to hold ...
    held: Counter[str] = Counter()
    for event in events:
        if isinstance(event, BetPlaced):
            held[event.bet.bet_id] += event.bet.stake_minor
        elif isinstance(event, BetCancelled):
            held[event.bet_id] -= event.stake_minor
        elif isinstance(event, StakeAdded):
            held[event.bet_id] += event.stake_minor
        elif isinstance(event, InsuranceTaken):
            held[event.insurance_bet_id] += event.stake_minor
    # ... are exactly the stakes of the payout lines, bet by bet
    settled: Counter[str] = Counter()
    for line in lines:
        settled[line.bet_id] += line.stake_minor
        assert line.paid_minor == line.stake_minor + line.net_minor >= 0
        assert line.multiplier * line.stake_minor == line.net_minor + line.rounding_remainder_minor
        assert 0 <= line.rounding_remainder_minor < final.rules.payout_rounding_unit_minor
    assert +held == +settled
    stakes = sum(line.stake_minor for line in lines)
    house = -sum(line.net_minor for line in lines)
    assert stakes == sum(line.paid_minor for line in lines) + house
    exact = sum((line.multiplier * line.stake_minor for line in lines), Fraction(0))
    remainder = sum((line.rounding_remainder_minor for line in lines), Fraction(0))
    assert house == -exact + remainder
    settled_events = [event for event in events if isinstance(event, RoundSettled)]
    assert len(settled_events) == 1 and settled_events[0].lines == lines


@FAST
@given(SEEDS)
def test_property_replay_and_snapshots_reproduce_the_round(seed: int) -> None:
    initial, final, events, actions, _ = random_round(seed)
    # stored actions (as JSON) replay to the same state and the same events
    stored = json.loads(json.dumps([action.to_dict() for action in actions]))
    replayed, replay_events = replay(initial, [action_from_dict(item) for item in stored])
    assert replayed == final
    assert [event.to_dict() for event in replay_events] == [event.to_dict() for event in events]
    # every intermediate snapshot survives JSON and reads back equal
    state = initial
    for action in actions:
        state, _ = apply(state, action)
        snapshot = json.loads(json.dumps(state_to_dict(state)))
        assert state_from_dict(snapshot) == state
    assert state_to_dict(replayed) == state_to_dict(final)
    json.dumps([event.to_dict() for event in events])


@settings(max_examples=100, deadline=None)
@given(SEEDS)
def test_property_random_actions_raise_only_game_errors_and_change_nothing(seed: int) -> None:
    # given a round played with random legal choices, interleaved with random junk actions
    rng = random.Random(seed)
    initial, final, _, actions, _shoe = random_round(seed)
    state = initial
    for action in actions:
        junk = rng.choice(
            [
                DealCard(Card.parse(rng.choice(["AS", "KH", "7D", "2C"]))),
                Hit(rng.choice(PLAYERS), rng.randint(0, 8)),
                *legal_actions(state),
            ]
        )
        before = state
        try:
            apply(state, junk)
        except GameError:
            assert state == before
        state, _ = apply(state, action)
    assert state == final and state.phase is Phase.SETTLED


NO_PEEK = {
    loss: HOME_POLISH.with_overrides(
        {"no_peek_loss": loss, "double_on": "any_two", "bet_behind": True, "insurance_stake": "up_to_half"}
    )
    for loss in ("original_stake", "all_stakes")
}


@FAST
@given(SEEDS, st.sampled_from(sorted(NO_PEEK)), st.booleans())
def test_property_no_peek_dealer_blackjack_loss_is_bounded(seed: int, loss: str, ace_up: bool) -> None:
    # given random bets and random legal play against a no-peek dealer blackjack
    rng = random.Random(seed)
    rules = NO_PEEK[loss]
    state, _, _ = random_bets(rng, new_round(rules))
    state, _ = apply(state, CloseBetting())
    count = len(state.boxes)
    shoe = list(shoe_cards(rules.decks))
    rng.shuffle(shoe)
    upcard, hole = (Card.parse("AS"), Card.parse("KD")) if ace_up else (Card.parse("KD"), Card.parse("AS"))
    shoe.remove(upcard)
    shoe.remove(hole)
    shoe.insert(count, upcard)
    shoe.insert(2 * count + 1, hole)
    final, _, _ = run_round(state, shoe, lambda _state, legal: rng.choice(legal))
    by_bet: dict[str, list[PayoutLine]] = {}
    for line in settlement(final):
        if line.kind in (BetKind.MAIN, BetKind.BEHIND):
            by_bet.setdefault(line.bet_id, []).append(line)
    # then a bet that is no blackjack (push), even money or a refund (its box did not play) loses
    # exactly its original stake with "original stake only", and every stake it had on the box
    # with "all stakes"
    for bet_id, lines in by_bet.items():
        bet = final.bet(bet_id)
        assert bet is not None
        net = sum(line.net_minor for line in lines)
        assert net >= -sum(line.stake_minor for line in lines)
        if any(line.outcome in ("push", "even_money", "refund") for line in lines):
            assert len(lines) == 1 and net >= 0
        elif loss == "original_stake":
            assert net == -bet.stake_minor
        else:
            assert net == -sum(line.stake_minor for line in lines)
