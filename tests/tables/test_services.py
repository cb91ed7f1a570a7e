"""The live table services: configuration, seats, shoes, bets,
decisions, deadlines, misscans, voids and payout approvals. Refusals leave everything as it was."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.errors import ServiceError
from casino.models import AuditRecord, ImmutableOnceApprovedError
from tables.models import Bet, BetHold, Box, PayoutLine, Round, RoundEvent, Seat, Shoe, TableConfigVersion
from tables.selectors import table_state
from tables.services import (
    Actor,
    bet_cancel,
    bet_place,
    box_bets_behind_set,
    box_leave,
    box_take,
    card_correct,
    card_enter,
    dealer_sign_on,
    decision_make,
    payout_approve,
    payout_reject,
    round_close_betting,
    round_open,
    round_settle,
    round_void,
    shoe_shuffle,
    shoe_verify,
    table_limits_change,
    table_settings_change,
)
from tables.services.bets import _bets_checked
from tables.services.commands import OVERDUE_DEFAULTS_TASK
from tables.tasks import apply_overdue_defaults
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, balance, funded_player, physical, stack_shoe
from wallet.models import AccountKind, Hold, PendingPayout, Posting
from wallet.services import system_table_fill, table_accounts_open, table_credit


def _refused(code, call, **kwargs):
    with pytest.raises(ServiceError) as info:
        call(**kwargs)
    assert info.value.code == code, info.value.message
    return info.value


def _bet_refused(code, **kwargs):
    """A refused bet in a savepoint of its own: ``bet_place`` opens none (a refusal leaves the
    caller's transaction to be rolled back), and the test goes on in its transaction."""
    with transaction.atomic():
        return _refused(code, bet_place, **kwargs)


def _seated_round(table, dealer, cards, stake=1000):
    alice = funded_player(table, 10_000)
    stack_shoe(table, dealer, cards)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=stake, idempotency_key="m1"
    )
    return alice, as_alice, round_


# --------------------------------------------------------------------------------- configuration


