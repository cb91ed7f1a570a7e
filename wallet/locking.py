"""Finding and locking ledger rows, and moving cached balances.

Every money command locks through these helpers, each a ``SELECT ... ORDER BY id FOR NO KEY
UPDATE OF <its own table>`` (``casino.locking.rows_lock``; a transfer, append-only, under an
advisory lock on its id), in this order: first the wallet's row the command acts on
(:func:`holds_lock` in id order, :func:`payout_lock`, :func:`adjustment_lock`,
:func:`transfer_lock`), then accounts in primary-key order (:func:`accounts_lock`), and the audit
chain last (``audit_append``). What a table command locks before (the round, the table, the
player, the box) is in ``tables/locking.py``; the whole order in ``casino/locking.py``.

A domain row is read with the rows it names (its casino, its table, its account) but only it is
locked: the accounts are locked afterwards, all in one statement, in id order, so that two
commands never wait on each other in opposite orders; the casino and the table rows are never
locked by the wallet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Q

from casino.hints import hint, player_topic
from casino.locking import advisory_lock, row_lock, rows_lock
from casino.models import Casino
from wallet.errors import CurrencyMismatchError, InsufficientFundsError
from wallet.models import MAY_GO_NEGATIVE_KINDS, Account, BalanceAdjustment, Hold, PendingPayout, Transfer
from wallet.sql import account_balances_move


@dataclass(frozen=True)
class AccountSpec:
    """Which account: its kind plus its owner (a player, a table, or neither for venue accounts)."""

    kind: str
    player_id: int | None = None
    table_id: int | None = None


def spec_of(account: Account) -> AccountSpec:
    return AccountSpec(account.kind, account.player_id, account.table_id)


# Namespace of the advisory lock keys of transfers (``casino.locking.advisory_lock``).
TRANSFER_LOCK_NAMESPACE = 0x7EA45 << 32


def account_get_or_create(*, casino: Casino, spec: AccountSpec) -> Account:
    """The account for a spec, created (empty) when missing. Safe under races (unique constraints)."""
    account, _ = Account.objects.get_or_create(
        casino=casino,
        kind=spec.kind,
        player_id=spec.player_id,
        table_id=spec.table_id,
        defaults={"currency": casino.currency, "may_go_negative": spec.kind in MAY_GO_NEGATIVE_KINDS},
    )
    return account


def accounts_lock(
    *, casino: Casino, specs: Iterable[AccountSpec] = (), ids: Iterable[int] = ()
) -> list[Account]:
    """Lock (FOR NO KEY UPDATE, in id order, one statement) the accounts named by specs and ids.

    Accounts named by a spec are created first if missing (only ever the first time). Raises
    ``CurrencyMismatchError`` when an account is not in this casino's currency (or not of this
    casino). Returns the locked rows in id order.
    """
    wanted_specs = set(specs)
    wanted_ids = set(ids)
    if not wanted_specs and not wanted_ids:
        return []
    accounts: list[Account] = []
    for _attempt in range(2):
        query = Q(pk__in=sorted(wanted_ids)) if wanted_ids else Q()
        for spec in wanted_specs:
            query |= Q(casino_id=casino.pk, kind=spec.kind, player_id=spec.player_id, table_id=spec.table_id)
        accounts = rows_lock(Account.objects.filter(query))
        found = {spec_of(account) for account in accounts}
        missing = wanted_specs - found
        if not missing:
            break
        for spec in sorted(missing, key=repr):
            account_get_or_create(casino=casino, spec=spec)
    for account in accounts:
        if account.casino_id != casino.pk or account.currency != casino.currency:
            raise CurrencyMismatchError(
                f"Account {account.pk} is in {account.currency}, not in {casino.currency} of {casino.code}.",
                account_id=account.pk,
            )
    return accounts


def account_ids_lock(ids: Iterable[int]) -> dict[int, Account]:
    """Lock the accounts of these ids (in id order, one statement), by id: the accounts of
    holds, which their locked rows name."""
    return {account.pk: account for account in rows_lock(Account.objects.filter(pk__in=sorted(set(ids))))}


def holds_lock(hold_ids: Iterable[int]) -> list[Hold]:
    """Lock the holds of these ids, in id order (the ones that exist)."""
    return rows_lock(Hold.objects.filter(pk__in=sorted(set(hold_ids))))


def payouts_lock(*, approval_ids: Iterable[int]) -> list[PendingPayout]:
    """Lock the pending payouts that wait on these approvals, in id order (read with their table
    and casino, which stay unlocked)."""
    return rows_lock(
        PendingPayout.objects.select_related("table__casino").filter(
            approval_id__in=sorted(set(approval_ids))
        )
    )


def adjustment_lock(adjustment_id: int) -> BalanceAdjustment:
    """Lock a balance adjustment (read with its account, which stays unlocked: the command locks
    it with the house account, in id order). Raises ``BalanceAdjustment.DoesNotExist``."""
    adjustment = row_lock(BalanceAdjustment.objects.select_related("account").filter(pk=adjustment_id))
    if adjustment is None:
        raise BalanceAdjustment.DoesNotExist(f"no balance adjustment {adjustment_id}")
    return adjustment


def transfer_lock(transfer_id: int) -> Transfer:
    """A transfer about to be reversed, under its advisory lock (transfers are append-only: their
    rows cannot be locked), so that two reversals of it take turns; read with its casino, which is
    not locked. Raises ``Transfer.DoesNotExist``."""
    advisory_lock(TRANSFER_LOCK_NAMESPACE, transfer_id)
    return Transfer.objects.select_related("casino").get(pk=transfer_id)


def check_and_apply(
    accounts: Mapping[int, Account],
    balance_deltas: Mapping[int, int],
    held_deltas: Mapping[int, int] | None = None,
) -> None:
    """Check the no-negative rule on locked accounts, then move their cached balances.

    One statement whatever the number of accounts (``wallet.sql.account_balances_move``).
    The rows must already be locked by this
    transaction: the new values are checked here against what was read under the lock, and the
    CHECK constraint on the table backs the check up. Raises ``InsufficientFundsError`` naming
    the first (lowest id) account that would break its rule; nothing is written then.

    Every move of a cached balance but a hold's placement (``hold_place``) comes through here:
    the players whose wallets moved are hinted (``casino.hints.player_topic``) for the commit,
    so that the screens showing their balance re-read it.
    """
    held_deltas = held_deltas or {}
    rows: list[tuple[int, int, int]] = []
    for account_id in sorted(set(balance_deltas) | set(held_deltas)):
        account = accounts[account_id]
        delta_balance = balance_deltas.get(account_id, 0)
        delta_held = held_deltas.get(account_id, 0)
        if not delta_balance and not delta_held:
            continue
        new_balance = account.balance_minor + delta_balance
        new_held = account.held_minor + delta_held
        if new_held < 0 or (not account.may_go_negative and new_balance < new_held):
            raise InsufficientFundsError(
                f"Insufficient funds on {account.get_kind_display().lower()} account {account.pk}: "
                f"{account.available_minor} available, {-(delta_balance - delta_held)} needed.",
                account_id=account.pk,
                available_minor=account.available_minor,
                needed_minor=-(delta_balance - delta_held),
            )
        rows.append((account_id, delta_balance, delta_held))
    if not rows:
        return
    account_balances_move(rows)
    for account_id, delta_balance, delta_held in rows:
        accounts[account_id].balance_minor += delta_balance
        accounts[account_id].held_minor += delta_held
    players = {player for account_id, _, _ in rows if (player := accounts[account_id].player_id) is not None}
    hint(*(player_topic(player_id) for player_id in sorted(players)))
