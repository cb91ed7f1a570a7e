"""Player ratings, exact from the recorded bets: per play session and per gaming day, the time
played, the rounds, the average bet, the rounds per hour, the theoretical win and the actual win.

- **Theoretical win** (theo): each bet's stake times the house edge of its kind under the rule
  set and paytables of its own round's configuration version (``Round.config``), summed exactly
  (``Fraction``) and rounded once, half to even, to a minor unit. The edges come from the
  engine's odds: the main game's under basic strategy (``games.odds.main_game_odds``,
  a background job per rule-set version, ``tables.odds_jobs``; a bet behind plays the box's hand
  and takes the same edge), the side bets' exact figures (``tables.odds_jobs.side_bet_edge``) and
  insurance's, exact from the shoe (``insurance_edge``). A main-game edge not computed yet leaves
  those bets out of the theo: the rating says it is incomplete and by how much stake.
- **Actual win**: what the player's payout lines staked (doubles and splits included) less what
  they paid back, a payout the pit boss rejected not paid; a payout still waiting for approval
  counts as paid and is shown.
- Only settled bets of settled rounds count: a bet taken back, returned (owner not playing) or of
  a voided round is no play.
- **Time played**: a play session (``casino.PlayerSession``) from its sign-in to its sign-out, to
  its expiry when it lapsed, or to now while it is open; a gaming day counts the part of each
  session inside it (``accounting.gaming_days``). A bet belongs to the session of its player at
  its table that was open when it was placed; bets outside any session are rated on their own.

Reads only. The arithmetic is pure (``RatedBet``, ``rate``, ``insurance_edge``,
``overlap_seconds``); the database reads turn rows into those.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounting.gaming_days import Schedule, gaming_day_bounds, gaming_day_of, schedule_of
from casino.models import Player, PlayerSession, RuleSetVersion, Table
from tables.models import ApprovalStatus, Bet, BetKind, BetStatus, PayoutLine, RoundStatus, TableConfigVersion
from tables.odds_jobs import main_game_edge, side_bet_edge
from tables.services.config import config_rules

SECONDS_PER_HOUR = 3600
MIN_SECONDS_FOR_RATE = 60

# ------------------------------------------------------------------------------ the arithmetic


def insurance_edge(decks: int, pays: Fraction = Fraction(2)) -> Fraction:
    """The house edge of insurance paying ``pays`` to one: the hole card under the dealer's ace
    is a ten-valued card with chance 16d / (52d - 1) from a full shoe of ``d`` decks less the
    ace, so the edge is 1 - (pays + 1) * 16d / (52d - 1); at 2:1, (4d - 1) / (52d - 1)
    (``23/311`` = 7.40% on six decks)."""
    tens = Fraction(16 * decks, 52 * decks - 1)
    return 1 - (pays + 1) * tens


@dataclass(frozen=True)
class RatedBet:
    """One settled bet as a rating counts it. ``edge`` is the house edge of its kind under its
    round's configuration (None: not computed yet); ``staked_minor`` and ``paid_minor`` are its
    payout lines' (``paid_minor`` without a rejected payout, with one awaiting approval, which
    ``awaiting_minor`` repeats)."""

    bet_id: int
    round_id: int
    table_id: int
    kind: str
    stake_minor: int
    placed_at: dt.datetime
    edge: Fraction | None
    staked_minor: int
    paid_minor: int
    awaiting_minor: int = 0


@dataclass(frozen=True)
class Rating:
    """The figures of a set of bets and the seconds played over them."""

    rounds: int
    bets: int
    seconds_played: int
    wagered_minor: int
    theo_exact: Fraction
    wagered_without_edge_minor: int
    staked_minor: int
    paid_minor: int
    awaiting_minor: int

    @property
    def theo_is_complete(self) -> bool:
        return self.wagered_without_edge_minor == 0

    @property
    def theo_minor(self) -> int:
        """The theoretical win in minor units, rounded half to even once for the whole set."""
        return round(self.theo_exact)

    @property
    def actual_win_minor(self) -> int:
        """The house's result: staked less paid back."""
        return self.staked_minor - self.paid_minor

    @property
    def average_bet_minor(self) -> int | None:
        """What the player staked per round (every bet of the round, at the stake placed),
        rounded half to even; None without a round."""
        return round(Fraction(self.wagered_minor, self.rounds)) if self.rounds else None

    @property
    def minutes_played(self) -> int:
        return self.seconds_played // 60

    @property
    def rounds_per_hour(self) -> Decimal | None:
        """Rounds per hour played, to one decimal (half to even); None under a minute played
        (a few seconds would make any round a rate of hundreds)."""
        if self.seconds_played < MIN_SECONDS_FOR_RATE:
            return None
        exact = Fraction(self.rounds * SECONDS_PER_HOUR, self.seconds_played)
        return (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
            Decimal("0.1"), rounding=ROUND_HALF_EVEN
        )


