"""Wallet services: the only code that writes to the ledger.

Every money command, in ONE transaction: validates, checks that the gaming day it writes into is
open (``casino.gaming_day_state.gaming_day_writable``, the day's shared lock first: a transfer is
a record of the day it is made in; a reversal also of the day of the transfer it reverses; a
refusal is ``gaming_day_closed``), locks the domain row it acts on, locks the accounts in id order (``wallet/locking.py``), writes one transfer with its postings (summing to
zero), moves the cached balances, and appends the audit record as its last write. A refused
command (``ServiceError``) leaves balances, postings, holds and audit records as they were.

No service takes an idempotency key: the edge that receives a request (the terminal API, the
seed) wraps the service call in ``casino.idempotency.idempotent``, one record per request. A
command the back office itself may repeat is refused by the state of its rows: a hold that is not
open (``hold_not_open``), a payout that is not pending (``payout_not_pending``), an adjustment
decided already (``approval_decided``), a transfer already reversed (``transfer_already_reversed``), a round
already settled (``round_already_settled``).

Hot path for a live table: ``hold_place`` touches only the bettor's own account row (a
conditional UPDATE) and inserts a hold, in one statement (``wallet/sql.py``); no row shared by the
table's bettors is written per bet and no audit record is appended (the bet is recorded in the
round's event log). The table's accounts move once per round, in ``holds_settle``. A hold runs
inside the bet's command, which checked the gaming day (``tables.services.bets.bet_place``,
``tables.services.commands.bet_hold``): it does not check it again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import ServiceError, reason_required
from casino.four_eyes import ApprovalNotFoundError, approval_audit_fields, approval_decide, approval_request
from casino.gaming_day_state import gaming_day_writable
from casino.models import Approval, Casino, Player, Table
from wallet.errors import (
    AccountNotFoundError,
    CashOutConfirmationRequiredError,
    CasinoMismatchError,
    CurrencyMismatchError,
    HoldMismatchError,
    HoldNotOpenError,
    InsufficientFundsError,
    InvalidAmountError,
    PayoutNotPendingError,
    RoundAlreadySettledError,
    SameAccountError,
    TransferAlreadyReversedError,
    TransferNotReversibleError,
)
from wallet.ledger_hash import AUDIT_KEY, transfer_hash
from wallet.locking import (
    AccountSpec,
    account_ids_lock,
    accounts_lock,
    adjustment_lock,
    check_and_apply,
    holds_lock,
    payouts_lock,
    spec_of,
    transfer_lock,
)
from wallet.models import (
    Account,
    AccountKind,
    AdjustmentStatus,
    BalanceAdjustment,
    Hold,
    HoldStatus,
    PayoutStatus,
    PendingPayout,
    Posting,
    Transfer,
    TransferKind,
)
from wallet.sql import hold_insert

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR = 50_000
# The four-eyes kind of an adjustment above the threshold (casino/controls.toml).
ADJUSTMENT_APPROVAL_KIND = "balance_adjustment"
# The largest amount one command may move. Far above any real stake or buy-in, and far below the
# bigint range of the balance columns (9.2e18), so sums of many such amounts still fit: a larger
# number is a keying error and is refused with ``invalid_amount`` instead of a database overflow.
MAX_AMOUNT_MINOR = 10**15


def adjustment_approval_threshold_minor() -> int:
    return int(
        getattr(settings, "ADJUSTMENT_APPROVAL_THRESHOLD_MINOR", DEFAULT_ADJUSTMENT_APPROVAL_THRESHOLD_MINOR)
    )


# ---------------------------------------------------------------- helpers


def _require_amount(amount_minor: Any, *, positive: bool = True) -> int:
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


def _require_process(actor: Actor) -> None:
    """The ``system_*`` moves are a process's (no one's permission is checked): a person's or a
    terminal's command goes through the service that checks theirs."""
    if actor.user is not None or actor.terminal is not None:
        raise ValueError(f"{actor.name} is not a process of the back office: use the cage's service")


def _require_reason(reason: str) -> str:
    return reason_required(reason, "A reason is required.")


def _player_spec(player: Player) -> AccountSpec:
    return AccountSpec(AccountKind.PLAYER, player_id=player.pk)


def _table_spec(table: Table, kind: str) -> AccountSpec:
    return AccountSpec(kind, table_id=table.pk)


def _venue_spec(kind: str) -> AccountSpec:
    return AccountSpec(kind)


def _same_casino(casino: Casino, *owners: Any) -> None:
    for owner in owners:
        if owner.casino_id != casino.pk:
            raise CasinoMismatchError(f"{owner} does not belong to {casino}.")


@dataclass(frozen=True)
class _Written:
    """A transfer just written, with the hash of its postings (``wallet/ledger_hash.py``) that the
    command's audit record must carry."""

    transfer: Transfer
    hash: str