@pytest.mark.django_db
def test_a_limits_change_is_a_new_audited_version_used_from_the_next_round(table, dealer, operator):
    # given a round open with the seeded limits (main minimum 500)
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    # when the operator raises the main minimum to 2000
    version = table_limits_change(table=table, actor=Actor.staff(operator), limits={"main_min_minor": 2000})
    # then the version is new and audited with old and new values
    record = AuditRecord.objects.filter(action="table.limits_changed").last()
    assert (version.number, record.before["main_min_minor"], record.after["main_min_minor"]) == (2, 500, 2000)
    # and the open round still takes a 1000 bet behind... its own limits, not the new ones
    bob = funded_player(table, 10_000)
    bet_place(
        round_id=round_.pk,
        actor=at_terminal(table, bob),
        box_number=1,
        kind="behind",
        stake_minor=600,
        idempotency_key="b",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    # and the next round refuses a 1000 main bet
    next_round = round_open(table=table, actor=Actor.staff(dealer))
    assert next_round.config_id == version.pk
    error = _bet_refused(
        "stake_below_table_min",
        round_id=next_round.pk,
        actor=as_alice,
        box_number=1,
        kind="main",
        stake_minor=1000,
        idempotency_key="m2",
    )
    assert error.details["minimum_minor"] == 2000


@pytest.mark.django_db
def test_an_approved_version_is_immutable_and_bad_settings_are_refused(table, operator):
    version = TableConfigVersion.objects.get(table=table, number=1)
    version.main_max_minor = 1
    with pytest.raises(ImmutableOnceApprovedError):
        version.save()
    _refused(
        "invalid_configuration",
        table_settings_change,
        table=table,
        actor=Actor.staff(operator),
        settings={"shuffle_every_rounds": 7},
    )
    _refused(
        "permission_denied",
        table_settings_change,
        table=table,
        actor=Actor.staff(None) if False else Actor(),
        settings={"decision_seconds": 20},
    )
    assert TableConfigVersion.objects.filter(table=table).count() == 1


# --------------------------------------------------------------------------------- seats and boxes


@pytest.mark.django_db
def test_a_third_box_is_refused_and_nothing_changes(table):
    alice = funded_player(table)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    box_take(table=table, box_number=2, actor=as_alice)
    audits = AuditRecord.objects.count()
    _refused("box_limit_reached", box_take, table=table, box_number=3, actor=as_alice)
    assert list(Box.objects.filter(table=table, owner=alice).values_list("number", flat=True)) == [1, 2]
    assert AuditRecord.objects.count() == audits


@pytest.mark.django_db
def test_the_owner_leaving_hands_the_box_to_the_next_bettor_in_arrival_order(table, dealer):
    # given alice owns box 1, bob then carol bet behind it during a round that is then settled
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob, carol = funded_player(table), funded_player(table)
    as_bob, as_carol = at_terminal(table, bob), at_terminal(table, carol)
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=500, idempotency_key="b"
    )
    bet_place(
        round_id=round_.pk, actor=as_carol, box_number=1, kind="behind", stake_minor=500, idempotency_key="c"
    )
    _bet_refused(
        "bet_behind_own_box",
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        kind="behind",
        stake_minor=500,
        idempotency_key="own",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    _refused("round_in_progress", box_leave, table=table, box_number=1, actor=as_alice)
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    # then the win streaks count the won round (19 against 17)
    streaks = dict(Seat.objects.filter(box__table=table).values_list("player_id", "win_streak"))
    assert streaks == {alice.pk: 1, bob.pk: 1, carol.pk: 1}
    # when alice leaves, bob (first to arrive after her) owns the box; when bob leaves, carol
    assert box_leave(table=table, box_number=1, actor=as_alice).owner_id == bob.pk
    assert box_leave(table=table, box_number=1, actor=as_bob).owner_id == carol.pk
    assert box_leave(table=table, box_number=1, actor=as_carol).owner_id is None
    assert not Seat.objects.filter(box__table=table).exists()


@pytest.mark.django_db
def test_a_win_adds_to_the_streak_a_loss_ends_it_and_a_box_sitting_out_keeps_its_own(table, dealer):
    # given alice (box 1), bob (box 2) and carol (box 3, no bet this round) with streaks 2, 3, 4
    stack_shoe(table, dealer, ["TS", "6H", "7H", "9D", "TC", "TC"])
    seated = []
    for number in (1, 2, 3):
        player = funded_player(table, 10_000)
        actor = at_terminal(table, player)
        box_take(table=table, box_number=number, actor=actor)
        seated.append((player, actor))
    for number, (player, _) in enumerate(seated, start=1):
        Seat.objects.filter(player=player).update(win_streak=number + 1)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    for number, (_, actor) in enumerate(seated[:2], start=1):
        bet_place(
            round_id=round_.pk,
            actor=actor,
            box_number=number,
            kind="main",
            stake_minor=1000,
            idempotency_key="m",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    # when alice (19) and bob (16) stand against the dealer's 17 and the round settles
    for number, (_, actor) in enumerate(seated[:2], start=1):
        decision_make(round_id=round_.pk, actor=actor, box_number=number, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    # then alice's streak grows, bob's ends and carol's stays as it was
    streaks = dict(Seat.objects.filter(box__table=table).values_list("player_id", "win_streak"))
    assert streaks == {seated[0][0].pk: 3, seated[1][0].pk: 0, seated[2][0].pk: 4}


@pytest.mark.django_db
def test_no_bets_behind_takes_effect_from_the_next_round(table, dealer):
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob = funded_player(table)
    as_bob = at_terminal(table, bob)
    # when alice forbids bets behind during this round
    box_bets_behind_set(table=table, box_number=1, actor=as_alice, accepts=False)
    # then bob may still bet behind her in this round
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=500, idempotency_key="b1"
    )
    _refused("not_box_owner", box_bets_behind_set, table=table, box_number=1, actor=as_bob, accepts=True)
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    # but not in the next one
    next_round = round_open(table=table, actor=Actor.staff(dealer))
    before = balance(bob)
    _bet_refused(
        "bets_behind_forbidden",
        round_id=next_round.pk,
        actor=as_bob,
        box_number=1,
        kind="behind",
        stake_minor=500,
        idempotency_key="b2",
    )
    assert balance(bob) == before


# ------------------------------------------------------------------------------------------ shoes


@pytest.mark.django_db
def test_a_table_without_a_shoe_in_use_opens_no_round_and_another_dealer_is_refused_first(table, dealer):
    # given BJ1 with its shoe retired (no shoe in use), dealer-1 signed on
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    Shoe.objects.filter(table=table).update(retired_at=timezone.now())
    other = Actor.staff(staff_user("dealer", "dealer-no-shoe"))
    before = (Round.objects.count(), AuditRecord.objects.count())
    # then another dealer is refused as at any table, and the signed-on one is told to shuffle
    _refused("not_table_dealer", round_open, table=table, actor=other)
    _refused("shuffle_due", round_open, table=table, actor=Actor.staff(dealer))
    assert (Round.objects.count(), AuditRecord.objects.count()) == before
    # and once the shuffle is recorded the round opens, numbered after none
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    assert round_open(table=table, actor=Actor.staff(dealer)).number == 1


@pytest.mark.django_db
def test_a_due_shuffle_blocks_the_next_round_until_recorded(table, dealer):
    shoe = shoe_shuffle(table=table, actor=Actor.staff(dealer))
    Shoe.objects.filter(pk=shoe.pk).update(rounds_dealt=5)  # shuffle every 5 rounds (seed)
    _refused("shuffle_due", round_open, table=table, actor=Actor.staff(dealer))
    assert not Round.objects.filter(table=table).exists()
    # when the shuffle is recorded, the old shoe's order and secret verify against its commitment
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    shoe.refresh_from_db()
    assert shoe.retired_at is not None and shoe_verify(shoe)
    assert round_open(table=table, actor=Actor.staff(dealer)).number == 1
    assert AuditRecord.objects.filter(action="shoe.shuffled").count() == 2
    _refused("round_in_progress", shoe_shuffle, table=table, actor=Actor.staff(dealer))


# ------------------------------------------------------------------------------------------- bets


@pytest.mark.django_db
def test_bet_refusals_move_nothing(table, dealer):
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob = funded_player(table, 300)
    as_bob = at_terminal(table, bob)
    box_take(table=table, box_number=2, actor=as_bob)
    rows = (Hold.objects.count(), Bet.objects.count(), BetHold.objects.count(), Seat.objects.count())
    cases = [
        (
            "stake_above_table_max",
            dict(actor=as_alice, box_number=1, kind="perfect_pairs", stake_minor=10_001),
        ),
        (
            "side_bet_without_main_bet",
            dict(actor=as_bob, box_number=2, kind="perfect_pairs", stake_minor=100),
        ),
        ("not_box_owner", dict(actor=as_bob, box_number=1, kind="main", stake_minor=500)),
        ("insufficient_funds", dict(actor=as_bob, box_number=2, kind="main", stake_minor=500)),
        ("box_not_taken", dict(actor=as_bob, box_number=5, kind="behind", stake_minor=500)),
        # a first bet behind box 1 would seat him there: the seat goes with the refusal
        ("insufficient_funds", dict(actor=as_bob, box_number=1, kind="behind", stake_minor=500)),
        ("no_such_box", dict(actor=as_bob, box_number="2", kind="main", stake_minor=500)),
        ("no_such_box", dict(actor=as_bob, box_number=10**6, kind="main", stake_minor=500)),
        ("no_such_box", dict(actor=as_bob, box_number=True, kind="main", stake_minor=500)),
    ]
    for code, kwargs in cases:
        _bet_refused(code, round_id=round_.pk, idempotency_key=code, **kwargs)
    after = (Hold.objects.count(), Bet.objects.count(), BetHold.objects.count(), Seat.objects.count())
    assert (after, balance(bob)) == (rows, (300, 0))


@pytest.mark.django_db
def test_a_bet_reads_only_the_bets_its_checks_need(table, dealer):
    # given box 1 with Alice's main and Perfect Pairs bets and twelve other players' bets behind it
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bet_place(
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        kind="perfect_pairs",
        stake_minor=100,
        idempotency_key="p",
    )
    for index in range(12):
        bettor = at_terminal(table, funded_player(table, 10_000))
        bet_place(
            round_id=round_.pk,
            actor=bettor,
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key=f"{index}",
        )
    bob = funded_player(table, 10_000)
    as_bob = at_terminal(table, bob)

    # when Bob bets behind the box twice
    with CaptureQueriesContext(connection) as first:
        bet_place(
            round_id=round_.pk,
            actor=as_bob,
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key="1",
        )
    with CaptureQueriesContext(connection) as second:
        bet_place(
            round_id=round_.pk,
            actor=as_bob,
            box_number=1,
            kind="behind",
            stake_minor=500,
            idempotency_key="2",
        )

    # then a bet behind the box reads its main and side bets and the bettor's own main bets, never
    # the bets behind it (the other players' or the bettor's own)
    def read(kind):
        return sorted((bet.kind.value, bet.player) for bet in _bets_checked(round_.pk, 1, bob.pk, kind))

    assert read("behind") == [("main", str(alice.pk)), ("perfect_pairs", str(alice.pk))]
    # and a main bet also reads the bettor's own bets behind the box (never behind one's own box)
    assert read("main") == sorted(
        [
            ("main", str(alice.pk)),
            ("perfect_pairs", str(alice.pk)),
            ("behind", str(bob.pk)),
            ("behind", str(bob.pk)),
        ]
    )
    # and a bet behind makes seven statements (no savepoint: see ``bet_place``): the round's
    # shared lock; the gaming day's shared lock and the check that it is open
    # (``gaming_day_writable``); the round with its table's casino, the box, whether the bettor is seated there
    # and the bet's id (the statement that locks the player's row); the bets checked; the hold
    # with its account (wallet/sql.py); the bet with its hold link. The first behind a box also
    # seats the bettor
    sql = "\n".join(query["sql"][:120] for query in second.captured_queries)
    assert len(first.captured_queries) == len(second.captured_queries) + 1, sql
    assert len(second.captured_queries) == 7, sql


@pytest.mark.django_db
def test_cancelling_a_main_bet_takes_the_side_bet_with_it(table, dealer):
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bet_place(round_id=round_.pk, actor=as_alice, box_number=1, kind="perfect_pairs", stake_minor=100)
    assert balance(alice) == (10_000, 1100)
    # cancelling the main bet takes the side bet with it and frees both stakes
    cancelled = bet_cancel(round_id=round_.pk, actor=as_alice, bet_id=Bet.objects.get(kind="main").pk)
    assert sorted(bet.status for bet in cancelled) == ["cancelled", "cancelled"]
    assert balance(alice) == (10_000, 0)


@pytest.mark.django_db
def test_bets_enter_the_log_as_their_bettors_at_their_terminals(table, dealer):
    # given alice's main bet from her terminal and bob's bet behind from his
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob = funded_player(table, 5000)
    as_bob = at_terminal(table, bob)
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=700, idempotency_key="b"
    )
    # when the dealer closes betting, which is when the bets enter the round's log
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    # then each bet is logged as its bettor's, at the terminal it came from, not as the dealer's
    placed = RoundEvent.objects.filter(round=round_, kind="bet_placed").order_by("sequence")
    assert [
        (event.actor_id, event.actor_name, event.role, event.player_id, event.terminal_id) for event in placed
    ] == [
        (None, f"player {alice.card_number}", "player", alice.pk, as_alice.terminal.pk),
        (None, f"player {bob.card_number}", "player", bob.pk, as_bob.terminal.pk),
    ]
    # and no more bets itself is the dealer's
    closed = RoundEvent.objects.get(round=round_, kind="betting_closed")
    assert (closed.actor_id, closed.role, closed.player_id) == (dealer.pk, "dealer", None)


@pytest.mark.django_db
def test_a_bet_behind_a_box_whose_owner_sits_out_is_returned_at_once(table, dealer):
    # given alice owns box 1 and box 2 but bets only on box 1; bob bets behind box 2
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    box_take(table=table, box_number=2, actor=as_alice)
    bob = funded_player(table, 5000)
    bet_place(
        round_id=round_.pk,
        actor=at_terminal(table, bob),
        box_number=2,
        kind="behind",
        stake_minor=700,
        idempotency_key="b",
    )
    assert balance(bob) == (5000, 700)
    # when betting closes
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    # then bob's stake is free again and his bet is refunded
    assert balance(bob) == (5000, 0)
    assert Bet.objects.get(player=bob).status == "refunded"
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    assert balance(bob) == (5000, 0)
    assert PayoutLine.objects.get(bet__player=bob).outcome == "refund"
    assert not Posting.objects.filter(account__player=bob, transfer__kind="round_settlement").exists()


# -------------------------------------------------------------------------------------- decisions


@pytest.mark.django_db
def test_a_decision_from_a_non_owner_is_refused(table, dealer):
    _alice, _as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob = funded_player(table)
    as_bob = at_terminal(table, bob)
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=500, idempotency_key="b"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    events = RoundEvent.objects.count()
    _refused("not_box_owner", decision_make, round_id=round_.pk, actor=as_bob, box_number=1, decision="hit")
    assert RoundEvent.objects.count() == events


@pytest.mark.django_db
def test_a_decision_for_a_box_without_a_bet_is_box_not_playing_409_and_a_box_number_off_the_table_404(
    table, dealer
):
    # alice owns boxes 1 and 2 and bets on box 1 only
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    box_take(table=table, box_number=2, actor=as_alice)
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    events = RoundEvent.objects.count()
    refused = _refused(
        "box_not_playing", decision_make, round_id=round_.pk, actor=as_alice, box_number=2, decision="hit"
    )
    assert refused.status == 409
    assert RoundEvent.objects.count() == events
    # an engine refusal keeps its status through the service: no_such_box is a 404 everywhere
    from casino.errors import from_game_error
    from games.errors import GameError

    assert from_game_error(GameError("no box 9", code="no_such_box")).status == 404
    assert from_game_error(GameError("not now", code="not_your_turn")).status == 409


def test_an_engine_refusal_has_the_status_of_the_table_error_with_its_code():
    """casino.errors.GAME_ERROR_STATUS names the statuses of the table's own errors for the codes
    the engine shares with them: one status per code."""
    from casino.errors import GAME_ERROR_STATUS
    from tables.errors import (
        NoSuchBoxError,
        NotBoxOwnerError,
        StakeAboveTableMaxError,
        StakeBelowTableMinError,
    )

    for error in (NoSuchBoxError, NotBoxOwnerError, StakeBelowTableMinError, StakeAboveTableMaxError):
        assert GAME_ERROR_STATUS[error.code] == error.status


@pytest.mark.django_db
def test_a_double_holds_the_added_stake_and_pays_on_both(table, dealer):
    # alice 6+5 doubles and draws a 9 (20) against the dealer's 7+10
    alice, as_alice, round_ = _seated_round(table, dealer, ["6S", "7H", "5D", "TC", "9H"])
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="double")
    assert balance(alice) == (10_000, 2000)
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    assert balance(alice) == (12_000, 0)


