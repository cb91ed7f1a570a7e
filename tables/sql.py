"""The tables app's hand-written SQL, where the ORM costs more than a tenth of the path.

A bet is the most frequent write of a live table, and through the ORM alone its CPU doubled:
in-process (Django's test client on the API bench's database, 200 bets behind a box, one run on
the 2-core development machine) a bet took 5.7-6.3 ms of CPU with every read and write through
the ORM against 3.0 ms for the earlier design, and 4.2-4.9 ms against 4.0-4.8 ms with these
statements (interleaved runs, the machine busier). The difference was in compiling queries and in
``Model.save`` for the bet and its hold link, not in PostgreSQL (every statement of a bet ran in
under a millisecond). In the API bench (bench/api_bets.py) bets went from 135-186/s with the ORM
alone to 208-247/s with these. Each is one plain statement with its values as parameters; the
kinds and the status of a bet are literals of the text, so that its plan uses the partial index
``bet_round_box_main_side_idx``.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from tables.models import Bet, BetKind, BetStatus

_PLAYER_LOCK_SQL = "SELECT 1 FROM casino_player WHERE id = %s FOR NO KEY UPDATE OF casino_player"

# The player's row locked and the box read in one statement; the box is an outer join, so the
# player is locked even when the table has no such box.
_BOX_SQL = (
    "SELECT b.id, b.owner_id, EXISTS (SELECT 1 FROM tables_seat s WHERE s.box_id = b.id AND s.player_id = p.id) "
    "FROM casino_player p LEFT JOIN tables_box b ON b.table_id = %s AND b.number = %s "
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
_BET_INSERT_SQL = (
    f"INSERT INTO tables_bet ({', '.join(_BET_COLUMNS)}) VALUES ({', '.join(['%s'] * len(_BET_COLUMNS))}) "
    "RETURNING id"
)
_BET_HOLD_INSERT_SQL = (
    "INSERT INTO tables_bethold (bet_id, hold_id, amount_minor, reason) VALUES (%s, %s, %s, %s)"
)


def player_lock(player_id: int) -> None:
    """Lock the player's row FOR NO KEY UPDATE: one player's bets take turns (a box handed over to
    the player meanwhile still passes its foreign-key check, which takes FOR KEY SHARE)."""
    with connection.cursor() as cursor:
        cursor.execute(_PLAYER_LOCK_SQL, [player_id])


def box_for_bet(table_id: int, number: int, player_id: int) -> tuple[int, int | None, bool] | None:
    """Lock the player's row FOR NO KEY UPDATE (as ``player_lock``) and read the table's box
    ``number``: its id, its owner's id, and whether the player has a seat there; None when the
    table has no such box."""
    with connection.cursor() as cursor:
        cursor.execute(_BOX_SQL, [table_id, number, player_id])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        return None
    return int(row[0]), row[1], bool(row[2])


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


def bet_insert(**values: Any) -> Bet:
    """Insert a bet (every column of ``_BET_COLUMNS``) and return it as a saved instance."""
    with connection.cursor() as cursor:
        cursor.execute(_BET_INSERT_SQL, [values[column] for column in _BET_COLUMNS])
        (bet_id,) = cursor.fetchone()
    return Bet.from_db(connection.alias, ["id", *_BET_COLUMNS], [bet_id, *(values[c] for c in _BET_COLUMNS)])


def bet_hold_link_insert(*, bet_id: int, hold_id: int, amount_minor: int, reason: str) -> None:
    """Link a bet to a hold of its stake (``BetHold``)."""
    with connection.cursor() as cursor:
        cursor.execute(_BET_HOLD_INSERT_SQL, [bet_id, hold_id, amount_minor, reason])
