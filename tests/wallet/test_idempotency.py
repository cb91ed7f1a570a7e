"""The idempotency helper: one record per request, nested commands covered by it, and a duplicate
in flight refused at once when the caller asks for that."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, transaction

from casino.errors import ServiceError
from wallet.idempotency import (
    IdempotencyInProgressError,
    IdempotencyKeyReusedError,
    idempotent,
    idempotent_refusal_store,
)
from wallet.models import Account, AccountKind, IdempotencyRecord, Transfer
from wallet.services import cage_buy_in


def test_a_nested_command_is_covered_by_the_outer_record(make_player: Any, cashier: Any) -> None:
    # given a request that runs a money command inside its own idempotent block
    player = make_player()

    def request() -> dict[str, Any]:
        transfer = cage_buy_in(player=player, amount_minor=2_500, cashier=cashier, idempotency_key="inner")
        return {"transfer_id": transfer.pk}

    # when it runs, and is then retried with the same key
    first = idempotent(scope="request:1", key="k", payload={"command": "buy"}, perform=request)
    again = idempotent(scope="request:1", key="k", payload={"command": "buy"}, perform=request)

    # then the buy-in happened once, and only the request's record was stored
    assert not first.replayed and again.replayed
    assert again.response == first.response
    assert Transfer.objects.filter(pk=first.response["transfer_id"]).count() == 1
    assert Account.objects.get(player=player, kind=AccountKind.PLAYER).balance_minor == 2_500
    assert list(IdempotencyRecord.objects.values_list("scope", "key")) == [("request:1", "k")]


def test_a_refused_nested_command_leaves_no_record_and_no_money_moved(make_player: Any, cashier: Any) -> None:
    player = make_player()

    def request() -> dict[str, Any]:
        cage_buy_in(player=player, amount_minor=-5, cashier=cashier, idempotency_key="inner")
        return {}

    with pytest.raises(ServiceError) as refused:
        idempotent(scope="request:2", key="k", payload={"command": "buy"}, perform=request)

    assert refused.value.code == "invalid_amount"
    assert not IdempotencyRecord.objects.exists()
    assert not Transfer.objects.filter(postings__account__player=player).exists()


def test_a_refusal_stored_after_its_rollback_is_what_retries_hear(db: Any) -> None:
    # given a refused call whose transaction rolled back, its refusal stored afterwards
    first = idempotent_refusal_store(
        scope="api:t1", key="r", payload={"command": "x"}, response={"status": 409}
    )

    # when the key comes again, to the refusal store or to the command itself
    again = idempotent_refusal_store(
        scope="api:t1", key="r", payload={"command": "x"}, response={"status": 422}
    )
    retried = idempotent(
        scope="api:t1", key="r", payload={"command": "x"}, perform=lambda: pytest.fail("ran twice")
    )

    # then both hear the first refusal, and one record holds it
    assert not first.replayed and first.response == {"status": 409}
    assert again.replayed and again.response == {"status": 409}
    assert retried.replayed and retried.response == {"status": 409}
    assert IdempotencyRecord.objects.count() == 1


def test_a_refusal_defers_to_an_answer_committed_meanwhile(db: Any) -> None:
    # given a duplicate that ran and committed between the refused call's rollback and its store
    idempotent(scope="api:t1", key="r", payload={"command": "x"}, perform=lambda: {"status": 201})

    # when the refusal is stored
    stored = idempotent_refusal_store(
        scope="api:t1", key="r", payload={"command": "x"}, response={"status": 409}
    )

    # then the committed answer wins, and a refusal of another payload is the key reused
    assert stored.replayed and stored.response == {"status": 201}
    with pytest.raises(IdempotencyKeyReusedError):
        idempotent_refusal_store(scope="api:t1", key="r", payload={"command": "y"}, response={"status": 409})
    assert list(IdempotencyRecord.objects.values_list("response", flat=True)) == [{"status": 201}]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_duplicate_in_flight_is_refused_at_once_when_asked() -> None:
    # given a first call holding its key, inside a transaction that has not committed
    started, release = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def first() -> None:
        try:
            idempotent(
                scope="api:t1",
                key="slow",
                payload={"command": "x"},
                perform=lambda: (started.set(), release.wait(10), {"done": 1})[2],
                refuse_in_flight=True,
            )
        finally:
            connection.close()

    thread = threading.Thread(target=first)
    thread.start()
    assert started.wait(10)
    try:
        # when the same key arrives meanwhile
        with pytest.raises(IdempotencyInProgressError) as refused, transaction.atomic():
            idempotent(
                scope="api:t1",
                key="slow",
                payload={"command": "x"},
                perform=lambda: {},
                refuse_in_flight=True,
            )
        outcome["code"] = refused.value.code
    finally:
        release.set()
        thread.join(10)

    # then it is refused with 409 at once, and a retry after the first committed replays it
    assert outcome["code"] == "idempotency_in_progress" and refused.value.status == 409
    replay = idempotent(
        scope="api:t1", key="slow", payload={"command": "x"}, perform=lambda: {}, refuse_in_flight=True
    )
    assert replay.replayed and replay.response == {"done": 1}