def rate(bets: Iterable[RatedBet], seconds_played: int) -> Rating:
    """The rating of ``bets`` over ``seconds_played``: the rounds they were placed in, the
    stakes placed, the theo (each stake times its edge, exactly; stakes whose edge is unknown
    are counted apart) and the payout lines' stakes and payments."""
    items = list(bets)
    known = [bet for bet in items if bet.edge is not None]
    return Rating(
        rounds=len({bet.round_id for bet in items}),
        bets=len(items),
        seconds_played=max(0, int(seconds_played)),
        wagered_minor=sum(bet.stake_minor for bet in items),
        theo_exact=sum((bet.stake_minor * bet.edge for bet in known if bet.edge is not None), Fraction(0)),
        wagered_without_edge_minor=sum(bet.stake_minor for bet in items if bet.edge is None),
        staked_minor=sum(bet.staked_minor for bet in items),
        paid_minor=sum(bet.paid_minor for bet in items),
        awaiting_minor=sum(bet.awaiting_minor for bet in items),
    )


@dataclass(frozen=True)
class Span:
    """From one instant to another (aware)."""

    starts_at: dt.datetime
    ends_at: dt.datetime

    @property
    def seconds(self) -> int:
        return max(0, int((self.ends_at - self.starts_at).total_seconds()))

    def holds(self, instant: dt.datetime) -> bool:
        return self.starts_at <= instant <= self.ends_at


def overlap_seconds(span: Span, starts_at: dt.datetime, ends_at: dt.datetime) -> int:
    """The whole seconds of ``span`` between ``starts_at`` (included) and ``ends_at``."""
    start, end = max(span.starts_at, starts_at), min(span.ends_at, ends_at)
    return max(0, int((end - start).total_seconds()))


def session_span(
    started_at: dt.datetime, ended_at: dt.datetime | None, expires_at: dt.datetime, now: dt.datetime
) -> Span:
    """What a play session counts as played: to its sign-out, else to its expiry once lapsed,
    else (still open) to ``now``."""
    if ended_at is not None:
        end = ended_at
    elif expires_at <= now:
        end = expires_at
    else:
        end = now
    return Span(started_at, max(started_at, end))


# ------------------------------------------------------------------------------ the house edges


@dataclass(frozen=True)
class ConfigEdges:
    """The house edge of each bet kind under one configuration version (None: not computed
    yet, or a side bet the version does not offer)."""

    rule_set_version: RuleSetVersion
    main: Fraction | None
    perfect_pairs: Fraction | None
    twenty_one_plus_three: Fraction | None
    insurance: Fraction

    def of(self, kind: str) -> Fraction | None:
        if kind in (BetKind.MAIN, BetKind.BEHIND):
            return self.main
        if kind == BetKind.PERFECT_PAIRS:
            return self.perfect_pairs
        if kind == BetKind.TWENTY_ONE_PLUS_THREE:
            return self.twenty_one_plus_three
        return self.insurance


@lru_cache(maxsize=256)
def _side_edge(kind: str, decks: int, payouts_json: str) -> Fraction:
    return side_bet_edge(kind, decks, json.loads(payouts_json)).house_edge


