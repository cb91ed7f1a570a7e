"""The ledger under real concurrency: PostgreSQL, real transactions, one connection per thread.

These are the tests that matter most for money: no double spend, no lost update, no doubled
effect of a retried command, no deadlock, and `ledger_verify` clean afterwards.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections, transaction

from casino.actors import Actor
from casino.errors import ServiceError
from casino.idempotency import Outcome, idempotent
from casino.models import AuditRecord, IdempotencyRecord
from tests.lanes import sized
from tests.wallet.conftest import waiting_on_locks
from tests.wallet.factories import TableFactory
from wallet.models import Account, AccountKind, Hold, HoldStatus, Posting, Transfer
from wallet.selectors import ledger_totals, ledger_verify, player_account
from wallet.services import (
    SettlementLine,
    SettlementReference,
    cage_buy_in,
    cage_cash_out,
    hold_place,
    holds_settle,
    holds_void,
    table_fill,
    transfer_between_players,
)

pytestmark = pytest.mark.django_db(transaction=True)


def run_in_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` in ``count`` threads released together; return results (or the exceptions)."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def target(index: int) -> None:
        try:
            barrier.wait()
            results[index] = work(index)
        except BaseException as error:  # reported by the test, never swallowed
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    stuck = [thread.name for thread in threads if thread.is_alive()]
    assert stuck == [], f"threads still running after 120 s (a deadlock or a lost wake-up): {stuck}"
    return results


def _hold_in_a_transaction(**arguments: Any) -> Hold:
    """A hold as bet placement makes it: in the caller's transaction."""
    with transaction.atomic():
        return hold_place(**arguments)


