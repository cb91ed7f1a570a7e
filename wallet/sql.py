"""The wallet's hand-written SQL where the ORM costs more than a tenth of the path.

``hold_insert``: a bet's hold in one statement. A data-modifying CTE raises the player's held
amount if the available balance covers it and inserts the hold from the row it updated; when the
balance does not cover it, neither happens. The plainest ORM shape takes three statements (read
the wallet's id, the conditional ``UPDATE``, ``Hold.objects.create``). ``bench/ledger.py`` (its
CPU table: one request per bet, its idempotency record around the hold, interleaved blocks of
1,000 bets on the 2-core development machine, PostgreSQL on the same machine; four runs) measured
per bet 1.1-1.4 ms of CPU with this statement (0.7-0.9 ms of Python, 0.4-0.6 ms of PostgreSQL)
against 2.1-2.9 ms with the ORM's three (1.7-2.1 and 0.5-0.8): the ORM shape doubles the path's
cost, and would add about a sixth to a whole terminal API bet (6.2-7.7 ms of CPU, README). A raw
``UPDATE ... RETURNING`` followed by ``Hold.objects.create`` measured 1.5 ms against 1.3 ms for
this statement in the same run: the one statement saves a seventh of that path too.

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
