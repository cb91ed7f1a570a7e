"""Money moved between wallets and the correction of a transfer: a transfer between players, a
player's tip to the tips pool, and the reversal of a transfer."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from casino.actors import Actor, require_staff
from casino.gaming_day_state import gaming_day_writable
from casino.models import Player
from wallet.errors import SameAccountError, TransferAlreadyReversedError, TransferNotReversibleError
from wallet.locking import accounts_lock, transfer_lock
from wallet.models import AccountKind, Transfer, TransferKind
from wallet.services.ledger import (
    accounts_by_id,
    audited,
    player_spec,
    require_amount,
    require_reason,
    require_same_casino,
    simple_move,
    transfer_write,
    venue_spec,
)


def transfer_between_players(
    *, from_player: Player, to_player: Player, amount_minor: int, actor: Actor
) -> Transfer:
    """Move available money from one player's wallet to another's, at the cage.

    Needs ``casino.operate_cage``. Raises ``insufficient_funds``, ``same_account``,
    ``casino_mismatch``, ``invalid_amount``, ``permission_denied``."""
    require_staff(actor, "operate_cage")
    require_amount(amount_minor)
    if from_player.pk == to_player.pk:
        raise SameAccountError("A player cannot transfer to themselves.")
    casino = from_player.casino
    require_same_casino(casino, to_player)
    return simple_move(
        casino=casino,
        kind=TransferKind.PLAYER_TRANSFER,
        source=player_spec(from_player),
        destination=player_spec(to_player),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.player_transfer",
    )


def tip_from_wallet(
    *, player: Player, amount_minor: int, actor: Actor, round_id: int | None = None
) -> Transfer:
    """A player tips the dealers from their wallet: player wallet -> the casino's tips pool (an
    account of the venue that may not go negative; what leaves it for the dealers is a cage action
    at the shift's end). Only available money (balance minus open holds) can leave. ``actor`` is
    who asked (a terminal with its player: the audit record names both); ``round_id`` the round
    the tip is for, kept in the audit record. The caller (``accounting.tips``) checks who may
    tip whom; this moves the money only. Locks the player's and the pool's accounts (id order),
    then the audit chain. Raises ``insufficient_funds``, ``invalid_amount``."""
    require_amount(amount_minor)
    return simple_move(
        casino=player.casino,
        kind=TransferKind.TIP,
        source=player_spec(player),
        destination=venue_spec(AccountKind.TIPS_POOL),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.tip",
        audit_after={"player_id": player.pk, "round_id": round_id},
    )


def transfer_reverse(*, transfer: Transfer, reason: str, actor: Actor) -> Transfer:
    """Correct a transfer by a new one with every posting negated, pointing to it (``reverses``).

    Needs ``casino.adjust_balance``. Locks the original transfer row (so two reversals cannot
    race: the second waits, then finds the first and is refused), then the accounts, then the
    audit chain. The no-negative rule applies: a reversal that would overdraw a player who has
    spent the money is refused. Raises ``transfer_already_reversed``, ``transfer_not_reversible``
    (a reversal is not reversed again; a transfer that moves money on a table's payouts-pending
    account, i.e. a settlement with a parked payout or a payout release or reject, is corrected by
    an adjustment instead), ``insufficient_funds``, ``reason_required``, ``permission_denied``."""
    require_staff(actor, "adjust_balance")
    reason = require_reason(reason)
    with transaction.atomic():
        # A reversal changes the figures of the day of the transfer it reverses (its cash log,
        # its terminal drop): that day must be open too.
        gaming_day_writable(casino=transfer.casino, also=[transfer.casino.gaming_day(transfer.created_at)])
        original = transfer_lock(transfer.pk)
        if original.kind == TransferKind.REVERSAL:
            raise TransferNotReversibleError("A reversal cannot be reversed; post a new transfer instead.")
        if Transfer.objects.filter(reverses=original).exists():
            raise TransferAlreadyReversedError(f"Transfer {original.pk} is already reversed.")
        amounts: dict[int, int] = defaultdict(int)
        for account_id, amount in original.postings.values_list("account_id", "amount_minor"):
            amounts[account_id] -= amount
        locked = accounts_lock(casino=original.casino, ids=amounts)
        if any(account.kind == AccountKind.TABLE_PAYOUTS_PENDING for account in locked):
            # A payouts-pending balance stands for PendingPayout rows: reversing the settlement that
            # parked a payout, or the release/reject that decided it, would leave a payout pending
            # with no money behind it (or money behind no payout), and a later release would take
            # another player's parked payout. Such a round is corrected by a balance adjustment.
            raise TransferNotReversibleError(
                f"Transfer {original.pk} moves payouts awaiting approval; correct it with an adjustment.",
                transfer_id=original.pk,
            )
        written = transfer_write(
            casino=original.casino,
            kind=TransferKind.REVERSAL,
            accounts=accounts_by_id(locked),
            amounts=amounts,
            created_by=actor.user,
            memo=reason,
            reverses=original,
            reference_type=original.reference_type,
            reference_id=original.reference_id,
        )
        reversal = written.transfer
        actor.audit(
            action="wallet.transfer_reversed",
            object_type="wallet.transfer",
            object_id=reversal.pk,
            after={
                "transfer_id": reversal.pk,
                "reverses_id": original.pk,
                "reason": reason,
                **audited(written),
            },
        )
    return reversal