def _audited(*written: _Written | None) -> dict[str, dict[str, str]]:
    """The part of an audit record's ``after`` that names the transfers a command wrote, each with
    its hash: what makes them genuine for ``ledger_verify``. Every transfer's audit record has it."""
    named = {str(entry.transfer.pk): entry.hash for entry in written if entry is not None}
    return {AUDIT_KEY: named} if named else {}


def _transfer_write(
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
) -> _Written:
    """Check the no-negative rule, write a transfer and its postings, move the cached balances.

    ``accounts`` must be locked by the caller's transaction. ``amounts`` (account id -> signed
    amount) must sum to zero; zero amounts are left out. Three statements whatever the size.
    Returns the transfer with its hash: the caller's audit record names it (``_audited``), or
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
    return _Written(transfer, digest)


def _by_id(accounts: Iterable[Account]) -> dict[int, Account]:
    return {account.pk: account for account in accounts}


def _by_spec(accounts: Iterable[Account]) -> dict[AccountSpec, Account]:
    return {spec_of(account): account for account in accounts}


def _simple_move(
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
        specs = _by_spec(locked)
        source_account, destination_account = specs[source], specs[destination]
        written = _transfer_write(
            casino=casino,
            kind=kind,
            accounts=_by_id(locked),
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
                **_audited(written),
            },
        )
    return transfer


# ---------------------------------------------------------------- cage


def cage_buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    """A player buys in at the cage: cage -> player wallet.

    Needs ``casino.operate_cage``. Locks the cage and player accounts (id order), then the audit
    chain. Raises ``permission_denied``, ``invalid_amount``.
    """
    require_staff(actor, "operate_cage")
    return _buy_in(player=player, amount_minor=amount_minor, actor=actor)


def _buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    _require_amount(amount_minor)
    return _simple_move(
        casino=player.casino,
        kind=TransferKind.BUY_IN,
        source=_venue_spec(AccountKind.CAGE),
        destination=_player_spec(player),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.buy_in",
        audit_after={"player_id": player.pk},
    )


def system_buy_in(*, player: Player, amount_minor: int, actor: Actor) -> Transfer:
    """Cage -> player wallet for a process of the back office itself, with no cashier: the demo
    seed, the table simulation, test fixtures. ``actor`` is the process
    (``Actor.automatic(name)``): the transfer's actor in the audit trail; a person's buy-in is
    ``cage_buy_in``. Raises ``invalid_amount``. A process that may run twice (the seed) wraps the
    call in ``idempotent``."""
    _require_process(actor)
    return _buy_in(player=player, amount_minor=amount_minor, actor=actor)


def cage_cash_out(*, player: Player, amount_minor: int, actor: Actor, confirmed: bool = False) -> Transfer:
    """A player cashes out at the cage: player wallet -> cage. Only available money (balance minus
    open holds) can leave. An amount above the casino's ``cash_out_confirmation_above_minor`` is
    paid only ``confirmed`` by the cashier (the audit record says so). Needs ``casino.operate_cage``.
    Raises ``permission_denied``, ``invalid_amount``, ``cash_out_confirmation_required``,
    ``insufficient_funds``."""
    require_staff(actor, "operate_cage")
    _require_amount(amount_minor)
    above_minor = player.casino.cash_out_confirmation_above_minor
    needs_confirmation = amount_minor > above_minor
    if needs_confirmation and not confirmed:
        raise CashOutConfirmationRequiredError(
            f"A cash-out above {above_minor} needs the cashier's confirmation.",
            amount_minor=amount_minor,
            above_minor=above_minor,
        )
    return _simple_move(
        casino=player.casino,
        kind=TransferKind.CASH_OUT,
        source=_player_spec(player),
        destination=_venue_spec(AccountKind.CAGE),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.cash_out",
        audit_after={
            "player_id": player.pk,
            **({"confirmed_above_minor": above_minor} if needs_confirmation else {}),
        },
    )


def table_fill(
    *, table: Table, amount_minor: int, actor: Actor, reference_type: str = "", reference_id: Any = ""
) -> Transfer:
    """Chips from the cage to a table's tray (cage -> tray), naming the record it belongs to
    (a fill slip: ``reference_type="accounting.slip"``), when there is one. Needs
    ``casino.operate_cage``. Raises ``permission_denied``, ``invalid_amount``."""
    require_staff(actor, "operate_cage")
    return _fill(
        table=table,
        amount_minor=amount_minor,
        actor=actor,
        reference_type=reference_type,
        reference_id=reference_id,
    )


def _fill(
    *,
    table: Table,
    amount_minor: int,
    actor: Actor,
    reference_type: str = "",
    reference_id: Any = "",
) -> Transfer:
    _require_amount(amount_minor)
    return _simple_move(
        casino=table.casino,
        kind=TransferKind.TABLE_FILL,
        source=_venue_spec(AccountKind.CAGE),
        destination=_table_spec(table, AccountKind.TABLE_TRAY),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.table_fill",
        audit_after={"table_id": table.pk},
        reference_type=reference_type,
        reference_id=reference_id,
    )


def system_table_fill(*, table: Table, amount_minor: int, actor: Actor) -> Transfer:
    """Cage -> table tray for a process of the back office itself (see ``system_buy_in``)."""
    _require_process(actor)
    return _fill(table=table, amount_minor=amount_minor, actor=actor)


def table_credit(
    *, table: Table, amount_minor: int, actor: Actor, reference_type: str = "", reference_id: Any = ""
) -> Transfer:
    """Chips from a table's tray back to the cage (tray -> cage), naming the record it belongs
    to (a credit slip), when there is one. The tray may not go negative: raises
    ``insufficient_funds``. Needs ``casino.operate_cage``."""
    require_staff(actor, "operate_cage")
    _require_amount(amount_minor)
    return _simple_move(
        casino=table.casino,
        kind=TransferKind.TABLE_CREDIT,
        source=_table_spec(table, AccountKind.TABLE_TRAY),
        destination=_venue_spec(AccountKind.CAGE),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.table_credit",
        audit_after={"table_id": table.pk},
        reference_type=reference_type,
        reference_id=reference_id,
    )


def transfer_between_players(
    *, from_player: Player, to_player: Player, amount_minor: int, actor: Actor
) -> Transfer:
    """Move available money from one player's wallet to another's, at the cage.

    Needs ``casino.operate_cage``. Raises ``insufficient_funds``, ``same_account``,
    ``casino_mismatch``, ``invalid_amount``, ``permission_denied``."""
    require_staff(actor, "operate_cage")
    _require_amount(amount_minor)
    if from_player.pk == to_player.pk:
        raise SameAccountError("A player cannot transfer to themselves.")
    casino = from_player.casino
    _same_casino(casino, to_player)
    return _simple_move(
        casino=casino,
        kind=TransferKind.PLAYER_TRANSFER,
        source=_player_spec(from_player),
        destination=_player_spec(to_player),
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
    _require_amount(amount_minor)
    return _simple_move(
        casino=player.casino,
        kind=TransferKind.TIP,
        source=_player_spec(player),
        destination=_venue_spec(AccountKind.TIPS_POOL),
        amount_minor=amount_minor,
        actor=actor,
        audit_action="wallet.tip",
        audit_after={"player_id": player.pk, "round_id": round_id},
    )


# ---------------------------------------------------------------- adjustments


def balance_adjust(*, player: Player, amount_minor: int, reason: str, actor: Actor) -> BalanceAdjustment:
    """A pit boss corrects a player's balance (house <-> player) with a reason.

    Up to the threshold (setting ``ADJUSTMENT_APPROVAL_THRESHOLD_MINOR``, default 50 000, compared
    with the absolute amount) it applies at once; above it, it is recorded as pending, waits for a
    second person as a four-eyes approval (``casino.four_eyes``, kind ``balance_adjustment``,
    linked by ``BalanceAdjustment.approval``) and moves nothing until it is approved
    (``adjustment_approve``). Needs ``casino.adjust_balance``. Locks the player and house accounts
    (id order), then the audit chain. Raises ``reason_required``, ``invalid_amount`` (zero),
    ``insufficient_funds`` (a debit beyond the available balance), ``permission_denied``.
    """
    requested_by = require_staff(actor, "adjust_balance")
    _require_amount(amount_minor, positive=False)
    reason = _require_reason(reason)
    casino = player.casino
    applies_now = abs(amount_minor) <= adjustment_approval_threshold_minor()
    with transaction.atomic():
        gaming_day_writable(casino=casino)
        locked = accounts_lock(casino=casino, specs=[_player_spec(player), _venue_spec(AccountKind.HOUSE)])
        player_account = _by_spec(locked)[_player_spec(player)]
        written = None
        if applies_now:
            written = _adjustment_transfer(
                casino=casino,
                accounts=locked,
                player_account=player_account,
                amount_minor=amount_minor,
                reason=reason,
                actor=actor,
            )
        transfer = written.transfer if written else None
        adjustment = BalanceAdjustment.objects.create(
            account=player_account,
            amount_minor=amount_minor,
            reason=reason,
            status=AdjustmentStatus.APPLIED if applies_now else AdjustmentStatus.PENDING,
            requested_by=requested_by,
            decided_by=requested_by if applies_now else None,
            decided_at=timezone.now() if applies_now else None,
            transfer=transfer,
        )
        approval = None
        if not applies_now:
            approval = approval_request(
                actor=actor,
                casino=casino,
                kind=ADJUSTMENT_APPROVAL_KIND,
                subject_type="wallet.balanceadjustment",
                subject_id=adjustment.pk,
                place=player.card_number,
                summary=f"{player.display_name}: {reason}",
                amount_minor=amount_minor,
                after={"player_id": player.pk, "amount_minor": amount_minor},
                reason=reason,
            )
            BalanceAdjustment.objects.filter(pk=adjustment.pk).update(approval=approval)
            adjustment.approval = approval
        actor.audit(
            action="wallet.adjustment_applied" if applies_now else "wallet.adjustment_requested",
            object_type="wallet.balanceadjustment",
            object_id=adjustment.pk,
            after={
                "adjustment_id": adjustment.pk,
                "status": adjustment.status,
                "transfer_id": transfer.pk if transfer else None,
                "player_id": player.pk,
                "amount_minor": amount_minor,
                "reason": reason,
                "approval_id": approval.pk if approval else None,
                **_audited(written),
            },
        )
    return adjustment


def _adjustment_transfer(
    *,
    casino: Casino,
    accounts: Sequence[Account],
    player_account: Account,
    amount_minor: int,
    reason: str,
    actor: Actor,
) -> _Written:
    house = _by_spec(accounts)[_venue_spec(AccountKind.HOUSE)]
    return _transfer_write(
        casino=casino,
        kind=TransferKind.ADJUSTMENT,
        accounts=_by_id(accounts),
        amounts={house.pk: -amount_minor, player_account.pk: amount_minor},
        created_by=actor.user,
        memo=reason,
    )


def adjustment_approve(*, adjustment: BalanceAdjustment, actor: Actor) -> BalanceAdjustment:
    """A second person approves a pending adjustment; its money moves now.

    Who may decide is the four-eyes capability's rule (``casino.four_eyes.approval_decide``): the
    approver holds ``casino.adjust_balance`` (``permission_denied``) and is not the requester
    (``four_eyes_required``). Locks the adjustment's approval, then the adjustment row, then the
    accounts, then the audit chain. An adjustment is decided once: a second approval finds it
    decided and is refused with ``approval_decided``, moving nothing; one applied at once waits
    for no one (``approval_not_found``). Raises those, and ``insufficient_funds``."""
    return _adjustment_decide(adjustment=adjustment, actor=actor, approve=True)


def adjustment_reject(*, adjustment: BalanceAdjustment, actor: Actor, reason: str) -> BalanceAdjustment:
    """A second person rejects a pending adjustment, with a reason (moves nothing). The same
    rules and locks as ``adjustment_approve`` (nobody decides their own request, not even to
    withdraw it), and ``reason_required``."""
    return _adjustment_decide(adjustment=adjustment, actor=actor, approve=False, reason=reason)


def _adjustment_decide(
    *, adjustment: BalanceAdjustment, actor: Actor, approve: bool, reason: str = ""
) -> BalanceAdjustment:
    with transaction.atomic():
        gaming_day_writable(casino=adjustment.account.casino)
        if adjustment.approval_id is None:
            raise ApprovalNotFoundError(f"Adjustment {adjustment.pk} waits for no one's approval.")
        approval = approval_decide(
            approval_id=adjustment.approval_id, actor=actor, approve=approve, reason=reason
        )
        locked_adjustment = adjustment_lock(adjustment.pk)
        player_account = locked_adjustment.account
        written = None
        if approve:
            casino = Casino.objects.get(pk=player_account.casino_id)
            locked = accounts_lock(
                casino=casino, specs=[spec_of(player_account), _venue_spec(AccountKind.HOUSE)]
            )
            written = _adjustment_transfer(
                casino=casino,
                accounts=locked,
                player_account=_by_id(locked)[player_account.pk],
                amount_minor=locked_adjustment.amount_minor,
                reason=locked_adjustment.reason,
                actor=actor,
            )
        status = AdjustmentStatus.APPLIED if approve else AdjustmentStatus.REJECTED
        BalanceAdjustment.objects.filter(pk=adjustment.pk).update(
            status=status,
            decided_by=approval.decided_by,
            decided_at=approval.decided_at,
            transfer=written.transfer if written else None,
        )
        actor.audit(
            action="wallet.adjustment_approved" if approve else "wallet.adjustment_rejected",
            object_type="wallet.balanceadjustment",
            object_id=adjustment.pk,
            before={"status": AdjustmentStatus.PENDING},
            after={
                "adjustment_id": adjustment.pk,
                "transfer_id": written.transfer.pk if written else None,
                "amount_minor": locked_adjustment.amount_minor,
                "status": status,
                **approval_audit_fields(approval),
                **_audited(written),
            },
        )
    return BalanceAdjustment.objects.get(pk=adjustment.pk)


# ---------------------------------------------------------------- reversals


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
    reason = _require_reason(reason)
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
        written = _transfer_write(
            casino=original.casino,
            kind=TransferKind.REVERSAL,
            accounts=_by_id(locked),
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
                **_audited(written),
            },
        )
    return reversal


# ---------------------------------------------------------------- holds (bets)


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
    transaction may go on.
    """
    _require_amount(amount_minor)
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
    return hold