def _side(kind: str, decks: int, payouts: dict[str, int] | None) -> Fraction | None:
    if payouts is None:
        return None
    return _side_edge(kind, decks, json.dumps(payouts, sort_keys=True))


def config_edges(config: TableConfigVersion) -> ConfigEdges:
    """The edges of every bet kind under ``config`` (its rule-set version and paytables)."""
    rules = config_rules(config)
    perfect_pairs = config.perfect_pairs_version
    twenty_one_plus_three = config.twenty_one_plus_three_version
    return ConfigEdges(
        rule_set_version=config.rule_set_version,
        main=main_game_edge(config.rule_set_version),
        perfect_pairs=_side(
            BetKind.PERFECT_PAIRS, rules.decks, perfect_pairs.payouts if perfect_pairs else None
        ),
        twenty_one_plus_three=_side(
            BetKind.TWENTY_ONE_PLUS_THREE,
            rules.decks,
            twenty_one_plus_three.payouts if twenty_one_plus_three else None,
        ),
        insurance=insurance_edge(rules.decks, rules.insurance_pays),
    )


def edges_of_configs(config_ids: Iterable[int]) -> dict[int, ConfigEdges]:
    configs = TableConfigVersion.objects.filter(pk__in=set(config_ids)).select_related(
        "rule_set_version__rule_set", "perfect_pairs_version", "twenty_one_plus_three_version"
    )
    return {config.pk: config_edges(config) for config in configs}


# ------------------------------------------------------------------------------ the reads


def rated_bets(
    player: Player,
    starts_at: dt.datetime,
    ends_at: dt.datetime,
    *,
    table_id: int | None = None,
    edges: dict[int, ConfigEdges] | None = None,
) -> tuple[list[RatedBet], list[RuleSetVersion]]:
    """The player's settled bets placed from ``starts_at`` to before ``ends_at`` (at one table
    if asked), rated; and the rule-set versions whose main-game edge is not computed yet among
    them. Three queries, and one per configuration version not seen before."""
    query = Bet.objects.filter(
        player=player,
        status=BetStatus.SETTLED,
        round__status=RoundStatus.SETTLED,
        placed_at__gte=starts_at,
        placed_at__lt=ends_at,
    )
    if table_id is not None:
        query = query.filter(round__table_id=table_id)
    rows = list(
        query.order_by("placed_at", "pk").values_list(
            "pk", "round_id", "round__table_id", "round__config_id", "kind", "stake_minor", "placed_at"
        )
    )
    staked: dict[int, int] = defaultdict(int)
    paid: dict[int, int] = defaultdict(int)
    awaiting: dict[int, int] = defaultdict(int)
    lines = PayoutLine.objects.filter(bet_id__in=[row[0] for row in rows]).values_list(
        "bet_id", "stake_minor", "paid_minor", "needs_approval", "decision__status"
    )
    for bet_id, stake, paid_minor, needs_approval, decision in lines:
        staked[bet_id] += stake
        if decision == ApprovalStatus.REJECTED:
            continue
        paid[bet_id] += paid_minor
        if needs_approval and decision is None:
            awaiting[bet_id] += paid_minor
    edges = edges if edges is not None else {}
    missing = {row[3] for row in rows} - set(edges)
    if missing:
        edges.update(edges_of_configs(missing))
    pending = {
        edges[row[3]].rule_set_version.pk: edges[row[3]].rule_set_version
        for row in rows
        if edges[row[3]].of(row[4]) is None
    }
    bets = [
        RatedBet(
            bet_id=pk,
            round_id=round_id,
            table_id=bet_table_id,
            kind=kind,
            stake_minor=stake,
            placed_at=placed_at,
            edge=edges[config_id].of(kind),
            staked_minor=staked[pk],
            paid_minor=paid[pk],
            awaiting_minor=awaiting[pk],
        )
        for pk, round_id, bet_table_id, config_id, kind, stake, placed_at in rows
    ]
    return bets, sorted(pending.values(), key=lambda version: version.pk)


