"""Insurance stakes, rules/blackjack.md 3.3 (and 2.4: bets behind insure too).

A take the table cannot honour is refused with its own code, in the engine, in the scripted
drivers and in round scripts; it is never skipped. Shoe orders for two boxes read: box 1, box 2,
dealer upcard, box 1, box 2, dealer hole card. Stakes are in cents.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.blackjack import (
    HOME_POLISH,
    LIVE_AMERICAN,
    BetKind,
    CloseInsurance,
    DeclineInsurance,
    InsuranceStake,
    Phase,
    RuleSet,
    TakeEvenMoney,
    TakeInsurance,
    action_from_dict,
    apply,
    insurance_stake,
    insurance_stake_limits,
    legal_actions,
    new_round,
    play_round,
    run_round,
    scripted_chooser,
)
from games.blackjack.events import InsuranceTaken
from games.blackjack.rules import ruleset_from_dict
from games.blackjack.script import play_script
from games.cards import parse_cards
from games.errors import GameError, IllegalActionError, InvalidRuleSetError, InvalidSnapshotError
from tests.games.blackjack_helpers import behind, dealt_round, main, nets, play, refused, side

UP_TO_HALF = LIVE_AMERICAN.with_overrides({"insurance_stake": "up_to_half"})
CHIP_50 = LIVE_AMERICAN.with_overrides({"payout_rounding_unit_minor": 50})
UP_TO_HALF_CHIP_50 = LIVE_AMERICAN.with_overrides(
    {"insurance_stake": "up_to_half", "payout_rounding_unit_minor": 50}
)
# two boxes, the dealer shows an ace with a seven under it (no blackjack)
ACE_NO_BLACKJACK = ("9S", "9H", "AD", "7H", "7C", "7D")


def code_of(call: Any) -> str:
    with pytest.raises(GameError) as info:
        call()
    return info.value.code


# The rule option ----------------------------------------------------------------------------


def test_clause_3_3_both_profiles_insure_exactly_half() -> None:
    assert LIVE_AMERICAN.insurance_stake is HOME_POLISH.insurance_stake is InsuranceStake.HALF
    assert RuleSet().insurance_stake is InsuranceStake.HALF


def test_clause_3_3_insurance_stake_option_round_trips_and_defaults_to_half() -> None:
    # given the option in JSON form
    assert UP_TO_HALF.to_dict()["insurance_stake"] == "up_to_half"
    assert ruleset_from_dict(UP_TO_HALF.to_dict()) == UP_TO_HALF
    assert LIVE_AMERICAN.with_overrides({"insurance_stake": "half"}) == LIVE_AMERICAN
    # a rule set stored before the option existed reads as exactly half
    stored = {key: value for key, value in LIVE_AMERICAN.to_dict().items() if key != "insurance_stake"}
    assert ruleset_from_dict(stored).insurance_stake is InsuranceStake.HALF
    # an unknown value is refused
    with pytest.raises(InvalidRuleSetError) as info:
        LIVE_AMERICAN.with_overrides({"insurance_stake": "any"})
    assert info.value.code == "invalid_ruleset"


@pytest.mark.parametrize(
    ("rules", "stake", "limits"),
    [
        (LIVE_AMERICAN, 1000, (500, 500)),
        (LIVE_AMERICAN, 1001, None),
        (CHIP_50, 200, (100, 100)),
        (CHIP_50, 150, None),
        (UP_TO_HALF, 1001, (1, 500)),
        (UP_TO_HALF, 1, None),
        (UP_TO_HALF_CHIP_50, 150, (50, 50)),
        (UP_TO_HALF_CHIP_50, 1000, (50, 500)),
        (UP_TO_HALF_CHIP_50, 90, None),
    ],
)
def test_clause_3_3_insurance_stake_limits(
    rules: RuleSet, stake: int, limits: tuple[int, int] | None
) -> None:
    assert insurance_stake_limits(rules, stake) == limits


@pytest.mark.parametrize(
    ("rules", "stake", "requested", "code"),
    [
        (LIVE_AMERICAN, 1001, None, "insurance_stake_not_exact"),
        (CHIP_50, 150, None, "insurance_stake_not_exact"),
        (CHIP_50, 150, 75, "insurance_stake_not_exact"),
        (LIVE_AMERICAN, 1000, 300, "insurance_stake_not_allowed"),
        (LIVE_AMERICAN, 1000, 0, "invalid_stake"),
        (UP_TO_HALF, 1000, 501, "insurance_stake_above_half"),
        (UP_TO_HALF, 1001, None, "insurance_stake_not_exact"),
        (UP_TO_HALF, 1000, 0, "invalid_stake"),
        (UP_TO_HALF, 1000, -100, "invalid_stake"),
        (UP_TO_HALF_CHIP_50, 1000, 225, "insurance_stake_not_unit_multiple"),
        (UP_TO_HALF_CHIP_50, 1000, 550, "insurance_stake_above_half"),
    ],
)
def test_clause_3_3_insurance_stake_refusals(
    rules: RuleSet, stake: int, requested: int | None, code: str
) -> None:
    with pytest.raises(IllegalActionError) as info:
        insurance_stake(rules, stake, requested)
    assert info.value.code == code


@pytest.mark.parametrize(
    ("rules", "stake", "requested", "decided"),
    [
        (LIVE_AMERICAN, 1000, None, 500),
        (LIVE_AMERICAN, 1000, 500, 500),
        (CHIP_50, 200, None, 100),
        (UP_TO_HALF, 1001, 500, 500),
        (UP_TO_HALF, 1000, 1, 1),
        (UP_TO_HALF_CHIP_50, 1000, 250, 250),
        (UP_TO_HALF_CHIP_50, 1000, None, 500),
    ],
)
def test_clause_3_3_insurance_stake_decided(
    rules: RuleSet, stake: int, requested: int | None, decided: int
) -> None:
    assert insurance_stake(rules, stake, requested) == decided


# The engine ---------------------------------------------------------------------------------


def test_clause_3_3_half_must_be_a_whole_chip_or_insurance_is_refused() -> None:
    # given a 50-cent smallest chip; box 1 bets 150 (half is 75), box 2 bets 200
    state = dealt_round(CHIP_50, [main(1, 150), main(2, 200)], *ACE_NO_BLACKJACK)
    # then box 1 is not offered a take and a take is refused with its code, box 2 takes 100
    assert TakeInsurance("p1", "m1") not in legal_actions(state)
    assert refused(state, TakeInsurance("p1", "m1")) == "insurance_stake_not_exact"
    assert refused(state, TakeInsurance("p1", "m1", stake_minor=75)) == "insurance_stake_not_exact"
    assert refused(state, DeclineInsurance("p1", "m1")) == "insurance_not_offered"
    _, events = apply(state, TakeInsurance("p2", "m2"))
    assert InsuranceTaken("m2", "m2/insurance", "p2", 2, 100) in events


def test_clause_3_3_exact_half_refuses_another_amount_and_accepts_the_half() -> None:
    state = dealt_round(LIVE_AMERICAN, [main(1, 1000), main(2, 1000)], *ACE_NO_BLACKJACK)
    assert refused(state, TakeInsurance("p1", "m1", stake_minor=300)) == "insurance_stake_not_allowed"
    assert refused(state, TakeInsurance("p1", "m1", stake_minor=0)) == "invalid_stake"
    _, events = apply(state, TakeInsurance("p1", "m1", stake_minor=500))
    assert InsuranceTaken("m1", "m1/insurance", "p1", 1, 500) in events


@pytest.mark.parametrize(
    ("requested", "code"),
    [
        (550, "insurance_stake_above_half"),
        (225, "insurance_stake_not_unit_multiple"),
        (0, "invalid_stake"),
        (-50, "invalid_stake"),
    ],
)
def test_clause_3_3_up_to_half_refusals_leave_the_round_unchanged(requested: int, code: str) -> None:
    state = dealt_round(UP_TO_HALF_CHIP_50, [main(1, 1000), main(2, 1000)], *ACE_NO_BLACKJACK)
    assert refused(state, TakeInsurance("p1", "m1", stake_minor=requested)) == code


def test_clause_3_3_up_to_half_the_event_carries_the_stake_and_insurance_pays_2_to_1_on_it() -> None:
    # given up to half with a 50-cent chip; the dealer's ace hides a king
    # when the bettor insures 1000 for 200
    _, events, lines = play(
        UP_TO_HALF_CHIP_50,
        [main(1, 1000)],
        ["9S", "AD", "7H", "KC"],
        insurance={"m1": "take"},
        insurance_stakes={"m1": 200},
    )
    # then the engine decided 200, and 2:1 on 200 wins 400 against the main bet's 1000
    assert [event for event in events if isinstance(event, InsuranceTaken)] == [
        InsuranceTaken("m1", "m1/insurance", "p1", 1, 200)
    ]
    line = lines["m1/insurance"][0]
    assert (line.outcome, line.stake_minor, line.net_minor, line.paid_minor) == ("win", 200, 400, 600)
    assert nets(lines) == {"m1": [-1000], "m1/insurance": [400]}


def test_clause_3_3_up_to_half_insures_an_odd_stake_below_its_half() -> None:
    # given 1001 cents with a 1-cent chip: no exact half, but 500 is allowed
    state = dealt_round(UP_TO_HALF, [main(1, 1001)], "9S", "AD", "7H", "7C")
    assert TakeInsurance("p1", "m1", stake_minor=500) in legal_actions(state)
    assert refused(state, TakeInsurance("p1", "m1")) == "insurance_stake_not_exact"
    assert refused(state, TakeInsurance("p1", "m1", stake_minor=501)) == "insurance_stake_above_half"
    state, events = apply(state, TakeInsurance("p1", "m1", stake_minor=500))
    assert InsuranceTaken("m1", "m1/insurance", "p1", 1, 500) in events
    assert state.phase is Phase.PLAYERS


def test_clause_2_4_bet_behind_insures_up_to_half_of_its_own_stake() -> None:
    bets = [main(1, 1000), behind(1, "bob", 400)]
    state = dealt_round(UP_TO_HALF, bets, "9S", "AD", "7H", "7C")
    assert refused(state, TakeInsurance("bob", "b1-bob", stake_minor=201)) == "insurance_stake_above_half"
    assert refused(state, TakeInsurance("p1", "b1-bob", stake_minor=100)) == "not_bet_owner"
    _, events = apply(state, TakeInsurance("bob", "b1-bob", stake_minor=100))
    assert InsuranceTaken("b1-bob", "b1-bob/insurance", "bob", 1, 100) in events


def test_clause_3_3_even_money_on_a_bet_not_offered_is_refused_with_its_own_code() -> None:
    # given even money on; box 1 (odd stake, no blackjack) cannot insure, box 2 can
    rules = LIVE_AMERICAN.with_overrides({"even_money": True})
    state = dealt_round(rules, [main(1, 1001), main(2, 1000)], *ACE_NO_BLACKJACK)
    assert refused(state, TakeEvenMoney("p1", "m1")) == "even_money_not_offered"
    assert refused(state, TakeEvenMoney("p2", "m2")) == "even_money_not_offered"
    closed, _ = apply(state, CloseInsurance())
    assert closed.phase is Phase.PLAYERS


# Serialization ------------------------------------------------------------------------------


def test_clause_3_3_take_insurance_with_an_amount_survives_json() -> None:
    action = TakeInsurance("p1", "m1", "ins-7", stake_minor=250)
    stored = json.loads(json.dumps(action.to_dict()))
    assert stored == {
        "type": "take_insurance",
        "player": "p1",
        "bet_id": "m1",
        "insurance_bet_id": "ins-7",
        "stake_minor": 250,
    }
    assert action_from_dict(stored) == action


def test_clause_3_3_take_insurance_recorded_without_an_amount_reads_as_exactly_half() -> None:
    recorded = {"type": "take_insurance", "player": "p1", "bet_id": "m1", "insurance_bet_id": "ins-7"}
    assert action_from_dict(recorded) == TakeInsurance("p1", "m1", "ins-7", stake_minor=None)
    assert action_from_dict({**recorded, "stake_minor": None}).stake_minor is None


@pytest.mark.parametrize("bad", ["250", True, 2.5])
def test_clause_3_3_take_insurance_with_a_bad_amount_is_an_invalid_record(bad: object) -> None:
    recorded = {"type": "take_insurance", "player": "p1", "bet_id": "m1", "stake_minor": bad}
    with pytest.raises(InvalidSnapshotError):
        action_from_dict(recorded)


# Scripted drivers: a choice that cannot be honoured is refused, never skipped ----------------


def test_clause_3_3_scripted_take_on_an_odd_stake_is_refused_not_skipped() -> None:
    # given the only box bets 1001 cents and asks for insurance against an ace
    # (no bet can insure, so the engine asks nobody: the take used to be skipped)
    def call() -> object:
        return play_round(
            LIVE_AMERICAN,
            [main(1, 1001)],
            parse_cards(["9S", "AD", "7H", "7C", "TD"]),
            {1: ["stand"]},
            insurance={"m1": "take"},
        )

    assert code_of(call) == "insurance_stake_not_exact"


def test_clause_3_3_scripted_take_on_an_unhalvable_stake_is_refused_with_another_box_insuring() -> None:
    def call() -> object:
        return play_round(
            CHIP_50,
            [main(1, 150), main(2, 200)],
            parse_cards([*ACE_NO_BLACKJACK, "TD"]),
            {1: ["stand"], 2: ["stand"]},
            insurance={"m1": "take", "m2": "take"},
        )

    assert code_of(call) == "insurance_stake_not_exact"


@pytest.mark.parametrize(
    ("rules", "bets", "insurance", "stakes", "code"),
    [
        (LIVE_AMERICAN, [main(1, 1000)], {"m1": "take"}, {"m1": 300}, "insurance_stake_not_allowed"),
        (UP_TO_HALF, [main(1, 1000)], {"m1": "take"}, {"m1": 600}, "insurance_stake_above_half"),
        (UP_TO_HALF, [main(1, 1000)], {"m1": "decline"}, {"m1": 300}, "illegal_action"),
        (
            LIVE_AMERICAN.with_overrides({"insurance": False}),
            [main(1, 1000)],
            {"m1": "take"},
            {},
            "insurance_not_offered",
        ),
        (LIVE_AMERICAN, [main(1, 1000)], {"m1": "even_money"}, {}, "even_money_not_offered"),
        (LIVE_AMERICAN, [main(1, 1000)], {"m9": "take"}, {}, "no_such_bet"),
        (
            LIVE_AMERICAN,
            [main(1, 1000), side(1, BetKind.PERFECT_PAIRS)],
            {"perfect_pairs1": "take"},
            {},
            "insurance_not_offered",
        ),
        (LIVE_AMERICAN, [main(1, 1000)], {"m1": "maybe"}, {}, "illegal_action"),
    ],
)
def test_clause_3_3_scripted_insurance_choices_checked_before_any_card(
    rules: RuleSet, bets: list[Any], insurance: dict[str, str], stakes: dict[str, int], code: str
) -> None:
    # given a ten upcard: insurance would never be offered, the choice is still refused
    def call() -> object:
        return play_round(
            rules,
            bets,
            parse_cards(["9S", "KD", "7H", "7C"]),
            {1: ["stand"]},
            insurance=insurance,
            insurance_stakes=stakes,
        )

    assert code_of(call) == code


def test_clause_3_3_scripted_even_money_on_a_hand_that_is_no_blackjack_is_refused() -> None:
    # given even money on; 1001 cents cannot insure, so no insurance is asked, and 9,7 is no blackjack
    rules = LIVE_AMERICAN.with_overrides({"even_money": True})

    def call() -> object:
        return play_round(
            rules,
            [main(1, 1001)],
            parse_cards(["9S", "AD", "7H", "7C", "TD"]),
            {1: ["stand"]},
            insurance={"m1": "even_money"},
        )

    assert code_of(call) == "even_money_not_offered"


# Round scripts ------------------------------------------------------------------------------


def _script(rules: dict[str, Any], box: dict[str, Any], shoe: list[str]) -> dict[str, Any]:
    return {
        "profile": "live-american",
        "rules": rules,
        "shoe": shoe,
        "boxes": [{"box": 1, "player": "alice", "decisions": [], **box}],
    }


def test_clause_3_3_script_takes_insurance_for_an_amount() -> None:
    # given up to half; alice insures 1000 for 250 and the dealer's ace hides a queen
    script = _script(
        {"insurance_stake": "up_to_half"},
        {"stake_minor": 1000, "insurance": "take", "insurance_minor": 250},
        ["9S", "AD", "7H", "QC"],
    )
    box = play_script(script)["boxes"][0]
    # then the insurance bet is 250 and wins 500; the main bet loses 1000
    assert box["insurance"] == [
        {
            "bet_id": "box1-main/insurance",
            "player": "alice",
            "outcome": "win",
            "stake_minor": 250,
            "net_minor": 500,
        }
    ]
    assert (box["main"]["net_minor"], box["net_minor"]) == (-1000, -500)
    # and the amount alone means a take
    del script["boxes"][0]["insurance"]
    assert play_script(script)["boxes"][0]["insurance"][0]["stake_minor"] == 250


@pytest.mark.parametrize(
    ("rules", "box", "code"),
    [
        ({}, {"stake_minor": 1001, "insurance": "take"}, "insurance_stake_not_exact"),
        (
            {"payout_rounding_unit_minor": 50},
            {"stake_minor": 150, "insurance": "take"},
            "insurance_stake_not_exact",
        ),
        ({}, {"stake_minor": 1000, "insurance_minor": 250}, "insurance_stake_not_allowed"),
        (
            {"insurance_stake": "up_to_half"},
            {"stake_minor": 1000, "insurance_minor": 501},
            "insurance_stake_above_half",
        ),
        (
            {"insurance_stake": "up_to_half", "payout_rounding_unit_minor": 50},
            {"stake_minor": 1000, "insurance_minor": 120},
            "insurance_stake_not_unit_multiple",
        ),
        ({}, {"stake_minor": 1000, "insurance": "decline", "insurance_minor": 250}, "invalid_round_script"),
        ({}, {"insurance": "take"}, "invalid_round_script"),
        ({}, {"stake_minor": 1000, "insurance_minor": "250"}, "invalid_round_script"),
    ],
)
def test_clause_3_3_script_refuses_an_insurance_it_cannot_honour(
    rules: dict[str, Any], box: dict[str, Any], code: str
) -> None:
    script = _script(rules, {**box, "decisions": ["stand"]}, ["9S", "AD", "7H", "7C", "TD"])
    assert code_of(lambda: play_script(script)) == code


@pytest.mark.parametrize(
    ("bets", "shoe"),
    [
        ([main(1, 1001)], ["9S", "AD", "7H", "7C", "TD"]),
        ([main(1, 1001), main(2, 1000)], [*ACE_NO_BLACKJACK, "TD"]),
    ],
    ids=["no_insurance_phase", "another_box_insures"],
)
def test_clause_3_3_scripted_chooser_alone_refuses_a_take_it_cannot_play(
    bets: list[Any], shoe: list[str]
) -> None:
    # given the chooser without play_round's checks before the round
    chooser, check = scripted_chooser({1: ["stand"], 2: ["stand"]}, {"m1": "take"})

    # when the round is played and checked, then the take on 1001 cents is refused
    def call() -> None:
        state, _, _ = run_round(new_round(LIVE_AMERICAN, bets), parse_cards(shoe), chooser)
        check(state)

    assert code_of(call) == "insurance_stake_not_exact"


def test_clause_3_3_scripted_even_money_on_an_insurable_hand_without_blackjack_is_refused() -> None:
    rules = LIVE_AMERICAN.with_overrides({"even_money": True})

    def call() -> object:
        return play_round(
            rules,
            [main(1, 1000)],
            parse_cards(["9S", "AD", "7H", "7C", "TD"]),
            {1: ["stand"]},
            insurance={"m1": "even_money"},
        )

    assert code_of(call) == "even_money_not_offered"


def test_clause_3_3_scripted_even_money_on_a_blackjack_is_played() -> None:
    rules = LIVE_AMERICAN.with_overrides({"even_money": True})
    _, _, lines = play(rules, [main(1, 1001)], ["AS", "AD", "KH", "7C"], insurance={"m1": "even_money"})
    assert (lines["m1"][0].outcome, lines["m1"][0].net_minor) == ("even_money", 1001)
