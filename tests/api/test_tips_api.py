"""``POST /api/v1/tables/<table>/tips/``: a player tips the dealer from their wallet, idempotent at
the edge; refusals as problem+json with nothing written; the operation in the OpenAPI schema."""

from __future__ import annotations

import pytest

from accounting.models import Tip, TipSource
from casino.models import AuditRecord
from tables.models import Round
from tests.api.conftest import ApiClient, staff
from wallet.models import Account, AccountKind, Transfer

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


def _path(round_: Round) -> str:
    return f"/api/v1/tables/{round_.table_id}/tips/"


def _written() -> tuple[int, int, int]:
    return Tip.objects.count(), Transfer.objects.count(), AuditRecord.objects.count()


def _balance(client: ApiClient) -> int:
    return int(client.get("/api/v1/player/balance/").json()["balance_minor"])


def _pool(round_: Round) -> int:
    account = Account.objects.filter(casino_id=round_.table.casino_id, kind=AccountKind.TIPS_POOL).first()
    return account.balance_minor if account else 0


def test_a_player_tips_the_dealer_of_the_round_in_play(agi, bj1_round):
    # given Ági (5,000.00) at BJ1 while betting is open, the round dealt by the seeded dealer
    before = _balance(agi)
    # when she tips 2.50
    response = agi.post(_path(bj1_round), {"amount_minor": 250}, headers={"Idempotency-Key": "tip-1"})
    # then 201 with the tip; her wallet -2.50, the tips pool +2.50
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["round_id"], body["amount_minor"], body["currency"]) == (bj1_round.pk, 250, "EUR")
    tip = Tip.objects.get()
    assert (tip.source, tip.dealer_id, tip.transfer_id) == (
        TipSource.WALLET,
        staff("dealer").pk,
        body["transfer_id"],
    )
    assert (_balance(agi), _pool(bj1_round)) == (before - 250, 250)
    # and a retry with the same key replays the answer and moves nothing again
    retry = agi.post(_path(bj1_round), {"amount_minor": 250}, headers={"Idempotency-Key": "tip-1"})
    assert retry.status_code == 201 and retry.json() == body and retry["Idempotency-Replayed"] == "true"
    assert (Tip.objects.count(), _balance(agi)) == (1, before - 250)
    # and the same key with another amount is refused
    reused = agi.post(_path(bj1_round), {"amount_minor": 300}, headers={"Idempotency-Key": "tip-1"})
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"


def test_a_tip_above_the_balance_is_a_problem_with_nothing_written(agi, bj1_round):
    before, written = _balance(agi), _written()
    response = agi.post(
        _path(bj1_round), {"amount_minor": before + 1}, headers={"Idempotency-Key": "tip-big"}
    )
    assert response.status_code == 409 and response["Content-Type"].startswith(PROBLEM)
    assert response.json()["code"] == "insufficient_funds"
    assert (_balance(agi), _written()[:2]) == (before, written[:2])


@pytest.mark.parametrize("amount", [0, -1, "5", 2.5, True, None])
def test_an_amount_that_is_not_a_positive_whole_number_is_refused(agi, bj1_round, amount):
    written = _written()
    response = agi.post(_path(bj1_round), {"amount_minor": amount}, headers={"Idempotency-Key": "tip-bad"})
    assert response.status_code == 400 and response["Content-Type"].startswith(PROBLEM)
    assert _written() == written


def test_a_table_without_a_round_has_no_dealer_to_tip(agi, seeded):
    from casino.models import Table

    table = Table.objects.get(name="BJ1")
    written = _written()
    response = agi.post(
        f"/api/v1/tables/{table.pk}/tips/", {"amount_minor": 100}, headers={"Idempotency-Key": "t"}
    )
    assert response.status_code == 409 and response.json()["code"] == "no_round_to_tip"
    assert _written()[:2] == written[:2]


def test_a_tip_needs_an_idempotency_key_a_player_and_the_terminals_own_table(
    agi, bj1_round, bj1_terminal, bj1_reader
):
    written = _written()
    assert agi.post(_path(bj1_round), {"amount_minor": 100}).json()["code"] == "idempotency_key_required"
    no_player = ApiClient(bj1_terminal).post(
        _path(bj1_round), {"amount_minor": 100}, headers={"Idempotency-Key": "k"}
    )
    assert no_player.status_code in (401, 403)
    other = agi.post(
        f"/api/v1/tables/{bj1_round.table_id + 1000}/tips/",
        {"amount_minor": 100},
        headers={"Idempotency-Key": "k"},
    )
    assert other.status_code == 403 and other.json()["code"] == "wrong_table"
    anonymous = ApiClient().post(_path(bj1_round), {"amount_minor": 100}, headers={"Idempotency-Key": "k"})
    assert anonymous.status_code == 401 and anonymous["Content-Type"].startswith(PROBLEM)
    reader = ApiClient(bj1_reader).post(
        _path(bj1_round), {"amount_minor": 100}, headers={"Idempotency-Key": "k"}
    )
    assert reader.status_code in (401, 403) and reader["Content-Type"].startswith(PROBLEM)
    assert _written() == written


def test_the_tip_is_in_the_openapi_schema(seeded):
    from django.test import Client

    schema = Client().get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200
    operation = schema.json()["paths"]["/api/v1/tables/{table_id}/tips/"]["post"]
    assert operation["operationId"] == "tip_place"
    assert {"201", "409", "422"} <= set(operation["responses"])
    assert "Idempotency-Key" in [parameter["name"] for parameter in operation["parameters"]]
