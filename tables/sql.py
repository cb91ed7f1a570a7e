"""The tables app's hand-written SQL: the statements measured to save more than a tenth of their
path against their plain ORM equivalent.

Figures of bench/raw_sql.py (``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino
.venv/bin/python bench/raw_sql.py bet``, 2026-12-04, the 2-core development machine shared with
other work, PostgreSQL 15 on it): a terminal's bet behind through the API, the median over 7
interleaved blocks of each block's median of 40 bets, wall milliseconds (this statement / its
ORM shape, the ratio, what the statement saves of the ORM's path), CPU of the request's thread:

- ``round_for_bet`` (the round, the box, the seat, the player's lock, the bet's id in one
  statement; ORM: four queries and the sequence): 17.80 / 24.14 ms, 1.36, saves 26%; CPU 5.61 /
  8.46 ms;
- ``bets_for_check`` (ORM: ``Bet.objects.filter(...).values_list(...)``): 17.80 / 20.90 ms, 1.17,
  saves 15%; CPU 5.61 / 7.01 ms;
- ``bet_insert`` (the bet and its hold link in one statement; ORM: ``Bet.save`` and
  ``BetHold.objects.create``): 17.80 / 25.02 ms, 1.41, saves 29%; CPU 5.61 / 7.04 ms.

Each is one plain statement with its values as parameters; the kinds and the status of a bet are
literals of the text, so that its plan uses the partial index ``bet_round_box_main_side_idx``.
The tables of other apps are named from their models (``_meta.db_table``), never by hand.
(The player's lock and a further stake's hold link went back to the ORM: they saved nothing
(-2%) and 5% of their paths; ``casino.locking.player_lock`` and ``BetHold.objects.create``;
docs/benchmarks.md.) ``table_version_row``'s figure is with its statement.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from casino.models import Player, Table
from tables.models import Bet, BetKind, BetStatus, Box, Round

# A bet's round read after its advisory lock (``tables.locking.round_lock_take``), in one
# statement: the round and its table's casino, the table's box ``number`` with its owner and
# whether the player has a seat there, the player's row locked, and the bet's id taken from its
# sequence (so that the hold, written next, names the bet). The box is an outer join, so the
# player is locked even when the table has no such box. The round's row is read, not locked:
# every command that changes it holds the advisory lock exclusively, so it cannot change while
# the bet holds it shared.
_ROUND_FOR_BET_SQL = (
    "SELECT r.id, r.table_id, r.status, r.config_id, r.accepts_bets_behind::text, r.decision_deadline_at, "
    "t.casino_id, b.id, b.owner_id, "
    "EXISTS (SELECT 1 FROM tables_seat s WHERE s.box_id = b.id AND s.player_id = p.id), "
    "nextval(pg_get_serial_sequence('tables_bet', 'id')) "
    f"FROM {Player._meta.db_table} p JOIN tables_round r ON r.id = %s "
    f"JOIN {Table._meta.db_table} t ON t.id = r.table_id "
    "LEFT JOIN tables_box b ON b.table_id = r.table_id AND b.number = %s "
    "WHERE p.id = %s FOR NO KEY UPDATE OF p"
)

_PLACED = f"round_id = %s AND status = '{BetStatus.PLACED.value}'"
_BETS_SQL = (
    "SELECT id, player_id, box_number, kind, stake_minor, follow_double, follow_split FROM tables_bet "
    f"WHERE {_PLACED} AND ((box_number = %s AND kind <> '{BetKind.BEHIND.value}') "
    f"OR (player_id = %s AND kind = '{BetKind.MAIN.value}'){{own_box}})"
)

_BET_COLUMNS = (
    "round_id",
    "box_number",
    "player_id",
    "kind",
    "stake_minor",
    "follow_double",
    "follow_split",
    "insures_id",
    "status",
    "idempotency_key",
    "placed_at",
    "terminal_id",
)
# A new bet and the link to the hold of its stake, in one statement (the hold is written first).
_BET_INSERT_SQL = (
    f"WITH bet AS (INSERT INTO tables_bet (id, {', '.join(_BET_COLUMNS)}) "
    f"VALUES ({', '.join(['%s'] * (len(_BET_COLUMNS) + 1))}) RETURNING id) "
    "INSERT INTO tables_bethold (bet_id, hold_id, amount_minor, reason) SELECT bet.id, %s, %s, %s FROM bet"
)


@dataclass(frozen=True)
class BetRound:
    """What ``round_for_bet`` reads: the round (with its table's id and casino only), the box
    (None when the table has no such box), whether the player has a seat on it, and the id the
    new bet will have."""

    round: Round
    box: Box | None
    is_seated: bool
    bet_id: int


def round_for_bet(round_id: int, box_number: int, player_id: int) -> BetRound | None:
    """The round of a bet (call it under the round's shared advisory lock), its box, the seat, the
    player's row locked FOR NO KEY UPDATE (as ``casino.locking.player_lock``) and the bet's id, in one statement;
    None when there is no such round. The round and table instances hold only the columns read
    (the round's status, configuration, "bets behind" settings and deadline; the table's casino)."""
    with connection.cursor() as cursor:
        cursor.execute(_ROUND_FOR_BET_SQL, [round_id, box_number, player_id])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, table_id, status, config_id, accepts, deadline, casino_id, box_id, owner_id, seated, bet_id = row
    table = Table.from_db(connection.alias, ["id", "casino_id"], [table_id, casino_id])
    round_ = Round.from_db(
        connection.alias,
        ["id", "table_id", "status", "config_id", "accepts_bets_behind", "decision_deadline_at"],
        [pk, table_id, status, config_id, json.loads(accepts), deadline],
    )
    round_.table = table
    box = None
    if box_id is not None:
        box = Box.from_db(
            connection.alias,
            ["id", "table_id", "number", "owner_id"],
            [box_id, table_id, box_number, owner_id],
        )
    return BetRound(round=round_, box=box, is_seated=bool(seated), bet_id=int(bet_id))


def bets_for_check(
    round_id: int, box_number: int, player_id: int, *, own_on_box: bool
) -> list[tuple[Any, ...]]:
    """(id, player_id, box_number, kind, stake_minor, follow_double, follow_split) of the placed
    bets a new bet's check reads: the box's main and side bets, the player's own main bets, and
    with ``own_on_box`` the player's own bets on the box (see ``tables.services.bets``)."""
    params: list[Any] = [round_id, box_number, player_id]
    own_box = ""
    if own_on_box:
        own_box = " OR (player_id = %s AND box_number = %s)"
        params += [player_id, box_number]
    with connection.cursor() as cursor:
        cursor.execute(_BETS_SQL.format(own_box=own_box), params)
        return list(cursor.fetchall())


def bet_insert(*, bet_id: int, hold_id: int, hold_amount_minor: int, hold_reason: str, **values: Any) -> Bet:
    """Insert the bet ``bet_id`` (every column of ``_BET_COLUMNS``) with its link to the hold of its
    stake (``BetHold``), in one statement; return the bet as a saved instance."""
    with connection.cursor() as cursor:
        cursor.execute(
            _BET_INSERT_SQL,
            [bet_id, *(values[column] for column in _BET_COLUMNS), hold_id, hold_amount_minor, hold_reason],
        )
    return Bet.from_db(connection.alias, ["id", *_BET_COLUMNS], [bet_id, *(values[c] for c in _BET_COLUMNS)])


# What the live screens compare to know whether a table changed (``tables/api/state.py``): every
# counter and key of the table's state in one statement. Through the ORM the same reads were five
# statements with nine subqueries, and building and compiling them was about 80% of a terminal's
# 304 poll and most of a console's 204 poll. Measured when it was written (2026-12-01, the 2-core
# development machine, loaded; not measured again since, the ORM shape being gone): a check took
# 0.46 ms of CPU against 10.5 ms (2,000 calls each, interleaved, the same database, ratio 23);
# ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python bench/live_updates.py``:
# the console's 204 poll went from 38 to 15 ms and the terminal's 304 poll from 23 to 7.4 ms
# (saves 61% and 68% of the path), 120 polls/s from 2.6 cores to 1.05.
_TABLE_VERSION_SQL = f"""
SELECT t.is_open,
  (SELECT c.number FROM tables_tableconfigversion c
    WHERE c.table_id = t.id AND c.approved_at IS NOT NULL ORDER BY c.number DESC LIMIT 1),
  sh.id, sh.rounds_dealt,
  seats.n, seats.last, seats.streaks,
  r.id, r.version, r.status, r.decision_deadline_at, r.awaiting_correction IS NOT NULL,
  r.awaiting_correction::text,
  bets.n, bets.last, bets.cancelled,
  (SELECT string_agg(concat_ws(':', b.number, b.owner_id, b.accepts_bets_behind), ',' ORDER BY b.number)
    FROM tables_box b WHERE b.table_id = t.id),
  (SELECT d.id FROM tables_tabledealer d WHERE d.table_id = t.id AND d.signed_off_at IS NULL),
  (SELECT concat_ws(':', count(q.id), count(qd.id)) FROM tables_roundrequest q
    LEFT JOIN tables_roundrequestdecision qd ON qd.request_id = q.id WHERE q.round_id = r.id),
  (SELECT count(*) FROM tables_payoutdecision pd JOIN tables_payoutline pl ON pl.id = pd.line_id
    WHERE pl.round_id = r.id)
FROM {Table._meta.db_table} t
LEFT JOIN LATERAL (SELECT s.id, s.rounds_dealt FROM tables_shoe s
  WHERE s.table_id = t.id AND s.retired_at IS NULL ORDER BY s.id DESC LIMIT 1) sh ON true
LEFT JOIN LATERAL (SELECT count(st.id) AS n, max(st.id) AS last, sum(st.win_streak) AS streaks
  FROM tables_seat st JOIN tables_box sb ON sb.id = st.box_id WHERE sb.table_id = t.id) seats ON true
LEFT JOIN LATERAL (SELECT x.id, x.version, x.status, x.decision_deadline_at, x.awaiting_correction
  FROM tables_round x WHERE x.table_id = t.id ORDER BY x.number DESC LIMIT 1) r ON true
LEFT JOIN LATERAL (SELECT count(e.id) AS n, max(e.id) AS last,
    count(e.id) FILTER (WHERE e.status = '{BetStatus.CANCELLED.value}') AS cancelled
  FROM tables_bet e WHERE e.round_id = r.id) bets ON true
WHERE t.id = %s
"""


def table_version_row(table_id: int) -> tuple[Any, ...] | None:
    """The table's live counters, in this order: is_open, configuration number, current shoe (id,
    rounds dealt), seats (count, last id, sum of win streaks), latest round (id, event version,
    status, decision deadline, whether it awaits a correction, the misscan), its bets (count, last
    id, cancelled), the boxes ("number:owner:accepts" joined), the dealer's spell id, the round's
    requests ("asked:decided") and the pit boss's payout decisions on it. None: no such table."""
    with connection.cursor() as cursor:
        cursor.execute(_TABLE_VERSION_SQL, [table_id])
        row = cursor.fetchone()
    return tuple(row) if row is not None else None
