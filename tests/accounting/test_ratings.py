"""Player ratings (``accounting.ratings``): theo on a hand-computed session, the actual win
against the payout lines, a session across two gaming days, the edges of each bet kind."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from accounting.ratings import (
    RatedBet,
    Span,
    config_edges,
    insurance_edge,
    overlap_seconds,
    player_ratings,
    players_at_table,
    rate,
    session_span,
)
from casino.models import BackgroundJob, Player, PlayerSession, Table
from tables.models import Bet, PayoutLine, Round
from tables.odds_jobs import MAIN_GAME_ODDS
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    payout_reject,
    round_close_betting,
    round_open,
    round_settle,
    table_settings_change,
)
from tests.factories import PlayerFactory, TerminalFactory
from tests.tables.conftest import stack_shoe
from wallet.services import system_buy_in

BUDAPEST = ZoneInfo("Europe/Budapest")
MAIN = Fraction("0.004598")  # live-american's main-game edge (docs/odds.md)
PERFECT_PAIRS = Fraction(19, 311)  # 25/12/6 on six decks
TWENTY_ONE_PLUS_THREE = Fraction(44753, 626665)  # 100/40/25/10/5 on six decks
INSURANCE = Fraction(23, 311)  # 2:1 on six decks: (4*6 - 1) / (52*6 - 1)
AT = dt.datetime(2026, 3, 2, 20, 0, tzinfo=dt.UTC)


def _bet(
    bet_id: int, round_id: int, kind: str, stake: int, edge: Fraction | None, staked: int, paid: int
) -> RatedBet:
    return RatedBet(
        bet_id=bet_id,
        round_id=round_id,
        table_id=1,
        kind=kind,
        stake_minor=stake,
        placed_at=AT,
        edge=edge,
        staked_minor=staked,
        paid_minor=paid,
    )


# ------------------------------------------------------------------------------ the arithmetic


def test_theo_of_a_hand_computed_session() -> None:
    # given half an hour of three rounds:
    #   round 1: main 10.00 (won 1:1, paid 20.00), Perfect Pairs 5.00 (lost)
    #   round 2: main 20.00 doubled to 40.00 (lost), insurance 10.00 (lost)
    #   round 3: a bet behind 5.00 (pushed, paid 5.00)
    bets = [
        _bet(1, 1, "main", 1000, MAIN, 1000, 2000),
        _bet(2, 1, "perfect_pairs", 500, PERFECT_PAIRS, 500, 0),
        _bet(3, 2, "main", 2000, MAIN, 4000, 0),
        _bet(4, 2, "insurance", 1000, INSURANCE, 1000, 0),
        _bet(5, 3, "behind", 500, MAIN, 500, 500),
    ]
    # when it is rated
    rating = rate(bets, 30 * 60)
    # then theo = 1000 * 0.004598 + 500 * 19/311 + 2000 * 0.004598 + 1000 * 23/311 + 500 * 0.004598
    #           = 4.598 + 9.196 + 2.299 + (9500 + 23000) / 311
    #           = 16.093 + 104.501607... = 120.594607... minor units -> 1.21
    exact = Fraction("16.093") + Fraction(32500, 311)
    assert rating.theo_exact == exact
    assert float(exact) == pytest.approx(120.594607, abs=1e-6)
    assert rating.theo_minor == 121
    assert rating.theo_is_complete
    # and 5 bets in 3 rounds, 50.00 placed: 16.666... per round -> 16.67
    assert (rating.rounds, rating.bets, rating.wagered_minor) == (3, 5, 5000)
    assert rating.average_bet_minor == 1667
    # and 3 rounds in half an hour: 6.0 an hour
    assert rating.rounds_per_hour == Decimal("6.0")
    assert rating.minutes_played == 30
    # and the actual win: staked 10 + 5 + 40 + 10 + 5 = 70.00, paid back 20 + 5 = 25.00 -> 45.00
    assert (rating.staked_minor, rating.paid_minor, rating.actual_win_minor) == (7000, 2500, 4500)


def test_a_stake_whose_edge_is_not_computed_yet_is_left_out_of_theo_and_counted_apart() -> None:
    bets = [_bet(1, 1, "main", 1000, None, 1000, 0), _bet(2, 1, "perfect_pairs", 311, PERFECT_PAIRS, 311, 0)]
    rating = rate(bets, 0)
    # 311 * 19/311 = 19 exactly; the main bet's 10.00 waits for its edge
    assert rating.theo_exact == 19
    assert not rating.theo_is_complete
    assert rating.wagered_without_edge_minor == 1000
    assert rating.rounds_per_hour is None
    # and under a minute no rate either: one round in 59 seconds is not 61 an hour
    assert rate(bets, 59).rounds_per_hour is None
    assert rate(bets, 60).rounds_per_hour == Decimal("60.0")


def test_an_empty_rating_has_no_average_and_no_rate() -> None:
    rating = rate([], 0)
    assert (rating.rounds, rating.theo_minor, rating.actual_win_minor) == (0, 0, 0)
    assert rating.average_bet_minor is None
    assert rating.rounds_per_hour is None


@pytest.mark.parametrize(
    ("decks", "pays", "edge"),
    [
        (6, Fraction(2), Fraction(23, 311)),
        (1, Fraction(2), Fraction(3, 51)),
        (8, Fraction(2), Fraction(31, 415)),
    ],
)
def test_insurance_edge_from_the_shoe_less_the_dealers_ace(
    decks: int, pays: Fraction, edge: Fraction
) -> None:
    # 1 deck: 16 tens among 51 cards, 2:1 -> 1 - 3 * 16/51 = 3/51
    assert insurance_edge(decks, pays) == edge


def test_a_session_counts_to_its_sign_out_else_its_expiry_else_now() -> None:
    start = AT
    assert (
        session_span(start, start + dt.timedelta(minutes=40), start + dt.timedelta(hours=2), AT).seconds
        == 2400
    )
    lapsed = session_span(start, None, start + dt.timedelta(minutes=25), start + dt.timedelta(hours=3))
    assert lapsed.seconds == 1500
    open_now = session_span(start, None, start + dt.timedelta(hours=1), start + dt.timedelta(minutes=10))
    assert open_now.seconds == 600


def test_overlap_of_a_session_with_a_gaming_day() -> None:
    span = Span(AT, AT + dt.timedelta(hours=2))
    assert overlap_seconds(span, AT + dt.timedelta(hours=1), AT + dt.timedelta(days=1)) == 3600
    assert overlap_seconds(span, AT + dt.timedelta(hours=3), AT + dt.timedelta(days=1)) == 0


# ------------------------------------------------------------------------------ from the database


def main_edge_known(table: Table) -> None:
    """The main-game edge of BJ1's rule-set version as its finished job records it."""
    version = table.config_versions.order_by("-number").first().rule_set_version  # type: ignore[union-attr]
    BackgroundJob.objects.create(
        kind=MAIN_GAME_ODDS,
        params={"rule_set_version": version.pk, "decks": int(version.options.get("decks", 6))},
        status=BackgroundJob.Status.SUCCEEDED,
        result={"house_edge": "0.004598", "method": "test"},
    )


