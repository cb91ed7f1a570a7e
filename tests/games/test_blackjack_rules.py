"""One test per clause of rules/blackjack.md (the clause number is in each test's name).

Shoe orders for one box read: box card, dealer upcard, box card, dealer hole card, then the
cards of the decisions, then the dealer's cards. Stakes are in cents.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from games.blackjack import (
    HOME_POLISH,
    LIVE_AMERICAN,
    BetKind,
    CardTarget,
    CloseBetting,
    CloseInsurance,
    DealCard,
    Double,
    Hit,
    Phase,
    PlaceBet,
    Seat,
    Split,
    Stand,
    Surrender,
    TakeInsurance,
    apply,
    legal_actions,
    new_round,
    next_card_target,
    validate_bet,
)
from games.blackjack.events import (
    BetRefunded,
    DealerDrawSkipped,
    DealerPeeked,
    HandFinished,
    InsuranceDeclined,
    PlayerToAct,
    StakeAdded,
)
from games.blackjack.rules import DoubleOn, HoleCard, NoPeekLoss, TwentyOnePlusThreePaytable
from games.blackjack.sidebets import is_straight, twenty_one_plus_three_outcome
from games.cards import Card, hand_value
from games.errors import GameError
from tests.games.blackjack_helpers import (
    behind,
    cards,
    deal,
    dealt_round,
    main,
    nets,
    play,
    refused,
    side,
)

LIVE = LIVE_AMERICAN
HOME = HOME_POLISH


# 1. Cards, shoe, shuffling ---------------------------------------------------------------


def test_clause_1_1_a_card_the_shoe_cannot_hold_is_refused() -> None:
    # given a one-deck shoe where the ace of spades is already on the table
    state = dealt_round(LIVE.with_overrides({"decks": 1}), [main(1)], "AS", "9D")
    # when a second ace of spades is scanned, then it is a misscan
    assert refused(state, DealCard(Card.parse("AS"))) == "card_not_in_shoe"


def test_clause_1_1_remaining_shoe_given_by_the_table_is_respected() -> None:
    # given the live table says no king of hearts is left in the shoe
    remaining = {card.code: 6 for card in cards("AS", "9D", "7C")}
    state, _ = apply(new_round(LIVE, [main(1)], shoe_remaining=remaining), CloseBetting())
    assert refused(state, DealCard(Card.parse("KH"))) == "card_not_in_shoe"


def test_clause_1_2_a_card_when_none_is_expected_is_a_misscan() -> None:
    # the shoe and its shuffles are the live table's; the engine refuses cards out of turn
    state = new_round(LIVE, [main(1)])
    assert refused(state, DealCard(Card.parse("AS"))) == "card_not_expected"


def test_clause_1_3_card_values_and_soft_hands() -> None:
    assert hand_value(cards("AS", "7H")) == hand_value(cards("7H", "AS"))
    assert (hand_value(cards("AS", "7H")).total, hand_value(cards("AS", "7H")).is_soft) == (18, True)
    assert (hand_value(cards("AS", "7H", "TD")).total, hand_value(cards("AS", "7H", "TD")).is_soft) == (
        18,
        False,
    )
    assert (hand_value(cards("AS", "AH", "9D")).total, hand_value(cards("AS", "AH", "9D")).is_soft) == (
        21,
        True,
    )
    assert hand_value(cards("KS", "QH", "JD")).total == 30


# 2. Table and seats ----------------------------------------------------------------------


def test_clause_2_1_seven_boxes() -> None:
    state = new_round(LIVE)
    validate_bet(state, main(7))
    with pytest.raises(GameError) as info:
        validate_bet(state, main(8))
    assert info.value.code == "no_such_box"


def test_clause_2_2_at_most_two_boxes_per_player() -> None:
    state = new_round(LIVE, [main(1, player="ann"), main(2, player="ann")])
    assert refused(state, PlaceBet(main(3, player="ann"))) == "box_limit_reached"


def test_clause_2_3_only_the_box_owner_decides() -> None:
    # given box 1 owned by ann (seated) with a bet behind by bob
    state = dealt_round(LIVE, [main(1, player="ann"), behind(1, "bob")], "9S", "6D", "5H", "TC")
    # then bob cannot decide for it and nobody decides for another box out of turn
    assert refused(state, Hit("bob", 1)) == "not_box_owner"
    assert (
        refused(new_round(LIVE, seats=[Seat(1, "ann")]), PlaceBet(main(1, player="bob"))) == "not_box_owner"
    )
    two = dealt_round(LIVE, [main(1), main(2)], "9S", "9H", "6D", "5H", "5C", "TC")
    assert refused(two, Hit("p2", 2)) == "not_your_turn"


def test_clause_2_4_no_bet_behind_own_box() -> None:
    state = new_round(LIVE, [main(1, player="ann")])
    assert refused(state, PlaceBet(behind(1, "ann"))) == "bet_behind_own_box"


def test_clause_2_4_owner_may_forbid_bets_behind() -> None:
    state = new_round(LIVE, seats=[Seat(1, "ann", accepts_bets_behind=False)])
    assert refused(state, PlaceBet(behind(1, "bob"))) == "bets_behind_forbidden"
    assert refused(new_round(HOME), PlaceBet(behind(1, "bob"))) == "bet_behind_not_offered"


def test_clause_2_4_bet_behind_a_box_not_played_is_returned() -> None:
    # given a bet behind box 2 whose owner places no main bet
    state = new_round(LIVE, [main(1), behind(2, "bob", 700)], seats=[Seat(2, "dan")])
    # when betting closes, then the bet comes back at once
    _, events = apply(state, CloseBetting())
    assert BetRefunded("b2-bob", "bob", 2, 700, "owner_not_playing") in events
    _, _, lines = play(LIVE, [main(1), behind(2, "bob", 700)], ["TS", "9D", "9H", "8C"], {1: ["stand"]})
    assert (lines["b2-bob"][0].outcome, lines["b2-bob"][0].paid_minor) == ("refund", 700)


def test_clause_2_4_bet_behind_is_paid_like_the_box_and_follows_its_presets() -> None:
    # given bob follows doubles and cy does not; the owner doubles 11 and wins
    bets = [main(1, 1000), behind(1, "bob", 400, follow_double=True), behind(1, "cy", 300)]
    _state, events, lines = play(LIVE, bets, ["6S", "9D", "5H", "8C", "9S"], {1: ["double"]})
    # then bob's added stake is reported for the table to hold, and each bet wins 1:1 on its stake
    added = [event for event in events if isinstance(event, StakeAdded)]
    assert added == [
        StakeAdded("m1", "p1", 1, 0, 1000, "double"),
        StakeAdded("b1-bob", "bob", 1, 0, 400, "double"),
    ]
    assert nets(lines) == {"m1": [2000], "b1-bob": [800], "b1-cy": [300]}


def test_clause_2_4_bet_behind_not_following_split_stays_on_first_hand() -> None:
    bets = [main(1, 1000), behind(1, "bob", 400, follow_split=True), behind(1, "cy", 300)]
    _, _, lines = play(LIVE, bets, ["8S", "9D", "8H", "8C", "TS", "2D"], {1: ["split", "stand", "stand"]})
    # hand 0: 8,10 = 18 beats 17; hand 1: 8,2 = 10 stands and loses
    assert nets(lines) == {"m1": [1000, -1000], "b1-bob": [400, -400], "b1-cy": [300]}


def test_clause_2_4_insurance_is_offered_to_bettors_behind() -> None:
    state = dealt_round(LIVE, [main(1, 1000), behind(1, "bob", 400)], "9S", "AD", "7H", "6C")
    assert TakeInsurance("bob", "b1-bob") in legal_actions(state)


def test_clause_2_6_undecided_insurance_is_declined_by_default() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "9S", "AD", "7H", "6C")
    state, events = apply(state, CloseInsurance())
    assert InsuranceDeclined("m1", "p1", 1, True) in events
    assert state.phase is Phase.PLAYERS


# 3. Betting ------------------------------------------------------------------------------


def test_clause_3_1_no_bets_after_no_more_bets() -> None:
    state, _ = apply(new_round(LIVE, [main(1)]), CloseBetting())
    assert refused(state, PlaceBet(main(2))) == "betting_closed"


def test_clause_3_2_side_bets_need_own_main_bet_on_the_same_box() -> None:
    state = new_round(LIVE, [main(1, player="ann")])
    assert (
        refused(state, PlaceBet(side(2, BetKind.PERFECT_PAIRS, player="ann"))) == "side_bet_without_main_bet"
    )
    assert (
        refused(state, PlaceBet(side(1, BetKind.PERFECT_PAIRS, player="bob"))) == "side_bet_without_main_bet"
    )
    assert (
        refused(new_round(HOME, [main(1)]), PlaceBet(side(1, BetKind.PERFECT_PAIRS)))
        == "side_bet_not_offered"
    )


def test_clause_3_2_side_bet_wins_whatever_the_main_game_does() -> None:
    # given a pair of 8s (mixed colours) that busts
    bets = [main(1, 1000), side(1, BetKind.PERFECT_PAIRS, 100)]
    _, _, lines = play(LIVE, bets, ["8S", "9D", "8H", "TC", "KD"], {1: ["hit"]})
    assert nets(lines) == {"m1": [-1000], "perfect_pairs1": [600]}


def test_clause_3_3_insurance_is_half_the_stake_and_pays_2_to_1() -> None:
    bets = [main(1, 1000)]
    _, _, lines = play(LIVE, bets, ["9S", "AD", "7H", "KC"], insurance={"m1": "take"})
    assert (lines["m1/insurance"][0].stake_minor, lines["m1/insurance"][0].net_minor) == (500, 1000)
    assert lines["m1"][0].net_minor == -1000


def test_clause_3_3_insurance_only_against_an_ace() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "9S", "KD", "7H", "6C")
    assert refused(state, TakeInsurance("p1", "m1")) == "insurance_not_offered"


def test_clause_3_3_odd_stake_has_no_exact_half_so_no_insurance() -> None:
    # Decision: insurance is exactly half the stake; 1001 cents has no exact half in cents,
    # so the engine refuses insurance on it instead of rounding (docs/round-script.md).
    state = dealt_round(LIVE, [main(1, 1001), main(2, 1000)], "9S", "9H", "AD", "7H", "7C", "6C")
    assert refused(state, TakeInsurance("p1", "m1")) == "insurance_stake_not_exact"
    assert TakeInsurance("p2", "m2") in legal_actions(state)


# 4. The deal -----------------------------------------------------------------------------


def test_clause_4_1_deal_order_boxes_from_the_left_then_dealer_hole_card_face_down() -> None:
    state, _ = apply(new_round(LIVE, [main(5), main(2)]), CloseBetting())
    targets = []
    for code in ("2S", "3S", "4S", "5S", "6S", "7S"):
        targets.append(next_card_target(state))
        state = deal(state, code)
    assert targets == [
        CardTarget("box", 2, 0),
        CardTarget("box", 5, 0),
        CardTarget("dealer"),
        CardTarget("box", 2, 0),
        CardTarget("box", 5, 0),
        CardTarget("dealer", is_face_up=False),
    ]


def test_clause_4_2_side_bets_use_the_first_cards_even_after_a_split() -> None:
    bets = [main(1, 1000), side(1, BetKind.PERFECT_PAIRS), side(1, BetKind.TWENTY_ONE_PLUS_THREE)]
    # 7S 7S + dealer 7S: perfect pair and suited trips, whatever the split brings
    _, _, lines = play(LIVE, bets, ["7S", "7S", "7S", "TD", "AH", "KH"], {1: ["split", "stand", "stand"]})
    assert nets(lines)["perfect_pairs1"] == [2500]
    assert nets(lines)["twenty_one_plus_three1"] == [10000]


def test_clause_4_3_peek_ace_insurance_then_dealer_blackjack_ends_the_round() -> None:
    bets = [main(1, 1000), main(2, 1000)]
    _state, events, lines = play(LIVE, bets, ["AS", "9H", "AD", "KH", "8C", "KC"], insurance={"m2": "take"})
    # no decision was asked; the blackjack pushes, the other main loses, insurance pays 2:1
    assert not [event for event in events if isinstance(event, PlayerToAct)]
    assert DealerPeeked(True) in events
    assert nets(lines) == {"m1": [0], "m2": [-1000], "m2/insurance": [1000]}


def test_clause_4_3_peek_ten_upcard_checks_for_an_ace_without_insurance() -> None:
    _state, events, lines = play(LIVE, [main(1, 1000)], ["9S", "KD", "9H", "AC"])
    assert DealerPeeked(True) in events
    assert nets(lines) == {"m1": [-1000]}


def test_clause_4_3_peek_without_blackjack_takes_insurance_and_play_goes_on() -> None:
    _, events, lines = play(
        LIVE, [main(1, 1000)], ["TS", "AD", "9H", "6C", "TD"], {1: ["stand"]}, insurance={"m1": "take"}
    )
    # dealer A,6 = soft 17 stands; 19 wins
    assert DealerPeeked(False) in events
    assert nets(lines) == {"m1": [1000], "m1/insurance": [-500]}


@pytest.mark.parametrize(
    ("loss", "expected"),
    [(NoPeekLoss.ALL_STAKES, [-2000]), (NoPeekLoss.ORIGINAL_STAKE, [-1000])],
)
def test_clause_4_3_no_peek_dealer_blackjack_after_a_double(loss: NoPeekLoss, expected: list[int]) -> None:
    rules = HOME.with_overrides({"no_peek_loss": loss.value})
    assert rules.hole_card is HoleCard.NO_PEEK
    # 6,4 = 10 doubled to 20; the dealer's hole card is a king under the ace
    _, _, lines = play(rules, [main(1, 1000)], ["6S", "AD", "4H", "KC", "TD"], {1: ["double"]})
    assert nets(lines)["m1"] == expected


def test_clause_4_3_no_peek_original_stake_only_after_a_split() -> None:
    rules = HOME.with_overrides({"no_peek_loss": "original_stake"})
    _, _, lines = play(
        rules, [main(1, 1000)], ["8S", "TD", "8H", "AC", "TS", "9H"], {1: ["split", "stand", "stand"]}
    )
    assert [(line.outcome, line.net_minor) for line in lines["m1"]] == [("lose", -1000), ("returned", 0)]


# The box's cards, the dealer's ten upcard and ace hole card (a no-peek blackjack), then the
# cards of the decisions: 8,8 split; hand 0 and hand 1 as named.
NO_PEEK_SPLITS = {
    "first_busts_second_18": (["8S", "TD", "8H", "AC", "5D", "KC", "TH"], ["split", "hit", "stand"]),
    "both_bust": (["8S", "TD", "8H", "AC", "5D", "KC", "6H", "9S"], ["split", "hit", "hit"]),
    "first_18_second_busts": (["8S", "TD", "8H", "AC", "TH", "5D", "KC"], ["split", "stand", "hit"]),
    "first_busts_second_doubled_20": (
        ["8S", "TD", "8H", "AC", "5D", "KC", "3H", "9S"],
        ["split", "hit", "double"],
    ),
}
ANY_DOUBLE = {"double_on": "any_two", "bet_behind": True}


@pytest.mark.parametrize(
    ("name", "loss", "expected"),
    [
        ("first_busts_second_18", NoPeekLoss.ORIGINAL_STAKE, [("bust", 1000, -1000), ("returned", 1000, 0)]),
        ("first_busts_second_18", NoPeekLoss.ALL_STAKES, [("bust", 1000, -1000), ("lose", 1000, -1000)]),
        ("both_bust", NoPeekLoss.ORIGINAL_STAKE, [("bust", 1000, -1000), ("returned", 1000, 0)]),
        ("both_bust", NoPeekLoss.ALL_STAKES, [("bust", 1000, -1000), ("bust", 1000, -1000)]),
        ("first_18_second_busts", NoPeekLoss.ORIGINAL_STAKE, [("lose", 1000, -1000), ("returned", 1000, 0)]),
        ("first_18_second_busts", NoPeekLoss.ALL_STAKES, [("lose", 1000, -1000), ("bust", 1000, -1000)]),
        (
            "first_busts_second_doubled_20",
            NoPeekLoss.ORIGINAL_STAKE,
            [("bust", 1000, -1000), ("returned", 2000, 0)],
        ),
        (
            "first_busts_second_doubled_20",
            NoPeekLoss.ALL_STAKES,
            [("bust", 1000, -1000), ("lose", 2000, -2000)],
        ),
    ],
)
def test_clause_4_3_no_peek_original_stake_is_all_a_split_box_loses_busted_hands_included(
    name: str, loss: NoPeekLoss, expected: list[tuple[str, int, int]]
) -> None:
    # given a stake of 1000 on 8,8 split against a ten upcard with an ace in the hole (no peek)
    shoe, decisions = NO_PEEK_SPLITS[name]
    rules = HOME.with_overrides({**ANY_DOUBLE, "no_peek_loss": loss.value})
    # when the hands are played and the dealer's blackjack shows
    _, _, lines = play(rules, [main(1, 1000)], shoe, {1: decisions})
    # then "original stake only" takes 1000 in all and returns every other stake;
    # "all stakes" takes every stake
    assert [(line.outcome, line.stake_minor, line.net_minor) for line in lines["m1"]] == expected
    staked = sum(line.stake_minor for line in lines["m1"])
    paid = sum(line.paid_minor for line in lines["m1"])
    if loss is NoPeekLoss.ORIGINAL_STAKE:
        assert (staked - paid, paid) == (1000, staked - 1000)
    else:
        assert paid == 0


def test_clause_4_3_no_peek_original_stake_doubled_hand_that_busts_gets_the_added_stake_back() -> None:
    # given 7,6 doubled for 1000 more against a ten with an ace in the hole; the king busts it
    shoe, decisions = ["7S", "TD", "6H", "AC", "KC"], {1: ["double"]}
    original = HOME.with_overrides({**ANY_DOUBLE, "no_peek_loss": "original_stake"})
    _, _, lines = play(original, [main(1, 1000)], shoe, decisions)
    # then the box loses its original 1000 and gets the doubled 1000 back
    line = lines["m1"][0]
    assert (line.outcome, line.stake_minor, line.net_minor, line.paid_minor) == ("bust", 2000, -1000, 1000)
    assert (line.multiplier, line.rounding_remainder_minor) == (Fraction(-1, 2), Fraction(0))
    assert line.rule == "4.3 no-peek dealer blackjack: original stake only"
    # and with "all stakes" it loses 2000
    _, _, lines = play(
        original.with_overrides({"no_peek_loss": "all_stakes"}), [main(1, 1000)], shoe, decisions
    )
    assert (lines["m1"][0].net_minor, lines["m1"][0].paid_minor) == (-2000, 0)


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (NoPeekLoss.ORIGINAL_STAKE, {"m1": [-1000, 0], "b1-bob": [-400, 0], "b1-cy": [-300]}),
        (NoPeekLoss.ALL_STAKES, {"m1": [-1000, -2000], "b1-bob": [-400, -800], "b1-cy": [-300]}),
    ],
)
def test_clause_4_3_no_peek_original_stake_bets_behind_lose_at_most_their_own_stake(
    loss: NoPeekLoss, expected: dict[str, list[int]]
) -> None:
    # given bob follows splits and doubles with 400, cy follows neither with 300; the owner splits
    # 8,8 for 1000, busts hand 0 and doubles hand 1 (8,3) to 20; the dealer shows blackjack
    shoe, decisions = NO_PEEK_SPLITS["first_busts_second_doubled_20"]
    bets = [main(1, 1000), behind(1, "bob", 400, follow_double=True, follow_split=True), behind(1, "cy", 300)]
    rules = HOME.with_overrides({**ANY_DOUBLE, "no_peek_loss": loss.value})
    _, _, lines = play(rules, bets, shoe, {1: decisions})
    # then each bet loses at most its own original stake (bob: 400 of his 1200), or every stake
    assert nets(lines) == expected
    assert [line.stake_minor for line in lines["b1-bob"]] == [400, 800]


# 5. Player decisions ---------------------------------------------------------------------


def test_clause_5_1_hit_to_21_stops_the_hand() -> None:
    _, events, lines = play(LIVE, [main(1, 1000)], ["5S", "TD", "6H", "7C", "TS"], {1: ["hit"]})
    assert HandFinished(1, 0, 21, "twenty_one") in events
    assert nets(lines) == {"m1": [1000]}


def test_clause_5_1_bust_loses_at_once_even_if_the_dealer_busts() -> None:
    _, events, lines = play(
        LIVE,
        [main(1, 1000), main(2, 1000)],
        ["TS", "9S", "6D", "6H", "7C", "TC", "KS", "TH"],
        {1: ["hit"], 2: ["stand"]},
    )
    # box 1 busts (26); dealer 6,10 draws T: 26 busts too; box 1 still lost, box 2 wins
    assert HandFinished(1, 0, 26, "bust") in events
    assert nets(lines) == {"m1": [-1000], "m2": [1000]}


def test_clause_5_2_stand() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "TS", "9D", "8H", "8C")
    state, events = apply(state, Stand("p1", 1))
    assert HandFinished(1, 0, 18, "stand") in events
    assert state.phase is Phase.SETTLED


def test_clause_5_3_double_any_two_takes_exactly_one_card() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "5S", "9D", "7H", "7C")
    state, _ = apply(state, Double("p1", 1))
    assert next_card_target(state) == CardTarget("box", 1, 0)
    state = deal(state, "2D")
    # 14 after the double: no more decisions, the dealer plays
    assert state.boxes[0].hands[0].is_finished


def test_clause_5_3_double_only_on_9_10_11_in_home_polish() -> None:
    state = dealt_round(HOME, [main(1, 1000)], "5S", "9D", "7H", "7C")
    assert refused(state, Double("p1", 1)) == "double_not_allowed"
    ok = dealt_round(HOME, [main(1, 1000)], "5S", "9D", "4H", "7C")
    assert Double("p1", 1) in legal_actions(ok)
    ten_eleven = dealt_round(
        LIVE.with_overrides({"double_on": DoubleOn.TEN_OR_ELEVEN.value}), [main(1)], "5S", "9D", "4H", "7C"
    )
    assert refused(ten_eleven, Double("p1", 1)) == "double_not_allowed"


def test_clause_5_4_split_equal_values_into_two_hands() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "JS", "9D", "KH", "7C")
    state, events = apply(state, Split("p1", 1))
    assert [hand.cards for hand in state.boxes[0].hands] == [cards("JS"), cards("KH")]
    assert StakeAdded("m1", "p1", 1, 1, 1000, "split") in events
    by_rank = dealt_round(LIVE.with_overrides({"split_by": "rank"}), [main(1)], "JS", "9D", "KH", "7C")
    assert refused(by_rank, Split("p1", 1)) == "split_not_allowed"


def test_clause_5_4_live_splits_once_home_resplits_to_four_hands() -> None:
    live = deal(apply(dealt_round(LIVE, [main(1)], "8S", "9D", "8H", "7C"), Split("p1", 1))[0], "8D")
    assert refused(live, Split("p1", 1)) == "split_not_allowed"
    home = dealt_round(HOME, [main(1)], "8S", "9D", "8H", "7C")
    for card in ("8D", "8C", "8S"):
        home = deal(apply(home, Split("p1", 1))[0], card)
    assert len(home.boxes[0].hands) == 4
    assert refused(home, Split("p1", 1)) == "split_not_allowed"


def test_clause_5_5_split_aces_one_card_each_and_ace_ten_is_21_not_blackjack() -> None:
    _, events, lines = play(LIVE, [main(1, 1000)], ["AS", "9D", "AH", "8C", "KD", "5C"], {1: ["split"]})
    assert HandFinished(1, 0, 21, "twenty_one") in events
    assert HandFinished(1, 1, 16, "split_aces") in events
    assert [(line.outcome, line.multiplier) for line in lines["m1"]] == [
        ("win", Fraction(1)),
        ("lose", Fraction(-1)),
    ]


def test_clause_5_6_double_after_split() -> None:
    state = deal(apply(dealt_round(LIVE, [main(1)], "5S", "9D", "5H", "7C"), Split("p1", 1))[0], "6D")
    assert Double("p1", 1) in legal_actions(state)
    no_das = LIVE.with_overrides({"double_after_split": False})
    state = deal(apply(dealt_round(no_das, [main(1)], "5S", "9D", "5H", "7C"), Split("p1", 1))[0], "6D")
    assert refused(state, Double("p1", 1)) == "double_not_allowed"


def test_clause_5_7_surrender_is_off_unless_the_rule_set_allows_it() -> None:
    state = dealt_round(LIVE, [main(1, 1000)], "TS", "9D", "6H", "TC")
    assert refused(state, Surrender("p1", 1)) == "surrender_not_allowed"
    _, _, lines = play(
        LIVE.with_overrides({"surrender": "late"}),
        [main(1, 1001)],
        ["TS", "9D", "6H", "TC"],
        {1: ["surrender"]},
    )
    line = lines["m1"][0]
    assert (line.outcome, line.net_minor, line.rounding_remainder_minor) == (
        "surrender",
        -501,
        Fraction(1, 2),
    )


@pytest.mark.parametrize("loss", [NoPeekLoss.ALL_STAKES, NoPeekLoss.ORIGINAL_STAKE])
def test_clause_5_7_late_surrender_without_peek_loses_the_stake_to_a_dealer_blackjack(
    loss: NoPeekLoss,
) -> None:
    # given no peek, late surrender allowed, 16 against a ten; the hole card is an ace
    rules = HOME.with_overrides({"surrender": "late", "no_peek_loss": loss.value})
    # when the box surrenders and the dealer then shows blackjack
    _, _, lines = play(rules, [main(1, 1000)], ["TS", "KD", "6H", "AC"], {1: ["surrender"]})
    # then late surrender is no early surrender: the whole (original) stake is lost (4.3)
    line = lines["m1"][0]
    assert (line.outcome, line.net_minor, line.paid_minor) == ("lose", -1000, 0)
    assert line.rule.startswith("4.3 no-peek dealer blackjack")


def test_clause_5_7_late_surrender_without_peek_keeps_half_when_the_dealer_has_no_blackjack() -> None:
    rules = HOME.with_overrides({"surrender": "late"})
    _, _, lines = play(rules, [main(1, 1000)], ["TS", "KD", "6H", "7C"], {1: ["surrender"]})
    assert (lines["m1"][0].outcome, lines["m1"][0].net_minor) == ("surrender", -500)


# 6. The dealer ---------------------------------------------------------------------------


def test_clause_6_1_dealer_stands_on_soft_17_unless_the_rule_set_hits_it() -> None:
    stands, _, _ = play(LIVE, [main(1)], ["TS", "AD", "8H", "6C"], {1: ["stand"]})
    assert len(stands.dealer_cards) == 2
    hits, _, lines = play(
        LIVE.with_overrides({"dealer_hits_soft_17": True}),
        [main(1)],
        ["TS", "AD", "8H", "6C", "3D"],
        {1: ["stand"]},
    )
    assert (len(hits.dealer_cards), nets(lines)["m1"]) == (3, [-1000])


def test_clause_6_1_dealer_draws_to_16() -> None:
    state, _, lines = play(LIVE, [main(1)], ["TS", "9D", "8H", "5C", "2D", "4H"], {1: ["stand"]})
    assert [card.code for card in state.dealer_cards] == ["9D", "5C", "2D", "4H"]
    assert nets(lines) == {"m1": [-1000]}


def test_clause_6_2_no_dealer_card_when_every_box_lost() -> None:
    state, events, _ = play(LIVE, [main(1)], ["TS", "6D", "6H", "5C", "KD"], {1: ["hit"]})
    assert DealerDrawSkipped("all_boxes_lost") in events
    assert len(state.dealer_cards) == 2


def test_clause_6_2_no_dealer_card_when_every_box_has_blackjack() -> None:
    _state, events, lines = play(LIVE, [main(1), main(2)], ["AS", "KD", "6D", "TH", "AC", "5C"])
    assert DealerDrawSkipped("all_blackjack") in events
    assert nets(lines) == {"m1": [1500], "m2": [1500]}


# 7. Settlement ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shoe", "outcome", "net", "rule"),
    [
        (["TS", "9D", "9H", "8C"], "win", 1000, "7 higher total 1:1"),
        (["TS", "9D", "7H", "8C"], "push", 0, "7 equal totals: push"),
        (["TS", "9D", "6H", "TC"], "lose", -1000, "7 lower total"),
        (["TS", "6D", "6H", "TC", "8D"], "win", 1000, "7 dealer bust 1:1"),
    ],
)
def test_clause_7_settlement_table(shoe: list[str], outcome: str, net: int, rule: str) -> None:
    _, _, lines = play(LIVE, [main(1, 1000)], shoe, {1: ["stand"]})
    line = lines["m1"][0]
    assert (line.outcome, line.net_minor, line.rule, line.paid_minor) == (outcome, net, rule, 1000 + net)


def test_clause_7_blackjack_against_dealer_blackjack_pushes() -> None:
    _, _, lines = play(HOME, [main(1, 1000)], ["AS", "AD", "KH", "QC"])
    assert (lines["m1"][0].outcome, lines["m1"][0].net_minor) == ("push", 0)


def test_clause_7_rounding_down_to_a_chip_never_takes_more_than_the_stake() -> None:
    # given a 50-cent smallest chip and a 30-cent stake surrendered (half is 15 cents)
    rules = LIVE.with_overrides({"surrender": "late", "payout_rounding_unit_minor": 50})
    _, _, lines = play(rules, [main(1, 30)], ["TS", "9D", "6H", "TC"], {1: ["surrender"]})
    # then the loss is rounded down to the chip but capped at the stake; the house keeps 15 more
    line = lines["m1"][0]
    assert (line.net_minor, line.paid_minor, line.rounding_remainder_minor) == (-30, 0, Fraction(15))


# 8. Side bets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "net"),
    [("AS", "AS", 2500), ("2D", "2H", 1200), ("6D", "6C", 600), ("6D", "7D", -100)],
)
def test_clause_8_perfect_pairs_pays_25_12_6(first: str, second: str, net: int) -> None:
    bets = [main(1, 1000), side(1, BetKind.PERFECT_PAIRS, 100)]
    state = dealt_round(LIVE, bets, first, "9C", second, "8C")
    while state.phase is not Phase.SETTLED:
        state, _ = (
            apply(state, Stand("p1", 1)) if next_card_target(state) is None else (deal(state, "TC"), ())
        )
    from games.blackjack import settlement

    assert [line.net_minor for line in settlement(state) if line.kind is BetKind.PERFECT_PAIRS] == [net]


@pytest.mark.parametrize(
    ("codes", "outcome"),
    [
        (("QH", "QH", "QH"), "suited_trips"),
        (("TS", "JS", "QS"), "straight_flush"),
        (("KS", "KD", "KH"), "three_of_a_kind"),
        (("6C", "7S", "8H"), "straight"),
        (("2H", "6H", "8H"), "flush"),
        (("AS", "2D", "3H"), "straight"),
        (("QS", "KD", "AH"), "straight"),
        (("KS", "AD", "2H"), None),
    ],
)
def test_clause_8_twenty_one_plus_three_best_combination_only(
    codes: tuple[str, str, str], outcome: str | None
) -> None:
    three = cards(*codes)
    assert (
        twenty_one_plus_three_outcome((three[0], three[1], three[2]), TwentyOnePlusThreePaytable()) == outcome
    )


def test_clause_8_straight_never_around_the_corner() -> None:
    assert not is_straight((Card.parse("KS"), Card.parse("AD"), Card.parse("2H")))
    assert is_straight((Card.parse("AS"), Card.parse("2D"), Card.parse("3H")))


def test_clause_8_twenty_one_plus_three_pays_100_for_suited_trips_not_the_sum() -> None:
    bets = [main(1, 1000), side(1, BetKind.TWENTY_ONE_PLUS_THREE, 100)]
    _, _, lines = play(LIVE, bets, ["QH", "QH", "QH", "8C"], {1: ["stand"]})
    assert (lines["twenty_one_plus_three1"][0].net_minor, lines["twenty_one_plus_three1"][0].rule) == (
        10000,
        "8 21+3 suited trips 100:1",
    )


# 9. Profiles -----------------------------------------------------------------------------


def test_clause_9_profiles() -> None:
    assert (LIVE.decks, LIVE.boxes, LIVE.boxes_per_player, LIVE.max_hands, LIVE.hole_card) == (
        6,
        7,
        2,
        2,
        HoleCard.PEEK,
    )
    assert (LIVE.double_on, LIVE.perfect_pairs is not None, LIVE.bet_behind) == (DoubleOn.ANY_TWO, True, True)
    assert (HOME.decks, HOME.max_hands, HOME.hole_card, HOME.double_on) == (
        6,
        4,
        HoleCard.NO_PEEK,
        DoubleOn.NINE_TO_ELEVEN,
    )
    assert (HOME.perfect_pairs, HOME.twenty_one_plus_three) == (None, None)
    assert LIVE.blackjack_pays == HOME.blackjack_pays == Fraction(3, 2)
