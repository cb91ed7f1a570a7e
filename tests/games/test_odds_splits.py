"""The split approximation of the main-game odds against a brute-force two-hand split.

The brute force plays both split hands in turn with every card removed exactly, then the dealer
draws from what is left. It is slow for small pairs (every hand of both trees times the dealer),
so the tests pick pairs and upcards that finish in well under a second on one deck, where card
removal matters most.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import replace

import pytest

from games.blackjack.rules import HoleCard, NoPeekLoss, RuleSet, Surrender
from games.odds.dealer import (
    ACE,
    BLACKJACK,
    VALUES,
    card_value,
    dealer_distribution,
    full_shoe,
    hand_total,
)
from games.odds.main_game import (
    DOUBLE,
    STAND,
    SURRENDER,
    BasicStrategy,
    _Evaluator,
    _peek_like,
    _stand_values,
    derive_strategy,
    expected_return,
    refine_strategy,
)

Leaf = tuple[float, tuple[int, ...], int, int]  # chance, shoe left, total (22 = bust), stake


def _draw(shoe: tuple[int, ...]) -> Iterator[tuple[float, int, tuple[int, ...]]]:
    size = sum(shoe)
    for card in range(VALUES):
        if shoe[card]:
            yield shoe[card] / size, card, (*shoe[:card], shoe[card] - 1, *shoe[card + 1 :])


def _hand_leaves(
    rules: RuleSet, strategy: BasicStrategy, upcard: int, shoe: tuple[int, ...], pair: int
) -> Iterator[Leaf]:
    for chance, second, left in _draw(shoe):
        hard = card_value(pair) + card_value(second)
        ace = pair == ACE or second == ACE
        total, soft = hand_total(hard, ace)
        if pair == ACE and rules.split_aces_one_card:
            yield chance, left, total, 1
            continue
        action = STAND if total == 21 else strategy.split_two[(total, soft, upcard)]
        if action == DOUBLE:
            for more, card, rest in _draw(left):
                final, _ = hand_total(hard + card_value(card), ace or card == ACE)
                yield chance * more, rest, min(final, 22), 2
            continue
        if action == STAND:
            yield chance, left, total, 1
            continue
        yield from _hits(strategy, upcard, left, hard, ace, chance)


def _hits(
    strategy: BasicStrategy, upcard: int, shoe: tuple[int, ...], hard: int, ace: bool, chance: float
) -> Iterator[Leaf]:
    for more, card, rest in _draw(shoe):
        new_hard = hard + card_value(card)
        new_ace = ace or card == ACE
        total, soft = hand_total(new_hard, new_ace)
        if total > 21:
            yield chance * more, rest, 22, 1
        elif total == 21 or strategy.hit_stand[(total, soft, upcard)] == STAND:
            yield chance * more, rest, total, 1
        else:
            yield from _hits(strategy, upcard, rest, new_hard, new_ace, chance * more)


def exact_two_hand_split(rules: RuleSet, strategy: BasicStrategy, upcard: int, pair: int) -> float:
    """Exact value of splitting ``pair`` once against ``upcard`` (joint with "no dealer
    blackjack" when the dealer blackjack costs only the original stake, as in the evaluator)."""
    shoe = list(full_shoe(rules.decks))
    shoe[upcard] -= 1
    shoe[pair] -= 2
    start = tuple(shoe)
    peek_like = _peek_like(rules)
    total_value = 0.0
    for chance1, left1, total1, stake1 in _hand_leaves(rules, strategy, upcard, start, pair):
        for chance2, left2, total2, stake2 in _hand_leaves(rules, strategy, upcard, left1, pair):
            distribution = dealer_distribution(upcard, left2, rules.dealer_hits_soft_17)
            no_blackjack = 1.0 - float(distribution[BLACKJACK])
            if peek_like:
                distribution = distribution.copy()
                distribution[BLACKJACK] = 0.0
            values = _stand_values(distribution, blackjack_loses=not peek_like)
            result = 0.0
            for total, stake in ((total1, stake1), (total2, stake2)):
                if total > 21:
                    result -= stake * (no_blackjack if peek_like else 1.0)
                else:
                    result += stake * values[max(total, 16) - 16]
            total_value += chance1 * chance2 * result
    return total_value


@functools.lru_cache(maxsize=1)
def _one_deck_no_resplit() -> tuple[RuleSet, BasicStrategy]:
    rules = RuleSet(decks=1, max_hands=2, double_after_split=True)
    return rules, refine_strategy(rules, derive_strategy(rules))


@pytest.mark.parametrize(
    ("pair", "upcard"),
    [(ACE, 0), (ACE, 5), (ACE, 9), (6, 5), (7, 4), (5, 5)],
)
def test_split_approximation_is_within_a_thousandth_of_the_exact_two_hand_split(
    pair: int, upcard: int
) -> None:
    # given one deck (where removal matters most), split once, double after split
    rules, strategy = _one_deck_no_resplit()
    # when the approximate and the brute-force split values are computed
    approximate = _Evaluator(rules, strategy).split(upcard, pair)
    exact = exact_two_hand_split(rules, strategy, upcard, pair)
    # then they differ by less than 0.001 of a stake (measured: at most 0.0006); a pair deal has a
    # chance of at most 0.0006 per pair and upcard, so the whole game moves far less than 0.02pp
    assert abs(approximate - exact) < 0.001


def test_clause_4_3_no_peek_original_stake_only_is_worth_exactly_a_peek_splits_included() -> None:
    # given the same rules with a peek and with no peek where a blackjack takes the original stake
    peek = RuleSet(decks=8, max_hands=2)
    original = RuleSet(
        decks=8, max_hands=2, hole_card=HoleCard.NO_PEEK, no_peek_loss=NoPeekLoss.ORIGINAL_STAKE
    )
    strategy = derive_strategy(peek)
    # when both are played with one strategy
    assert derive_strategy(original) == strategy
    # then they are worth exactly the same: a no-peek dealer blackjack takes the box's original
    # stake and nothing more, busted split and doubled hands included (round engine, 4.3)
    assert any(strategy.split.values())
    assert expected_return(original, strategy) == pytest.approx(expected_return(peek, strategy), abs=1e-12)
    # while a blackjack that takes every stake costs the player more
    all_stakes = replace(original, no_peek_loss=NoPeekLoss.ALL_STAKES)
    assert expected_return(all_stakes, strategy) < expected_return(peek, strategy) - 0.001


def test_clause_5_7_no_peek_late_surrender_with_original_stake_only_is_worth_exactly_a_peek() -> None:
    # given late surrender with a peek, and with no peek where a blackjack takes the original
    # stake (a surrendered hand then loses its whole stake: 4.3, not an early surrender)
    peek = RuleSet(decks=8, max_hands=2, surrender=Surrender.LATE)
    original = replace(peek, hole_card=HoleCard.NO_PEEK, no_peek_loss=NoPeekLoss.ORIGINAL_STAKE)
    strategy = derive_strategy(peek)
    assert derive_strategy(original) == strategy
    # then both are worth exactly the same
    assert SURRENDER in strategy.first_two.values()
    assert expected_return(original, strategy) == pytest.approx(expected_return(peek, strategy), abs=1e-12)


def test_clause_5_7_no_peek_late_surrender_is_worth_less_than_a_tenth_of_a_point() -> None:
    # given no peek, a dealer blackjack taking every stake, with and without late surrender
    without = RuleSet(decks=8, max_hands=2, hole_card=HoleCard.NO_PEEK)
    with_surrender = replace(without, surrender=Surrender.LATE)
    # when both are evaluated under their own basic strategy
    gain = expected_return(with_surrender) - expected_return(without)
    # then surrender helps the player a little (8 decks S17: about 0.08pp), never like an early
    # surrender (which would be worth about 0.6pp: the half stake kept against a blackjack)
    assert 0.0 < gain < 0.001
