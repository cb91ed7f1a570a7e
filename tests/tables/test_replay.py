"""Simulated rounds replayed from their events equal the recorded payouts; exports play back."""

from __future__ import annotations

import json
import time
from io import StringIO

import pytest
from django.core.management import call_command

from tables.games.blackjack.script import play_script
from tables.models import PayoutLine, Round
from tables.replay import round_export, round_replay_check
from tables.simulation import simulate_table
from tests.tampering import triggers_off


# Transactional: every service commits as in production. Inside one test transaction the
# 1,000 rounds would be one transaction with tens of thousands of savepoints, whose deferred
# foreign-key and ledger checks all fire at teardown (Django checks constraints before the
# rollback): minutes of teardown, and every row lock taken under a growing list of subtransactions.
@pytest.mark.django_db(transaction=True)
def test_simulated_rounds_replay_to_the_recorded_payouts(table):
    # given 1,000 simulated rounds
    rounds = 1000
    started = time.perf_counter()
    result = simulate_table(table=table, rounds=rounds, players=5, seed=7)
    elapsed = time.perf_counter() - started
    print(f"simulated {rounds} rounds, {result.bets} bets in {elapsed:.1f}s")
    # when every round is replayed from its events
    out = StringIO()
    call_command("round_replay", "--all", stdout=out)
    # then every payout line is equal to the cent
    assert out.getvalue().strip() == f"{rounds} rounds replayed, 0 with differences"
    assert Round.objects.filter(status="settled").count() == rounds
    assert PayoutLine.objects.filter(round__table=table).count() > rounds


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
