"""Races on PostgreSQL with real transactions and threads: the last box, a third box, bets
against "no more bets", and a decision against its deadline."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from casino.errors import ServiceError
from casino.models import Table
from tables.models import Bet, BetHold, Box, Round, RoundEvent
from tables.services import Actor, bet_place, box_take, decision_make, round_close_betting, round_open
from tables.tasks import apply_overdue_defaults
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe
from wallet.models import Hold

pytestmark = pytest.mark.django_db(transaction=True)


def _race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; each result is the return value or the error."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except ServiceError as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def _codes(results: list[Any]) -> list[str]:
    return sorted(result.code if isinstance(result, ServiceError) else "ok" for result in results)


@pytest.fixture
def live(seeded: None) -> tuple[Table, Any]:
    return Table.objects.get(name="BJ1"), staff_user("dealer", "dealer-race")


def test_two_players_racing_for_the_last_box(live):
    table, _ = live
    alice, bob = funded_player(table), funded_player(table)
    as_alice, as_bob = at_terminal(table, alice), at_terminal(table, bob)
    results = _race(
        [lambda actor=actor: box_take(table=table, box_number=7, actor=actor) for actor in (as_alice, as_bob)]
    )
    assert _codes(results) == ["box_taken", "ok"]
    assert Box.objects.get(table=table, number=7).owner_id in (alice.pk, bob.pk)


def test_a_player_racing_for_a_second_and_third_box(live):
    table, _ = live
    alice = funded_player(table)
    box_take(table=table, box_number=1, actor=at_terminal(table, alice))
    results = _race(
        [lambda n=n: box_take(table=table, box_number=n, actor=at_terminal(table, alice)) for n in (2, 3)]
    )
    assert _codes(results) == ["box_limit_reached", "ok"]
    assert Box.objects.filter(table=table, owner=alice).count() == 2


def test_bets_racing_no_more_bets_are_in_or_refused_with_nothing_moved(live):
    # given alice's main bet on box 1 and twelve bettors ready to bet behind it
    table, dealer = live
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    bettors = [funded_player(table, 5000) for _ in range(12)]
    actors = [at_terminal(table, bettor) for bettor in bettors]

    def bet(actor: Actor) -> Any:
        time.sleep(0.02 * actors.index(actor))
        return bet_place(
            round_id=round_.pk,
            actor=actor,
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key="behind",
        )

    # when they bet while the dealer calls "no more bets"
    calls: list[Callable[[], Any]] = [lambda actor=actor: bet(actor) for actor in actors]
    calls.insert(
        6, lambda: (time.sleep(0.01), round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer)))[1]
    )
    results = _race(calls)
    # then every bet is either part of the closed round, or refused with nothing moved
    in_round = {
        event.payload["action"]["bet"]["bet_id"]
        for event in RoundEvent.objects.filter(round=round_, kind="bet_placed")
    }
    accepted = [r for r in results if isinstance(r, Bet)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert {str(b.pk) for b in accepted} | {str(Bet.objects.get(kind="main").pk)} == in_round
    assert all(error.code == "betting_closed" for error in refused)
    assert len(accepted) + len(refused) == 12
    assert accepted and refused  # the first bettors beat the close, the last ones come after it
    for bettor, result in zip(bettors, results[:6] + results[7:], strict=True):
        if isinstance(result, ServiceError):
            assert balance(bettor) == (5000, 0)
            assert not Bet.objects.filter(player=bettor).exists()
        else:
            assert balance(bettor) == (5000, 500)
    assert Hold.objects.filter(status="open").count() == BetHold.objects.count() == len(accepted) + 1
    print(f"{len(accepted)} bets in, {len(refused)} refused")


def test_a_decision_and_its_deadline_at_the_same_moment_give_exactly_one_outcome(live):
    table, dealer = live
    stack_shoe(table, dealer, ["TS", "7H", "6D", "TC", "5C"])
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    deadline = timezone.now() + dt.timedelta(milliseconds=300)
    Round.objects.filter(pk=round_.pk).update(decision_deadline_at=deadline)

    def at_deadline(call: Callable[[], Any]) -> Any:
        time.sleep(max(0.0, (deadline - timezone.now()).total_seconds()))
        return call()

    results = _race(
        [
            lambda: at_deadline(
                lambda: decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="hit")
            ),
            lambda: at_deadline(lambda: apply_overdue_defaults(round_.pk)),
            lambda: at_deadline(lambda: apply_overdue_defaults(round_.pk)),
        ]
    )
    kinds = list(
        RoundEvent.objects.filter(round=round_, kind__in=["decision", "default_applied"]).values_list(
            "kind", "payload__action__type"
        )
    )
    # exactly one thing happened to the first decision of box 1: alice's hit, or the stand default
    first = kinds[0]
    assert first in [("decision", "hit"), ("default_applied", "stand")]
    if first[0] == "default_applied":
        assert isinstance(results[0], ServiceError)
        assert results[0].code in ("decision_deadline_passed", "not_your_turn")
        assert len(kinds) == 1
    else:
        assert isinstance(results[0], Round)
    print("outcome:", kinds, _codes(results))


def _meanwhile(
    monkeypatch: Any,
    module: Any,
    name: str,
    first: Callable[[], Any],
    second: Callable[[], Any],
    *,
    after: bool = False,
) -> Any:
    """Run ``first`` in a thread until it reaches ``module.name`` (which then waits a second, its
    locks held; with ``after``, once the call has returned, with what it locked held), run
    ``second`` meanwhile, and return both results (a value or the error). Only that first call
    waits: ``second`` may call the same function."""
    real = getattr(module, name)
    reached = threading.Event()

    def paused(*args: Any, **kwargs: Any) -> Any:
        if reached.is_set():
            return real(*args, **kwargs)
        result = real(*args, **kwargs) if after else None
        reached.set()
        time.sleep(1.0)
        return result if after else real(*args, **kwargs)

    monkeypatch.setattr(module, name, paused)
    results: list[Any] = [None, None]

    def run_first() -> None:
        try:
            results[0] = first()
        except Exception as error:  # a deadlock would surface here
            results[0] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run_first)
    thread.start()
    assert reached.wait(10)
    try:
        results[1] = second()
    except Exception as error:
        results[1] = error
    thread.join(60)
    return results


def _box_1_of_alice(live: tuple[Table, Any]) -> tuple[Table, Round, Actor, Any, Callable[[str], Any]]:
    """Betting open on BJ1 with Alice on box 1, and another funded player with a function placing
    their 500 bet behind box 1 under a given idempotency key."""
    table, dealer = live
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice, other = funded_player(table, 10_000), funded_player(table, 10_000)
    as_alice, as_other = at_terminal(table, alice), at_terminal(table, other)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))

    def bet_behind(key: str) -> Any:
        return bet_place(
            round_id=round_.pk,
            actor=as_other,
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key=key,
        )

    return table, round_, as_alice, other, bet_behind


def test_an_owner_leaving_while_the_next_player_bets_on_the_box_deadlocks_nobody(live, monkeypatch):
    # given Alice's box 1 with Bob seated behind it (the next owner), and Alice leaving it
    from tables.services import box_leave, seats

    table, round_, as_alice, bob, bet_behind = _box_1_of_alice(live)
    bet_behind("b0")

    # when Bob bets behind the box while Alice's leave is handing it to him
    leave, bet = _meanwhile(
        monkeypatch,
        seats,
        "_cancel_bets",
        lambda: box_leave(table=table, box_number=1, actor=as_alice),
        lambda: bet_behind("b1"),
    )

    # then the leave goes first, and Bob's bet sees him as the owner: no deadlock, nothing held
    assert isinstance(leave, Box) and leave.owner_id == bob.pk
    assert isinstance(bet, ServiceError) and bet.code == "bet_behind_own_box"
    assert not Bet.objects.filter(round=round_, player=bob, status="placed").exists()
    assert balance(bob) == (10_000, 0)


def test_an_owner_leaving_while_another_bet_on_the_box_is_in_flight_deadlocks_nobody(live, monkeypatch):
    # given Alice's box 1, and Carol's first bet behind it half done (its locks held)
    from tables.services import bets, box_leave

    table, _round, as_alice, carol, bet_behind = _box_1_of_alice(live)

    # when Alice leaves the box meanwhile
    bet, leave = _meanwhile(
        monkeypatch,
        bets,
        "_bets_checked",
        lambda: bet_behind("c"),
        lambda: box_leave(table=table, box_number=1, actor=as_alice),
    )

    # then the bet goes first; the leave hands the box to Carol, seated by her bet, and cancels
    # her bet behind what is now her own box (its stake freed)
    assert isinstance(bet, Bet)
    assert isinstance(leave, Box) and leave.owner_id == carol.pk
    assert Bet.objects.get(pk=bet.pk).status == "cancelled"
    assert balance(carol) == (10_000, 0)


def test_a_player_taking_the_box_an_owner_is_handing_to_them_deadlocks_nobody(live, monkeypatch):
    # given Alice's box 1 with Bob seated behind it (the next owner)
    from tables.services import box_leave, seats

    table, _round, as_alice, bob, bet_behind = _box_1_of_alice(live)
    bet_behind("b0")
    as_bob = at_terminal(table, bob)

    # when Bob asks for box 1 (his row locked, the box not yet) while Alice leaves it
    take, leave = _meanwhile(
        monkeypatch,
        seats,
        "_box",
        lambda: box_take(table=table, box_number=1, actor=as_bob),
        lambda: box_leave(table=table, box_number=1, actor=as_alice),
    )

    # then the leave hands the box to Bob without waiting for his row, and his take finds it his
    assert isinstance(leave, Box) and leave.owner_id == bob.pk
    assert isinstance(take, ServiceError) and take.code == "box_taken"
    assert Box.objects.get(table=table, number=1).owner_id == bob.pk


def test_a_player_taking_a_box_while_another_is_handed_to_them_stays_within_the_limit(live, monkeypatch):
    # given Alice's box 1 with Bob behind it, Bob owning box 2 (the limit is 2)
    from tables.services import box_leave, seats

    table, _round, as_alice, bob, bet_behind = _box_1_of_alice(live)
    bet_behind("b0")
    as_bob = at_terminal(table, bob)
    box_take(table=table, box_number=2, actor=as_bob)

    # when Bob takes box 3 (half done, his count of boxes made) while Alice leaves box 1
    take, leave = _meanwhile(
        monkeypatch,
        seats,
        "_box",
        lambda: box_take(table=table, box_number=3, actor=as_bob),
        lambda: box_leave(table=table, box_number=1, actor=as_alice),
    )

    # then the two take turns: Bob gets box 3, and box 1 passes him over (he has two): it is free
    assert isinstance(take, Box) and take.owner_id == bob.pk
    assert isinstance(leave, Box) and leave.owner_id is None
    assert sorted(Box.objects.filter(table=table, owner_id=bob.pk).values_list("number", flat=True)) == [2, 3]


def test_a_sign_in_committing_while_a_round_opens_deadlocks_nobody(live, monkeypatch):
    # given BJ1 ready to open a round, and a player terminal at it
    from casino import player_sessions as sessions
    from casino.models import Terminal
    from casino.services import player_create, terminal_register

    table, dealer = live
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    terminal = terminal_register(
        casino=table.casino,
        name="T-race",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    player_create(
        casino=table.casino,
        card_number="5550001",
        display_name="Dora",
        pin="1357",
        actor=Actor.automatic("system"),
    )

    # when a sign-in holds the audit chain (its record written, its commit, which checks its
    # session's foreign key to the table, still to come) while the dealer opens a round
    signed_in, opened = _meanwhile(
        monkeypatch,
        sessions,
        "audit_append",
        lambda: sessions.player_session_start(terminal=terminal, card_number="5550001", pin="1357"),
        lambda: round_open(table=table, actor=Actor.staff(dealer)),
        after=True,
    )

    # then both pass: the round's lock on the table row does not block the session's key check
    assert isinstance(signed_in, tuple), signed_in
    assert isinstance(opened, Round), opened