def _holds_lock(hold_ids: Sequence[int]) -> list[Hold]:
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
    reason = _require_reason(reason)
    if not hold_ids:
        raise HoldNotOpenError("No holds to void.")
    with transaction.atomic():
        holds = _holds_lock(hold_ids)
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


# ---------------------------------------------------------------- settlement of holds


@dataclass(frozen=True)
class SettlementReference:
    """What a settlement settles: a live table's round or a card-room game (canasta), by its id.

    The settlement's transfer and the payouts it parks name it (``reference_type`` is the kind,
    ``reference_id`` the id as text: :attr:`reference_id`, the one place that writes it); its
    audit record carries ``reference`` the same way. A reference is settled once in its casino."""

    kind: Literal["round", "canasta_game"]
    id: int

    @property
    def reference_id(self) -> str:
        return str(self.id)


@dataclass(frozen=True)
class _SettlementRule:
    """How a kind of game settles: which account takes the house's side (a round is banked by the
    table's tray; a game between players pays the house its fee), the name the audit record gives
    that account's amount, the audit action, and the word naming the game in the memo."""

    house_side: str
    house_side_at_table: bool
    house_side_field: str
    audit_action: str
    word: str


SETTLEMENT_RULES: dict[str, _SettlementRule] = {
    "round": _SettlementRule(
        house_side=AccountKind.TABLE_TRAY,
        house_side_at_table=True,
        house_side_field="tray_minor",
        audit_action="wallet.round_settled",
        word="round",
    ),
    "canasta_game": _SettlementRule(
        house_side=AccountKind.HOUSE,
        house_side_at_table=False,
        house_side_field="fee_minor",
        audit_action="wallet.game_settled",
        word="game",
    ),
}


