"""A round is acted on from its own table only, and betting ends at its deadline for every bet
command, whether or not "no more bets" has been applied yet."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from tables.models import Bet, Round, RoundEvent
from tests.api.conftest import ApiClient, open_round
from tests.snapshots import refused_snapshot
from wallet.models import Hold


def _rounds(round_: Round) -> str:
    return f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}"


def _overdue(round_: Round) -> None:
    Round.objects.filter(pk=round_.pk).update(decision_deadline_at=timezone.now() - dt.timedelta(seconds=5))


def _main_bet_on_box_1(agi: ApiClient, round_: Round) -> int:
    assert agi.post(f"/api/v1/tables/{round_.table_id}/boxes/1/take/").status_code == 200
    placed = agi.post(
        f"{_rounds(round_)}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "m"},
    )
    assert placed.status_code == 201
    return int(placed.json()["id"])


def test_a_bet_cannot_be_taken_back_after_the_betting_deadline(agi, bj1_round):
    bet_id = _main_bet_on_box_1(agi, bj1_round)
    _overdue(bj1_round)
    before = refused_snapshot()

    cancel = agi.delete(f"{_rounds(bj1_round)}/bets/{bet_id}/", headers={"Idempotency-Key": "c"})

    assert cancel.status_code == 409
    assert cancel.json()["code"] == "betting_closed"
    assert Bet.objects.get(pk=bet_id).status == "placed"
    assert Hold.objects.get(bet_reference=str(bet_id)).status == "open"
    assert refused_snapshot() == before  # no money, event, seat or audit record moved


def test_a_box_with_a_bet_cannot_be_left_after_the_betting_deadline(agi, bj1_round):
    bet_id = _main_bet_on_box_1(agi, bj1_round)
    _overdue(bj1_round)
    before = refused_snapshot()

    leave = agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/leave/")

    assert leave.status_code == 409
    assert leave.json()["code"] == "round_in_progress"
    assert Bet.objects.get(pk=bet_id).status == "placed"
    assert Hold.objects.get(bet_reference=str(bet_id)).status == "open"
    assert refused_snapshot() == before


def test_before_the_deadline_both_still_work(agi, bj1_round):
    bet_id = _main_bet_on_box_1(agi, bj1_round)

    cancel = agi.delete(f"{_rounds(bj1_round)}/bets/{bet_id}/", headers={"Idempotency-Key": "c"})
    leave = agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/leave/")

    assert cancel.status_code == 200 and leave.status_code == 200
    assert Bet.objects.get(pk=bet_id).status == "cancelled"


def test_a_round_of_another_table_is_refused_before_anything_happens_to_it(agi, bj1_round, bj1_reader):
    # given BJ2's round, overdue (its next command would apply the default first)
    bj2_round = open_round("BJ2")
    _overdue(bj2_round)
    events = RoundEvent.objects.filter(round=bj2_round).count()
    before = refused_snapshot()
    # when BJ1's terminals name BJ2's round under their own table's path
    on_bj1 = f"/api/v1/tables/{bj1_round.table_id}/rounds/{bj2_round.pk}"
    answers = [
        ApiClient(bj1_reader).post(f"{on_bj1}/cards/", {"card": "TS"}, headers={"Idempotency-Key": "r1"}),
        agi.post(f"{on_bj1}/decisions/", {"box": 1, "decision": "hit"}, headers={"Idempotency-Key": "r2"}),
        agi.post(f"{on_bj1}/insurance/", {"bet_id": 1, "take": True}, headers={"Idempotency-Key": "r3"}),
        agi.post(
            f"{on_bj1}/bets/",
            {"box": 1, "kind": "main", "stake_minor": 1000},
            headers={"Idempotency-Key": "r4"},
        ),
    ]
    # then each is refused wrong_table, and BJ2's round is as it was: no default applied
    assert [(answer.status_code, answer.json()["code"]) for answer in answers] == [(403, "wrong_table")] * 4
    bj2_round.refresh_from_db()
    assert bj2_round.status == "betting"
    assert RoundEvent.objects.filter(round=bj2_round).count() == events
    assert not Bet.objects.exists()
    assert refused_snapshot() == before
