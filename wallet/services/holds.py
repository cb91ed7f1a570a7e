"""Holds: a stake held on a player's wallet for a bet, and the void of open holds."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.hints import hint, player_topic
from casino.models import Player, Table
from wallet.errors import AccountNotFoundError, CasinoMismatchError, HoldNotOpenError, InsufficientFundsError
from wallet.locking import account_ids_lock, check_and_apply, holds_lock
from wallet.models import Account, AccountKind, Hold, HoldStatus
from wallet.services.ledger import require_amount, require_reason
from wallet.sql import hold_insert


def hold_place(
    *,
    player: Player,
    amount_minor: int,
    table: Table | None = None,
    reference_type: str = "round",
    reference_id: Any = "",
    bet_reference: str = "",
) -> Hold:
    """Hold a stake on the player's wallet at once: it stays on the balance but is no longer
    available. Returns the open hold. The only way to place a hold.

    Runs in the caller's transaction (bet placement, under its request's idempotency record),
    and opens no savepoint. One statement (``wallet/sql.py``): raise the player's held amount if
    the available balance covers it, atomic under concurrency (PostgreSQL re-checks the condition
    after waiting for the row), and insert the hold. Writes only the player's own account row: no
    row shared by the table's bettors is written (``Hold.table`` has no database foreign key),
    and no audit record is appended (the bet is recorded in its round's log). Raises
    ``insufficient_funds``, ``account_not_found`` (the player has no wallet yet),
    ``casino_mismatch``, ``invalid_amount``; when it does, nothing was written, and the caller's
    transaction may go on. Placed, the hold hints its player (``casino.hints.player_topic``) for
    the commit, as every other move of a wallet does (``wallet.locking.check_and_apply``).
    """
    require_amount(amount_minor)
    if table is not None and table.casino_id != player.casino_id:
        raise CasinoMismatchError(f"Table {table} is not in the player's casino.")
    hold = Hold(
        amount_minor=amount_minor,
        table_id=table.pk if table is not None else None,
        reference_type=reference_type,
        reference_id=str(reference_id),
        bet_reference=bet_reference,
        created_at=timezone.now(),
    )
    if not hold_insert(hold, player_id=player.pk):
        account = Account.objects.filter(player_id=player.pk, kind=AccountKind.PLAYER).first()
        if account is None:
            raise AccountNotFoundError(f"Player {player.pk} has no wallet yet.", player_id=player.pk)
        raise InsufficientFundsError(
            f"Insufficient funds: {account.available_minor} available, {amount_minor} needed.",
            account_id=account.pk,
            available_minor=account.available_minor,
            needed_minor=amount_minor,
        )
    hint(player_topic(player.pk))
    return hold


def open_holds_lock(hold_ids: Sequence[int]) -> list[Hold]:
    """The holds ``hold_ids``, locked (id order), each of them open: raises ``hold_not_open`` for
    one that does not exist or is voided or posted already."""
    holds = holds_lock(hold_ids)
    found = {hold.pk for hold in holds}
    missing = sorted(set(hold_ids) - found)
    if missing:
        raise HoldNotOpenError(f"Hold {missing[0]} does not exist.", hold_id=missing[0])
    for hold in holds:
        if hold.status != HoldStatus.OPEN:
            raise HoldNotOpenError(f"Hold {hold.pk} is {hold.status}.", hold_id=hold.pk)
    return holds


def holds_void(*, hold_ids: Sequence[int], reason: str, actor: Actor) -> list[int]:
    """Void open holds in bulk (a voided round, cancelled bets): the stakes become available again.

    Constant number of statements whatever the number of holds: lock the holds (id order), lock
    their accounts (id order), one UPDATE of the holds, one UPDATE of the accounts, one audit
    record. All or nothing: if any hold is not open (voided or posted already, a second void of
    the same holds included), raises ``hold_not_open`` and voids none. Raises
    ``reason_required`` too. Returns the voided hold ids, in id order.
    """
    reason = require_reason(reason)
    if not hold_ids:
        raise HoldNotOpenError("No holds to void.")
    with transaction.atomic():
        holds = open_holds_lock(hold_ids)
        held: dict[int, int] = defaultdict(int)
        for hold in holds:
            held[hold.account_id] -= hold.amount_minor
        locked = account_ids_lock(held)
        check_and_apply(locked, {}, held)
        voided = [hold.pk for hold in holds]
        Hold.objects.filter(pk__in=voided).update(status=HoldStatus.VOIDED, closed_at=timezone.now())
        actor.audit(
            action="wallet.holds_voided",
            object_type="wallet.hold",
            object_id=voided[0],
            after={"hold_ids": voided, "amount_minor": -sum(held.values()), "reason": reason},
        )
    return voided
