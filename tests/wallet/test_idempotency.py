"""Idempotency at the edge: one record per request, around the one service call it makes.

A retry replays the first answer verbatim and moves nothing; the key with another payload is
refused (422); a duplicate in flight hears 409 at once when the edge asks for it; a refusal is
remembered with nothing moved; an outcome that is not kept leaves nothing but its stored refusal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from casino import idempotency
from casino.actors import Actor
from casino.errors import ServiceError
from casino.idempotency import (
    IdempotencyInProgressError,
    IdempotencyKeyReusedError,
    Outcome,
    idempotent,
)
from casino.models import IdempotencyRecord
from tests.wallet.conftest import waiting_on_locks
from wallet.selectors import account_balance
from wallet.services import cage_buy_in, cage_cash_out


def _buy_in_perform(player: Any, cashier: Any, amount_minor: int) -> Callable[[], Outcome]:
    """The edge's perform for a buy-in: the service call, its transfer's id as the response."""
    return lambda: Outcome(
        {"transfer_id": cage_buy_in(player=player, amount_minor=amount_minor, actor=Actor.staff(cashier)).pk}
    )


def _payload(player: Any, amount_minor: int) -> dict[str, Any]:
    return {"command": "cage_buy_in", "player_id": player.pk, "amount_minor": amount_minor}


def _cash_out_answered(player: Any, cashier: Any, amount_minor: int) -> Callable[[], Outcome]:
    """The edge's perform for a cash-out whose refusal is answered like a success (a problem
    response), rolled back and stored."""

    def perform() -> Outcome:
        try:
            transfer = cage_cash_out(player=player, amount_minor=amount_minor, actor=Actor.staff(cashier))
        except ServiceError as error:
            return Outcome({"status": error.status, "code": error.code}, keep=False)
        return Outcome({"status": 201, "transfer_id": transfer.pk})

    return perform


def _must_not_run() -> Outcome:
    pytest.fail("perform ran for a key that must not run it")


def test_a_retry_replays_the_first_response_verbatim_and_moves_nothing(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a buy-in done once under a key
    player = make_player()
    first = idempotent(
        scope="cage:1",
        key="k",
        payload=_payload(player, 2_500),
        perform=_buy_in_perform(player, cashier, 2_500),
    )
    before = snapshot()
    # when the same request comes again
    again = idempotent(scope="cage:1", key="k", payload=_payload(player, 2_500), perform=_must_not_run)
    # then it hears the first response, and nothing moved
    assert (first.replayed, again.replayed) == (False, True)
    assert again.response == first.response == {"transfer_id": first.response["transfer_id"]}
    assert snapshot() == before
    assert account_balance(player).balance_minor == 2_500
    assert list(IdempotencyRecord.objects.values_list("scope", "key", "response")) == [
        ("cage:1", "k", first.response)
    ]


def test_the_key_with_another_payload_is_refused_and_moves_nothing(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a buy-in of 25.00 done under key "k"
    player = make_player()
    idempotent(
        scope="cage:1",
        key="k",
        payload=_payload(player, 2_500),
        perform=_buy_in_perform(player, cashier, 2_500),
    )
    before = snapshot()
    # when the key comes with another amount
    with pytest.raises(IdempotencyKeyReusedError) as refused:
        idempotent(scope="cage:1", key="k", payload=_payload(player, 5_000), perform=_must_not_run)
    # then it is refused with 422, and nothing moved
    assert (refused.value.code, refused.value.status) == ("idempotency_key_reused", 422)
    assert snapshot() == before


def test_keys_are_unique_per_scope(make_player: Any, cashier: Any) -> None:
    # given two callers who happen to use the same key
    player = make_player()
    # when both buy the player in under key "1"
    idempotent(
        scope="cage:1",
        key="1",
        payload=_payload(player, 1_000),
        perform=_buy_in_perform(player, cashier, 1_000),
    )
    idempotent(
        scope="cage:2",
        key="1",
        payload=_payload(player, 2_000),
        perform=_buy_in_perform(player, cashier, 2_000),
    )
    # then both moved money, each under its own record
    assert account_balance(player).balance_minor == 3_000
    assert sorted(IdempotencyRecord.objects.values_list("scope", flat=True)) == ["cage:1", "cage:2"]


@pytest.mark.parametrize(
    ("scope", "key"), [("cage:1", ""), ("cage:1", "k" * 201), ("", "k"), ("s" * 81, "k")]
)
def test_a_missing_or_too_long_key_or_scope_is_refused(db: Any, scope: str, key: str, snapshot: Any) -> None:
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        idempotent(scope=scope, key=key, payload={"command": "x"}, perform=_must_not_run)
    assert refused.value.code == "invalid_idempotency_key"
    assert snapshot() == before


def test_a_refusal_is_remembered_and_moves_nothing(make_player: Any, cashier: Any, snapshot: Any) -> None:
    # given a player with 10.00 asking to cash out 20.00
    player = make_player(1_000)
    payload = {"command": "cage_cash_out", "player_id": player.pk, "amount_minor": 2_000}
    before = snapshot()
    # when the request is refused
    first = idempotent(
        scope="cage:1", key="out", payload=payload, perform=_cash_out_answered(player, cashier, 2_000)
    )
    # then the refusal is the response, nothing moved, and its record is the one row written
    assert (first.response, first.replayed) == ({"status": 409, "code": "insufficient_funds"}, False)
    after = snapshot()
    assert after.pop("idempotency") == [*before.pop("idempotency"), IdempotencyRecord.objects.get().pk]
    assert after == before
    # and once the player has the money, a retry of the key still hears the refusal and moves nothing
    cage_buy_in(player=player, amount_minor=5_000, actor=Actor.staff(cashier))
    topped_up = snapshot()
    again = idempotent(scope="cage:1", key="out", payload=payload, perform=_must_not_run)
    assert (again.response, again.replayed) == (first.response, True)
    assert snapshot() == topped_up
    assert account_balance(player).balance_minor == 6_000


def test_an_outcome_not_kept_leaves_no_partial_write_and_only_its_refusal(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a perform that moves money, then answers a refusal it does not keep
    player = make_player(1_000)
    before = snapshot()

    def perform() -> Outcome:
        cage_buy_in(player=player, amount_minor=5_000, actor=Actor.staff(cashier))
        return Outcome({"status": 409, "code": "box_limit_reached"}, keep=False)

    # when it runs
    result = idempotent(scope="api:t1", key="k", payload={"command": "bet"}, perform=perform)
    # then the buy-in is rolled back whole (transfer, postings, balances, audit record) and the
    # stored refusal is the one row left
    assert (result.response, result.replayed) == ({"status": 409, "code": "box_limit_reached"}, False)
    after = snapshot()
    assert after.pop("idempotency") == [*before.pop("idempotency"), IdempotencyRecord.objects.get().pk]
    assert after == before
    assert IdempotencyRecord.objects.get().response == {"status": 409, "code": "box_limit_reached"}


def test_in_a_callers_transaction_an_outcome_not_kept_rolls_back_only_its_own_writes(
    make_player: Any, cashier: Any
) -> None:
    # given a command run twice in one caller's transaction (the seed makes one call per movement)
    player = make_player()
    with transaction.atomic():
        # when the first call's outcome is kept and the second's is not
        kept = idempotent(
            scope="seed",
            key="1",
            payload=_payload(player, 1_000),
            perform=_buy_in_perform(player, cashier, 1_000),
        )

        def refused() -> Outcome:
            cage_buy_in(player=player, amount_minor=2_000, actor=Actor.staff(cashier))
            return Outcome({"status": 409}, keep=False)

        dropped = idempotent(scope="seed", key="2", payload=_payload(player, 2_000), perform=refused)
    # then the first one's money stays, the second's is gone, and both answers are stored
    assert account_balance(player).balance_minor == 1_000
    assert dict(IdempotencyRecord.objects.values_list("key", "response")) == {
        "1": kept.response,
        "2": dropped.response,
    }


def test_an_exception_leaving_perform_stores_nothing_and_frees_the_key(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a cash-out beyond the balance whose refusal the edge does not answer
    player = make_player(1_000)
    payload = {"command": "cage_cash_out", "player_id": player.pk, "amount_minor": 2_000}

    def perform() -> Outcome:
        return Outcome(
            {"transfer_id": cage_cash_out(player=player, amount_minor=2_000, actor=Actor.staff(cashier)).pk}
        )

    before = snapshot()
    # when it runs
    with pytest.raises(ServiceError) as refused:
        idempotent(scope="cage:1", key="out", payload=payload, perform=perform)
    # then the refusal propagates, nothing moved and no record is kept
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before
    # and the key may be retried once the player has the money
    cage_buy_in(player=player, amount_minor=5_000, actor=Actor.staff(cashier))
    retried = idempotent(scope="cage:1", key="out", payload=payload, perform=perform)
    assert not retried.replayed
    assert account_balance(player).balance_minor == 4_000


# ---------------------------------------------------------------- under concurrency (threads)


def _until_waiting(count: int) -> None:
    deadline = time.monotonic() + 10
    while waiting_on_locks() < count:
        assert time.monotonic() < deadline, f"fewer than {count} transactions waiting on a lock"
        time.sleep(0.02)


def _in_thread(results: dict[str, Any], name: str, call: Callable[[], Any]) -> threading.Thread:
    def target() -> None:
        try:
            results[name] = call()
        except BaseException as error:  # reported by the test, never swallowed
            results[name] = error
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_duplicate_in_flight_is_refused_at_once_when_asked(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a buy-in holding its key, in a transaction that has not committed
    player = make_player()
    started, release = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def slow() -> Outcome:
        outcome = _buy_in_perform(player, cashier, 2_500)()
        started.set()
        release.wait(10)
        return outcome

    def first() -> Any:
        return idempotent(
            scope="api:t1", key="slow", payload=_payload(player, 2_500), perform=slow, refuse_in_flight=True
        )

    thread = _in_thread(results, "first", first)
    assert started.wait(10)
    before = snapshot()
    try:
        # when the same request arrives meanwhile
        with pytest.raises(IdempotencyInProgressError) as refused:
            idempotent(
                scope="api:t1",
                key="slow",
                payload=_payload(player, 2_500),
                perform=_must_not_run,
                refuse_in_flight=True,
            )
        # then it is refused with 409 at once, and it moved nothing
        assert (refused.value.code, refused.value.status) == ("idempotency_in_progress", 409)
        assert snapshot() == before
    finally:
        release.set()
        thread.join(10)
    # and once the first committed, a retry replays it: the money moved once
    replay = idempotent(
        scope="api:t1",
        key="slow",
        payload=_payload(player, 2_500),
        perform=_must_not_run,
        refuse_in_flight=True,
    )
    assert (replay.replayed, replay.response) == (True, results["first"].response)
    assert account_balance(player).balance_minor == 2_500


@pytest.mark.django_db(transaction=True)
def test_a_refusal_defers_to_an_answer_committed_meanwhile(
    make_player: Any, cashier: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a first request that will answer a refusal, and its duplicate waiting on its record
    player = make_player()
    payload = _payload(player, 2_500)
    first_running, first_may_refuse = threading.Event(), threading.Event()
    second_running, second_may_finish = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def refusal() -> Outcome:
        first_running.set()
        first_may_refuse.wait(10)
        return Outcome({"status": 409, "code": "insufficient_funds"}, keep=False)

    def success() -> Outcome:
        second_running.set()
        second_may_finish.wait(10)
        return _buy_in_perform(player, cashier, 2_500)()

    # the duplicate takes the gap between the refusal's rollback and its store (else the stored
    # refusal would be what the duplicate replays, which is right too but not this test's case)
    store = idempotency._refusal_store

    def store_once_the_duplicate_runs(**arguments: Any) -> Any:
        assert second_running.wait(10)
        return store(**arguments)

    monkeypatch.setattr(idempotency, "_refusal_store", store_once_the_duplicate_runs)
    first = _in_thread(
        results, "first", lambda: idempotent(scope="api:t1", key="k", payload=payload, perform=refusal)
    )
    assert first_running.wait(10)
    second = _in_thread(
        results, "second", lambda: idempotent(scope="api:t1", key="k", payload=payload, perform=success)
    )
    _until_waiting(1)  # the duplicate waits on the first's record
    # when the first rolls back, the duplicate runs in the gap, and the refusal's store waits on it
    first_may_refuse.set()
    assert second_running.wait(10)
    _until_waiting(1)  # the refusal's insert waits on the duplicate's record
    second_may_finish.set()
    first.join(10)
    second.join(10)
    # then the answer that committed is the one both callers hear, and the money moved once
    assert (results["second"].replayed, results["first"].replayed) == (False, True)
    assert results["first"].response == results["second"].response
    assert "transfer_id" in results["second"].response
    assert list(IdempotencyRecord.objects.values_list("response", flat=True)) == [results["second"].response]
    assert account_balance(player).balance_minor == 2_500
