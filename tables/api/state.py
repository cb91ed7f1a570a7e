"""The table state for terminals: its version (the strong ETag), the conditional GET and the
long-poll. The state itself comes from ``tables.selectors.table_state``; this module only decides
whether it changed, without building it.

The version is a digest of a few counters and keys read in one statement
(``tables.sql.table_version_row``): the latest round (id, event ``version``, status, deadline, misscan), its bets (count, last id,
cancelled count: bets and cancellations do not write the round row, so the round's own counter
does not see them), the boxes (owner, "no bets behind me"), the seats (count, last id, sum of win
streaks), the table's current configuration number and its current shoe (id, rounds dealt), and
whom the view is for (a player's view marks their own bets). Everything the state shows follows
from these, except the derived "seconds left", which the API leaves out so that one version is
always one body: a terminal counts down from ``decision_deadline_at``.

The body of a version is the same for every terminal of the table but for ``is_mine``, the
player's own seats and bets behind the boxes, and the version itself, so ``terminal_state``
serializes the table's part once per version (of the table without a player:
``StateVersion.shared``) and keeps it in the cache: a hundred terminals asking after a bet build it
once per web process instead of a hundred times (bench/live_updates.py).

Its size does not grow with the crowd behind the boxes: a box shows its owner's seat and bets, and
the players and bets behind it as totals (``tables.selectors.table_state``, ``behind_as_totals``);
a player sees their own seats and bets behind too, read for them (``behind_of_player``, only
when some box has a crowd at all). The console shows everyone's.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from casino.models import Table
from tables.api.serializers import StateBetSerializer, StateSeatSerializer, TableStateSerializer
from tables.models import RoundStatus
from tables.selectors import behind_of_player, table_state
from tables.services.commands import round_apply_overdue_defaults
from tables.sql import table_version_row

# Bump when the state's JSON shape changes, so that cached ETags of the old shape never match.
REPRESENTATION = 3
DEADLINE_STATUSES = (RoundStatus.BETTING, RoundStatus.INSURANCE, RoundStatus.PLAYERS)


@dataclass(frozen=True)
class StateVersion:
    etag: str  # quoted, as sent in the ETag header
    overdue_round_id: int | None  # a round whose deadline passed and whose default is not applied
    shared: str = ""  # the terminals' version of the table without a player: what their bodies share
    round_id: int | None = None  # the table's latest round, and its status
    round_status: str | None = None

    @property
    def value(self) -> str:
        return self.etag.strip('"')


# The counters of ``tables.sql.table_version_row`` a terminal's state shows; the ones after them
# (the dealer's spell, the round's requests, the pit boss's payout decisions) only the console.
TERMINAL_PARTS = 17


def table_state_version(
    *, table_id: int, for_player_id: int | None, for_console: bool = False
) -> StateVersion:
    row = table_version_row(table_id)
    shown = row if for_console or row is None else row[:TERMINAL_PARTS]

    def digest(player_id: int | None, console: bool) -> str:
        parts = (REPRESENTATION, table_id, player_id, console, shown)
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]

    round_id, status = (row[7], row[9]) if row is not None else (None, None)
    overdue = None
    if row is not None and round_id is not None:
        deadline, awaits_correction = row[10], row[11]
        if (
            deadline is not None
            and deadline <= timezone.now()
            and not awaits_correction
            and status in DEADLINE_STATUSES
        ):
            overdue = round_id
    shared = "" if for_console else digest(None, False)
    return StateVersion(
        etag=f'"{digest(for_player_id, for_console)}"',
        overdue_round_id=overdue,
        shared=shared,
        round_id=round_id,
        round_status=status,
    )


# How long a table's serialized state stays in the cache (``terminal_state``); a new version is a
# new entry, so this bounds only the memory kept for versions nobody asks for again.
STATE_SECONDS = 60


def terminal_state(*, table: Table, version: StateVersion, for_player_id: int | None) -> dict[str, Any]:
    """The body of a terminal's 200: the table's state at ``version`` (read before: a change
    committed meanwhile shows under the older version, and the next poll answers it again),
    serialized once per table version and cached, with this version and, for a player, which
    bets are theirs (``is_mine``) and their own seats and bets behind the boxes."""
    key = f"tables:terminal-state:{table.pk}:{version.shared}"
    shared: dict[str, Any] | None = cache.get(key)
    if shared is None:
        state = table_state(table=table, behind_as_totals=True)
        if state["round"] is not None:
            state["round"].pop("seconds_left", None)
        for box in state["boxes"]:
            for bet in box["bets"]:
                bet["is_mine"] = False
        shared = dict(TableStateSerializer({"version": "", **state}).data)
        cache.set(key, shared, STATE_SECONDS)
    own: dict[int, dict[str, Any]] = {}
    if for_player_id is not None and any(
        box["behind"]["players"] or box["behind"]["bets"] for box in shared["boxes"]
    ):
        round_id = shared["round"]["id"] if shared["round"] is not None else None
        own = behind_of_player(table=table, round_id=round_id, player_id=for_player_id)
    return {
        **shared,
        "version": version.value,
        "boxes": [_box_for(box, for_player_id, own.get(box["number"])) for box in shared["boxes"]],
    }


def _box_for(box: dict[str, Any], player_id: int | None, own: dict[str, Any] | None) -> dict[str, Any]:
    """A box of the shared state as the player ``player_id`` sees it: their bets marked, their own
    seat and bets behind it (``own``) added."""
    bets = [{**bet, "is_mine": bet["player_id"] == player_id} for bet in box["bets"]]
    if own is None:
        return {**box, "bets": bets}
    return {
        **box,
        "seats": box["seats"] + [StateSeatSerializer(seat).data for seat in own["seats"]],
        "bets": bets + [StateBetSerializer({**bet, "is_mine": True}).data for bet in own["bets"]],
    }


def table_state_version_current(
    *, table_id: int, for_player_id: int | None, for_console: bool = False
) -> StateVersion:
    """The version after applying an overdue default, so that a terminal polling the state sees
    "betting closed" or "stand by default" as soon as the deadline passed, without waiting for
    the Celery task or another command (``round_apply_overdue_defaults`` is idempotent)."""
    version = table_state_version(table_id=table_id, for_player_id=for_player_id, for_console=for_console)
    if version.overdue_round_id is not None and round_apply_overdue_defaults(
        round_id=version.overdue_round_id
    ):
        version = table_state_version(table_id=table_id, for_player_id=for_player_id, for_console=for_console)
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
