from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
from django.db import connection
from django.utils import timezone

from tables.models import Round
from tests.api.conftest import ApiClient


def state_url(round_) -> str:
    return f"/api/v1/tables/{round_.table_id}/state/"


def bet(client: ApiClient, round_, key: str, box: int = 1, kind: str = "main", stake_minor: int = 1000):
    return client.post(
        f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/bets/",
        {"box": box, "kind": kind, "stake_minor": stake_minor},
        headers={"Idempotency-Key": key},
    )


def test_a_terminal_reads_the_table_state_with_an_etag(bj1_terminal, bj1_round):
    response = ApiClient(bj1_terminal).get(state_url(bj1_round))

    body = response.json()
    assert response.status_code == 200
    assert response["ETag"] == f'"{body["version"]}"'
    assert response["Cache-Control"] == "private, no-cache"
    assert body["table"]["name"] == "BJ1"
    assert body["round"]["id"] == bj1_round.pk
    assert body["round"]["status"] == "betting"
    assert body["round"]["decision_deadline_at"] is not None
    assert "seconds_left" not in body["round"]
    assert body["round"]["turn"] is None
    assert body["shuffle_due"] is False
    assert body["shoe"]["kind"] == "physical"
    assert body["config"]["main_min_minor"] > 0
    assert [box["number"] for box in body["boxes"]] == [1, 2, 3, 4, 5, 6, 7]
    assert all(box["owner_id"] is None and box["bets"] == [] for box in body["boxes"])


def test_the_players_view_marks_their_own_bets(agi, bartek, bj1_round):
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/")
    bartek.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/2/take/")
    bet(agi, bj1_round, "a1", box=1, stake_minor=1000)
    bet(bartek, bj1_round, "b1", box=2, stake_minor=2000)

    body = agi.get(state_url(bj1_round)).json()

    boxes = {box["number"]: box for box in body["boxes"]}
    assert [(b["stake_minor"], b["is_mine"]) for b in boxes[1]["bets"]] == [(1000, True)]
    assert [(b["stake_minor"], b["is_mine"]) for b in boxes[2]["bets"]] == [(2000, False)]
    assert boxes[1]["owner_id"] == agi.get("/api/v1/player-sessions/current/").json()["player"]["id"]
    assert [(seat["display_name"], seat["is_owner"], seat["win_streak"]) for seat in boxes[2]["seats"]] == [
        ("Bartek Nowak", True, 0)
    ]


def test_if_none_match_answers_304_until_the_state_changes(agi, bartek, bj1_round):
    first = agi.get(state_url(bj1_round))
    etag = first["ETag"]

    unchanged = agi.get(state_url(bj1_round), headers={"If-None-Match": etag})
    weak = agi.get(state_url(bj1_round), headers={"If-None-Match": f'"other", W/{etag}'})
    bartek.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/2/take/")
    changed = agi.get(state_url(bj1_round), headers={"If-None-Match": etag})

    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged["ETag"] == etag
    assert weak.status_code == 304
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert changed.json()["boxes"][1]["owner_id"] is not None


def test_every_kind_of_change_gives_a_new_version(agi, bj1_reader, bj1_round):
    table = bj1_round.table_id
    rounds = f"/api/v1/tables/{table}/rounds/{bj1_round.pk}"
    reader = ApiClient(bj1_reader)
    steps = {
        "box taken": lambda: agi.post(f"/api/v1/tables/{table}/boxes/1/take/"),
        "no bets behind": lambda: agi.put(f"/api/v1/tables/{table}/boxes/1/bets-behind/", {"accepts": False}),
        "bet placed": lambda: bet(agi, bj1_round, "v1", stake_minor=1000),
        "side bet placed": lambda: bet(agi, bj1_round, "v2", kind="perfect_pairs", stake_minor=500),
        "side bet cancelled": lambda: agi.delete(
            f"{rounds}/bets/{agi.get(state_url(bj1_round)).json()['boxes'][0]['bets'][1]['bet_id']}/",
            headers={"Idempotency-Key": "v3"},
        ),
        "no more bets": lambda: close_betting(bj1_round),
        "card": lambda: reader.post(f"{rounds}/cards/", {"card": "9S"}, headers={"Idempotency-Key": "c1"}),
    }
    versions = [agi.get(state_url(bj1_round))["ETag"]]

    for name, step in steps.items():
        response = step()
        assert response is None or response.status_code < 300, (name, response.content)
        versions.append(agi.get(state_url(bj1_round))["ETag"])

    assert len(set(versions)) == len(versions)
    assert agi.get(state_url(bj1_round)).json()["boxes"][0]["hands"][0]["cards"] == ["9S"]