@dataclass(frozen=True)
class SettlementLine:
    """One bet of a round, or one player of a game between players, as settlement sees it.

    - ``account_id``: the player's wallet.
    - ``hold_id``: the hold placed for this stake, or None for a stake that was not held (then it
      is taken from the available balance now, and may be refused with ``insufficient_funds``).
    - ``stake_minor``: what the player puts in: a round's stake posted, a game's loss paid (at
      most the hold's amount; the rest of the hold is freed).
    - ``payout_minor``: what the player gets back: in a round the stake included (0 for a loss,
      the stake for a push, stake + win for a win), in a game his share of the pot.
    - ``needs_approval``: the payout waits on the table's payouts-pending account, on the
      four-eyes approval ``approval_id`` (``casino.four_eyes``), instead of reaching the player
      now; :func:`pending_payouts_decide` makes the decision's effect.
    - ``rounding_minor``: what the rounding policy kept back from an exact payout (a round's
      3:2 on an odd stake, what an even split of a pot leaves over); it goes to the house rounding
      account, so remainders are visible and audited.
    """

    account_id: int
    stake_minor: int
    payout_minor: int
    hold_id: int | None = None
    needs_approval: bool = False
    rounding_minor: int = 0
    bet_reference: str = ""
    approval_id: int | None = None

    @property
    def waits(self) -> bool:
        """The payout waits for a pit boss's approval."""
        return self.needs_approval and self.payout_minor > 0