def _code(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except ServiceError as error:
        return error.code


def test_50_concurrent_holds_of_a_tenth_of_the_balance_exactly_10_succeed(
    make_player: Any, table: Any, snapshot: Any
) -> None:
    # given a player with 100.00
    player = make_player(10_000)
    before = snapshot()

    # when 50 bets of 10.00 arrive at the same moment
    def bet(index: int) -> Any:
        return _code(lambda: _hold_in_a_transaction(player=player, amount_minor=1_000, table=table).pk)

    results = run_in_threads(50, bet)
    # then exactly 10 hold, 40 are refused for insufficient funds
    outcomes = Counter("held" if isinstance(result, int) else result for result in results)
    assert outcomes == {"held": 10, "insufficient_funds": 40}
    account = Account.objects.get(player=player)
    assert (account.balance_minor, account.held_minor) == (10_000, 10_000)
    assert Hold.objects.filter(account=account, status=HoldStatus.OPEN).count() == 10
    # and the 40 refused moved nothing: no posting, no transfer, no audit
    after = snapshot()
    for name in ("transfers", "postings", "audit", "payouts", "adjustments", "idempotency"):
        assert after[name] == before[name]
    assert ledger_verify().is_clean


def test_100_concurrent_calls_with_one_idempotency_key_have_exactly_one_effect(
    make_player: Any, cashier: Any, casino: Any, snapshot: Any
) -> None:
    # given a player with 10.00, and the cage account row locked by another transaction, so that
    # the first buy-in to take the key stays in flight while every other call arrives
    player = make_player(1_000)
    cage_id = Account.objects.get(casino=casino, kind=AccountKind.CAGE).pk
    before = snapshot()
    locked, release = threading.Event(), threading.Event()

    def blocker() -> None:
        try:
            with transaction.atomic():
                list(Account.objects.select_for_update().filter(pk=cage_id))
                locked.set()
                release.wait(60)
        finally:
            connections.close_all()

    blocking = threading.Thread(target=blocker)
    blocking.start()
    assert locked.wait(10)

    # when 100 identical buy-ins with one key arrive: 50 threads released together, two calls each.
    # Not 100 threads: each thread needs its own PostgreSQL connection, the server allows 100
    # (max_connections) and this test also holds the main and the blocker connections while other
    # test runs share the server. The first wave is 50 calls truly in flight together (checked
    # below: all 50 wait on locks at once, behind the first holder of the key); the second wave
    # of 50 retries arrives as the first ends.
    outcome: list[Any] = []

    payload = {"command": "cage_buy_in", "player_id": player.pk, "amount_minor": 5_000}

    def buy_in(index: int) -> list[int]:
        return [
            idempotent(
                scope="cage:1",
                key="one-key",
                payload=payload,
                perform=lambda: Outcome(
                    {
                        "transfer_id": cage_buy_in(
                            player=player, amount_minor=5_000, actor=Actor.staff(cashier)
                        ).pk
                    }
                ),
            ).response["transfer_id"]
            for _ in range(2)
        ]

    calls = threading.Thread(target=lambda: outcome.extend(run_in_threads(50, buy_in)))
    calls.start()
    deadline = time.monotonic() + 30
    while waiting_on_locks() < 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    waiting = waiting_on_locks()
    release.set()
    calls.join(150)
    blocking.join(10)
    assert waiting == 50  # one call waits for the cage row, 49 wait for the key it holds

    # then all 100 got the same transfer, and the money moved once
    assert [result for result in outcome if isinstance(result, BaseException)] == []
    assert len(outcome) == 50
    transfer_ids = {transfer_id for pair in outcome for transfer_id in pair}
    assert len(transfer_ids) == 1
    assert Account.objects.get(player=player).balance_minor == 6_000
    after = snapshot()
    assert len(after["transfers"]) == len(before["transfers"]) + 1
    assert len(after["postings"]) == len(before["postings"]) + 2
    assert len(after["audit"]) == len(before["audit"]) + 1
    assert len(after["idempotency"]) == len(before["idempotency"]) + 1

    # when the same key comes with another payload
    with pytest.raises(ServiceError) as refused:
        idempotent(
            scope="cage:1",
            key="one-key",
            payload={**payload, "amount_minor": 5_001},
            perform=lambda: pytest.fail("ran for a reused key"),
        )
    # then it is refused and nothing moved
    assert refused.value.code == "idempotency_key_reused"
    assert snapshot() == after


def test_100_concurrent_bets_with_one_idempotency_key_hold_once(make_player: Any, table: Any) -> None:
    # given a player with 100.00
    player = make_player(10_000)
    payload = {"command": "bet", "player_id": player.pk, "amount_minor": 700}

    # when one bet of 7.00 arrives 100 times under one key: 50 threads, two calls each
    def bet(index: int) -> list[int]:
        return [
            idempotent(
                scope="api:t1:p1",
                key="bet-1",
                payload=payload,
                perform=lambda: Outcome(
                    {"hold_id": hold_place(player=player, amount_minor=700, table=table).pk}
                ),
            ).response["hold_id"]
            for _ in range(2)
        ]

    results = run_in_threads(50, bet)
    # then every call heard the one hold, and 7.00 is held once
    assert [result for result in results if isinstance(result, BaseException)] == []
    assert len({hold_id for pair in results for hold_id in pair}) == 1
    account = Account.objects.get(player=player)
    assert (account.balance_minor, account.held_minor) == (10_000, 700)
    assert Hold.objects.count() == IdempotencyRecord.objects.filter(scope="api:t1:p1").count() == 1


def _buy_in_at_the_edge(thread: int, key: str, player: Any, amount_minor: int, cashier: Any) -> Any:
    return idempotent(
        scope=f"cage:{thread}",
        key=key,
        payload={"command": "cage_buy_in", "player_id": player.pk, "amount_minor": amount_minor},
        perform=lambda: Outcome(
            {
                "transfer_id": cage_buy_in(
                    player=player, amount_minor=amount_minor, actor=Actor.staff(cashier)
                ).pk
            }
        ),
    )


THREADS = 16
# 16 threads on 24 players contend for the same rows from the first commands, so 50 each (800 in
# all) already race every kind against every other; the soak lane runs 500 each (8 000).
COMMANDS_PER_THREAD = sized(50, 500)
COMMANDS = THREADS * COMMANDS_PER_THREAD
PLAYERS = 24


@pytest.mark.soak
def test_16_threads_of_random_money_commands_keep_the_ledger_exact(casino: Any, cashier: Any) -> None:
    # given 24 players with 500.00 each and two tables with 100 000.00 in their trays
    from tests.wallet.factories import PlayerFactory

    players = [PlayerFactory(casino=casino) for _ in range(PLAYERS)]
    for player in players:
        cage_buy_in(player=player, amount_minor=50_000, actor=Actor.staff(cashier))
    tables = [TableFactory(casino=casino, name=f"T{index}") for index in range(2)]
    for table in tables:
        table_fill(table=table, amount_minor=10_000_000, actor=Actor.staff(cashier))
    account_of = {player.pk: player_account(player).pk for player in players}
    cage_id = Account.objects.get(casino=casino, kind=AccountKind.CAGE).pk
    tray_of = {table.pk: Account.objects.get(table=table, kind=AccountKind.TABLE_TRAY).pk for table in tables}
    initial = {account.pk: (account.balance_minor, account.held_minor) for account in Account.objects.all()}
    totals_before = ledger_totals()

    # when 16 threads each run COMMANDS_PER_THREAD random commands (50; 500 in the soak lane)
    def worker(index: int) -> dict[str, Any]:
        rng = random.Random(7_000 + index)
        staff = get_user_model().objects.get(pk=cashier.pk)
        balance_delta: dict[int, int] = defaultdict(int)
        held_delta: dict[int, int] = defaultdict(int)
        outcomes: Counter[str] = Counter()
        open_holds: list[tuple[Hold, int]] = []  # (hold, table id): each thread settles only its own holds
        for step in range(COMMANDS_PER_THREAD):
            key = f"t{index}-{step}"
            roll = rng.random()
            player = rng.choice(players)
            account_id = account_of[player.pk]
            try:
                if roll < 0.35 or (roll < 0.6 and not open_holds):
                    table = rng.choice(tables)
                    amount = rng.randint(100, 5_000)
                    hold = _hold_in_a_transaction(player=player, amount_minor=amount, table=table)
                    held_delta[account_id] += amount
                    open_holds.append((hold, table.pk))
                    outcomes["hold"] += 1
                elif roll < 0.52:
                    # settle one round of up to three of this thread's holds at one table
                    table_id = open_holds[0][1]
                    chosen = [item for item in open_holds if item[1] == table_id][: rng.randint(1, 3)]
                    lines = []
                    for hold, _ in chosen:
                        payout = rng.choice(
                            [0, hold.amount_minor, 2 * hold.amount_minor, hold.amount_minor * 5 // 2]
                        )
                        lines.append(
                            SettlementLine(
                                account_id=hold.account_id,
                                hold_id=hold.pk,
                                stake_minor=hold.amount_minor,
                                payout_minor=payout,
                            )
                        )
                    holds_settle(
                        casino=casino,
                        table=next(table for table in tables if table.pk == table_id),
                        reference=SettlementReference("round", index * 100_000 + step),
                        lines=lines,
                        actor=Actor.automatic("test"),
                    )
                    for line in lines:
                        balance_delta[line.account_id] += line.payout_minor - line.stake_minor
                        held_delta[line.account_id] -= line.stake_minor
                        balance_delta[tray_of[table_id]] += line.stake_minor - line.payout_minor
                    open_holds = [item for item in open_holds if item not in chosen]
                    outcomes["settle"] += 1
                elif roll < 0.6:
                    hold, _ = open_holds.pop(rng.randrange(len(open_holds)))
                    holds_void(hold_ids=[hold.pk], reason="bet cancelled", actor=Actor.automatic("test"))
                    held_delta[hold.account_id] -= hold.amount_minor
                    outcomes["void"] += 1
                elif roll < 0.72:
                    amount = rng.randint(1_000, 20_000)
                    first = _buy_in_at_the_edge(index, key, player, amount, staff)
                    if rng.random() < 0.2:  # a retry of the same request must not move money again
                        again = _buy_in_at_the_edge(index, key, player, amount, staff)
                        assert (again.response, again.replayed) == (first.response, True)
                        outcomes["retry"] += 1
                    balance_delta[account_id] += amount
                    balance_delta[cage_id] -= amount
                    outcomes["buy_in"] += 1
                elif roll < 0.84:
                    amount = rng.randint(100, 20_000)
                    cage_cash_out(player=player, amount_minor=amount, actor=Actor.staff(staff))
                    balance_delta[account_id] -= amount
                    balance_delta[cage_id] += amount
                    outcomes["cash_out"] += 1
                else:
                    payee = rng.choice([other for other in players if other.pk != player.pk])
                    amount = rng.randint(100, 10_000)
                    transfer_between_players(
                        from_player=player,
                        to_player=payee,
                        amount_minor=amount,
                        actor=Actor.staff(staff),
                    )
                    balance_delta[account_id] -= amount
                    balance_delta[account_of[payee.pk]] += amount
                    outcomes["transfer"] += 1
            except ServiceError as error:
                outcomes[error.code] += 1
        return {"balance": balance_delta, "held": held_delta, "outcomes": outcomes}

    results = run_in_threads(THREADS, worker)

    # then no thread failed (no deadlock, no unexpected refusal)
    errors = [result for result in results if isinstance(result, BaseException)]
    assert errors == []
    outcomes = sum((result["outcomes"] for result in results), Counter())
    refused = {
        code: count
        for code, count in outcomes.items()
        if code not in {"hold", "settle", "void", "buy_in", "cash_out", "transfer", "retry"}
    }
    assert set(refused) <= {"insufficient_funds"}
    assert sum(count for code, count in outcomes.items() if code != "retry") == COMMANDS
    # and every named kind of command really ran, retries included, in the same shares at every size
    # (of 8 000 commands: more than 1 500 holds, 500 settlements, 100 voids, 500 of each wallet command
    # and 100 retries)
    assert outcomes["hold"] > COMMANDS * 3 // 16 and outcomes["settle"] > COMMANDS // 16
    assert outcomes["void"] > COMMANDS // 80
    assert min(outcomes[kind] for kind in ("buy_in", "cash_out", "transfer")) > COMMANDS // 16
    assert outcomes["retry"] > COMMANDS // 80
    # and the ledger proves itself
    verification = ledger_verify()
    assert verification.is_clean, verification.offender
    # and the total of all balances is unchanged
    assert ledger_totals().total_minor == totals_before.total_minor == 0
    # and no update was lost: every account ends exactly where the accepted commands took it
    expected_balance: dict[int, int] = defaultdict(int)
    expected_held: dict[int, int] = defaultdict(int)
    for result in results:
        for account_id, delta in result["balance"].items():
            expected_balance[account_id] += delta
        for account_id, delta in result["held"].items():
            expected_held[account_id] += delta
    for account in Account.objects.all():
        start_balance, start_held = initial.get(account.pk, (0, 0))
        assert account.balance_minor == start_balance + expected_balance[account.pk], account
        assert account.held_minor == start_held + expected_held[account.pk], account
        # and no account that may not go negative did
        assert account.may_go_negative or account.balance_minor >= account.held_minor >= 0
    assert Posting.objects.filter(amount_minor=0).count() == 0
    assert (
        Transfer.objects.count()
        == AuditRecord.objects.filter(action__startswith="wallet.")
        .exclude(action="wallet.holds_voided")
        .count()
    )
    # and each buy-in made at the edge left its one record, retried or not
    assert IdempotencyRecord.objects.count() == outcomes["buy_in"]
