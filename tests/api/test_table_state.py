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
    # version only), each with its own version and bets marked. The first read the state in 4:
    # the round, the shoe with the configuration's id, the boxes with their seats, the bets.
    assert (len(first.captured_queries), len(second.captured_queries)) == (3 + 4, 3)
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