@dataclass(frozen=True)
class Settlement:
    transfer: Transfer
    pending_payout_ids: list[int]


def holds_settle(
    *,
    casino: Casino,
    table: Table,
    reference: SettlementReference,
    lines: Sequence[SettlementLine],
    actor: Actor,
    memo: str = "",
    savepoint: bool = True,
) -> Settlement:
    """Settle a round or a game in bulk: one transfer (``round_settlement``, naming ``reference``),
    every hold of its lines closed by it.

    Per account, the net is posted once: each player gets ``payout - stake`` (or ``-stake`` when
    the payout waits for approval), the payouts-pending account the waiting payouts, the house
    rounding account the remainders, and the house's side (``SETTLEMENT_RULES``) the rest,
    ``stakes - payouts - remainders``: for a round the table's tray (the house's win or loss),
    for a game between players the house account (its fee). An account may not go negative: a
    round the tray cannot pay is refused with ``insufficient_funds`` (fill the table first).
    Held stakes always settle (a posted stake never exceeds its hold). ``memo`` is the
    transfer's (by default the table's name, the game's word and the reference's id).

    A reference is settled once in its casino. A second settlement finds its holds posted
    (``hold_not_open``) or, for one of no held stake, the first settlement's transfer
    (``round_already_settled``, checked with the accounts locked, so two settlements racing wait
    on each other); it moves nothing.

    Statements are constant in the number of lines: the gaming day's lock and its check
    (``gaming_day_writable``: a settlement is a record of the day it is made in), lock holds (id
    order), lock accounts (id order), look for a settlement of the reference (of no held stake
    only), insert transfer, one UPDATE of accounts, one bulk insert of postings, one UPDATE of
    holds, one bulk insert of pending payouts, audit append (``wallet.round_settled`` or
    ``wallet.game_settled``). Raises ``gaming_day_closed``, ``hold_not_open``, ``hold_mismatch``,
    ``round_already_settled``, ``invalid_amount``, ``insufficient_funds``, ``account_not_found``,
    ``casino_mismatch``, ``currency_mismatch``.

    Called inside a transaction, it runs in a savepoint of its own, so that a caller may catch a
    refusal and go on. ``savepoint=False`` is for a caller whose transaction ends with the refusal
    anyway (the round's settlement, ``tables.services.settlement``): two statements fewer.
    """
    rule = SETTLEMENT_RULES[reference.kind]
    _same_casino(casino, table)
    hold_ids = _settlement_lines_checked(lines)
    with transaction.atomic(savepoint=savepoint):
        gaming_day_writable(casino=casino)
        holds = {hold.pk: hold for hold in _holds_lock(hold_ids)} if hold_ids else {}
        house_spec = (
            _table_spec(table, rule.house_side) if rule.house_side_at_table else _venue_spec(rule.house_side)
        )
        pending_spec = _table_spec(table, AccountKind.TABLE_PAYOUTS_PENDING)
        rounding_spec = _venue_spec(AccountKind.HOUSE_ROUNDING)
        wanted = [house_spec, rounding_spec, *([pending_spec] if any(line.waits for line in lines) else [])]
        player_ids = {line.account_id for line in lines}
        locked = accounts_lock(casino=casino, specs=wanted, ids=player_ids)
        accounts, specs = _by_id(locked), _by_spec(locked)
        _player_accounts_checked(accounts, player_ids)
        # A held stake's open hold shows the reference unsettled (a settlement posts them all); one
        # of no held stake is looked for by its transfer.
        if (
            not holds
            and Transfer.objects.filter(
                casino=casino,
                kind=TransferKind.ROUND_SETTLEMENT,
                reference_type=reference.kind,
                reference_id=reference.reference_id,
            ).exists()
        ):
            raise RoundAlreadySettledError(
                f"{rule.word.capitalize()} {reference.id} is settled already.",
                reference=reference.reference_id,
            )
        house, rounding = specs[house_spec], specs[rounding_spec]
        amounts, held, waiting = _settlement_amounts(
            lines, holds, table=table, house=house, pending=specs.get(pending_spec), rounding=rounding
        )
        written = _transfer_write(
            casino=casino,
            kind=TransferKind.ROUND_SETTLEMENT,
            accounts=accounts,
            amounts=amounts,
            held_deltas=held,
            created_by=actor.user,
            reference_type=reference.kind,
            reference_id=reference.reference_id,
            memo=memo or f"{table.name} {rule.word} {reference.id}",
        )
        transfer = written.transfer
        if holds:
            Hold.objects.filter(pk__in=sorted(holds)).update(
                status=HoldStatus.POSTED, closed_at=timezone.now(), closed_by_transfer=transfer
            )
        pending_ids = _payouts_park(table, reference, transfer, waiting)
        actor.audit(
            action=rule.audit_action,
            object_type="wallet.transfer",
            object_id=transfer.pk,
            after={
                "transfer_id": transfer.pk,
                "pending_payout_ids": pending_ids,
                "lines": len(lines),
                "stakes_minor": sum(line.stake_minor for line in lines),
                "payouts_minor": sum(line.payout_minor for line in lines),
                "pending_minor": sum(line.payout_minor for line in waiting),
                "rounding_minor": sum(line.rounding_minor for line in lines),
                rule.house_side_field: amounts.get(house.pk, 0),
                "table_id": table.pk,
                "reference": reference.reference_id,
                "currency": casino.currency,
                **_audited(written),
            },
        )
    return Settlement(transfer=transfer, pending_payout_ids=pending_ids)