@pytest.mark.django_db
def test_an_overdue_decision_stands_by_default_once(table, dealer):
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "6D", "TC"])
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    Round.objects.filter(pk=round_.pk).update(decision_deadline_at=timezone.now() - dt.timedelta(seconds=1))
    # when alice decides after her deadline
    _refused(
        "decision_deadline_passed",
        decision_make,
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        decision="hit",
    )
    # then the stand default was recorded, once, whatever the task does afterwards
    assert apply_overdue_defaults(round_.pk) == 0
    defaults = RoundEvent.objects.filter(round=round_, kind="default_applied")
    assert [event.payload["default"] for event in defaults] == ["stand"]
    assert Round.objects.get(pk=round_.pk).status == "settling"


@pytest.mark.django_db
def test_betting_closes_by_default_when_its_time_runs_out(table, dealer):
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "6D", "TC"])
    Round.objects.filter(pk=round_.pk).update(decision_deadline_at=timezone.now() - dt.timedelta(seconds=1))
    _bet_refused(
        "betting_closed",
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        kind="perfect_pairs",
        stake_minor=100,
        idempotency_key="late",
    )
    assert apply_overdue_defaults(round_.pk) == 1
    assert Round.objects.get(pk=round_.pk).status == "players"


def test_the_deadline_task_is_queued_by_the_name_celery_knows_it_by():
    assert apply_overdue_defaults.name == OVERDUE_DEFAULTS_TASK == "tables.tasks.apply_overdue_defaults"


