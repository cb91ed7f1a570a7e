"""One round played through the terminal API only, from sign-in to settlement, on a physical
shoe whose cards the table's card reader sends in a fixed order, so every amount is exact. The
dealer's own steps (open betting, no more bets, settle) are dealer-console services."""

from __future__ import annotations

from casino.actors import Actor
from tables.services.rounds import round_close_betting
from tables.services.settlement import round_settle
from tests.api.conftest import ApiClient, open_round, sign_in, staff


def test_a_whole_round_through_the_api(bj1_terminal, bj1_second_terminal, bj1_reader, seeded):
    # Given: the dealer opened betting on BJ1 (physical shoe); two players sign in at its terminals
    round_ = open_round("BJ1")
    agi = ApiClient(bj1_terminal, sign_in(bj1_terminal, "1000000001", "1111"))
    bartek = ApiClient(bj1_second_terminal, sign_in(bj1_second_terminal, "1000000002", "2222"))
    reader = ApiClient(bj1_reader)
    table = f"/api/v1/tables/{round_.table_id}"
    rounds = f"{table}/rounds/{round_.pk}"
    state = agi.get(f"{table}/state/").json()
    assert (state["round"]["id"], state["round"]["status"]) == (round_.pk, "betting")

    def money(client: ApiClient, path: str, body: dict, key: str, expected: int = 201) -> dict:
        response = client.post(path, body, headers={"Idempotency-Key": key})
        assert response.status_code == expected, response.content
        return response.json()

    # When: they take boxes and bet (main, side, behind), each with an Idempotency-Key
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    assert bartek.post(f"{table}/boxes/2/take/").status_code == 200
    agi_main = money(agi, f"{rounds}/bets/", {"box": 1, "kind": "main", "stake_minor": 1000}, "a-main")
    money(agi, f"{rounds}/bets/", {"box": 1, "kind": "perfect_pairs", "stake_minor": 500}, "a-pp")
    bartek_main = money(bartek, f"{rounds}/bets/", {"box": 2, "kind": "main", "stake_minor": 2000}, "b-main")
    bartek_behind = money(
        bartek, f"{rounds}/bets/", {"box": 1, "kind": "behind", "stake_minor": 1000}, "b-behind"
    )
    retry = bartek.post(
        f"{rounds}/bets/",
        {"box": 2, "kind": "main", "stake_minor": 2000},
        headers={"Idempotency-Key": "b-main"},
    )
    assert retry.json() == bartek_main and retry["Idempotency-Replayed"] == "true"
    assert agi.get("/api/v1/player/balance/").json()["held_minor"] == 1500
    assert bartek.get("/api/v1/player/balance/").json()["held_minor"] == 3000

    # The dealer calls no more bets; the card reader sends the cards as they leave the shoe
    round_close_betting(round_id=round_.pk, actor=Actor.staff(staff("dealer")))
    etag = agi.get(f"{table}/state/")["ETag"]
    deal = [("box", 1, "TS"), ("box", 2, "TH"), ("dealer", None, "AS"), ("box", 1, "6H"), ("box", 2, "TD")]
    deal += [("dealer", None, "9C")]
    for number, (to, box, card) in enumerate(deal):
        expected = reader.get(f"{table}/state/").json()["round"]["card_expected"]
        assert (expected["to"], expected["box"]) == (to, box)
        money(reader, f"{rounds}/cards/", {"card": card}, f"card-{number}", expected=200)
    polled = agi.get(f"{table}/state/", headers={"If-None-Match": etag})
    assert polled.status_code == 200
    state = polled.json()
    assert state["round"]["status"] == "insurance"
    assert state["round"]["dealer"]["cards"] == ["AS", None]  # hole card hidden

    # Insurance: the dealer shows an ace; Bartek insures his main bet, the rest decline
    money(bartek, f"{rounds}/insurance/", {"bet_id": bartek_main["id"], "take": True}, "b-ins", expected=200)
    money(
        bartek, f"{rounds}/insurance/", {"bet_id": bartek_behind["id"], "take": False}, "b-ins2", expected=200
    )
    after_insurance = money(
        agi, f"{rounds}/insurance/", {"bet_id": agi_main["id"], "take": False}, "a-ins", expected=200
    )
    assert after_insurance["status"] == "players"  # the dealer peeked: no blackjack

    # Decisions: Ági's 16 hits (a 5 from the reader: 21), Bartek stands on 20
    state = agi.get(f"{table}/state/").json()
    # (her 16 is no pair: the rules' decisions on it are hit, stand and double, no split)
    assert state["round"]["turn"] == {"box": 1, "hand": 0, "decisions": ["hit", "stand", "double"]}
    assert state["round"]["decision_deadline_at"] is not None
    money(agi, f"{rounds}/decisions/", {"box": 1, "decision": "hit"}, "a-hit", expected=200)
    money(reader, f"{rounds}/cards/", {"card": "5C"}, "card-hit", expected=200)
    state = agi.get(f"{table}/state/").json()
    if (state["round"]["turn"] or {}).get("box") == 1:
        money(agi, f"{rounds}/decisions/", {"box": 1, "decision": "stand"}, "a-stand", expected=200)
    money(bartek, f"{rounds}/decisions/", {"box": 2, "decision": "stand"}, "b-stand", expected=200)
    state = agi.get(f"{table}/state/").json()
    assert state["round"]["status"] == "settling"  # dealer's soft 20 stands
    assert state["round"]["dealer"] == {
        "cards": ["AS", "9C"],
        "total": 20,
        "is_soft": True,
        "is_bust": False,
        "is_blackjack": False,
    }
    assert [hand["total"] for box in state["boxes"][:2] for hand in box["hands"]] == [21, 20]

    # The dealer settles on the console
    round_settle(round_id=round_.pk, actor=Actor.staff(staff("dealer")))

    # Then: the balances and statements show the exact result
    # Ági: main 1000 wins (21 against 20) +1000, Perfect Pairs 500 (10 and 6) lost: 500,000 + 500
    # Bartek: bet behind Ági 1000 wins +1000, main 2000 pushes (20 against 20), insurance 1000
    # lost (no dealer blackjack): 250,000 + 0
    agi_balance = agi.get("/api/v1/player/balance/").json()
    bartek_balance = bartek.get("/api/v1/player/balance/").json()
    assert agi_balance == {
        "balance_minor": 500500,
        "held_minor": 0,
        "available_minor": 500500,
        "currency": "EUR",
    }
    assert bartek_balance == {
        "balance_minor": 250000,
        "held_minor": 0,
        "available_minor": 250000,
        "currency": "EUR",
    }
    agi_lines = agi.get("/api/v1/player/statement/").json()["lines"]
    bartek_lines = bartek.get("/api/v1/player/statement/").json()["lines"]
    assert [(line["kind"], line["amount_minor"], line["balance_after_minor"]) for line in agi_lines] == [
        ("buy_in", 500000, 500000),
        ("round_settlement", 500, 500500),
    ]
    # Bartek's wins and losses net to zero: the settlement moves nothing on his balance
    assert [(line["kind"], line["amount_minor"]) for line in bartek_lines] == [("buy_in", 250000)]
    state = agi.get(f"{table}/state/").json()
    assert state["round"]["status"] == "settled"
    # Ági's seat at her box 1, Bartek counted behind it; he sees his own seat there too
    assert [seat["win_streak"] for seat in state["boxes"][0]["seats"]] == [1]
    assert state["boxes"][0]["behind"]["players"] == 1
    barteks = bartek.get(f"{table}/state/").json()["boxes"][0]["seats"]
    assert [(seat["is_owner"], seat["win_streak"]) for seat in barteks] == [(True, 1), (False, 1)]