def _settlement_lines_checked(lines: Sequence[SettlementLine]) -> list[int]:
    """The hold ids of a settlement's lines, each once; raises ``hold_mismatch`` for a hold on
    two lines and ``invalid_amount`` for an amount that is not whole minor units in range."""
    hold_ids = [line.hold_id for line in lines if line.hold_id is not None]
    if len(hold_ids) != len(set(hold_ids)):
        raise HoldMismatchError("A hold appears on two settlement lines.")
    for line in lines:
        for amount in (line.stake_minor, line.payout_minor, line.rounding_minor):
            if (
                not isinstance(amount, int)
                or isinstance(amount, bool)
                or amount < 0
                or amount > MAX_AMOUNT_MINOR
            ):
                raise InvalidAmountError(
                    f"Stakes, payouts and remainders are whole minor units from 0 to {MAX_AMOUNT_MINOR}."
                )
    return hold_ids


def _player_accounts_checked(accounts: dict[int, Account], player_ids: set[int]) -> None:
    for account_id in sorted(player_ids):
        account = accounts.get(account_id)
        if account is None or account.kind != AccountKind.PLAYER:
            raise AccountNotFoundError(
                f"Account {account_id} is not a player's wallet.", account_id=account_id
            )


def _payouts_park(
    table: Table, reference: SettlementReference, transfer: Transfer, waiting: Sequence[SettlementLine]
) -> list[int]:
    """The payouts that wait for a pit boss's approval, parked on the table's payouts-pending
    account by ``transfer`` (one bulk insert), each on its four-eyes approval; their ids."""
    if not waiting:
        return []
    if any(line.approval_id is None for line in waiting):
        raise ValueError("a payout that waits names the approval it waits on")
    payouts = PendingPayout.objects.bulk_create(
        [
            PendingPayout(
                table=table,
                account_id=line.account_id,
                amount_minor=line.payout_minor,
                reference_type=reference.kind,
                reference_id=reference.reference_id,
                bet_reference=line.bet_reference,
                settlement_transfer=transfer,
                approval_id=line.approval_id,
            )
            for line in waiting
        ]
    )
    return [payout.pk for payout in payouts]


