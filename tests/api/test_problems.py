"""Refusals that come from below the services: the request body and the database."""

from __future__ import annotations

import psycopg.errors
import pytest
from django.db import OperationalError

from casino.api import exception_handler
from tables.models import Bet
from tests.snapshots import ledger_snapshot, table_snapshot


@pytest.mark.parametrize("body", ["[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000])
def test_a_body_nested_too_deeply_is_a_400_not_a_500(agi, bj1_round, body):
    table = f"/api/v1/tables/{bj1_round.table_id}"
    requests = [
        ("post", f"{table}/rounds/{bj1_round.pk}/bets/"),
        ("post", "/api/v1/player-sessions/"),
        ("put", f"{table}/boxes/1/bets-behind/"),
    ]
    for method, path in requests:
        answer = getattr(agi.client, method)(
            path, body, content_type="application/json", headers=agi._headers({"Idempotency-Key": "deep"})
        )
        assert answer.status_code == 400, (path, answer.content[:200])
        assert answer["Content-Type"] == "application/problem+json"
        assert answer.json()["code"] == "parse_error"
        assert "nested too deeply" in answer.json()["detail"]
    assert not Bet.objects.exists()


def _operational(cause: Exception) -> OperationalError:
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


@pytest.mark.parametrize("cause", [psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure])
def test_a_transaction_given_up_by_postgresql_is_a_409_to_send_again(cause, caplog):
    with caplog.at_level("WARNING", logger="casino.api"):
        answer = exception_handler(_operational(cause("given up")), {})

    assert answer is not None
    assert answer.status_code == 409
    assert answer.data["code"] == "concurrent_update"
    assert answer["Retry-After"] == "1"
    assert answer.content_type == "application/problem+json"
    # and the log keeps it: a lock-order bug shows itself this way
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert "given up" in caplog.records[0].getMessage()


def test_any_other_database_failure_stays_a_server_error():
    assert exception_handler(_operational(psycopg.errors.AdminShutdown("bye")), {}) is None


def test_a_path_under_api_that_names_no_endpoint_is_a_problem_404(agi, bj1_round):
    rounds = f"/api/v1/tables/{bj1_round.table_id}/rounds"
    answers = {
        "unknown": agi.client.get("/api/v1/nope/"),
        "newline": agi.get("/api/v1/tables/%0A/rounds//decisions/"),
        "no route": agi.post(f"{rounds}/{bj1_round.pk}/"),
        "no slash": agi.post(
            f"{rounds}/{bj1_round.pk}/bets", {"box": 1, "kind": "main", "stake_minor": 1000}
        ),
    }

    for name, answer in answers.items():
        assert answer.status_code == 404, name
        assert answer["Content-Type"] == "application/problem+json", name
        assert answer.json()["code"] == "no_such_endpoint", name
    assert "end with a slash" in answers["no slash"].json()["detail"]
    assert "end with a slash" not in answers["unknown"].json()["detail"]
    assert not Bet.objects.exists()
    # the schema and the endpoints themselves are still found
    assert agi.client.get("/api/schema/").status_code == 200
    assert agi.get(f"/api/v1/tables/{bj1_round.table_id}/state/").status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("boxes/1/bets-behind/", {"accepts": 0}, "accepts"),
        ("boxes/1/bets-behind/", {"accepts": "false"}, "accepts"),
        ("bets/", {"box": "1", "kind": "main", "stake_minor": 1000}, "box"),
        ("bets/", {"box": 1, "kind": "main", "stake_minor": 1000.0}, "stake_minor"),
        ("bets/", {"box": 1, "kind": "main", "stake_minor": True}, "stake_minor"),
        ("bets/", {"box": 1, "kind": "behind", "stake_minor": 500, "follow_split": 1}, "follow_split"),
        ("insurance/", {"bet_id": 1, "take": "yes"}, "take"),
        ("decisions/", {"box": 1.0, "decision": "hit"}, "box"),
    ],
)
def test_a_body_field_of_another_json_type_is_refused(agi, bj1_round, path, body, field):
    # (DRF alone would take 0 for false, "1" for 1, 1000.0 for 1000: the schema says otherwise)
    table = f"/api/v1/tables/{bj1_round.table_id}"
    url = f"{table}/{path}" if path.startswith("boxes") else f"{table}/rounds/{bj1_round.pk}/{path}"
    send = agi.put if path.startswith("boxes") else agi.post
    before = {**ledger_snapshot(), **table_snapshot()}
    answer = send(url, body, headers={"Idempotency-Key": "typed"})

    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid"
    assert list(answer.json()["errors"]) == [field]
    # bad input never reaches the command: not even an idempotency record
    assert {**ledger_snapshot(), **table_snapshot()} == before


def test_a_card_number_or_a_card_must_be_strings(agi, bj1_terminal, bj1_reader, bj1_round):
    from tests.api.conftest import ApiClient

    sign_in = ApiClient(bj1_terminal).post(
        "/api/v1/player-sessions/", {"card_number": 1000000001, "pin": "1111"}
    )
    card = ApiClient(bj1_reader).post(
        f"/api/v1/tables/{bj1_round.table_id}/rounds/{bj1_round.pk}/cards/",
        {"card": 10},
        headers={"Idempotency-Key": "c"},
    )

    assert (sign_in.status_code, list(sign_in.json()["errors"])) == (400, ["card_number"])
    assert (card.status_code, list(card.json()["errors"])) == (400, ["card"])
