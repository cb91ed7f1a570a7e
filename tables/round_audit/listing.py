"""The list of a casino's rounds for audit (``/pit/rounds/``): the rounds filtered, each with its
totals summed in SQL, and the list's lines in words (a round in play with its stakes at risk as
its page shows them)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    BigIntegerField,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from casino.models import Player
from casino.money import money
from tables.models import Bet, BetStatus, PayoutLine, Round
from tables.round_audit.labels import status_label
from tables.round_audit.money import (
    IN_PLAY_STATUSES,
    RECEIVED_LINES,
    REJECTED_LINES,
    WAITING_LINES,
    bet_at_risk_minor,
    round_state_of,
    stakes_on_hands,
)

ROUNDS_PER_PAGE = 50


def _sum_of(queryset: QuerySet[Any], column: str) -> Subquery:
    """A correlated sub-select of one round's sum of ``column`` (one per annotation: sums over
    two joined tables in one GROUP BY would multiply each other's rows)."""
    return Subquery(
        queryset.filter(round=OuterRef("pk"))
        .order_by()
        .values("round")
        .annotate(total=Sum(column))
        .values("total")[:1],
        output_field=BigIntegerField(),
    )


def round_list_for_audit(
    *,
    casino_id: int,
    table_name: str = "",
    dealer_username: str = "",
    player: str = "",
    opened_from: dt.datetime | None = None,
    opened_to: dt.datetime | None = None,
    min_total_stake_minor: int | None = None,
    min_payout_minor: int | None = None,
    status: str = "",
) -> QuerySet[Round]:
    """The casino's rounds, newest first, each annotated with ``bets_count`` (bets not
    cancelled), ``total_staked_minor`` (the payout lines' stakes once settled, doubles, splits and
    insurance included; before that the stakes of the bets placed, which :func:`round_rows`
    completes with the doubles and splits of a round in play), ``total_paid_minor`` (what the
    players received), ``waiting_minor`` and ``rejected_minor`` (payouts awaiting a pit boss, and
    rejected), ``largest_payout_minor`` and ``is_awaiting_approval`` (a payout line waits).

    Filters (each optional): the table's name and the dealer's username (case-insensitive, exact),
    a player (card number exactly, or part of the name) who had a bet in the round, ``opened_at``
    from (inclusive) and to (exclusive), a minimum total stake, a minimum single payout line
    (``paid_minor``), the status. The engine snapshot is deferred (it is most of the row's bytes).
    """
    rounds = _rounds_with_totals(casino_id)
    rounds = _rounds_of_people(rounds, casino_id, table_name, dealer_username, player)
    rounds = _rounds_of_figures(
        rounds, opened_from, opened_to, min_total_stake_minor, min_payout_minor, status
    )
    return rounds.order_by(F("opened_at").desc(), F("pk").desc())


