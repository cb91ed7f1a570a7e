"""Insurance stakes through the terminal API (rules/blackjack.md 3.3): a take that cannot be
honoured is refused with its own code and moves nothing; under the rule-set option
``insurance_stake: up_to_half`` a player insures for less than half, in the table's chip."""

from __future__ import annotations

from typing import Any

from casino.actors import Actor
from casino.models import Table
from tables.models import Bet, RoundEvent
from tables.services.rounds import round_close_betting
from tables.services.settlement import round_settle
from tables.services.versions import rule_set_version_approve, rule_set_version_create
from tests.api.conftest import ApiClient, open_round, sign_in, staff
from tests.snapshots import refused_snapshot


def _rules_version(**options: Any) -> Any:
    """A version of BJ1's rule set with some options changed, approved."""
    table = Table.objects.get(name="BJ1")
    current = table.config_versions.order_by("-number").first().rule_set_version
    operator = Actor.staff(staff("operator"))
    draft = rule_set_version_create(
        rule_set=current.rule_set, options={**current.options, **options}, actor=operator
    )
    # A second person approves it (never its author).
    return rule_set_version_approve(version=draft, actor=Actor.staff(staff("pitboss")))


def _insurance_offered(
    terminal: Any, reader: Any, stakes: tuple[int, ...], **settings: Any
) -> tuple[Any, Any, list[str]]:
    """Ági's main bets on boxes 1 (and 2) of BJ1, the dealer showing an ace: insurance is on offer."""
    round_ = open_round("BJ1", **settings)
    agi = ApiClient(terminal, sign_in(terminal, "1000000001", "1111"))
    rounds = f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}"
    bet_ids = []
    for box, stake in enumerate(stakes, start=1):
        assert agi.post(f"/api/v1/tables/{round_.table_id}/boxes/{box}/take/").status_code == 200
        bet = agi.post(
            f"{rounds}/bets/",
            {"box": box, "kind": "main", "stake_minor": stake},
            headers={"Idempotency-Key": f"m{box}"},
        )
        assert bet.status_code == 201, bet.content
        bet_ids.append(str(bet.json()["id"]))
    round_close_betting(round_id=round_.pk, actor=Actor.staff(staff("dealer")))
    # a ten to each box, the dealer's ace, a seven to each box, the dealer's hole card
    cards = ["TS"] * len(stakes) + ["AS"] + ["7H"] * len(stakes) + ["9C"]
    for number, card in enumerate(cards):
        sent = ApiClient(reader).post(
            f"{rounds}/cards/", {"card": card}, headers={"Idempotency-Key": f"c{number}"}
        )
        assert sent.status_code == 200, sent.content
    state = agi.get(f"/api/v1/tables/{round_.table_id}/state/").json()
    assert state["round"]["status"] == "insurance"
    return agi, round_, bet_ids


def _insure(agi: Any, round_: Any, bet_id: str, key: str, **body: Any) -> Any:
    path = f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/insurance/"
    return agi.post(path, {"bet_id": int(bet_id), "take": True, **body}, headers={"Idempotency-Key": key})


def test_insurance_on_a_stake_with_no_exact_half_is_refused_with_its_code(bj1_terminal, bj1_reader):
    # given Ági's main bets of 1000 and 1001 cents (no exact half in the table's 1-cent chip),
    # insurance offered
    agi, round_, (_, bet_id) = _insurance_offered(bj1_terminal, bj1_reader, (1000, 1001))
    before = refused_snapshot()
    # when she takes insurance
    answer = _insure(agi, round_, bet_id, "i1")
    # then it is refused with its own code, and nothing moved
    assert (answer.status_code, answer.json()["code"]) == (409, "insurance_stake_not_exact")
    assert refused_snapshot() == before
    assert not Bet.objects.filter(round=round_, kind="insurance").exists()
    # and a retry of the key hears the same refusal
    again = _insure(agi, round_, bet_id, "i1")
    assert again.json() == answer.json() and again["Idempotency-Replayed"] == "true"


def test_insurance_is_exactly_half_by_default_and_another_amount_is_refused(bj1_terminal, bj1_reader):
    agi, round_, (bet_id,) = _insurance_offered(bj1_terminal, bj1_reader, (1000,))
    refused = _insure(agi, round_, bet_id, "i1", stake_minor=300)
    assert (refused.status_code, refused.json()["code"]) == (409, "insurance_stake_not_allowed")
    assert agi.get("/api/v1/player/balance/").json()["held_minor"] == 1000
    taken = _insure(agi, round_, bet_id, "i2")
    assert taken.status_code == 200, taken.content
    assert Bet.objects.get(round=round_, kind="insurance").stake_minor == 500
    assert agi.get("/api/v1/player/balance/").json()["held_minor"] == 1500