def _settlement_amounts(
    lines: Sequence[SettlementLine],
    holds: dict[int, Hold],
    *,
    table: Table,
    house: Account,
    pending: Account | None,
    rounding: Account,
) -> tuple[dict[int, int], dict[int, int], list[SettlementLine]]:
    """The net per account (players, the house's side, payouts pending, house rounding), the
    held amounts released per account, and the lines whose payout waits for approval (``pending``
    is locked when there is one). Raises ``hold_mismatch`` (a hold of another account or table)
    and ``invalid_amount`` (a stake above its hold)."""
    amounts: dict[int, int] = defaultdict(int)
    held: dict[int, int] = defaultdict(int)
    waiting: list[SettlementLine] = []
    for line in lines:
        if line.hold_id is not None:
            hold = holds[line.hold_id]
            if hold.account_id != line.account_id or (hold.table_id not in (None, table.pk)):
                raise HoldMismatchError(
                    f"Hold {hold.pk} is not a hold of account {line.account_id} at this table.",
                    hold_id=hold.pk,
                )
            if line.stake_minor > hold.amount_minor:
                raise InvalidAmountError(f"The stake posted exceeds hold {hold.pk}.", hold_id=hold.pk)
            held[line.account_id] -= hold.amount_minor
        amounts[line.account_id] -= line.stake_minor
        amounts[house.pk] += line.stake_minor - line.payout_minor - line.rounding_minor
        amounts[rounding.pk] += line.rounding_minor
        if line.waits:
            assert pending is not None  # locked whenever a line waits
            amounts[pending.pk] += line.payout_minor
            waiting.append(line)
        else:
            amounts[line.account_id] += line.payout_minor
    return amounts, held, waiting


