"""rules/canasta.md sections 1 and 2: cards, the deal, the upcard, red threes, the turn.
One test per numbered rule; the rule's number is in the test's name."""

from __future__ import annotations

from collections import Counter

import pytest

from games.canasta import (
    Discard,
    Draw,
    Meld,
    TakePile,
    apply,
    legal_actions,
    pack,
    preset,
    seating,
    start_deal,
)
from games.canasta.cards import Card, hand_points
from games.canasta.dealing import next_dealer
from games.canasta.events import CardDiscarded, CardsDealt, RedThreeLaidOut, TurnStarted
from games.canasta.melds import new_meld
from games.canasta.pile import pile_view
from games.canasta.state import Stage
from games.errors import GameError
from tests.games.canasta.helpers import Deck, position, refused, shuffled, stacked

CLASSIC4 = preset("classic4")


def test_rule_1_1_two_packs_hold_108_cards_three_packs_162() -> None:
    two, three = pack(2, 4), pack(3, 6)
    assert len(two) == 108 and len(set(two)) == 108
    assert len(three) == 162 and len(set(three)) == 162
    codes = Counter(card.code for card in two)
    assert codes["KS"] == 2 and codes["JK"] == 4
    assert Counter(card.code for card in three)["KS"] == 3


def test_rule_1_1_a_shuffle_must_be_every_instance_once() -> None:
    # given a shuffle with one instance twice and another missing
    cards = shuffled(CLASSIC4, 1)
    cards[5] = cards[6]
    # then the deal is refused
    with pytest.raises(GameError) as caught:
        start_deal(CLASSIC4, cards)
    assert caught.value.code == "invalid_shuffle"


def test_rule_1_2_card_classes() -> None:
    assert Card("2C").is_wild and Card("JK").is_wild and not Card("3S").is_wild
    assert Card("4D").is_natural and Card("AS").is_natural and not Card("3H").is_natural
    assert Card("3H").is_red_three and Card("3D").is_red_three
    assert Card("3S").is_black_three and Card("3C").is_black_three


def test_rule_1_3_point_values() -> None:
    points = {code: Card(code).points for code in ("JK", "2S", "AS", "KS", "8S", "7S", "4S", "3S")}
    assert points == {"JK": 50, "2S": 20, "AS": 20, "KS": 10, "8S": 10, "7S": 5, "4S": 5, "3S": 5}
    # a wild card keeps its own value in a meld (002 §6: J, J, Jkr = 70)
    deck = Deck()
    assert new_meld(CLASSIC4, 1, deck("JS JH JK")).points == 70
    # threes left in a hand replace their value: -100 / -500 for a black one, -500 for a red one
    assert hand_points(deck("3S 3H KS"), black_three=-100, red_three=-500) == -610
    assert hand_points(deck("3C"), black_three=-500, red_three=-500) == -500


def test_rule_D1_the_deal_passes_to_the_left() -> None:
    assert next_dealer(CLASSIC4, 0) == 1
    assert next_dealer(CLASSIC4, 3) == 0
    state, _ = start_deal(CLASSIC4, shuffled(CLASSIC4, 2), dealer=2)
    assert state.dealer == 2 and state.turn == 3


def test_rule_D2_partnerships_and_teams() -> None:
    assert seating(CLASSIC4) == (0, 1, 0, 1)
    assert seating(preset("classic3")) == (0, 1, 2)
    ru6 = preset("ru6")
    for teams, sides in ((2, (0, 1, 0, 1, 0, 1)), (3, (0, 1, 2, 0, 1, 2))):
        assert seating(ru6, teams) == sides
        # both neighbours of every player are opponents
        assert all(sides[seat] != sides[(seat + 1) % 6] for seat in range(6))


def test_rule_D3_one_card_at_a_time_from_the_dealers_left() -> None:
    cards = shuffled(CLASSIC4, 3)
    _state, events = start_deal(CLASSIC4, cards, dealer=1)
    dealt = {event.seat: event.cards for event in events if isinstance(event, CardsDealt)}
    assert dealt[2][:2] == (cards[0], cards[4]) and dealt[3][0] == cards[1] and dealt[1][0] == cards[3]