def close_betting(round_) -> None:
    """The dealer's "no more bets" (dealer console, not the terminal API)."""
    from casino.actors import Actor
    from tables.services.rounds import round_close_betting
    from tests.api.conftest import staff

    round_close_betting(round_id=round_.pk, actor=Actor.staff(staff("dealer")))


def test_a_card_reader_reads_its_tables_state_and_the_card_expected(bj1_reader, agi, bj1_round):
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/")
    bet(agi, bj1_round, "r1")
    close_betting(bj1_round)

    body = ApiClient(bj1_reader).get(state_url(bj1_round)).json()

    assert body["round"]["status"] == "dealing"
    assert body["round"]["card_expected"] == {"to": "box", "box": 1, "hand": 0, "is_face_up": True}
    assert all(not b["is_mine"] for box in body["boxes"] for b in box["bets"])


def test_other_tables_and_bad_tokens_are_refused(bj1_terminal, bj2_terminal, bj1_round):
    other = ApiClient(bj2_terminal).get(state_url(bj1_round))
    bad_token = ApiClient(bj1_terminal, "not-a-real-token").get(state_url(bj1_round))
    bad_query = ApiClient(bj1_terminal).get(state_url(bj1_round), wait="forever")

    assert (other.status_code, other.json()["code"]) == (403, "wrong_table")
    assert (bad_token.status_code, bad_token.json()["code"]) == (401, "player_token_invalid")
    assert (bad_query.status_code, bad_query.json()["code"]) == (400, "invalid")


def test_reading_the_state_applies_an_overdue_betting_deadline(agi, bj1_round):
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/")
    bet(agi, bj1_round, "d1")
    Round.objects.filter(pk=bj1_round.pk).update(
        decision_deadline_at=timezone.now() - dt.timedelta(seconds=1)
    )

    body = agi.get(state_url(bj1_round)).json()

    assert body["round"]["status"] == "dealing"
    assert Round.objects.get(pk=bj1_round.pk).status == "dealing"


def test_a_long_poll_without_change_answers_304_after_the_capped_wait(agi, bj1_round, settings):
    settings.API_LONG_POLL_MAX_MILLISECONDS = 300
    settings.API_LONG_POLL_STEP_MILLISECONDS = 50
    version = agi.get(state_url(bj1_round)).json()["version"]

    started = time.monotonic()
    response = agi.get(state_url(bj1_round), wait=20, version=version)
    waited = time.monotonic() - started

    assert response.status_code == 304
    assert response["ETag"] == f'"{version}"'
    assert waited >= 0.3


def test_a_long_poll_with_an_old_version_answers_at_once(agi, bj1_round, settings):
    settings.API_LONG_POLL_MAX_MILLISECONDS = 30_000
    version = agi.get(state_url(bj1_round)).json()["version"]
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/3/take/")

    response = agi.get(state_url(bj1_round), wait=30, version=version)

    assert response.status_code == 200
    assert response.json()["boxes"][2]["owner_id"] is not None


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_returns_as_soon_as_another_terminal_changes_the_table(seeded, settings):
    from tests.api.conftest import make_device, open_round, sign_in

    settings.API_LONG_POLL_MAX_MILLISECONDS = 20_000
    settings.API_LONG_POLL_STEP_MILLISECONDS = 50
    round_ = open_round("BJ1")
    watcher = ApiClient(make_device("T-BJ1-1", "player_terminal", "BJ1"))
    device = make_device("T-BJ1-2", "player_terminal", "BJ1")
    player = ApiClient(device, sign_in(device, "1000000002", "2222"))
    version = watcher.get(state_url(round_)).json()["version"]
    answer: dict[str, object] = {}

    def poll() -> None:
        try:
            response = ApiClient(watcher.device).get(state_url(round_), wait=20, version=version)
            answer["status"] = response.status_code
            answer["owner"] = response.json()["boxes"][4]["owner_id"]
            answer["at"] = time.monotonic()
        finally:
            connection.close()

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    changed_at = time.monotonic()
    assert player.post(f"/api/v1/tables/{round_.table_id}/boxes/5/take/").status_code == 200
    thread.join(timeout=20)

    assert answer["status"] == 200
    assert answer["owner"] is not None
    assert answer["at"] - changed_at < 10  # woken by the change, not by the 20-second wait


