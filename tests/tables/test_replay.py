"""Simulated rounds replayed from their events equal the recorded payouts; exports play back."""

from __future__ import annotations

import json
import random
import time
from io import StringIO

import pytest
from django.core.management import call_command

from games.blackjack.script import play_script
from games.cards import shoe_cards
from tables.models import PayoutLine, Round
from tables.replay import round_export, round_replay_check
from tables.simulation import simulate_table
from tests.lanes import sized
from tests.tables.conftest import stack_shoe
from tests.tampering import triggers_off

# Every payout line the table's rules (live-american, seeds/blackjack_rulesets.json) let simulated
# play produce, as (bet kind, outcome, rule clause) (games/blackjack/settlement.py). Not in
# it: surrender and even money (the rule set offers neither), the no-peek clauses and the
# ``returned`` outcome (the dealer peeks), and ``refund`` (rules 2.4): tables/simulation.py bets
# behind a box only after its owner's main bet, so a simulated box with a bet behind always plays
# (tests/tables/test_services.py and tests/games/test_blackjack_rules.py settle refunds).
HAND_LINES = {
    ("win", "7 dealer bust 1:1"),
    ("win", "7 higher total 1:1"),
    ("blackjack", "7 blackjack 3:2"),
    ("push", "7 equal totals: push"),
    ("push", "7 blackjack vs dealer blackjack: push"),
    ("lose", "7 lower total"),
    ("lose", "4.3 dealer blackjack"),
    ("bust", "5.1 bust loses at once"),
}
PAYOUT_LINE_KINDS = {
    *(("main", outcome, rule) for outcome, rule in HAND_LINES),
    *(("behind", outcome, rule) for outcome, rule in HAND_LINES),
    ("perfect_pairs", "perfect", "8 perfect pairs perfect 25:1"),
    ("perfect_pairs", "coloured", "8 perfect pairs coloured 12:1"),
    ("perfect_pairs", "mixed", "8 perfect pairs mixed 6:1"),
    ("perfect_pairs", "lose", "8 perfect pairs: no combination"),
    ("twenty_one_plus_three", "suited_trips", "8 21+3 suited trips 100:1"),
    ("twenty_one_plus_three", "straight_flush", "8 21+3 straight flush 40:1"),
    ("twenty_one_plus_three", "three_of_a_kind", "8 21+3 three of a kind 25:1"),
    ("twenty_one_plus_three", "straight", "8 21+3 straight 10:1"),
    ("twenty_one_plus_three", "flush", "8 21+3 flush 5:1"),
    ("twenty_one_plus_three", "lose", "8 21+3: no combination"),
    ("insurance", "win", "3.3 insurance 2:1"),
    ("insurance", "lose", "3.3 insurance lost"),
}
# The options of play that change a line's stake: doubles and splits, by the box owner and by a bet
# behind that follows them (rules 2.4, 5.3, 5.4).
STAKE_CHANGES = {("main", "double"), ("main", "split"), ("behind", "double"), ("behind", "split")}

# The simulation draws its bets from its own seeded random numbers before a card is dealt, so with
# SIMULATION_SEED and five players its first two rounds bet the same way on every run, and the top
# of the first shoe is stacked for those bets (round 1: Perfect Pairs on boxes 1, 3, 5 and 6, 21+3
# on 2, 4, 5 and 6, bets behind 5 and 7, insurance taken on 1, 3, 4, 7 and behind 5; round 2:
# Perfect Pairs on 1 and 6, 21+3 on 2 and 5, bets behind 2, 3 and 4, insurance taken on 3 and behind
# 2). The rest of that shoe is in a fixed order (SHOE_SEED), so the default lane's rounds, all dealt
# from it (the table reshuffles after 5 rounds), are the same on every run. Should the simulation draw
# otherwise, the coverage assertions say which lines went missing: stack the two rounds again.
SIMULATION_SEED = 4
SHOE_SEED = 18
# Round 1, the dealer's ace over a king: insurance wins; box 7's blackjack and its bet behind push;
# every other hand loses to the peeked blackjack; the side bets hit combinations that random play
# meets once in hundreds of rounds (suited trips: once in about 2,500): suited trips and a perfect
# pair (box 5), a straight flush (2), three of a kind with a mixed pair (6), a straight (4), a
# coloured pair (1), nothing (3).
ROUND_1_HANDS = [
    ("8D", "8H"),
    ("KH", "QH"),
    ("9C", "4D"),
    ("2C", "3D"),
    ("AH", "AH"),
    ("AD", "AS"),
    ("AS", "KS"),
]
ROUND_1_DEALER = ("AH", "KC")
# Round 2, the dealer's ace over a seven: insurance loses; box 3 and its bet behind have blackjack;
# box 5's 21+3 is a flush, box 2's nothing; the simulation's random choices double box 1's fours
# and split box 2's eights, and box 2's bet behind follows the split.
ROUND_2_HANDS = [
    ("4C", "4S"),
    ("8S", "8C"),
    ("AC", "KD"),
    ("9S", "2D"),
    ("5D", "9D"),
    ("7D", "5C"),
    ("6S", "TH"),
]
ROUND_2_DEALER = ("AD", "7C")


