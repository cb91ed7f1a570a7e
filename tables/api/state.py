"""The table state for terminals: its version (the strong ETag), the conditional GET and the
long-poll. The state itself comes from ``tables.selectors.table_state``; this module only decides
whether it changed, without building it.

The version is a digest of a few counters and keys read in three small indexed queries: the
latest round (id, event ``version``, status, deadline, misscan), its bets (count, last id,
cancelled count: bets and cancellations do not write the round row, so the round's own counter
does not see them), the boxes (owner, "no bets behind me"), the seats (count, last id, sum of win
streaks), the table's current configuration number and its current shoe (id, rounds dealt), and
whom the view is for (a player's view marks their own bets). Everything the state shows follows
from these, except the derived "seconds left", which the API leaves out so that one version is
always one body: a terminal counts down from ``decision_deadline_at``.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from tables.models import Bet, BetStatus, Box, Round, RoundStatus, Seat, Shoe, Table, TableConfigVersion
from tables.services.commands import round_apply_overdue_defaults

# Bump when the state's JSON shape changes, so that cached ETags of the old shape never match.
REPRESENTATION = 1
DEADLINE_STATUSES = (RoundStatus.BETTING, RoundStatus.INSURANCE, RoundStatus.PLAYERS)


@dataclass(frozen=True)
class StateVersion:
    etag: str  # quoted, as sent in the ETag header
    overdue_round_id: int | None  # a round whose deadline passed and whose default is not applied

    @property
    def value(self) -> str:
        return self.etag.strip('"')


def _count(queryset: Any, group: str, aggregate: Any) -> Subquery:
    return Subquery(queryset.order_by().values(group).annotate(value=aggregate).values("value")[:1])


def table_state_version(*, table_id: int, for_player_id: int | None) -> StateVersion:
    seats = Seat.objects.filter(box__table_id=OuterRef("pk"))
    table = (
        Table.objects.filter(pk=table_id)
        .annotate(
            config_number=Subquery(
                TableConfigVersion.objects.filter(table_id=OuterRef("pk"), approved_at__isnull=False)
                .order_by("-number")
                .values("number")[:1]
            ),
            shoe=Subquery(
                Shoe.objects.filter(table_id=OuterRef("pk"), retired_at__isnull=True)
                .order_by("-pk")
                .values("pk")[:1]
            ),
            shoe_rounds=Subquery(
                Shoe.objects.filter(table_id=OuterRef("pk"), retired_at__isnull=True)
                .order_by("-pk")
                .values("rounds_dealt")[:1]
            ),
            seat_count=_count(seats, "box__table_id", Count("pk")),
            seat_last=_count(seats, "box__table_id", Max("pk")),
            seat_streaks=_count(seats, "box__table_id", Sum("win_streak")),
        )
        .values_list(
            "is_open", "config_number", "shoe", "shoe_rounds", "seat_count", "seat_last", "seat_streaks"
        )
        .first()
    )
    bets = Bet.objects.filter(round_id=OuterRef("pk"))
    round_ = (
        Round.objects.filter(table_id=table_id)
        .order_by("-number")
        .annotate(
            bet_count=_count(bets, "round_id", Count("pk")),
            bet_last=_count(bets, "round_id", Max("pk")),
            bet_cancelled=_count(bets, "round_id", Count("pk", filter=Q(status=BetStatus.CANCELLED))),
        )
        .values_list(
            "pk",
            "version",
            "status",
            "decision_deadline_at",
            "awaiting_correction",
            "bet_count",
            "bet_last",
            "bet_cancelled",
        )
        .first()
    )
    boxes = list(
        Box.objects.filter(table_id=table_id)
        .order_by("number")
        .values_list("number", "owner_id", "accepts_bets_behind")
    )
    parts = (REPRESENTATION, table_id, for_player_id, table, round_, boxes)
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    overdue = None
    if round_ is not None:
        round_id, _, status, deadline, awaiting_correction = round_[:5]
        if (
            deadline is not None
            and deadline <= timezone.now()
            and awaiting_correction is None
            and status in DEADLINE_STATUSES
        ):
            overdue = round_id
    return StateVersion(etag=f'"{digest}"', overdue_round_id=overdue)


def table_state_version_current(*, table_id: int, for_player_id: int | None) -> StateVersion:
    """The version after applying an overdue default, so that a terminal polling the state sees
    "betting closed" or "stand by default" as soon as the deadline passed, without waiting for
    the Celery task or another command (``round_apply_overdue_defaults`` is idempotent)."""
    version = table_state_version(table_id=table_id, for_player_id=for_player_id)
    if version.overdue_round_id is not None and round_apply_overdue_defaults(
        round_id=version.overdue_round_id
    ):
        version = table_state_version(table_id=table_id, for_player_id=for_player_id)
    return version


def etag_matches(header: str, etag: str) -> bool:
    """``If-None-Match`` (or ``?version=``) against a quoted ETag, with the weak comparison of
    RFC 9110 13.1.2 (``W/`` ignored); ``*`` matches, a bare unquoted version is accepted too."""
    if not header:
        return False
    value = etag.strip('"')
    for part in header.split(","):
        candidate = part.strip()
        if candidate == "*":
            return True
        if candidate.removeprefix("W/").strip('"') == value:
            return True
    return False


def table_state_wait(
    *, table_id: int, for_player_id: int | None, known: str, wait_milliseconds: int, step_milliseconds: int
) -> StateVersion:
    """Long-poll: return as soon as the version no longer matches ``known`` (ETags or a bare
    version, as for :func:`etag_matches`), or after ``wait_milliseconds`` with the unchanged
    version. Reads only the version, every ``step_milliseconds``; holds no transaction or lock
    while it waits."""
    until = time.monotonic_ns() + max(0, wait_milliseconds) * 1_000_000
    while True:
        version = table_state_version_current(table_id=table_id, for_player_id=for_player_id)
        remaining = until - time.monotonic_ns()
        if not etag_matches(known, version.etag) or remaining <= 0:
            return version
        time.sleep(min(step_milliseconds * 1_000_000, remaining) / 1e9)
