"""The accounts a table and a casino need, opened before any money moves through them."""

from __future__ import annotations

from django.db import transaction

from casino.models import Casino, Table
from wallet.locking import accounts_lock
from wallet.models import Account, AccountKind
from wallet.services.ledger import table_spec, venue_spec


def table_accounts_open(*, table: Table) -> dict[str, Account]:
    """Create (if missing) a table's tray and payouts-pending accounts. Idempotent, moves nothing."""
    with transaction.atomic():
        locked = accounts_lock(
            casino=table.casino,
            specs=[
                table_spec(table, AccountKind.TABLE_TRAY),
                table_spec(table, AccountKind.TABLE_PAYOUTS_PENDING),
            ],
        )
    return {account.kind: account for account in locked}


def venue_accounts_open(*, casino: Casino) -> dict[str, Account]:
    """Create (if missing) the cage, house and house rounding accounts of a casino."""
    with transaction.atomic():
        locked = accounts_lock(
            casino=casino,
            specs=[
                venue_spec(kind) for kind in (AccountKind.CAGE, AccountKind.HOUSE, AccountKind.HOUSE_ROUNDING)
            ],
        )
    return {account.kind: account for account in locked}