def test_rule_D3_hand_sizes_of_every_variant() -> None:
    sizes = {
        "classic4": 11,
        "classic3": 13,
        "classic2": 15,
        "kurnik2": 13,
        "ru6": 15,
        "pl3deck": 15,
        "samba": 15,
    }
    for name, size in sizes.items():
        rules = preset(name)
        state, events = start_deal(rules, stacked(rules))
        assert all(len(event.cards) == size for event in events if isinstance(event, CardsDealt)), name
    house = preset("pl4", {"houseDeal": True})
    state, events = start_deal(house, stacked(house), dealer=0)
    assert [len(event.cards) for event in events if isinstance(event, CardsDealt)] == [13, 13, 13, 14]
    # no upcard: the dealer starts by discarding, and that discard starts the pile
    assert state.pile == () and state.turn == 0 and state.stage is Stage.MELD
    after, _ = apply(state, Discard(0, state.hands[0][0]))
    assert after.pile == (state.hands[0][0],)


def test_rule_D4_the_upcard_starts_the_pile() -> None:
    cards = stacked(CLASSIC4, then="KS 9H")
    state, _ = start_deal(CLASSIC4, cards)
    assert [card.code for card in state.pile] == ["KS"] and state.stock[0].code == "9H"


def test_rule_D5_upcard_return_per_option() -> None:
    for name, expected in (
        ("classic4", ["JK", "3H", "3S"]),  # a black three stays (WILD_RED3)
        ("pl4", ["JK", "3H", "3S", "KS"]),  # 000 L101: a black three is covered too
        ("kurnik2", ["JK"]),  # 001: never re-turned
    ):
        rules = preset(name)
        state, _ = start_deal(rules, stacked(rules, then="JK 3H 3S KS"))
        assert [card.code for card in state.pile] == expected, name


def test_rule_D6_turned_up_wild_card_freezes_the_pile() -> None:
    state, _ = start_deal(CLASSIC4, stacked(CLASSIC4, then="2S KS"))
    assert [card.code for card in state.pile] == ["2S", "KS"]
    assert state.is_pile_frozen
    # without upcardFreezes the turned-up cards leave the pile open
    rules = preset("classic4", {"upcardFreezes": False})
    state, _ = start_deal(rules, stacked(rules, then="2S KS"))
    assert not state.is_pile_frozen


def test_rule_D7_the_first_player_may_draw_or_take_the_pile() -> None:
    state, _ = start_deal(CLASSIC4, stacked(CLASSIC4, hands={1: "KH KD AS AH AD"}, then="KS"))
    legal = legal_actions(state)
    assert state.turn == 1 and Draw(1) in legal
    assert any(isinstance(action, TakePile) for action in legal)


def test_rule_D8_red_threes_dealt_are_laid_out_and_replaced_in_turn_order() -> None:
    # seat 1 holds two red threes, seat 2 one; the stock after the upcard replaces them in order
    cards = stacked(CLASSIC4, hands={1: "3H 3D", 2: "3H"}, then="KS 3D QS JS")
    state, events = start_deal(CLASSIC4, cards)
    laid = [event for event in events if isinstance(event, RedThreeLaidOut)]
    assert [(event.seat, event.card.code) for event in laid] == [(1, "3H"), (1, "3D"), (1, "3D"), (2, "3H")]
    # the replacement red three (3D from the stock) was laid out and replaced again
    assert [event.replacement.code if event.replacement else None for event in laid][:3] == ["3D", "QS", "JS"]
    assert laid[3].replacement == state.hands[2][-1]
    assert len(state.red_threes[1]) == 3 and len(state.red_threes[0]) == 1
    assert all(len(hand) == 11 for hand in state.hands)


def test_rule_D9_red_three_drawn_in_play_is_replaced_per_option() -> None:
    state = position("classic4", hands={0: "KS QS"}, stock="3H 9S 8S")
    after, _ = apply(state, Draw(0))
    assert [card.code for card in after.red_threes[0]] == ["3H"]
    assert sorted(card.code for card in after.hands[0]) == ["9S", "KS", "QS"]
    state = position("pl4", hands={0: "KS QS"}, stock="3H 9S 8S")  # 000 L102: not replaced
    after, _ = apply(state, Draw(0))
    assert sorted(card.code for card in after.hands[0]) == ["KS", "QS"] and after.stock[0].code == "9S"