def _rounds_with_totals(casino_id: int) -> QuerySet[Round]:
    """The casino's rounds with their table and dealer, the snapshot deferred, annotated with the
    totals :func:`round_list_for_audit` names (a correlated sub-select each)."""
    bets = Bet.objects.exclude(status=BetStatus.CANCELLED)
    lines = PayoutLine.objects.all()
    return (
        Round.objects.filter(table__casino_id=casino_id)
        .select_related("table", "dealer")
        .defer("snapshot", "accepts_bets_behind", "awaiting_correction")
        .annotate(
            bets_count=Coalesce(
                Subquery(
                    bets.filter(round=OuterRef("pk"))
                    .order_by()
                    .values("round")
                    .annotate(count=Count("pk"))
                    .values("count")[:1],
                    output_field=BigIntegerField(),
                ),
                Value(0),
            ),
            total_staked_minor=Coalesce(
                _sum_of(lines, "stake_minor"),
                _sum_of(bets.filter(status=BetStatus.PLACED), "stake_minor"),
                Value(0),
                output_field=BigIntegerField(),
            ),
            total_paid_minor=Coalesce(
                _sum_of(lines.filter(RECEIVED_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            waiting_minor=Coalesce(
                _sum_of(lines.filter(WAITING_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            rejected_minor=Coalesce(
                _sum_of(lines.filter(REJECTED_LINES), "paid_minor"), Value(0), output_field=BigIntegerField()
            ),
            largest_payout_minor=Subquery(
                lines.filter(round=OuterRef("pk"))
                .order_by()
                .values("round")
                .annotate(largest=Max("paid_minor"))
                .values("largest")[:1],
                output_field=BigIntegerField(),
            ),
            is_awaiting_approval=Exists(PayoutLine.objects.filter(WAITING_LINES, round=OuterRef("pk"))),
        )
    )


def _rounds_of_people(
    rounds: QuerySet[Round], casino_id: int, table_name: str, dealer_username: str, player: str
) -> QuerySet[Round]:
    """``rounds`` filtered by who and where (each when given): the table's name and the dealer's
    username (case-insensitive, exact), a player of the casino (card number exactly, or part of
    the name) who had a bet in the round."""
    if table_name:
        rounds = rounds.filter(table__name__iexact=table_name.strip())
    if dealer_username:
        rounds = rounds.filter(dealer__username__iexact=dealer_username.strip())
    if player:
        wanted = player.strip()
        players = Player.objects.filter(casino_id=casino_id).filter(
            Q(card_number=wanted) | Q(display_name__icontains=wanted)
        )
        rounds = rounds.filter(
            Exists(Bet.objects.filter(round=OuterRef("pk"), player__in=players.values("pk")))
        )
    return rounds


def _rounds_of_figures(
    rounds: QuerySet[Round],
    opened_from: dt.datetime | None,
    opened_to: dt.datetime | None,
    min_total_stake_minor: int | None,
    min_payout_minor: int | None,
    status: str,
) -> QuerySet[Round]:
    """``rounds`` filtered by when and how much (each when given): ``opened_at`` from (inclusive)
    and to (exclusive), a minimum total stake (the annotation of :func:`_rounds_with_totals`), a
    minimum single payout line (``paid_minor``), the status."""
    if opened_from is not None:
        rounds = rounds.filter(opened_at__gte=opened_from)
    if opened_to is not None:
        rounds = rounds.filter(opened_at__lt=opened_to)
    if min_total_stake_minor is not None:
        # As a Q: the annotation is not a field of the model the type checker reads here.
        rounds = rounds.filter(Q(total_staked_minor__gte=min_total_stake_minor))
    if min_payout_minor is not None:
        rounds = rounds.filter(
            Exists(PayoutLine.objects.filter(round=OuterRef("pk"), paid_minor__gte=min_payout_minor))
        )
    if status:
        rounds = rounds.filter(status=status)
    return rounds


@dataclass(frozen=True)
class RoundRow:
    """One line of the list: the round (with its table and dealer) and its totals in words
    (``waiting`` and ``rejected`` blank when there is none)."""

    round: Round
    status_label: str
    bets_count: int
    total_staked: str
    total_paid: str
    waiting: str
    rejected: str
    is_awaiting_approval: bool


def _staked_in_play(rounds: list[Round]) -> dict[int, int]:
    """The stakes at risk of the rounds in play among ``rounds`` (a few: one per table at most),
    from their engine states and placed bets: two queries, none without such a round."""
    ids = [round_.pk for round_ in rounds if round_.status in IN_PLAY_STATUSES]
    if not ids:
        return {}
    on_hands = {
        round_id: stakes_on_hands(round_state_of(snapshot))
        for round_id, snapshot in Round.objects.filter(pk__in=ids).values_list("pk", "snapshot")
    }
    staked = dict.fromkeys(ids, 0)
    for round_id, bet_id, stake_minor, status in Bet.objects.filter(
        round_id__in=ids, status=BetStatus.PLACED
    ).values_list("round_id", "pk", "stake_minor", "status"):
        staked[round_id] += bet_at_risk_minor(
            bet_id=bet_id, stake_minor=stake_minor, status=status, on_hands=on_hands[round_id]
        )
    return staked


def round_rows(rounds: Iterable[Round]) -> list[RoundRow]:
    """The list's lines of rounds from :func:`round_list_for_audit` (its annotations), a round in
    play with its stakes at risk as its page shows them."""
    rounds = list(rounds)
    in_play = _staked_in_play(rounds)
    rows = []
    for round_ in rounds:
        waiting: int = round_.waiting_minor  # type: ignore[attr-defined]
        rejected: int = round_.rejected_minor  # type: ignore[attr-defined]
        rows.append(
            RoundRow(
                round=round_,
                status_label=status_label(round_.status),
                bets_count=round_.bets_count,  # type: ignore[attr-defined]
                total_staked=money(in_play.get(round_.pk, round_.total_staked_minor)),  # type: ignore[attr-defined]
                total_paid=money(round_.total_paid_minor),  # type: ignore[attr-defined]
                waiting=money(waiting) if waiting else "",
                rejected=money(rejected) if rejected else "",
                is_awaiting_approval=round_.is_awaiting_approval,  # type: ignore[attr-defined]
            )
        )
    return rows


__all__ = ["ROUNDS_PER_PAGE", "RoundRow", "round_list_for_audit", "round_rows"]