# ------------------------------------------------------------------------- misscans, voids, approvals


@pytest.mark.django_db
def test_a_misscan_waits_for_a_pit_boss_correction(table, dealer, operator, pit_boss):
    # given a physical shoe from which every ace of spades has gone
    physical(table, operator)
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    shoe = shoe_shuffle(table=table, actor=Actor.staff(dealer))
    Shoe.objects.filter(pk=shoe.pk).update(dealt_counts={"AS": 6})
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    as_dealer = Actor.staff(dealer)
    card_enter(round_id=round_.pk, actor=as_dealer, card="TS")
    # when the reader sends an ace of spades
    error = _refused("misscan", card_enter, round_id=round_.pk, actor=as_dealer, card="AS")
    assert error.details["reason"] == "card_not_in_shoe"
    # then the round waits: more cards are refused until a pit boss corrects it
    _refused("awaiting_correction", card_enter, round_id=round_.pk, actor=as_dealer, card="7H")
    _refused("permission_denied", card_correct, round_id=round_.pk, actor=as_dealer, card="7H", reason="x")
    card_correct(round_id=round_.pk, actor=Actor.staff(pit_boss), card="7H", reason="reader misread 7H")
    for card in ("9D", "TC"):
        card_enter(round_id=round_.pk, actor=as_dealer, card=card)
    state = table_state(table=table)
    assert state["round"]["dealer"]["cards"] == ["7H", None]
    assert state["boxes"][0]["hands"][0]["total"] == 19
    assert AuditRecord.objects.filter(action="round.card_corrected").last().before["misscan"]["card"] == "AS"