def main_edge_unknown(table: Table) -> None:
    """BJ1's rule-set version as if no job had computed its main-game edge yet (the seeds compute
    it; an install seeded before they did, or a job still running, has none)."""
    version = table.config_versions.order_by("-number").first().rule_set_version  # type: ignore[union-attr]
    BackgroundJob.objects.filter(kind=MAIN_GAME_ODDS, params__rule_set_version=version.pk).delete()


def signed_in_at(table: Table, player: Player, started_at: dt.datetime, ended_at: dt.datetime | None) -> Any:
    terminal = TerminalFactory(casino=table.casino, table=table)
    session = PlayerSession.objects.create(
        player=player,
        terminal=terminal,
        table=table,
        token_prefix="t",
        token_digest=f"{player.pk}-{started_at.timestamp()}",
        started_at=started_at,
        expires_at=(ended_at or started_at) + dt.timedelta(hours=1),
        hard_expires_at=started_at + dt.timedelta(hours=12),
        ended_at=ended_at,
        end_reason=PlayerSession.EndReason.SIGNED_OUT if ended_at else "",
    )
    return Actor.at_terminal(terminal, player), session


def played_round(
    table: Table, dealer: Any, actor: Any, cards: list[str], bets: list[tuple[str, int]]
) -> Round:
    """One round of BJ1 with ``bets`` on box 1, the player standing, settled."""
    stack_shoe(table, dealer, cards)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    for index, (kind, stake) in enumerate(bets):
        bet_place(
            round_id=round_.pk,
            actor=actor,
            box_number=1,
            kind=kind,
            stake_minor=stake,
            idempotency_key=f"{index}",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=actor, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return Round.objects.get(pk=round_.pk)


@pytest.mark.django_db
def test_edges_of_the_seeded_configuration_come_from_the_engine(table: Table) -> None:
    config = table.config_versions.order_by("-number").first()
    assert config is not None
    main_edge_unknown(table)
    edges = config_edges(config)
    assert edges.main is None  # no job has computed it yet
    assert (edges.perfect_pairs, edges.twenty_one_plus_three, edges.insurance) == (
        PERFECT_PAIRS,
        TWENTY_ONE_PLUS_THREE,
        INSURANCE,
    )
    main_edge_known(table)
    assert config_edges(config).main == MAIN


@pytest.mark.django_db
def test_the_seeds_computed_the_main_edge_of_their_rule_sets(table: Table) -> None:
    config = table.config_versions.order_by("-number").first()
    assert config is not None
    # the engine's figure for live-american (docs/odds.md), from the seeds' job
    assert config_edges(config).main == MAIN


@pytest.mark.django_db
def test_theo_and_actual_win_of_rounds_played_match_the_hand_arithmetic_and_the_payout_lines(
    table: Table, dealer: Any
) -> None:
    # given Alice signed in at BJ1 for an hour, the main-game edge computed
    main_edge_known(table)
    alice = PlayerFactory(casino=table.casino, display_name="Alice")
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    start = timezone.now() - dt.timedelta(minutes=30)
    as_alice, session = signed_in_at(table, alice, start, None)
    box_take(table=table, box_number=1, actor=as_alice)
    # when she plays two rounds: 10.00 + Perfect Pairs 5.00 on T,9 (19) against 7,T (17): wins
    # 1:1, the pair loses; then 20.00 on T,6 (16) against T,T (20): loses
    played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000), ("perfect_pairs", 500)])
    played_round(table, dealer, as_alice, ["TS", "TH", "6D", "TC"], [("main", 2000)])
    ratings = player_ratings(alice, alice.casino.gaming_day(), alice.casino.gaming_day())
    # then theo = (1000 + 2000) * 0.004598 + 500 * 19/311 = 13.794 + 30.546623... = 44.340623... -> 0.44
    expected = 3000 * MAIN + 500 * PERFECT_PAIRS
    assert ratings.total.theo_exact == expected
    assert ratings.total.theo_minor == 44
    # and the actual win is the payout lines' stakes less their payments: 35.00 - 20.00 = 15.00
    lines = PayoutLine.objects.filter(bet__player=alice)
    assert sum(line.stake_minor for line in lines) - sum(line.paid_minor for line in lines) == 1500
    assert (ratings.total.staked_minor, ratings.total.paid_minor, ratings.total.actual_win_minor) == (
        3500,
        2000,
        1500,
    )
    # and the session holds both rounds, its half hour so far, 4 rounds an hour
    (rated,) = ratings.sessions
    assert rated.session == session
    assert rated.is_open
    assert (rated.rating.rounds, rated.rating.bets, rated.rating.average_bet_minor) == (2, 3, 1750)
    assert 1799 <= rated.rating.seconds_played <= 1802
    assert rated.rating.rounds_per_hour == Decimal("4.0")
    # and the pit's list of the players at BJ1 shows her
    at_table, pending = players_at_table(table)
    assert [item.player for item in at_table] == [alice]
    assert at_table[0].day.theo_minor == 44
    assert pending == []


