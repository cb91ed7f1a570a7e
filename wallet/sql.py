"""The wallet's hand-written SQL: the statements measured to save more than a tenth of their path
against their plain ORM equivalent (bench/raw_sql.py: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino
.venv/bin/python bench/raw_sql.py bet buy_in``, 2026-12-04, the 2-core development machine shared
with other work, PostgreSQL 15 on it; the median over 7 interleaved blocks of each block's median
of 40 requests; wall milliseconds, this statement / its ORM shape, the ratio, what the statement
saves of the ORM's path; CPU of the request's thread).

``hold_insert``: a bet's hold in one statement. A data-modifying CTE raises the player's held
amount if the available balance covers it and inserts the hold from the row it updated; when the
balance does not cover it, neither happens. The plainest ORM shape takes three statements (read
the wallet's id, the conditional ``UPDATE``, ``Hold.save``). A terminal's bet behind through the
API: 17.80 / 24.09 ms, 1.35, saves 26%; CPU 5.61 / 7.80 ms.

``account_balances_move``: the cached balances of a money command's accounts moved in one
statement whatever their number (``WITH v AS (VALUES ...) UPDATE ... FROM v``); the ORM's one
statement for it is an ``UPDATE`` with a ``Case``/``When`` per account. A cage buy-in (the
service inside its request's idempotency record): 10.93 / 14.23 ms, 1.30, saves 23%; CPU 4.50 /
6.04 ms.

PostgreSQL re-checks the ``WHERE`` of the ``UPDATE`` on the row's newest version after waiting for
a concurrent writer of that row, so two bets racing for the last of a balance cannot both pass.
"""

from __future__ import annotations

from django.db import connection

from wallet.models import AccountKind, Hold

_HOLD_INSERT_SQL = (
    "WITH account AS ("
    "UPDATE wallet_account SET held_minor = held_minor + %s "
    "WHERE player_id = %s AND kind = %s AND balance_minor - held_minor >= %s "
    "RETURNING id) "
    "INSERT INTO wallet_hold (account_id, amount_minor, status, table_id, reference_type, "
    "reference_id, bet_reference, created_at) "
    "SELECT account.id, %s, %s, %s, %s, %s, %s, %s FROM account "
    "RETURNING id, account_id"
)


def hold_insert(hold: Hold, *, player_id: int) -> bool:
    """Write ``hold`` (unsaved, on the player's wallet) if the wallet's available balance covers
    its amount, raising the wallet's held amount, in one statement. True when written: ``hold``
    then has its id and account and is saved. False when nothing was written (the player has no
    wallet, or not enough available). A player's wallet never may go negative (a database
    constraint), so its balance minus its held amount is what is available."""
    with connection.cursor() as cursor:
        cursor.execute(
            _HOLD_INSERT_SQL,
            [
                hold.amount_minor,
                player_id,
                AccountKind.PLAYER,
                hold.amount_minor,
                hold.amount_minor,
                hold.status,
                hold.table_id,
                hold.reference_type,
                hold.reference_id,
                hold.bet_reference,
                hold.created_at,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return False
    hold.pk, hold.account_id = row
    hold._state.adding = False
    hold._state.db = connection.alias
    return True


def account_balances_move(rows: list[tuple[int, int, int]]) -> None:
    """Move the cached balance and held amount of each account of ``rows`` (account id, balance
    delta, held delta), in one statement. The rows must be locked, and their rules checked, by the
    caller (``wallet.locking.check_and_apply``)."""
    if not rows:
        return
    values = ", ".join(["(CAST(%s AS bigint), CAST(%s AS bigint), CAST(%s AS bigint))"] * len(rows))
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH v(id, d_balance, d_held) AS (VALUES {values}) "
            "UPDATE wallet_account SET balance_minor = wallet_account.balance_minor + v.d_balance, "
            "held_minor = wallet_account.held_minor + v.d_held "
            "FROM v WHERE wallet_account.id = v.id",
            [value for row in rows for value in row],
        )