@pytest.mark.django_db
def test_a_void_returns_every_stake(table, dealer, pit_boss):
    alice, as_alice, round_ = _seated_round(table, dealer, ["6S", "7H", "5D", "TC"])
    bet_place(
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        kind="perfect_pairs",
        stake_minor=100,
        idempotency_key="pp",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="double")
    assert balance(alice) == (10_000, 2100)
    _refused("permission_denied", round_void, round_id=round_.pk, actor=Actor.staff(dealer), reason="x")
    round_void(round_id=round_.pk, actor=Actor.staff(pit_boss), reason="dealer exposed the hole card")
    assert balance(alice) == (10_000, 0)
    assert Round.objects.get(pk=round_.pk).status == "voided"
    assert AuditRecord.objects.filter(action="round.voided").count() == 1
    _refused("round_not_open", round_void, round_id=round_.pk, actor=Actor.staff(pit_boss), reason="again")


@pytest.mark.django_db
def test_a_large_payout_waits_for_a_pit_boss_who_is_not_the_dealer(table, dealer, pit_boss, operator):
    # given a threshold of 500 and alice winning 1000 on 1000 (paid 2000)
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    line = PayoutLine.objects.get(round=round_)
    assert (line.approval_status, balance(alice)) == ("pending", (9000, 0))
    # when the dealer (who also holds the pit boss permission) tries to approve: refused
    dealer.groups.add(*pit_boss.groups.all())
    dealer = type(dealer).objects.get(pk=dealer.pk)
    _refused("four_eyes_required", payout_approve, payout_line_id=line.pk, actor=Actor.staff(dealer))
    assert balance(alice) == (9000, 0)
    # when a pit boss approves: paid out
    payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    assert balance(alice) == (11_000, 0)
    assert PendingPayout.objects.get().status == "released"
    _refused(
        "approval_decided",
        payout_reject,
        payout_line_id=line.pk,
        actor=Actor.staff(pit_boss),
        reason="late",
    )