def test_up_to_half_insures_for_less_in_the_tables_chip(bj1_terminal, bj1_reader, seeded):
    # given BJ1 on a rule set whose insurance is up to half the stake, in 50-cent chips
    version = _rules_version(insurance_stake="up_to_half", payout_rounding_unit_minor=50)
    agi, round_, (bet_id,) = _insurance_offered(bj1_terminal, bj1_reader, (1000,), rule_set_version=version)
    # when Ági asks for more than half, then for an amount off the chip, then for 300
    above = _insure(agi, round_, bet_id, "i1", stake_minor=600)
    off_chip = _insure(agi, round_, bet_id, "i2", stake_minor=320)
    taken = _insure(agi, round_, bet_id, "i3", stake_minor=300)
    # then the first two are refused with their codes and the third holds exactly 300
    assert (above.status_code, above.json()["code"]) == (409, "insurance_stake_above_half")
    assert (off_chip.status_code, off_chip.json()["code"]) == (409, "insurance_stake_not_unit_multiple")
    assert taken.status_code == 200, taken.content
    assert Bet.objects.get(round=round_, kind="insurance").stake_minor == 300
    assert agi.get("/api/v1/player/balance/").json()["held_minor"] == 1300
    event = RoundEvent.objects.get(round=round_, kind="insurance_taken")
    assert [item["stake_minor"] for item in event.payload["events"] if item["type"] == "insurance_taken"] == [
        300
    ]


def _split_hand_busts_against_a_no_peek_blackjack(terminal: Any, reader: Any, no_peek_loss: str) -> int:
    """Ági's main bet of 1000 on box 1 of BJ1 under no peek: 8,8 split, the first hand hits and
    busts, the second stands on 18, the dealer turns over a blackjack. Returns her balance change."""
    version = _rules_version(hole_card="no_peek", no_peek_loss=no_peek_loss)
    round_ = open_round("BJ1", rule_set_version=version)
    agi = ApiClient(terminal, sign_in(terminal, "1000000001", "1111"))
    table, rounds = (
        f"/api/v1/tables/{round_.table_id}",
        f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}",
    )
    start = agi.get("/api/v1/player/balance/").json()["balance_minor"]
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    bet = agi.post(
        f"{rounds}/bets/", {"box": 1, "kind": "main", "stake_minor": 1000}, headers={"Idempotency-Key": "m"}
    )
    assert bet.status_code == 201, bet.content
    round_close_betting(round_id=round_.pk, actor=Actor.staff(staff("dealer")))
    steps = [
        ("card", "8S"),
        ("card", "AS"),
        ("card", "8H"),
        ("card", "KD"),
    ]  # dealer: ace up, king in the hole
    steps += [("decline", None)]  # insurance is offered on the ace: Ági declines it
    steps += [("split", None), ("card", "9C"), ("hit", None), ("card", "TH")]  # hand 1: 8, 9, 10 busts
    steps += [("card", "TC"), ("stand", None)]  # hand 2: 8, 10 stands on 18
    for number, (what, card) in enumerate(steps):
        key = {"Idempotency-Key": f"s{number}"}
        if what == "card":
            answer = ApiClient(reader).post(f"{rounds}/cards/", {"card": card}, headers=key)
        elif what == "decline":
            insured = {"bet_id": bet.json()["id"], "take": False}
            answer = agi.post(f"{rounds}/insurance/", insured, headers=key)
        else:
            answer = agi.post(f"{rounds}/decisions/", {"box": 1, "decision": what}, headers=key)
        assert answer.status_code == 200, (what, card, answer.content)
    assert agi.get(f"{table}/state/").json()["round"]["status"] == "settling"
    round_settle(round_id=round_.pk, actor=Actor.staff(staff("dealer")))
    balance = agi.get("/api/v1/player/balance/").json()
    assert balance["held_minor"] == 0
    return balance["balance_minor"] - start


def test_a_no_peek_blackjack_takes_only_the_original_stake_busted_split_hand_included(
    bj1_terminal, bj1_reader
):
    assert _split_hand_busts_against_a_no_peek_blackjack(bj1_terminal, bj1_reader, "original_stake") == -1000


def test_a_no_peek_blackjack_takes_every_stake_under_all_stakes(bj1_terminal, bj1_reader):
    assert _split_hand_busts_against_a_no_peek_blackjack(bj1_terminal, bj1_reader, "all_stakes") == -2000