def test_rule_D10_red_three_taken_with_the_pile_is_not_replaced() -> None:
    state = position("kurnik2", hands={0: "KS KH QS"}, pile="3D 9C KD", melds={0: ["AS AH AD"]})
    after, events = apply(state, TakePile(0, melds=((state.pile[-1], state.hands[0][0], state.hands[0][1]),)))
    assert [card.code for card in after.red_threes[0]] == ["3D"]
    assert sorted(card.code for card in after.hands[0]) == ["9C", "QS"]
    assert any(isinstance(event, RedThreeLaidOut) and event.source == "pile" for event in events)


def test_rule_D11_red_threes_are_laid_out_automatically() -> None:
    # no action ever melds or keeps a red three: a drawn one never stays in the hand
    state = position("classic4", hands={0: "KS"}, stock="3D 3H 5S")
    after, _ = apply(state, Draw(0))
    assert not any(card.is_red_three for card in after.hands[0])
    # the held-red-three penalty is reached only through manual score entry (E23)


def test_rule_T1_draw_one_or_two() -> None:
    one, _ = apply(position("classic4", hands={0: "KS"}), Draw(0))
    two, _ = apply(position("classic2", hands={0: "KS"}), Draw(0))
    assert len(one.hands[0]) == 2 and len(two.hands[0]) == 3
    assert one.stage is Stage.MELD and refused(one, Draw(0)) == "already_drawn"


def test_rule_T2_melding_is_optional() -> None:
    state, _ = apply(position("classic4", hands={0: "KS KH KD 9S"}, opened={0: True}), Draw(0))
    legal = legal_actions(state)
    assert any(isinstance(action, Meld) for action in legal)
    assert any(isinstance(action, Discard) for action in legal)


def test_rule_T3_discard_one_card_even_the_one_drawn_and_wild_discards_freeze() -> None:
    state = position("classic4", hands={0: "KS QS"}, stock="2H 9S")
    drawn, _ = apply(state, Draw(0))
    card = next(card for card in drawn.hands[0] if card.code == "2H")
    after, events = apply(drawn, Discard(0, card))
    assert after.pile[-1] == card and after.is_pile_frozen
    assert any(isinstance(event, CardDiscarded) and event.freezes for event in events)
    # a card from the taken pile may be the discard (002 §9.1)
    state = position("classic4", hands={0: "KS KH QS"}, pile="8C KD", opened={0: True})
    taken, _ = apply(state, TakePile(0, melds=((state.pile[-1], state.hands[0][0], state.hands[0][1]),)))
    eight = next(card for card in taken.hands[0] if card.code == "8C")
    assert apply(taken, Discard(0, eight))[0].pile == (eight,)


def test_rule_T4_the_turn_passes_clockwise() -> None:
    state, _ = apply(position("classic4", hands={0: "KS QS", 1: "4D"}), Draw(0))
    after, events = apply(state, Discard(0, state.hands[0][0]))
    assert after.turn == 1 and after.stage is Stage.DRAW
    assert any(isinstance(event, TurnStarted) and event.seat == 1 for event in events)


def test_rule_T5_only_the_top_of_the_pile_and_its_state_are_public() -> None:
    state = position("classic4", hands={0: "KS"}, pile="9S 2C 8D")
    assert pile_view(state) == {"top": "8D:0", "size": 3, "is_frozen": True}
    assert pile_view(position("classic4", hands={0: "KS"})) == {"top": None, "size": 0, "is_frozen": False}


def test_rule_T6_a_player_keeps_a_card_unless_he_goes_out() -> None:
    # given one card left and no canasta: the side cannot go out
    state = position("classic4", hands={0: "QS"}, melds={0: ["9S 9H 9D"]}, stage=Stage.MELD)
    # then the last card is not discarded, and the engine does not offer it
    assert refused(state, Discard(0, state.hands[0][0])) == "not_enough_canastas"
    assert Discard(0, state.hands[0][0]) not in legal_actions(state)
