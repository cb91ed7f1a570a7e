"""A round run through the terminal API by the table's dealer terminal and card reader: open
betting, no more bets, cards, a misscan corrected, insurance ended, settlement, a shuffle when
due; each refusal (wrong terminal kind, another table's terminal, a player, a stale state) moves
nothing; a repeated command replays its first answer and runs once; and what each dealer command
costs in SQL statements."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.actors import Actor
from casino.models import AuditRecord, Table, Terminal
from tables.models import Round, RoundEvent, Shoe
from tables.services.config_changes import table_settings_change
from tests.api.conftest import ApiClient, Device, make_device, sign_in, staff
from tests.factories import table_settings_applied
from tests.snapshots import refused_snapshot

PROBLEM = "application/problem+json"


@pytest.fixture
def bj1_dealer(seeded: None) -> Device:
    return make_device("D-BJ1", Terminal.Kind.DEALER_TERMINAL, "BJ1")


@pytest.fixture
def bj2_dealer(seeded: None) -> Device:
    return make_device("D-BJ2", Terminal.Kind.DEALER_TERMINAL, "BJ2")


def table_id(name: str = "BJ1") -> int:
    return int(Table.objects.get(name=name).pk)


def physical(name: str = "BJ1", **settings: Any) -> None:
    """The operator puts the table on a physical shoe: the shoe it has is then of the wrong kind,
    so a shuffle is due before the next round."""
    table_settings_applied(
        table=Table.objects.get(name=name),
        operator=staff("operator"),
        settings={"shoe_kind": "physical", **settings},
    )


def command(client: ApiClient, path: str, key: str, body: Any = None, expected: int = 200) -> Any:
    response = client.post(path, body, headers={"Idempotency-Key": re.sub(r"[^A-Za-z0-9._:-]", "-", key)})
    assert response.status_code == expected, response.content
    return response


def refused(response: Any, status: int, code: str) -> None:
    assert response["Content-Type"] == PROBLEM
    assert (response.status_code, response.json()["code"]) == (status, code), response.content


def ready_round(dealer: ApiClient, name: str = "BJ1") -> dict[str, Any]:
    """A physical shoe shuffled and betting open, by the dealer terminal."""
    physical(name)
    command(dealer, f"/api/v1/tables/{table_id(name)}/shuffles/", f"shuffle-{name}", expected=201)
    return dict(
        command(dealer, f"/api/v1/tables/{table_id(name)}/rounds/", f"open-{name}", expected=201).json()
    )


# ---------------------------------------------------------------- a whole round


def test_a_whole_round_run_by_the_dealer_terminal_and_the_card_reader(
    bj1_dealer, bj1_reader, bj1_terminal, bj1_second_terminal
):
    # Given: BJ1 moves to a physical shoe; its dealer terminal, card reader and two players
    physical("BJ1")
    dealer, reader = ApiClient(bj1_dealer), ApiClient(bj1_reader)
    agi = ApiClient(bj1_terminal, sign_in(bj1_terminal, "1000000001", "1111"))
    bartek = ApiClient(bj1_second_terminal, sign_in(bj1_second_terminal, "1000000002", "2222"))
    table = f"/api/v1/tables/{table_id()}"
    assert dealer.get(f"{table}/state/").json()["shuffle_due"] is True

    # When: betting cannot open before the shuffle; the dealer terminal records it, then opens
    refused(dealer.post(f"{table}/rounds/", headers={"Idempotency-Key": "open-early"}), 409, "shuffle_due")
    shoe = command(dealer, f"{table}/shuffles/", "shuffle-1", expected=201).json()
    assert (shoe["kind"], shoe["decks"], shoe["commitment"]) == ("physical", 6, "")
    assert dealer.get(f"{table}/state/").json()["shuffle_due"] is False
    opened = command(dealer, f"{table}/rounds/", "open-1", expected=201).json()
    assert (opened["status"], opened["number"], opened["awaiting_correction"]) == ("betting", 1, False)
    rounds = f"{table}/rounds/{opened['id']}"

    # Players bet through the API: main, a side bet, a bet behind
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    assert bartek.post(f"{table}/boxes/2/take/").status_code == 200
    bets = {
        "agi main": (agi, {"box": 1, "kind": "main", "stake_minor": 1000}),
        "agi pairs": (agi, {"box": 1, "kind": "perfect_pairs", "stake_minor": 500}),
        "bartek main": (bartek, {"box": 2, "kind": "main", "stake_minor": 2000}),
        "bartek behind": (bartek, {"box": 1, "kind": "behind", "stake_minor": 1000}),
    }
    ids = {
        name: command(client, f"{rounds}/bets/", name, body, 201).json()["id"]
        for name, (client, body) in bets.items()
    }

    # No more bets; the reader sends the deal; a double read of the dealer's card is a misscan
    closed = command(dealer, f"{rounds}/close-betting/", "close-1").json()
    assert closed["status"] == "dealing"
    refused(
        agi.post(
            f"{rounds}/bets/", {"box": 1, "kind": "main", "stake_minor": 500}, {"Idempotency-Key": "late"}
        ),
        409,
        "betting_closed",
    )
    for number, card in enumerate(["TS", "TH", "AS", "6H", "TD", "9C"]):
        command(reader, f"{rounds}/cards/", f"card-{number}", {"card": card})
    misscan = reader.post(f"{rounds}/cards/", {"card": "9C"}, headers={"Idempotency-Key": "card-again"})
    refused(misscan, 409, "misscan")
    state = dealer.get(f"{table}/state/").json()
    assert state["round"]["status"] == "insurance"
    assert state["round"]["awaiting_correction"]["card"] == "9C"
    corrected = command(
        dealer, f"{rounds}/card-correction/", "fix-1", {"card": None, "reason": "double read"}
    ).json()
    assert (corrected["awaiting_correction"], corrected["status"]) == (False, "insurance")

    # Insurance: Bartek insures his main bet; the dealer terminal ends the offer for the others
    command(bartek, f"{rounds}/insurance/", "b-ins", {"bet_id": ids["bartek main"], "take": True})
    after_offer = command(dealer, f"{rounds}/close-insurance/", "insurance-1").json()
    assert after_offer["status"] == "players"  # the dealer peeked: no blackjack

    # Decisions: Ági's 16 hits (the dealer terminal keys in the 5: 21), Bartek stands on 20
    command(agi, f"{rounds}/decisions/", "a-hit", {"box": 1, "decision": "hit"})
    command(dealer, f"{rounds}/cards/", "card-hit", {"card": "5C"})
    if (dealer.get(f"{table}/state/").json()["round"]["turn"] or {}).get("box") == 1:
        command(agi, f"{rounds}/decisions/", "a-stand", {"box": 1, "decision": "stand"})
    command(bartek, f"{rounds}/decisions/", "b-stand", {"box": 2, "decision": "stand"})
    assert dealer.get(f"{table}/state/").json()["round"]["status"] == "settling"  # soft 20 stands

    # The dealer terminal settles
    settled = command(dealer, f"{rounds}/settle/", "settle-1").json()

    # Then: the round is settled with the exact amounts of the cards
    # Ági: main 1000 wins +1000, Perfect Pairs 500 lost; Bartek: behind +1000, main pushes,
    # insurance 1000 lost
    assert settled["status"] == "settled"
    assert agi.get("/api/v1/player/balance/").json()["balance_minor"] == 500500
    assert bartek.get("/api/v1/player/balance/").json() == {
        "balance_minor": 250000,
        "held_minor": 0,
        "available_minor": 250000,
        "currency": "EUR",
    }
    # Every dealer command is audited as the dealer terminal's, the misscan as the reader's
    audit = {
        record.action: (record.terminal_id, record.role, record.actor_name)
        for record in AuditRecord.objects.filter(object_id__in=[str(opened["id"]), str(shoe["id"])])
    }
    by_dealer = (bj1_dealer.terminal.pk, "dealer_terminal", "terminal D-BJ1")
    assert audit["shoe.shuffled"] == audit["round.opened"] == audit["round.betting_closed"] == by_dealer
    assert audit["round.card_corrected"] == audit["round.settled"] == by_dealer
    assert audit["round.misscan"] == (bj1_reader.terminal.pk, "card_reader", "terminal R-BJ1")
    events = RoundEvent.objects.filter(round_id=opened["id"])
    assert {event.kind for event in events.filter(terminal=bj1_dealer.terminal)} == {
        "betting_opened",
        "betting_closed",
        "card_corrected",
        "insurance_closed",
        "card_dealt",  # the 5 the dealer terminal keyed in
        "settled",
    }
    # The bets go into the log at no more bets, each as its bettor's at the terminal it came from
    assert [
        (event.payload["action"]["bet"]["bet_id"], event.player.card_number, event.terminal_id, event.role)
        for event in events.filter(kind="bet_placed").select_related("player").order_by("sequence")
    ] == [
        (str(ids["agi main"]), "1000000001", bj1_terminal.terminal.pk, "player"),
        (str(ids["agi pairs"]), "1000000001", bj1_terminal.terminal.pk, "player"),
        (str(ids["bartek main"]), "1000000002", bj1_second_terminal.terminal.pk, "player"),
        (str(ids["bartek behind"]), "1000000002", bj1_second_terminal.terminal.pk, "player"),
    ]
    round_ = Round.objects.get(pk=opened["id"])
    assert round_.dealer is None  # no staff user: the terminal ran it


def test_a_virtual_shoe_round_the_commitment_is_returned_and_the_server_deals(bj1_dealer, agi):
    # Given: BJ1 on its virtual shoe, the dealer terminal shuffles
    dealer = ApiClient(bj1_dealer)
    table_settings_change(
        table=Table.objects.get(name="BJ1"),
        actor=Actor.staff(staff("operator")),
        settings={"shoe_kind": "virtual"},
    )
    table = f"/api/v1/tables/{table_id()}"

    # When: it shuffles, opens, Ági bets and the dealer terminal calls no more bets
    shoe = command(dealer, f"{table}/shuffles/", "shuffle-v", expected=201).json()
    opened = command(dealer, f"{table}/rounds/", "open-v", expected=201).json()
    rounds = f"{table}/rounds/{opened['id']}"
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    command(agi, f"{rounds}/bets/", "a-main", {"box": 1, "kind": "main", "stake_minor": 1000}, 201)
    closed = command(dealer, f"{rounds}/close-betting/", "close-v").json()

    # Then: the commitment is the stored one and is on the table state; the server dealt the cards
    stored = Shoe.objects.get(pk=shoe["id"])
    assert shoe["kind"] == "virtual" and re.fullmatch(r"[0-9a-f]{64}", shoe["commitment"])
    assert (
        shoe["commitment"] == stored.commitment == dealer.get(f"{table}/state/").json()["shoe"]["commitment"]
    )
    assert closed["status"] in ("insurance", "players", "settling")
    refused(
        dealer.post(f"{rounds}/cards/", {"card": "AS"}, {"Idempotency-Key": "v-card"}), 409, "virtual_shoe"
    )
    # and the round runs to its end: insurance ended, Ági stands, settled
    state = dealer.get(f"{table}/state/").json()["round"]
    if state["status"] == "insurance":
        command(dealer, f"{rounds}/close-insurance/", "insurance-v")
        state = dealer.get(f"{table}/state/").json()["round"]
    for decision in range(4):  # a split could add hands; one stand each
        if state["status"] != "players":
            break
        command(agi, f"{rounds}/decisions/", f"stand-{decision}", {"box": 1, "decision": "stand"})
        state = dealer.get(f"{table}/state/").json()["round"]
    assert command(dealer, f"{rounds}/settle/", "settle-v").json()["status"] == "settled"
    assert agi.get("/api/v1/player/balance/").json()["held_minor"] == 0


def test_a_round_without_bets_goes_to_settlement_at_no_more_bets(bj1_dealer):
    dealer = ApiClient(bj1_dealer)
    opened = ready_round(dealer)
    rounds = f"/api/v1/tables/{table_id()}/rounds/{opened['id']}"

    assert command(dealer, f"{rounds}/close-betting/", "close").json()["status"] == "settling"
    assert command(dealer, f"{rounds}/settle/", "settle").json()["status"] == "settled"


# ---------------------------------------------------------------- refusals


def test_only_the_tables_dealer_terminal_runs_its_round(bj1_dealer, bj2_dealer, bj1_reader, agi):
    # Given: a BJ1 round open for bets by its dealer terminal, BJ2 shuffled and open too
    opened = ready_round(ApiClient(bj1_dealer))
    ready_round(ApiClient(bj2_dealer), "BJ2")
    table = f"/api/v1/tables/{table_id()}"
    rounds = f"{table}/rounds/{opened['id']}"
    reader, other = ApiClient(bj1_reader), ApiClient(bj2_dealer)
    bare_terminal = ApiClient(agi.device)  # the player terminal without its player
    before = refused_snapshot()

    # When: the card reader, a player (with and without the token) and BJ2's dealer terminal try
    attempts = {
        "reader opens": (reader, f"{table}/rounds/", None),
        "reader closes betting": (reader, f"{rounds}/close-betting/", None),
        "reader settles": (reader, f"{rounds}/settle/", None),
        "reader shuffles": (reader, f"{table}/shuffles/", None),
        "reader corrects": (reader, f"{rounds}/card-correction/", {"card": None, "reason": "x"}),
        "player closes betting": (agi, f"{rounds}/close-betting/", None),
        "player settles": (agi, f"{rounds}/settle/", None),
        "player terminal ends insurance": (bare_terminal, f"{rounds}/close-insurance/", None),
        "player terminal shuffles": (bare_terminal, f"{table}/shuffles/", None),
        "other table's dealer, this table": (other, f"{rounds}/close-betting/", None),
        "other table's dealer opens here": (other, f"{table}/rounds/", None),
        "other table's dealer, its path": (
            other,
            f"/api/v1/tables/{table_id('BJ2')}/rounds/{opened['id']}/close-betting/",
            None,
        ),
        "other table's dealer corrects": (
            other,
            f"/api/v1/tables/{table_id('BJ2')}/rounds/{opened['id']}/card-correction/",
            {"card": "AS", "reason": "x"},
        ),
    }
    answers = {}
    for name, (client, path, body) in attempts.items():
        response = client.post(path, body, headers={"Idempotency-Key": re.sub(r"[^a-z]", "-", name)})
        assert response["Content-Type"] == PROBLEM, name
        answers[name] = (response.status_code, response.json()["code"])

    # Then: each is refused with its code, and nothing moved (no event, no audit record, no round)
    assert answers == {
        "reader opens": (403, "not_a_dealer_terminal"),
        "reader closes betting": (403, "not_a_dealer_terminal"),
        "reader settles": (403, "not_a_dealer_terminal"),
        "reader shuffles": (403, "not_a_dealer_terminal"),
        "reader corrects": (403, "not_a_dealer_terminal"),
        "player closes betting": (403, "not_a_dealer_terminal"),
        "player settles": (403, "not_a_dealer_terminal"),
        "player terminal ends insurance": (403, "not_a_dealer_terminal"),
        "player terminal shuffles": (403, "not_a_dealer_terminal"),
        "other table's dealer, this table": (403, "wrong_table"),
        "other table's dealer opens here": (403, "wrong_table"),
        "other table's dealer, its path": (403, "wrong_table"),
        "other table's dealer corrects": (403, "wrong_table"),
    }
    assert refused_snapshot() == before
    assert Round.objects.get(pk=opened["id"]).status == "betting"


def test_a_command_the_rounds_state_does_not_allow_is_refused_and_moves_nothing(bj1_dealer):
    # Given: a round open for bets
    dealer = ApiClient(bj1_dealer)
    opened = ready_round(dealer)
    table = f"/api/v1/tables/{table_id()}"
    rounds = f"{table}/rounds/{opened['id']}"
    before = refused_snapshot()

    # When: the dealer terminal sends what the round does not allow now
    answers = {
        name: dealer.post(path, body, headers={"Idempotency-Key": name.replace(" ", "-")})
        for name, (path, body) in {
            "settle before played": (f"{rounds}/settle/", None),
            "open while open": (f"{table}/rounds/", None),
            "shuffle while open": (f"{table}/shuffles/", None),
            "end insurance not offered": (f"{rounds}/close-insurance/", None),
            "correct without misscan": (f"{rounds}/card-correction/", {"card": "AS", "reason": "seen"}),
            "card while betting": (f"{rounds}/cards/", {"card": "AS"}),
            "unknown round": (f"{table}/rounds/999999/settle/", None),
        }.items()
    }

    # Then: problem+json with the service's code; no event, no audit record, no bet moved
    assert {name: (answer.status_code, answer.json()["code"]) for name, answer in answers.items()} == {
        "settle before played": (409, "round_not_played"),
        "open while open": (409, "round_in_progress"),
        "shuffle while open": (409, "round_in_progress"),
        "end insurance not offered": (409, "insurance_not_offered"),
        "correct without misscan": (409, "no_misscan"),
        "card while betting": (409, "round_not_open"),
        "unknown round": (404, "not_found"),
    }
    assert {answer["Content-Type"] for answer in answers.values()} == {PROBLEM}
    assert refused_snapshot() == before

    # And after no more bets, a second close is stale too
    command(dealer, f"{rounds}/close-betting/", "close")
    again = refused_snapshot()
    refused(
        dealer.post(f"{rounds}/close-betting/", headers={"Idempotency-Key": "close-again"}),
        409,
        "betting_closed",
    )
    assert refused_snapshot() == again


def test_a_correction_needs_a_reason_and_a_card_the_deal_expects(bj1_dealer, bj1_reader, agi):
    # Given: a misscan while the round expects no card (a card read twice at the end of the deal)
    dealer, reader = ApiClient(bj1_dealer), ApiClient(bj1_reader)
    opened = ready_round(dealer)
    rounds = f"/api/v1/tables/{table_id()}/rounds/{opened['id']}"
    assert agi.post(f"/api/v1/tables/{table_id()}/boxes/1/take/").status_code == 200
    command(agi, f"{rounds}/bets/", "main", {"box": 1, "kind": "main", "stake_minor": 1000}, 201)
    command(dealer, f"{rounds}/close-betting/", "close")
    for number, card in enumerate(["TS", "5D", "7H", "9C"]):
        command(reader, f"{rounds}/cards/", f"card-{number}", {"card": card})
    refused(reader.post(f"{rounds}/cards/", {"card": "9C"}, {"Idempotency-Key": "again"}), 409, "misscan")
    before = refused_snapshot()

    # When: a correction without a reason, or with a card where none is expected
    no_reason = dealer.post(
        f"{rounds}/card-correction/", {"card": None, "reason": " \x1c\t"}, {"Idempotency-Key": "r"}
    )
    wrong_card = dealer.post(
        f"{rounds}/card-correction/", {"card": "2C", "reason": "seen"}, {"Idempotency-Key": "c"}
    )

    # Then: refused, the round still waits on the misscan
    refused(no_reason, 409, "reason_required")
    refused(wrong_card, 409, "card_not_expected")
    assert refused_snapshot() == before
    assert Round.objects.get(pk=opened["id"]).awaiting_correction["card"] == "9C"


# ---------------------------------------------------------------- idempotency


def test_a_repeated_dealer_command_replays_its_first_answer_and_runs_once(bj1_dealer):
    dealer = ApiClient(bj1_dealer)
    table = f"/api/v1/tables/{table_id()}"
    physical("BJ1")

    # A shuffle and an open sent twice each: one shoe, one round, the same answers
    first_shuffle = command(dealer, f"{table}/shuffles/", "shuffle", expected=201)
    second_shuffle = command(dealer, f"{table}/shuffles/", "shuffle", expected=201)
    first_open = command(dealer, f"{table}/rounds/", "open", expected=201)
    second_open = command(dealer, f"{table}/rounds/", "open", expected=201)
    assert second_shuffle.json() == first_shuffle.json() and second_shuffle["Idempotency-Replayed"] == "true"
    assert second_open.json() == first_open.json() and second_open["Idempotency-Replayed"] == "true"
    assert Shoe.objects.filter(table_id=table_id(), retired_at__isnull=True).count() == 1
    assert Round.objects.filter(table_id=table_id()).count() == 1
    rounds = f"{table}/rounds/{first_open.json()['id']}"

    # No more bets twice: one betting_closed event; settle twice: settled once
    first_close = command(dealer, f"{rounds}/close-betting/", "close")
    events = RoundEvent.objects.count()
    second_close = command(dealer, f"{rounds}/close-betting/", "close")
    first_settle = command(dealer, f"{rounds}/settle/", "settle")
    audited = AuditRecord.objects.count()
    second_settle = command(dealer, f"{rounds}/settle/", "settle")
    assert second_close.json() == first_close.json() and second_close["Idempotency-Replayed"] == "true"
    assert second_settle.json() == first_settle.json() and second_settle["Idempotency-Replayed"] == "true"
    assert RoundEvent.objects.filter(round_id=first_open.json()["id"], kind="betting_closed").count() == 1
    assert RoundEvent.objects.filter(round_id=first_open.json()["id"], kind="settled").count() == 1
    assert RoundEvent.objects.count() == events + 1  # the settled event only
    assert AuditRecord.objects.count() == audited

    # A refusal is a first answer too; the same key for another command is refused
    stale = dealer.post(f"{rounds}/settle/", headers={"Idempotency-Key": "stale"})
    stale_again = dealer.post(f"{rounds}/settle/", headers={"Idempotency-Key": "stale"})
    refused(stale, 409, "round_not_played")
    assert stale_again.json() == stale.json() and stale_again["Idempotency-Replayed"] == "true"
    refused(
        dealer.post(f"{rounds}/close-insurance/", headers={"Idempotency-Key": "settle"}),
        422,
        "idempotency_key_reused",
    )
    refused(dealer.post(f"{table}/rounds/"), 400, "idempotency_key_required")


# ---------------------------------------------------------------- statements


def statements(client: ApiClient, path: str, key: str, body: Any = None, expected: int = 200) -> int:
    with CaptureQueriesContext(connection) as queries:
        command(client, path, key, body, expected)
    return len(queries.captured_queries)


def test_what_each_dealer_command_costs_in_statements(bj1_dealer, bj1_reader, agi):
    # Given: BJ1 on a physical shoe with Ági's main bet on box 1
    dealer, reader = ApiClient(bj1_dealer), ApiClient(bj1_reader)
    table = f"/api/v1/tables/{table_id()}"
    physical("BJ1")
    for client in (dealer, reader):  # the credential's first use of the minute is one more UPDATE
        assert client.get(f"{table}/state/").status_code == 200
    counts = {"shoe_shuffle": statements(dealer, f"{table}/shuffles/", "shuffle", expected=201)}
    counts["round_open"] = statements(dealer, f"{table}/rounds/", "open", expected=201)
    rounds = f"{table}/rounds/{Round.objects.get(table_id=table_id()).pk}"
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    command(agi, f"{rounds}/bets/", "main", {"box": 1, "kind": "main", "stake_minor": 1000}, 201)

    # When: the dealer terminal runs the round (Ági: T 5 = 15 stands; dealer: 7 9 then 2 = 18)
    counts["round_close_betting"] = statements(dealer, f"{rounds}/close-betting/", "close")
    counts["card_enter (dealer terminal)"] = statements(dealer, f"{rounds}/cards/", "c1", {"card": "TS"})
    counts["card_enter (card reader)"] = statements(reader, f"{rounds}/cards/", "c2", {"card": "7D"})
    for number, card in enumerate(["5H", "9C"]):
        command(reader, f"{rounds}/cards/", f"c{number + 3}", {"card": card})
    refused(reader.post(f"{rounds}/cards/", {"card": "9C"}, {"Idempotency-Key": "again"}), 409, "misscan")
    counts["card_correct"] = statements(
        dealer, f"{rounds}/card-correction/", "fix", {"card": None, "reason": "double read"}
    )
    command(agi, f"{rounds}/decisions/", "stand", {"box": 1, "decision": "stand"})
    command(reader, f"{rounds}/cards/", "c5", {"card": "2S"})
    counts["round_settle"] = statements(dealer, f"{rounds}/settle/", "settle")

    # Then: each command's statements. Eight are the request's whatever it does: the terminal's
    # credential, the request's transaction (BEGIN and COMMIT; a savepoint and its release inside
    # this test's transaction), the idempotency key's lock, its record (the ORM's insert in a
    # savepoint of its own: three; casino/idempotency.py says why it is not written by hand) and the
    # stored answer. Each service's own
    # transaction is a savepoint inside it (two more), and each command's audit records three
    # together (the chain's lock, the last link, the insert). Opening a round reads, once the
    # table is locked, its shoe with its last round, its configuration and who is signed on in
    # one statement. The settlement posts the ledger (in the same transaction: the holds and accounts
    # locked, the transfer, postings and holds written) and seals the round (its events read).
    # Opening a round and settling one each take the gaming day's lock and check that it is open
    # (two statements, ``casino.gaming_day_state.gaming_day_writable``), and opening reads the
    # table's casino for it (one more). Five commands are above the aim of 15, each by the
    # idempotency record's three and: opening a round by the gaming day's three, "no more bets" by
    # one (the boxes and the bets read, the events and the round written), the settlement, the
    # shuffle and the correction.
    assert counts == {
        "shoe_shuffle": 18,
        "round_open": 21,
        "round_close_betting": 19,
        "card_enter (dealer terminal)": 14,
        "card_enter (card reader)": 14,
        "card_correct": 17,
        "round_settle": 33,
    }