def pending_payouts_decide(
    *, approvals: Sequence[Approval], actor: Actor, object_type: str = "", object_id: object = None
) -> list[Transfer]:
    """The effect of decided payout approvals (``casino.four_eyes.approval_decide``, which holds
    the rule of who may decide): each payout waiting on an approved one goes from the table's
    payouts-pending account to the player's wallet, each on a rejected one back to the tray, one
    transfer per payout (``payout_release``, ``payout_reject``). One audit record for them all,
    with each approval, naming ``object_type`` and ``object_id`` (what the deciding command acts
    on: a round; the first payout by default).

    Locks the payouts (id order), then the accounts (id order), then the audit chain: call it
    after the approvals are decided, in the deciding command's transaction. A payout is decided
    once: one that is not pending any more (or waits on no approval given) is refused with
    ``payout_not_pending``, moving nothing. An approval still pending is a caller's bug
    (``ValueError``)."""
    by_approval = {approval.pk: approval for approval in approvals}
    if any(approval.is_pending or approval.kind != "payout" for approval in approvals):
        raise ValueError("only decided payout approvals have an effect")
    with transaction.atomic():
        if approvals:
            gaming_day_writable(casino=approvals[0].casino)
        payouts = payouts_lock(approval_ids=by_approval)
        missing = sorted(set(by_approval) - {payout.approval_id for payout in payouts})
        if missing:
            raise PayoutNotPendingError(f"No payout waits on approval {missing[0]}.", approval_id=missing[0])
        for payout in payouts:
            if payout.status != PayoutStatus.PENDING:
                raise PayoutNotPendingError(f"Payout {payout.pk} is {payout.status}.", payout_id=payout.pk)
        if not payouts:
            return []
        casino = payouts[0].table.casino
        specs = [
            _table_spec(payout.table, kind)
            for payout in payouts
            for kind in (AccountKind.TABLE_PAYOUTS_PENDING, AccountKind.TABLE_TRAY)
        ]
        locked = accounts_lock(casino=casino, specs=specs, ids={payout.account_id for payout in payouts})
        accounts, by_spec = _by_id(locked), _by_spec(locked)
        now = timezone.now()
        written: list[_Written] = []
        decided: list[dict[str, Any]] = []
        for payout in payouts:
            approval = by_approval[payout.approval_id]  # type: ignore[index]
            release = approval.status == approval.Status.APPROVED
            pending = by_spec[_table_spec(payout.table, AccountKind.TABLE_PAYOUTS_PENDING)]
            target = (
                payout.account_id
                if release
                else by_spec[_table_spec(payout.table, AccountKind.TABLE_TRAY)].pk
            )
            entry = _transfer_write(
                casino=casino,
                kind=TransferKind.PAYOUT_RELEASE if release else TransferKind.PAYOUT_REJECT,
                accounts=accounts,
                amounts={pending.pk: -payout.amount_minor, target: payout.amount_minor},
                created_by=actor.user,
                memo=approval.decision_reason,
                reference_type=payout.reference_type,
                reference_id=payout.reference_id,
            )
            written.append(entry)
            PendingPayout.objects.filter(pk=payout.pk).update(
                status=PayoutStatus.RELEASED if release else PayoutStatus.REJECTED,
                decided_transfer=entry.transfer,
                decided_by=approval.decided_by,
                decided_at=approval.decided_at or now,
                reason=approval.decision_reason,
            )
            decided.append(
                {
                    "payout_id": payout.pk,
                    "bet_reference": payout.bet_reference,
                    "amount_minor": payout.amount_minor,
                    "transfer_id": entry.transfer.pk,
                    **approval_audit_fields(approval),
                }
            )
        actor.audit(
            action="wallet.payouts_decided",
            object_type=object_type or "wallet.pendingpayout",
            object_id=payouts[0].pk if object_id is None else object_id,
            before={"status": PayoutStatus.PENDING},
            after={
                "released_minor": sum(
                    item["amount_minor"] for item in decided if item["status"] == Approval.Status.APPROVED
                ),
                "rejected_minor": sum(
                    item["amount_minor"] for item in decided if item["status"] == Approval.Status.REJECTED
                ),
                "payouts": decided,
                **_audited(*written),
            },
        )
    return [entry.transfer for entry in written]


# ---------------------------------------------------------------- accounts


def table_accounts_open(*, table: Table) -> dict[str, Account]:
    """Create (if missing) a table's tray and payouts-pending accounts. Idempotent, moves nothing."""
    with transaction.atomic():
        locked = accounts_lock(
            casino=table.casino,
            specs=[
                _table_spec(table, AccountKind.TABLE_TRAY),
                _table_spec(table, AccountKind.TABLE_PAYOUTS_PENDING),
            ],
        )
    return {account.kind: account for account in locked}


def venue_accounts_open(*, casino: Casino) -> dict[str, Account]:
    """Create (if missing) the cage, house and house rounding accounts of a casino."""
    with transaction.atomic():
        locked = accounts_lock(
            casino=casino,
            specs=[
                _venue_spec(kind)
                for kind in (AccountKind.CAGE, AccountKind.HOUSE, AccountKind.HOUSE_ROUNDING)
            ],
        )
    return {account.kind: account for account in locked}


__all__ = [
    "CurrencyMismatchError",
    "ServiceError",
    "Settlement",
    "SettlementLine",
    "SettlementReference",
    "adjustment_approve",
    "adjustment_reject",
    "balance_adjust",
    "cage_buy_in",
    "cage_cash_out",
    "hold_place",
    "holds_settle",
    "holds_void",
    "pending_payouts_decide",
    "system_buy_in",
    "system_table_fill",
    "table_accounts_open",
    "table_credit",
    "table_fill",
    "tip_from_wallet",
    "transfer_between_players",
    "transfer_reverse",
    "venue_accounts_open",
]