@dataclass(frozen=True)
class SessionRating:
    """A play session (None: bets placed outside any recorded session) and its rating."""

    session: PlayerSession | None
    table_name: str
    span: Span | None
    gaming_days: tuple[dt.date, ...]
    rating: Rating
    is_open: bool = False


@dataclass(frozen=True)
class DayRating:
    gaming_day: dt.date
    rating: Rating
    sessions: int


@dataclass(frozen=True)
class PlayerRatings:
    """A player's ratings over gaming days ``first_day`` to ``last_day``: every session (newest
    first), every day with play (newest first), their total, and the rule-set versions whose
    main-game edge the theo still waits for."""

    player: Player
    first_day: dt.date
    last_day: dt.date
    sessions: list[SessionRating]
    days: list[DayRating]
    total: Rating
    pending_versions: list[RuleSetVersion] = field(default_factory=list)


def _sessions(
    player: Player, starts_at: dt.datetime, ends_at: dt.datetime, table_id: int | None = None
) -> list[PlayerSession]:
    query = PlayerSession.objects.filter(player=player, started_at__lt=ends_at).filter(
        Q(ended_at__isnull=True, expires_at__gt=starts_at) | Q(ended_at__gt=starts_at)
    )
    if table_id is not None:
        query = query.filter(table_id=table_id)
    return list(query.select_related("table").order_by("started_at", "pk"))


def _days_between(schedule: Schedule, span: Span) -> tuple[dt.date, ...]:
    first = gaming_day_of(schedule, span.starts_at)
    last = gaming_day_of(schedule, max(span.starts_at, span.ends_at - dt.timedelta(microseconds=1)))
    return tuple(first + dt.timedelta(days=offset) for offset in range((last - first).days + 1))


def ratings_compute(
    schedule: Schedule,
    sessions: Sequence[tuple[PlayerSession | None, str, int, Span]],
    bets: Sequence[RatedBet],
    days: tuple[dt.date, dt.date],
    table_names: dict[int, str],
    now: dt.datetime,
) -> tuple[list[SessionRating], list[DayRating], Rating]:
    """Sessions (each with its table's name and id and the span it counts), the bets, the range
    of gaming days -> the sessions' ratings, the days' and their total. Pure: a bet goes to the
    first session of its table whose span holds its placing; a day counts its bets and the
    seconds of every session inside it."""
    by_session: dict[int, list[RatedBet]] = defaultdict(list)
    outside: list[RatedBet] = []
    for bet in bets:
        for index, (_, _, table_id, span) in enumerate(sessions):
            if table_id == bet.table_id and span.holds(bet.placed_at):
                by_session[index].append(bet)
                break
        else:
            outside.append(bet)
    session_ratings = [
        SessionRating(
            session=session,
            table_name=name,
            span=span,
            gaming_days=_days_between(schedule, span),
            rating=rate(by_session[index], span.seconds),
            is_open=session is not None and session.ended_at is None and session.expires_at > now,
        )
        for index, (session, name, _, span) in enumerate(sessions)
    ]
    if outside:
        names = sorted({table_names.get(bet.table_id, "") for bet in outside})
        session_ratings.append(
            SessionRating(
                session=None,
                table_name=", ".join(name for name in names if name),
                span=None,
                gaming_days=tuple(sorted({gaming_day_of(schedule, bet.placed_at) for bet in outside})),
                rating=rate(outside, 0),
            )
        )
    first_day, last_day = days
    day_ratings = []
    day = last_day
    while day >= first_day:
        starts_at, ends_at = gaming_day_bounds(schedule, day)
        day_bets = [bet for bet in bets if starts_at <= bet.placed_at < ends_at]
        seconds = [overlap_seconds(span, starts_at, ends_at) for _, _, _, span in sessions]
        if day_bets or any(seconds):
            day_ratings.append(
                DayRating(
                    gaming_day=day,
                    rating=rate(day_bets, sum(seconds)),
                    sessions=sum(1 for value in seconds if value),
                )
            )
        day -= dt.timedelta(days=1)
    total = rate(bets, sum(span.seconds for _, _, _, span in sessions))
    earliest = dt.datetime.min.replace(tzinfo=dt.UTC)
    session_ratings.sort(key=lambda item: item.span.starts_at if item.span else earliest, reverse=True)
    return session_ratings, day_ratings, total