@pytest.mark.django_db
def test_a_settlement_the_tray_cannot_pay_is_refused_whole_until_the_table_is_filled(table, dealer):
    # given alice winning 1000 on 1000 at a table whose tray holds 500
    tray = table_accounts_open(table=table)[AccountKind.TABLE_TRAY]
    table_credit(table=table, amount_minor=tray.balance_minor - 500, actor=Actor.staff(staff_user("cashier")))
    alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    before = (RoundEvent.objects.count(), AuditRecord.objects.count(), Posting.objects.count())
    # when the dealer settles: the ledger refuses, and so is the whole settlement
    error = _refused("insufficient_funds", round_settle, round_id=round_.pk, actor=Actor.staff(dealer))
    assert error.details["account_id"] == tray.pk
    # then nothing of it was written: no line, no event, no record, no posting; the bet and the
    # stake's hold stay as they were, and the round still waits to be settled
    assert (RoundEvent.objects.count(), AuditRecord.objects.count(), Posting.objects.count()) == before
    assert not PayoutLine.objects.filter(round=round_).exists()
    assert Round.objects.get(pk=round_.pk).status == "settling"
    assert Bet.objects.get(round=round_).status == "placed" and Hold.objects.get().status == "open"
    assert balance(alice) == (10_000, 1000)
    # and once the table is filled, the same settlement pays her
    system_table_fill(table=table, amount_minor=10_000, actor=Actor.automatic("test"))
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    assert (Round.objects.get(pk=round_.pk).status, balance(alice)) == ("settled", (11_000, 0))