def test_box_numbers_outside_1_to_7_are_404_no_such_box(agi, bj1_round):
    table = bj1_round.table_id
    responses = [
        agi.post(f"/api/v1/tables/{table}/boxes/8/take/"),
        agi.post(f"/api/v1/tables/{table}/boxes/0/leave/"),
        agi.put(f"/api/v1/tables/{table}/boxes/99/bets-behind/", {"accepts": False}),
        agi.post(f"/api/v1/tables/{table}/boxes/x/take/"),
    ]

    assert [(r.status_code, r.json()["code"]) for r in responses] == [(404, "no_such_box")] * 4


def test_a_box_the_table_does_not_use_is_404_too(agi, seeded):
    from tests.api.conftest import open_round

    round_ = open_round("BJ1", boxes=5)

    from tests.snapshots import refused_snapshot

    before = refused_snapshot()
    take = agi.post(f"/api/v1/tables/{round_.table_id}/boxes/6/take/")
    bet = agi.post(
        f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/bets/",
        {"box": 6, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "box-6"},
    )

    # one code, one status, wherever the box is named (a path or a bet's body)
    assert (take.status_code, take.json()["code"]) == (404, "no_such_box")
    assert (bet.status_code, bet.json()["code"]) == (404, "no_such_box")
    assert refused_snapshot() == before


def test_terminals_share_the_serialized_state_of_a_version_each_with_their_own_bets(agi, bartek, bj1_round):
    # given Ági's bet on box 1 and Bartek's on box 2
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/")
    bartek.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/2/take/")
    bet(agi, bj1_round, "a1", box=1, stake_minor=1000)
    bet(bartek, bj1_round, "b1", box=2, stake_minor=2000)

    # when both terminals read the state at one version of the table
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as first:
        agis = agi.get(state_url(bj1_round)).json()
    with CaptureQueriesContext(connection) as second:
        barteks = bartek.get(state_url(bj1_round)).json()

    # then the second was answered from the state the first serialized (authentication and the
    # version only), each with its own version and bets marked. The first read the state in 5:
    # the round, the shoe with the configuration's id, the boxes with their seats, the boxes' own
    # bets, the totals of the bets behind them.
    assert (len(first.captured_queries), len(second.captured_queries)) == (3 + 5, 3)
    assert agis["version"] != barteks["version"]
    mine = {
        name: [(b["stake_minor"], b["is_mine"]) for box in body["boxes"] for b in box["bets"]]
        for name, body in (("agi", agis), ("bartek", barteks))
    }
    assert mine == {"agi": [(1000, True), (2000, False)], "bartek": [(1000, False), (2000, True)]}

    # and a new bet is in the next answer of both
    bet(agi, bj1_round, "a2", box=1, kind="perfect_pairs", stake_minor=100)
    for client in (agi, bartek):
        stakes = [
            b["stake_minor"] for box in client.get(state_url(bj1_round)).json()["boxes"] for b in box["bets"]
        ]
        assert stakes == [1000, 100, 2000]


