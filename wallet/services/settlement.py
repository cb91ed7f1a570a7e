"""The settlement of held stakes: a live table's round or a card-room game, in one transfer."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.gaming_day_state import gaming_day_writable
from casino.models import Casino, Table
from wallet.errors import (
    AccountNotFoundError,
    HoldMismatchError,
    InvalidAmountError,
    RoundAlreadySettledError,
)
from wallet.locking import accounts_lock
from wallet.models import Account, AccountKind, Hold, HoldStatus, PendingPayout, Transfer, TransferKind
from wallet.services.holds import open_holds_lock
from wallet.services.ledger import (
    MAX_AMOUNT_MINOR,
    Written,
    accounts_by_id,
    accounts_by_spec,
    audited,
    require_same_casino,
    table_spec,
    transfer_write,
    venue_spec,
)


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
    require_same_casino(casino, table)
    hold_ids = _settlement_lines_checked(lines)
    with transaction.atomic(savepoint=savepoint):
        gaming_day_writable(casino=casino)
        holds = {hold.pk: hold for hold in open_holds_lock(hold_ids)} if hold_ids else {}
        locked = _settlement_accounts_lock(casino, table, rule, lines)
        # A held stake's open hold shows the reference unsettled (a settlement posts them all); one
        # of no held stake is looked for by its transfer.
        if not holds:
            _settled_once(casino, reference, rule)
        written, waiting, house_minor = _settlement_post(
            casino, table, reference, rule, lines, holds, locked, actor=actor, memo=memo
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
                **_settlement_figures(lines, waiting),
                rule.house_side_field: house_minor,
                "table_id": table.pk,
                "reference": reference.reference_id,
                "currency": casino.currency,
                **audited(written),
            },
        )
    return Settlement(transfer=transfer, pending_payout_ids=pending_ids)


@dataclass(frozen=True)
class _SettlementAccounts:
    """The accounts a settlement posts to, locked: all of them by id, the house's side, the house
    rounding account, and the table's payouts-pending account when a payout waits."""

    accounts: dict[int, Account]
    house: Account
    rounding: Account
    pending: Account | None


def _settlement_accounts_lock(
    casino: Casino, table: Table, rule: _SettlementRule, lines: Sequence[SettlementLine]
) -> _SettlementAccounts:
    """Lock the accounts of a settlement (id order): the house's side, the house rounding account,
    the payouts-pending account if a payout waits, and the players' wallets, each of which must be
    a player's (``account_not_found``)."""
    house_spec = (
        table_spec(table, rule.house_side) if rule.house_side_at_table else venue_spec(rule.house_side)
    )
    pending_spec = table_spec(table, AccountKind.TABLE_PAYOUTS_PENDING)
    rounding_spec = venue_spec(AccountKind.HOUSE_ROUNDING)
    wanted = [house_spec, rounding_spec, *([pending_spec] if any(line.waits for line in lines) else [])]
    player_ids = {line.account_id for line in lines}
    locked = accounts_lock(casino=casino, specs=wanted, ids=player_ids)
    accounts, specs = accounts_by_id(locked), accounts_by_spec(locked)
    _player_accounts_checked(accounts, player_ids)
    return _SettlementAccounts(
        accounts=accounts,
        house=specs[house_spec],
        rounding=specs[rounding_spec],
        pending=specs.get(pending_spec),
    )


def _settlement_post(
    casino: Casino,
    table: Table,
    reference: SettlementReference,
    rule: _SettlementRule,
    lines: Sequence[SettlementLine],
    holds: dict[int, Hold],
    locked: _SettlementAccounts,
    *,
    actor: Actor,
    memo: str,
) -> tuple[Written, list[SettlementLine], int]:
    """Post the settlement's net per account as one transfer naming ``reference``, the held
    amounts released with it. Returns the transfer written, the lines whose payout waits for
    approval, and the house's side's amount."""
    amounts, held, waiting = _settlement_amounts(
        lines, holds, table=table, house=locked.house, pending=locked.pending, rounding=locked.rounding
    )
    written = transfer_write(
        casino=casino,
        kind=TransferKind.ROUND_SETTLEMENT,
        accounts=locked.accounts,
        amounts=amounts,
        held_deltas=held,
        created_by=actor.user,
        reference_type=reference.kind,
        reference_id=reference.reference_id,
        memo=memo or f"{table.name} {rule.word} {reference.id}",
    )
    return written, waiting, amounts.get(locked.house.pk, 0)


def _settled_once(casino: Casino, reference: SettlementReference, rule: _SettlementRule) -> None:
    """Refuse a second settlement of a reference with no held stake (``round_already_settled``):
    its first settlement's transfer is there."""
    if Transfer.objects.filter(
        casino=casino,
        kind=TransferKind.ROUND_SETTLEMENT,
        reference_type=reference.kind,
        reference_id=reference.reference_id,
    ).exists():
        raise RoundAlreadySettledError(
            f"{rule.word.capitalize()} {reference.id} is settled already.",
            reference=reference.reference_id,
        )


def _settlement_figures(lines: Sequence[SettlementLine], waiting: Sequence[SettlementLine]) -> dict[str, int]:
    """The sums a settlement's audit record carries: its lines, stakes, payouts, the payouts that
    wait, and the remainders."""
    return {
        "lines": len(lines),
        "stakes_minor": sum(line.stake_minor for line in lines),
        "payouts_minor": sum(line.payout_minor for line in lines),
        "pending_minor": sum(line.payout_minor for line in waiting),
        "rounding_minor": sum(line.rounding_minor for line in lines),
    }


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
