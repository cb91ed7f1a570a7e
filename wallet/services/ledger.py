"""The writing of the ledger that every money command of the wallet shares: amounts checked,
the accounts a command names (``AccountSpec``), one transfer with its postings and the part of the
audit record that vouches for it, and the simple move of an amount from one account to another."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction

from casino.actors import Actor
from casino.errors import reason_required
from casino.gaming_day_state import gaming_day_writable
from casino.models import Casino, Player, Table
from wallet.errors import CasinoMismatchError, InvalidAmountError
from wallet.ledger_hash import AUDIT_KEY, transfer_hash
from wallet.locking import AccountSpec, accounts_lock, check_and_apply, spec_of
from wallet.models import Account, AccountKind, Posting, Transfer

if TYPE_CHECKING:
    from django.contrib.auth.models import User


# The largest amount one command may move. Far above any real stake or buy-in, and far below the
# bigint range of the balance columns (9.2e18), so sums of many such amounts still fit: a larger
# number is a keying error and is refused with ``invalid_amount`` instead of a database overflow.
MAX_AMOUNT_MINOR = 10**15


def require_amount(amount_minor: Any, *, positive: bool = True) -> int:
    # bool is an int in Python; a True stake is a bug, not one cent.
    if not isinstance(amount_minor, int) or isinstance(amount_minor, bool):
        raise InvalidAmountError("An amount is a whole number of minor units.", amount=repr(amount_minor))
    if positive and amount_minor <= 0:
        raise InvalidAmountError("The amount must be more than zero.", amount=amount_minor)
    if not positive and amount_minor == 0:
        raise InvalidAmountError("The amount must not be zero.", amount=amount_minor)
    if abs(amount_minor) > MAX_AMOUNT_MINOR:
        raise InvalidAmountError(
            f"The amount is beyond {MAX_AMOUNT_MINOR} minor units.", amount=str(amount_minor)
        )
    return amount_minor


def require_process(actor: Actor) -> None:
    """The ``system_*`` moves are a process's (no one's permission is checked): a person's or a
    terminal's command goes through the service that checks theirs."""
    if actor.user is not None or actor.terminal is not None:
        raise ValueError(f"{actor.name} is not a process of the back office: use the cage's service")


def require_reason(reason: str) -> str:
    return reason_required(reason, "A reason is required.")


def player_spec(player: Player) -> AccountSpec:
    return AccountSpec(AccountKind.PLAYER, player_id=player.pk)


def table_spec(table: Table, kind: str) -> AccountSpec:
    return AccountSpec(kind, table_id=table.pk)


def venue_spec(kind: str) -> AccountSpec:
    return AccountSpec(kind)


def require_same_casino(casino: Casino, *owners: Any) -> None:
    for owner in owners:
        if owner.casino_id != casino.pk:
            raise CasinoMismatchError(f"{owner} does not belong to {casino}.")


@dataclass(frozen=True)
class Written:
    """A transfer just written, with the hash of its postings (``wallet/ledger_hash.py``) that the
    command's audit record must carry."""

    transfer: Transfer
    hash: str


def audited(*written: Written | None) -> dict[str, dict[str, str]]:
    """The part of an audit record's ``after`` that names the transfers a command wrote, each with
    its hash: what makes them genuine for ``ledger_verify``. Every transfer's audit record has it."""
    named = {str(entry.transfer.pk): entry.hash for entry in written if entry is not None}
    return {AUDIT_KEY: named} if named else {}


def transfer_write(
    *,
    casino: Casino,
    kind: str,
    accounts: Mapping[int, Account],
    amounts: Mapping[int, int],
    held_deltas: Mapping[int, int] | None = None,
    created_by: User | None = None,
    memo: str = "",
    reference_type: str = "",
    reference_id: Any = "",
    reverses: Transfer | None = None,
) -> Written:
    """Check the no-negative rule, write a transfer and its postings, move the cached balances.

    ``accounts`` must be locked by the caller's transaction. ``amounts`` (account id -> signed
    amount) must sum to zero; zero amounts are left out. Three statements whatever the size.
    Returns the transfer with its hash: the caller's audit record names it (``audited``), or
    ``ledger_verify`` reports it as a forgery.
    """
    if sum(amounts.values()) != 0:
        raise InvalidAmountError("The postings of a transfer must sum to zero.")
    check_and_apply(accounts, amounts, held_deltas)
    transfer = Transfer.objects.create(
        casino=casino,
        kind=kind,
        currency=casino.currency,
        reverses=reverses,
        reference_type=reference_type,
        reference_id=str(reference_id),
        memo=memo[:300],
        created_by=created_by,
    )
    postings = [(account_id, amount) for account_id, amount in sorted(amounts.items()) if amount]
    Posting.objects.bulk_create(
        [
            Posting(transfer=transfer, account_id=account_id, amount_minor=amount)
            for account_id, amount in postings
        ]
    )
    digest = transfer_hash(transfer, postings)
    return Written(transfer, digest)


def accounts_by_id(accounts: Iterable[Account]) -> dict[int, Account]:
    return {account.pk: account for account in accounts}


def accounts_by_spec(accounts: Iterable[Account]) -> dict[AccountSpec, Account]:
    return {spec_of(account): account for account in accounts}


def simple_move(
    *,
    casino: Casino,
    kind: str,
    source: AccountSpec,
    destination: AccountSpec,
    amount_minor: int,
    actor: Actor,
    audit_action: str,
    memo: str = "",
    audit_after: dict[str, Any] | None = None,
    reference_type: str = "",
    reference_id: Any = "",
) -> Transfer:
    """Move an amount from one account to another as one audited transfer (naming the record it
    belongs to with ``reference_type`` and ``reference_id``, when there is one)."""
    with transaction.atomic():
        gaming_day_writable(casino=casino)
        locked = accounts_lock(casino=casino, specs=[source, destination])
        specs = accounts_by_spec(locked)
        source_account, destination_account = specs[source], specs[destination]
        written = transfer_write(
            casino=casino,
            kind=kind,
            accounts=accounts_by_id(locked),
            amounts={source_account.pk: -amount_minor, destination_account.pk: amount_minor},
            created_by=actor.user,
            memo=memo,
            reference_type=reference_type,
            reference_id=reference_id,
        )
        transfer = written.transfer
        actor.audit(
            action=audit_action,
            object_type="wallet.transfer",
            object_id=transfer.pk,
            after={
                "transfer_id": transfer.pk,
                "from_account_id": source_account.pk,
                "to_account_id": destination_account.pk,
                "amount_minor": amount_minor,
                "currency": casino.currency,
                **(audit_after or {}),
                **audited(written),
            },
        )
    return transfer
