"""Hypothesis properties of the canasta engine under random legal play, and a random legal
deal to its end in every preset (rules/canasta.md section 9)."""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.canasta import (
    PRESETS,
    Action,
    Card,
    DealState,
    Event,
    action_from_dict,
    apply,
    deal_to_dict,
    legal_actions,
    replay,
    run_deal,
    score_deal,
    score_from_dict,
    start_deal,
    state_from_dict,
    state_to_dict,
)
from games.canasta.actions import Addition, AnswerPartner, Discard, Draw, EndTurn, Meld, TakePile
from games.canasta.rebuild import rebuild
from games.canasta.state import Phase
from games.errors import GameError
from tests.games.canasta.helpers import shuffled

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
NAMES = st.sampled_from(sorted(PRESETS))
FAST = settings(max_examples=12, deadline=None)


def random_deal(
    name: str, seed: int
) -> tuple[list[Card], DealState, tuple[Event, ...], DealState, tuple[Event, ...], tuple[Action, ...]]:
    rules = PRESETS[name]
    rng = random.Random(seed)
    cards = shuffled(rules, seed)
    side_count = len(set(start_deal(rules, cards)[0].seat_sides))
    scores = [rng.randrange(-100, 900) * 5 for _ in range(side_count)]
    start, deal_events = start_deal(rules, cards, dealer=seed % rules.players, scores=scores)
    final, events, actions = run_deal(start, lambda _state, legal: rng.choice(legal))
    return cards, start, deal_events, final, events, actions


@FAST
@given(NAMES, SEEDS)
def test_property_cards_are_conserved_through_a_deal(name: str, seed: int) -> None:
    cards, start, _, _, _, actions = random_deal(name, seed)
    state = start
    for action in actions:
        assert Counter(state.all_cards()) == Counter(cards)
        state, _ = apply(state, action)
    assert Counter(state.all_cards()) == Counter(cards)
    assert len(state.all_cards()) == state.rules.cards


@FAST
@given(NAMES, SEEDS)
def test_property_the_score_is_the_sum_of_its_breakdown(name: str, seed: int) -> None:
    _, start, _, final, _, _ = random_deal(name, seed)
    score = score_deal(final)
    for index, side in enumerate(score.sides):
        assert side.total == side.melded + side.canasta_bonus + side.red_threes + side.going_out + side.hand
        assert side.canasta_bonus == sum(side.canastas.values())
        assert score.totals[index] == start.scores[index] + side.total
        assert side.hand <= 0
    # the host's entry of the same deal scores the same
    report = score_from_dict(json.loads(json.dumps(deal_to_dict(final))))
    assert [row["deal_total"] for row in report["sides"]] == [side.total for side in score.sides]
    assert report["game"]["is_over"] == score.is_game_over


@FAST
@given(NAMES, SEEDS)
def test_property_random_legal_play_always_ends_legally(name: str, seed: int) -> None:
    _, _start, _, final, events, _actions = random_deal(name, seed)
    assert final.phase is Phase.FINISHED and final.end_reason is not None
    assert legal_actions(final) == ()
    assert events[-1].type == "deal_ended"
    if final.went_out is not None:
        side = final.seat_sides[final.went_out]
        assert final.hands[final.went_out] == ()
        assert final.canasta_count(side) >= final.rules.canastas_to_go_out
    else:
        assert final.stock == ()


@FAST
@given(NAMES, SEEDS)
def test_property_replaying_a_deals_events_gives_its_state(name: str, seed: int) -> None:
    # given a deal of random legal play and the events of every action
    _, start, _, final, events, actions = random_deal(name, seed)
    stored = [json.loads(json.dumps(event.to_dict())) for event in events]
    assert stored == [event.to_dict() for event in events]
    # when the events alone are folded onto the starting state, then they give the final state
    assert rebuild(start, events) == final
    # and after every action, the state reached so far
    state = start
    seen: list[Event] = []
    for action in actions:
        state, new_events = apply(state, action)
        seen.extend(new_events)
        assert rebuild(start, seen) == state


@FAST
@given(NAMES, SEEDS)
def test_property_replaying_a_deals_actions_gives_its_state_and_events(name: str, seed: int) -> None:
    cards, start, deal_events, final, events, actions = random_deal(name, seed)
    stored = [json.loads(json.dumps(action.to_dict())) for action in actions]
    replayed, replayed_events = replay(start, [action_from_dict(item) for item in stored])
    assert replayed == final
    assert [event.to_dict() for event in replayed_events] == [event.to_dict() for event in events]
    # every intermediate snapshot survives JSON and reads back equal
    state = start
    for action in actions:
        state, _ = apply(state, action)
        assert state_from_dict(json.loads(json.dumps(state_to_dict(state)))) == state
    again, again_events = start_deal(start.rules, cards, dealer=start.dealer, scores=start.scores)
    assert again == start and again_events == deal_events


@FAST
@given(NAMES, SEEDS)
def test_property_junk_actions_raise_only_game_errors_and_change_nothing(name: str, seed: int) -> None:
    # given a deal played with random legal choices, interleaved with random junk actions
    rng = random.Random(seed)
    _, start, _, _, _, actions = random_deal(name, seed)
    state = start
    for action in actions:
        everything = list(state.all_cards())
        hand = list(state.hands[state.turn]) or everything
        junk = rng.choice(
            [
                Draw(rng.randrange(state.rules.players)),
                Discard(state.turn, rng.choice(everything)),
                EndTurn(state.turn),
                AnswerPartner(rng.randrange(state.rules.players), rng.random() < 0.5),
                Meld(state.turn, (tuple(rng.sample(hand, min(len(hand), rng.randint(1, 4)))),)),
                Meld(state.turn, (), (Addition(rng.randint(0, 9), tuple(rng.sample(hand, 1))),)),
                TakePile(state.turn, (tuple(rng.sample(everything, 3)),)),
            ]
        )
        before = state_to_dict(state)
        with contextlib.suppress(GameError):
            apply(state, junk)
        assert state_to_dict(state) == before
        state, _ = apply(state, action)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_section_9_every_preset_plays_a_random_legal_deal_to_its_end(name: str) -> None:
    for seed in (1, 2, 3):
        _, _, _, final, _, actions = random_deal(name, seed)
        assert final.phase is Phase.FINISHED and actions
        score_deal(final)


def test_rule_D2_six_players_as_three_teams_of_two_play_a_deal_to_its_end() -> None:
    rules = PRESETS["ru6"]
    rng = random.Random(7)
    start, _ = start_deal(rules, shuffled(rules, 7), scores=[0, 0, 0], teams=3)
    assert start.seat_sides == (0, 1, 2, 0, 1, 2) and start.partner_of(0) == 3
    final, events, _ = run_deal(start, lambda _state, legal: rng.choice(legal))
    assert final.phase is Phase.FINISHED and rebuild(start, events) == final
    report = score_from_dict(deal_to_dict(final))
    assert len(report["sides"]) == 3