def test_a_terminal_sees_the_bets_behind_a_box_as_totals_and_a_player_their_own(agi, bartek, bj1_round):
    # given Ági's box 1 with her main bet, and Bartek behind it with two bets
    from tables.selectors import table_state
    from tables.services import bet_place
    from tests.api.conftest import make_device
    from tests.tables.conftest import at_terminal, funded_player

    table = bj1_round.table
    agi.post(f"/api/v1/tables/{table.pk}/boxes/1/take/")
    bet(agi, bj1_round, "a1", box=1, stake_minor=1000)
    for key in ("b1", "b2"):
        assert bet(bartek, bj1_round, key, box=1, kind="behind", stake_minor=500).status_code == 201
    watcher = ApiClient(make_device("T-BJ1-9", "player_terminal", "BJ1"))
    small = watcher.get(state_url(bj1_round)).json()

    # when a crowd of nine more players places 98 more bets behind it
    crowd = [funded_player(table, 100_000) for _ in range(9)]
    for number in range(98):
        player = crowd[number % 9]
        bet_place(
            round_id=bj1_round.pk,
            actor=at_terminal(table, player),
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key=f"crowd-{number}",
        )
    large = watcher.get(state_url(bj1_round)).json()
    barteks = bartek.get(state_url(bj1_round)).json()
    agis = agi.get(state_url(bj1_round)).json()

    # then a terminal sees the box's own bet and the hundred bets behind it as one total
    box = large["boxes"][0]
    assert [(b["kind"], b["stake_minor"], b["is_mine"]) for b in box["bets"]] == [("main", 1000, False)]
    assert [seat["display_name"] for seat in box["seats"]] == ["Ági Kovács"]
    assert box["behind"] == {"players": 10, "bets": [{"kind": "behind", "count": 100, "stake_minor": 50_000}]}
    assert small["boxes"][0]["behind"] == {
        "players": 1,
        "bets": [{"kind": "behind", "count": 2, "stake_minor": 1000}],
    }
    # and the state keeps its size: only numbers differ (the version, the counts)
    assert shape(large) == shape(small)
    # each player sees their own bets behind and their seat; the owner hers
    assert [(b["kind"], b["stake_minor"], b["is_mine"]) for b in barteks["boxes"][0]["bets"]] == [
        ("main", 1000, False),
        ("behind", 500, True),
        ("behind", 500, True),
    ]
    assert [(s["display_name"], s["is_owner"]) for s in barteks["boxes"][0]["seats"]] == [
        ("Ági Kovács", True),
        ("Bartek Nowak", False),
    ]
    assert [(b["kind"], b["is_mine"]) for b in agis["boxes"][0]["bets"]] == [("main", True)]
    assert agis["boxes"][0]["behind"] == box["behind"]
    # the console (staff) still reads every bet behind one by one
    full = table_state(table=table)["boxes"][0]
    assert (len(full["bets"]), len(full["seats"])) == (101, 11)


def shape(state: dict) -> str:
    """The state's JSON with every number and the version blanked out."""
    import json
    import re

    return re.sub(r"\d+", "0", json.dumps({**state, "version": ""}, sort_keys=True))


def test_the_insurance_of_a_bet_behind_is_counted_with_the_bets_behind(agi, bartek, bj1_reader, bj1_round):
    # given Ági's main bet on box 1 and Bartek's bet behind it, the dealer showing an ace
    rounds = f"/api/v1/tables/{bj1_round.table_id}/rounds/{bj1_round.pk}"
    agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/")
    main = bet(agi, bj1_round, "a1", box=1, stake_minor=1000).json()["id"]
    behind = bet(bartek, bj1_round, "b1", box=1, kind="behind", stake_minor=500).json()["id"]
    close_betting(bj1_round)
    for number, card in enumerate(["TS", "AS", "7H", "9C"]):
        sent = ApiClient(bj1_reader).post(
            f"{rounds}/cards/", {"card": card}, headers={"Idempotency-Key": f"c{number}"}
        )
        assert sent.status_code == 200, sent.content

    # when both insure their bets
    for client, bet_id, key in ((agi, main, "i1"), (bartek, behind, "i2")):
        taken = client.post(
            f"{rounds}/insurance/", {"bet_id": bet_id, "take": True}, headers={"Idempotency-Key": key}
        )
        assert taken.status_code == 200, taken.content

    # then the owner's insurance is one of the box's bets, the other one counted behind it
    box = ApiClient(bj1_reader).get(state_url(bj1_round)).json()["boxes"][0]
    assert [(b["kind"], b["stake_minor"]) for b in box["bets"]] == [("main", 1000), ("insurance", 500)]
    assert box["behind"]["bets"] == [
        {"kind": "behind", "count": 1, "stake_minor": 500},
        {"kind": "insurance", "count": 1, "stake_minor": 250},
    ]
    # and Bartek sees both of his
    barteks = bartek.get(state_url(bj1_round)).json()["boxes"][0]["bets"]
    assert [(b["kind"], b["stake_minor"], b["is_mine"]) for b in barteks] == [
        ("main", 1000, False),
        ("insurance", 500, False),
        ("behind", 500, True),
        ("insurance", 250, True),
    ]