@pytest.mark.django_db
def test_without_the_main_edge_theo_holds_the_side_bets_and_names_the_version_it_waits_for(
    table: Table, dealer: Any
) -> None:
    main_edge_unknown(table)
    alice = PlayerFactory(casino=table.casino)
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    as_alice, _ = signed_in_at(table, alice, timezone.now() - dt.timedelta(minutes=5), None)
    box_take(table=table, box_number=1, actor=as_alice)
    played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000), ("perfect_pairs", 311)])
    ratings = player_ratings(alice, alice.casino.gaming_day(), alice.casino.gaming_day())
    assert ratings.total.theo_exact == 19  # 311 * 19/311
    assert ratings.total.wagered_without_edge_minor == 1000
    config = table.config_versions.order_by("-number").first()
    assert config is not None
    assert ratings.pending_versions == [config.rule_set_version]


@pytest.mark.django_db
def test_a_session_across_two_gaming_days_counts_in_each_its_part(table: Table, dealer: Any) -> None:
    # given the demo casino's gaming day starting at 06:00 Budapest time, and Alice signed in
    # from 05:30 to 06:30 local on 2 March (05:30 belongs to the gaming day of 1 March)
    casino = table.casino
    assert (casino.time_zone, casino.gaming_day_starts_at) == ("Europe/Budapest", dt.time(6, 0))
    alice = PlayerFactory(casino=casino)
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    start = dt.datetime(2026, 3, 2, 5, 30, tzinfo=BUDAPEST)
    as_alice, session = signed_in_at(table, alice, start, start + dt.timedelta(hours=1))
    box_take(table=table, box_number=1, actor=as_alice)
    # and a round of 10.00 at 05:45 and one of 20.00 at 06:15 (their bets' times)
    first = played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000)])
    second = played_round(table, dealer, as_alice, ["TS", "TH", "6D", "TC"], [("main", 2000)])
    Bet.objects.filter(round=first).update(placed_at=start + dt.timedelta(minutes=15))
    Bet.objects.filter(round=second).update(placed_at=start + dt.timedelta(minutes=45))
    # when the ratings of 1 and 2 March are read
    ratings = player_ratings(
        alice, dt.date(2026, 3, 1), dt.date(2026, 3, 2), now=start + dt.timedelta(days=1)
    )
    # then the session is one, of both days, an hour, two rounds
    (rated,) = ratings.sessions
    assert rated.session == session
    assert rated.gaming_days == (dt.date(2026, 3, 1), dt.date(2026, 3, 2))
    assert (rated.rating.seconds_played, rated.rating.rounds, rated.rating.wagered_minor) == (3600, 2, 3000)
    # and each day has its half hour and its round
    by_day = {item.gaming_day: item for item in ratings.days}
    assert list(by_day) == [dt.date(2026, 3, 2), dt.date(2026, 3, 1)]
    assert (
        by_day[dt.date(2026, 3, 1)].rating.seconds_played,
        by_day[dt.date(2026, 3, 1)].rating.wagered_minor,
    ) == (
        1800,
        1000,
    )
    assert (
        by_day[dt.date(2026, 3, 2)].rating.seconds_played,
        by_day[dt.date(2026, 3, 2)].rating.wagered_minor,
    ) == (
        1800,
        2000,
    )
    assert by_day[dt.date(2026, 3, 1)].rating.rounds_per_hour == Decimal("2.0")
    # and the first day won 10.00 for the player, the second lost 20.00 to the house
    assert by_day[dt.date(2026, 3, 1)].rating.actual_win_minor == -1000
    assert by_day[dt.date(2026, 3, 2)].rating.actual_win_minor == 2000
    # and the total is the session's
    assert (ratings.total.seconds_played, ratings.total.rounds, ratings.total.actual_win_minor) == (
        3600,
        2,
        1000,
    )