def player_ratings(
    player: Player,
    first_day: dt.date,
    last_day: dt.date,
    *,
    table: Table | None = None,
    now: dt.datetime | None = None,
    edges: dict[int, ConfigEdges] | None = None,
) -> PlayerRatings:
    """The player's ratings over the gaming days ``first_day`` to ``last_day`` of their casino
    (at one table if asked). Reads the sessions, the bets and their payout lines."""
    now = now or timezone.now()
    schedule = schedule_of(player.casino)
    starts_at, _ = gaming_day_bounds(schedule, first_day)
    _, ends_at = gaming_day_bounds(schedule, last_day)
    table_id = table.pk if table is not None else None
    bets, pending = rated_bets(player, starts_at, ends_at, table_id=table_id, edges=edges)
    found = _sessions(player, starts_at, ends_at, table_id)
    sessions = []
    for session in found:
        span = session_span(session.started_at, session.ended_at, session.expires_at, now)
        if span.ends_at <= starts_at:
            continue
        clipped = Span(max(span.starts_at, starts_at), min(span.ends_at, ends_at))
        sessions.append((session, session.table.name, session.table_id, clipped))
    table_names = dict(Table.objects.filter(pk__in={bet.table_id for bet in bets}).values_list("pk", "name"))
    session_ratings, day_ratings, total = ratings_compute(
        schedule, sessions, bets, (first_day, last_day), table_names, now
    )
    return PlayerRatings(
        player=player,
        first_day=first_day,
        last_day=last_day,
        sessions=session_ratings,
        days=day_ratings,
        total=total,
        pending_versions=pending,
    )


@dataclass(frozen=True)
class PlayerAtTable:
    """A player signed in at a table's terminal now: the open session's rating and the
    player's rating at that table over the gaming day."""

    player: Player
    session: SessionRating | None
    day: Rating


def players_at_table(
    table: Table, *, now: dt.datetime | None = None
) -> tuple[list[PlayerAtTable], list[RuleSetVersion]]:
    """The players with an open session at ``table`` (by sign-in), with their ratings there
    today; and the rule-set versions whose edge the theo waits for."""
    now = now or timezone.now()
    schedule = schedule_of(table.casino)
    today = gaming_day_of(schedule, now)
    open_sessions = (
        PlayerSession.objects.filter(table=table, ended_at__isnull=True, expires_at__gt=now)
        .select_related("player__casino")
        .order_by("started_at", "pk")
    )
    edges: dict[int, ConfigEdges] = {}
    pending: dict[int, RuleSetVersion] = {}
    out = []
    for session in open_sessions:
        ratings = player_ratings(session.player, today, today, table=table, now=now, edges=edges)
        pending.update({version.pk: version for version in ratings.pending_versions})
        current = next(
            (item for item in ratings.sessions if item.session and item.session.pk == session.pk), None
        )
        out.append(PlayerAtTable(player=session.player, session=current, day=ratings.total))
    return out, sorted(pending.values(), key=lambda version: version.pk)


def player_rating_summary(
    player: Player, *, days: int = 30, now: dt.datetime | None = None
) -> dict[str, Any]:
    """What the cage's player page shows: the rating of the current gaming day and of the last
    ``days`` gaming days, and the edges still pending."""
    now = now or timezone.now()
    today = gaming_day_of(schedule_of(player.casino), now)
    ratings = player_ratings(player, today - dt.timedelta(days=days - 1), today, now=now)
    day = next((item.rating for item in ratings.days if item.gaming_day == today), None)
    return {
        "today": today,
        "day": day or rate([], 0),
        "period": ratings.total,
        "period_days": days,
        "last_session": next((item for item in ratings.sessions if item.session is not None), None),
        "pending_versions": ratings.pending_versions,
    }
