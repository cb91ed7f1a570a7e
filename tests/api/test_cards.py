"""Cards from a table's card reader through the API: a misscan is a refusal whose effect stands."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from casino.actors import Actor
from casino.models import AuditRecord
from tables.models import Round, RoundEvent
from tables.services.rounds import round_close_betting
from tests.api.conftest import ApiClient, staff


def test_a_misscan_from_the_reader_is_recorded_and_the_round_waits_for_its_correction(
    agi, bj1_reader, bj1_round
):
    # given Ági's main bet on box 1, no more bets, and the deal read in: her turn, no card expected
    table = f"/api/v1/tables/{bj1_round.table_id}"
    cards = f"{table}/rounds/{bj1_round.pk}/cards/"
    reader = ApiClient(bj1_reader)
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    bet = {"box": 1, "kind": "main", "stake_minor": 1000}
    assert (
        agi.post(f"{table}/rounds/{bj1_round.pk}/bets/", bet, headers={"Idempotency-Key": "m"}).status_code
        == 201
    )
    round_close_betting(round_id=bj1_round.pk, actor=Actor.staff(staff("dealer")))
    for number, card in enumerate(["TS", "9C", "7H", "TC"]):
        assert (
            reader.post(cards, {"card": card}, headers={"Idempotency-Key": f"deal-{number}"}).status_code
            == 200
        )
    assert reader.get(f"{table}/state/").json()["round"]["status"] == "players"

    # when the reader sends a card nobody asked for, and then retries it
    first = reader.post(cards, {"card": "5D"}, headers={"Idempotency-Key": "stray"})
    retry = reader.post(cards, {"card": "5D"}, headers={"Idempotency-Key": "stray"})
    other = reader.post(cards, {"card": "6D"}, headers={"Idempotency-Key": "next"})

    # then it is refused as a misscan, and recorded: the round waits for a pit boss's correction
    assert first.status_code == 409 and first.json()["code"] == "misscan"
    assert retry.json() == first.json() and retry["Idempotency-Replayed"] == "true"
    round_ = Round.objects.get(pk=bj1_round.pk)
    assert round_.awaiting_correction is not None
    assert (round_.awaiting_correction["card"], round_.awaiting_correction["reason"]) == (
        "5D",
        "card_not_expected",
    )
    assert RoundEvent.objects.filter(round=round_, kind="misscan").count() == 1
    assert AuditRecord.objects.filter(action="round.misscan", object_id=str(round_.pk)).count() == 1
    # and a card sent meanwhile is refused without being recorded
    assert other.status_code == 409 and other.json()["code"] == "awaiting_correction"
    assert RoundEvent.objects.filter(round=round_, kind="misscan").count() == 1


def test_a_default_applied_before_a_refused_decision_stands(agi, bj1_reader, bj1_round):
    # given Ági's turn on box 1 after the deal, her decision deadline already passed
    table = f"/api/v1/tables/{bj1_round.table_id}"
    rounds = f"{table}/rounds/{bj1_round.pk}"
    reader = ApiClient(bj1_reader)
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    bet = {"box": 1, "kind": "main", "stake_minor": 1000}
    assert agi.post(f"{rounds}/bets/", bet, headers={"Idempotency-Key": "m"}).status_code == 201
    round_close_betting(round_id=bj1_round.pk, actor=Actor.staff(staff("dealer")))
    for number, card in enumerate(["TS", "9C", "7H", "TC"]):
        assert (
            reader.post(
                f"{rounds}/cards/", {"card": card}, headers={"Idempotency-Key": f"d{number}"}
            ).status_code
            == 200
        )
    Round.objects.filter(pk=bj1_round.pk).update(
        decision_deadline_at=timezone.now() - dt.timedelta(seconds=1)
    )

    # when she asks for a card too late
    late = agi.post(
        f"{rounds}/decisions/", {"box": 1, "decision": "hit"}, headers={"Idempotency-Key": "late"}
    )

    # then the decision is refused, and the table's default that the deadline called for stands
    assert late.status_code == 409, late.content
    assert RoundEvent.objects.filter(round_id=bj1_round.pk, kind="default_applied").exists()