@pytest.mark.django_db
def test_a_payout_awaiting_approval_counts_as_paid_and_a_rejected_one_does_not(
    table: Table, dealer: Any, pit_boss: Any, operator: Any
) -> None:
    # given winnings above 5.00 held for a pit boss, and Alice winning 10.00 on 10.00 twice
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    alice = PlayerFactory(casino=table.casino)
    bob = PlayerFactory(casino=table.casino)
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    as_alice, _ = signed_in_at(table, alice, timezone.now() - dt.timedelta(minutes=5), None)
    box_take(table=table, box_number=1, actor=as_alice)
    first = played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000)])
    played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000)])
    today = alice.casino.gaming_day()
    # then, both waiting, the house's actual win is -20.00 and 40.00 wait for approval
    waiting = player_ratings(alice, today, today).total
    assert (waiting.staked_minor, waiting.paid_minor, waiting.awaiting_minor) == (2000, 4000, 4000)
    assert waiting.actual_win_minor == -2000
    # when the pit boss rejects the first payout
    payout_reject(
        payout_line_id=PayoutLine.objects.get(round=first).pk, actor=Actor.staff(pit_boss), reason="misdeal"
    )
    # then it is not paid: the house kept 10.00 + 10.00 less the 20.00 still waiting
    decided = player_ratings(alice, today, today).total
    assert (decided.paid_minor, decided.awaiting_minor, decided.actual_win_minor) == (2000, 2000, 0)
    # and another player's rating holds none of it
    assert player_ratings(bob, today, today).total.bets == 0


@pytest.mark.django_db
def test_a_session_that_lapsed_before_the_range_is_not_listed(table: Table) -> None:
    # given a session of ten days ago that lapsed an hour later without a sign-out (still open)
    alice = PlayerFactory(casino=table.casino)
    _, lapsed = signed_in_at(table, alice, timezone.now() - dt.timedelta(days=10), None)
    assert lapsed.ended_at is None
    day = alice.casino.gaming_day()
    # then today's ratings list no session, and that day's lists it, for its hour
    assert player_ratings(alice, day, day).sessions == []
    then = alice.casino.gaming_day(lapsed.started_at)
    (rated,) = player_ratings(alice, then, then + dt.timedelta(days=1)).sessions
    assert (rated.session, rated.is_open, rated.rating.seconds_played) == (lapsed, False, 3600)
