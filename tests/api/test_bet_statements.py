"""A bet through the terminal API makes a fixed set of statements, whatever the round holds
(bench/api_bets.py measures what they cost; the service's own are pinned in
tests/tables/test_services.py)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import ApiClient, open_round, sign_in


def test_a_bet_behind_through_the_api_makes_the_same_statements_every_time(bj1_terminal, bj1_second_terminal):
    # given Ági's box 1 with her main bet, and Bartek who bets behind it
    round_ = open_round("BJ1")
    agi = ApiClient(bj1_terminal, sign_in(bj1_terminal, "1000000001", "1111"))
    bartek = ApiClient(bj1_second_terminal, sign_in(bj1_second_terminal, "1000000002", "2222"))
    table, rounds = (
        f"/api/v1/tables/{round_.table_id}",
        f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}",
    )
    assert agi.post(f"{table}/boxes/1/take/").status_code == 200
    main = {"box": 1, "kind": "main", "stake_minor": 1000}
    assert agi.post(f"{rounds}/bets/", main, headers={"Idempotency-Key": "m"}).status_code == 201
    behind = {"box": 1, "kind": "behind", "stake_minor": 500}
    assert bartek.post(f"{rounds}/bets/", behind, headers={"Idempotency-Key": "b1"}).status_code == 201

    # when he bets behind it twice more
    counts = []
    for key in ("b2", "b3"):
        with CaptureQueriesContext(connection) as queries:
            assert bartek.post(f"{rounds}/bets/", behind, headers={"Idempotency-Key": key}).status_code == 201
        counts.append([query["sql"][:100] for query in queries.captured_queries])

    # then each bet is the same 16 statements: the terminal's credential and the player's session,
    # the savepoint of the request's transaction (BEGIN outside this test's transaction), the
    # idempotency key's lock and its record (inserted in a savepoint: 4), the 7 of the bet (see
    # bet_place: the gaming day's lock and its check among them), the stored response and the
    # release (COMMIT)
    assert len(counts[0]) == len(counts[1]) == 16, "\n".join(counts[1])