def _settle_statements(table, dealer, bettors: int, box: int) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    owner = funded_player(table, 100_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_owner = at_terminal(table, owner)
    if not Box.objects.filter(table=table, number=box, owner=owner).exists():
        box_take(table=table, box_number=box, actor=as_owner)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_owner, box_number=box, kind="main", stake_minor=1000, idempotency_key="m"
    )
    bet_place(
        round_id=round_.pk,
        actor=as_owner,
        box_number=box,
        kind="perfect_pairs",
        stake_minor=100,
        idempotency_key="p",
    )
    for _ in range(bettors):
        bettor = funded_player(table, 10_000)
        bet_place(
            round_id=round_.pk,
            actor=at_terminal(table, bettor),
            box_number=box,
            kind="behind",
            stake_minor=500,
            idempotency_key="b",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_owner, box_number=box, decision="stand")
    with CaptureQueriesContext(connection) as queries:
        round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return len(queries.captured_queries)


@pytest.mark.django_db
def test_settlement_runs_a_constant_number_of_statements(table, dealer):
    assert _settle_statements(table, dealer, bettors=1, box=1) == _settle_statements(
        table, dealer, bettors=12, box=2
    )


@pytest.mark.django_db
def test_the_box_goes_to_the_next_bettor_who_may_own_one_more(table, dealer):
    # given alice owns box 1; bob owns boxes 2 and 3 (the limit, 2) and bets behind box 1, then carol
    _alice, as_alice, round_ = _seated_round(table, dealer, ["TS", "7H", "9D", "TC"])
    bob, carol = funded_player(table), funded_player(table)
    as_bob, as_carol = at_terminal(table, bob), at_terminal(table, carol)
    box_take(table=table, box_number=2, actor=as_bob)
    box_take(table=table, box_number=3, actor=as_bob)
    for actor, key in ((as_bob, "b"), (as_carol, "c")):
        bet_place(
            round_id=round_.pk, actor=actor, box_number=1, kind="behind", stake_minor=500, idempotency_key=key
        )
    _refused("box_limit_reached", box_take, table=table, box_number=4, actor=as_bob)
    # when alice leaves during betting
    left = box_leave(table=table, box_number=1, actor=as_alice)
    # then bob, at his limit, is passed over: carol owns box 1, and bob still owns two boxes
    assert left.owner_id == carol.pk
    assert sorted(Box.objects.filter(table=table, owner=bob).values_list("number", flat=True)) == [2, 3]
    # and when carol leaves too, bob is still at his limit: the box is free
    assert box_leave(table=table, box_number=1, actor=as_carol).owner_id is None