def dealt(hands: list[tuple[str, str]], dealer: tuple[str, str]) -> list[str]:
    """A round's first cards in shoe order (rules 4.1): a card to each playing box from the
    dealer's left, the upcard, a second card to each box, the hole card."""
    return [*(first for first, _ in hands), dealer[0], *(second for _, second in hands), dealer[1]]


def first_shoe() -> list[str]:
    """Every card of the six-deck shoe: the two stacked rounds, then the rest in a fixed order."""
    top = [*dealt(ROUND_1_HANDS, ROUND_1_DEALER), *dealt(ROUND_2_HANDS, ROUND_2_DEALER)]
    rest = [card.code for card in shoe_cards(6)]
    for code in top:
        rest.remove(code)
    random.Random(SHOE_SEED).shuffle(rest)
    return [*top, *rest]


# Transactional: every service commits as in production. Inside one test transaction the
# 1,000 rounds of the soak lane would be one transaction with tens of thousands of savepoints, whose
# deferred foreign-key and ledger checks all fire at teardown (Django checks constraints before the
# rollback): minutes of teardown, and every row lock taken under a growing list of subtransactions.
@pytest.mark.soak
@pytest.mark.django_db(transaction=True)
def test_simulated_rounds_replay_to_the_recorded_payouts(table, dealer):
    # given simulated rounds, the first ones dealt from the stacked shoe: 4 rounds already make
    # every payout line the table's rules can produce in simulated play (asserted below)
    rounds = sized(4, 1000)
    stack_shoe(table, dealer, first_shoe())
    started = time.perf_counter()
    result = simulate_table(table=table, rounds=rounds, players=5, seed=SIMULATION_SEED)
    elapsed = time.perf_counter() - started
    print(f"simulated {rounds} rounds, {result.bets} bets in {elapsed:.1f}s")
    # when every round is replayed from its events
    out = StringIO()
    call_command("round_replay", "--all", stdout=out)
    # then every payout line is equal to the cent
    assert out.getvalue().strip() == f"{rounds} rounds replayed, 0 with differences"
    assert Round.objects.filter(status="settled").count() == rounds
    lines = list(PayoutLine.objects.filter(round__table=table).select_related("bet"))
    assert len(lines) > rounds
    # and the replayed lines are of every kind the rules can produce, at every stake change
    assert {(line.bet.kind, line.outcome, line.rule) for line in lines} == PAYOUT_LINE_KINDS
    doubled = {(line.bet.kind, "double") for line in lines if line.stake_minor == 2 * line.bet.stake_minor}
    split = {(line.bet.kind, "split") for line in lines if line.hand}
    assert doubled | split == STAKE_CHANGES


@pytest.mark.django_db
def test_a_tampered_payout_line_is_reported_and_exits_1(table):
    # given a settled simulated round whose stored payout is altered
    result = simulate_table(table=table, rounds=3, players=3, seed=3)
    line = PayoutLine.objects.filter(round_id=result.round_ids[0]).first()
    triggers_off()
    PayoutLine.objects.filter(pk=line.pk).update(paid_minor=line.paid_minor + 1)
    # when replayed
    err = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("round_replay", str(result.round_ids[0]), stdout=StringIO(), stderr=err)
    # then the difference is named and the exit status is 1
    assert exit_info.value.code == 1
    assert "line 0: stored" in err.getvalue()
    assert round_replay_check(Round.objects.get(pk=result.round_ids[1])).is_equal


@pytest.mark.django_db
def test_an_exported_round_plays_back_to_its_recorded_lines(table):
    # given simulated rounds
    result = simulate_table(table=table, rounds=15, players=4, seed=11)
    for round_id in result.round_ids:
        # when each is exported as a round script and played by the engine
        out = StringIO()
        call_command("round_export", str(round_id), stdout=out)
        script = json.loads(out.getvalue())
        report = play_script(script)
        # then the engine's lines are the recorded ones
        recorded = [
            (line["bet_id"], line["hand"], line["outcome"], line["stake_minor"], line["net_minor"])
            for line in script["expected"]["lines"]
        ]
        played = [
            (line["bet_id"], line["hand"], line["outcome"], line["stake_minor"], line["net_minor"])
            for line in report["lines"]
        ]
        assert played == recorded, round_id
    assert round_export(Round.objects.get(pk=result.round_ids[0]))["profile"] == "live-american"
