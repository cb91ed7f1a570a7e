"""Accounts, transfers, postings, holds and idempotency records: the double-entry ledger.

Writes go through wallet/services/ only. What the database itself guarantees:
- an account that may not go negative never has ``balance_minor < held_minor`` (CHECK constraint,
  both databases), and ``held_minor >= 0``; only the casino's own accounts (cage, house) may be
  flagged ``may_go_negative`` (CHECK);
- a posting is never zero (CHECK);
- a transfer is reversed at most once (``reverses`` is unique);
- on PostgreSQL (migration 0002): postings and transfers refuse UPDATE, DELETE and TRUNCATE, and a
  deferred constraint trigger refuses, at commit, any transaction that leaves a transfer whose
  postings do not sum to zero.

What the database cannot guarantee (its superuser can switch triggers off, or insert a balanced
transfer with the cached balances kept in step), the audit chain does: every transfer's audit
record carries the hash of its postings (``wallet/ledger_hash.py``), and ``ledger_verify`` names
every transfer no record vouches for.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class AccountKind(models.TextChoices):
    PLAYER = "player", "Player wallet"
    TABLE_TRAY = "table_tray", "Table tray (bankroll)"
    TABLE_PAYOUTS_PENDING = "table_payouts_pending", "Table payouts awaiting approval"
    CAGE = "cage", "Cage"
    HOUSE = "house", "House (win/loss, fees, adjustments)"
    HOUSE_ROUNDING = "house_rounding", "House rounding remainders"
    TIPS_POOL = "tips_pool", "Dealers' tips pool"


PLAYER_KINDS = frozenset({AccountKind.PLAYER})
TABLE_KINDS = frozenset({AccountKind.TABLE_TRAY, AccountKind.TABLE_PAYOUTS_PENDING})
VENUE_KINDS = frozenset(
    {AccountKind.CAGE, AccountKind.HOUSE, AccountKind.HOUSE_ROUNDING, AccountKind.TIPS_POOL}
)
# Accounts that stand for the casino's own position may go negative (the cage issues credit against
# cash it holds, the house carries its win/loss). Player wallets, trays (chips physically in the
# tray) and pending payouts may not.
MAY_GO_NEGATIVE_KINDS = frozenset({AccountKind.CAGE, AccountKind.HOUSE, AccountKind.HOUSE_ROUNDING})


class Account(models.Model):
    """One ledger account in its casino's currency. Balances are cached here, updated in the same
    transaction as the postings that move them; ``ledger_verify`` proves they agree.

    ``held_minor`` is the sum of the account's open holds (bets placed, not yet settled): money
    still on the balance but no longer spendable. ``available = balance - held``.
    """

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="accounts")
    kind = models.CharField(max_length=30, choices=AccountKind.choices)
    player = models.ForeignKey(
        "casino.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="accounts"
    )
    table = models.ForeignKey(
        "casino.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="accounts"
    )
    currency = models.CharField(max_length=3)
    balance_minor = models.BigIntegerField(default=0)
    held_minor = models.BigIntegerField(default=0)
    may_go_negative = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(may_go_negative=True) | Q(balance_minor__gte=F("held_minor")),
                name="account_not_overdrawn",
            ),
            models.CheckConstraint(condition=Q(held_minor__gte=0), name="account_held_not_negative"),
            # The flag that lifts the rule above is itself held to the account's kind: no edit can
            # let a player wallet, a tray or a payouts-pending account go negative.
            models.CheckConstraint(
                condition=Q(may_go_negative=False) | Q(kind__in=sorted(MAY_GO_NEGATIVE_KINDS)),
                name="account_may_go_negative_matches_kind",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind__in=sorted(PLAYER_KINDS), player__isnull=False, table__isnull=True)
                    | Q(kind__in=sorted(TABLE_KINDS), player__isnull=True, table__isnull=False)
                    | Q(kind__in=sorted(VENUE_KINDS), player__isnull=True, table__isnull=True)
                ),
                name="account_owner_matches_kind",
            ),
            models.UniqueConstraint(
                fields=["player", "kind"], condition=Q(player__isnull=False), name="account_unique_player"
            ),
            models.UniqueConstraint(
                fields=["table", "kind"], condition=Q(table__isnull=False), name="account_unique_table"
            ),
            models.UniqueConstraint(
                fields=["casino", "kind"],
                condition=Q(player__isnull=True, table__isnull=True),
                name="account_unique_venue",
            ),
        ]

    def __str__(self) -> str:
        if self.player_id:
            return f"{self.get_kind_display()} #{self.pk} (player {self.player_id})"
        if self.table_id:
            return f"{self.get_kind_display()} #{self.pk} (table {self.table_id})"
        return f"{self.get_kind_display()} #{self.pk}"

    @property
    def available_minor(self) -> int:
        return self.balance_minor - self.held_minor


class TransferKind(models.TextChoices):
    BUY_IN = "buy_in", "Buy-in"
    CASH_OUT = "cash_out", "Cash-out"
    TABLE_FILL = "table_fill", "Table fill"
    TABLE_CREDIT = "table_credit", "Table credit"
    ADJUSTMENT = "adjustment", "Balance adjustment"
    PLAYER_TRANSFER = "player_transfer", "Transfer between players"
    ROUND_SETTLEMENT = "round_settlement", "Round settlement"
    PAYOUT_RELEASE = "payout_release", "Payout released"
    PAYOUT_REJECT = "payout_reject", "Payout rejected"
    REVERSAL = "reversal", "Reversal"
    TIP = "tip", "Tip to the dealers"


class Transfer(models.Model):
    """A set of postings that sums to zero. Written once, never edited (append-only on PostgreSQL).
    A mistake is corrected by a reversing transfer whose ``reverses`` points here."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="transfers")
    kind = models.CharField(max_length=30, choices=TransferKind.choices)
    currency = models.CharField(max_length=3)
    reverses = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by"
    )
    reference_type = models.CharField(max_length=40, blank=True)
    reference_id = models.CharField(max_length=80, blank=True)
    memo = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["reference_type", "reference_id"], name="transfer_reference_idx")]

    def __str__(self) -> str:
        return f"transfer #{self.pk} {self.kind}"


class Posting(models.Model):
    """One leg of a transfer: a signed amount on one account (credit > 0, debit < 0), never zero."""

    transfer = models.ForeignKey(Transfer, on_delete=models.PROTECT, related_name="postings")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings")
    amount_minor = models.BigIntegerField()

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(amount_minor=0), name="posting_not_zero")]
        indexes = [models.Index(fields=["account", "id"], name="posting_account_idx")]

    def __str__(self) -> str:
        return f"posting {self.amount_minor} on account {self.account_id}"


class HoldStatus(models.TextChoices):
    OPEN = "open", "Open"
    POSTED = "posted", "Posted"
    VOIDED = "voided", "Voided"


class Hold(models.Model):
    """A pending transfer: a stake reserved on a player's account when the bet is placed.

    Placing it touches only the player's own account row (``held_minor``) and inserts this row;
    settlement posts or voids holds in bulk. ``table`` has no database foreign key on purpose: a
    foreign key would make every bet take a share lock on the one table row all bettors share.
    """

    # No index of its own: ``hold_account_status_idx`` leads with the account.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="holds", db_index=False)
    amount_minor = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=HoldStatus.choices, default=HoldStatus.OPEN)
    table = models.ForeignKey(
        "casino.Table",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    reference_type = models.CharField(max_length=40, blank=True)
    reference_id = models.CharField(max_length=80, blank=True)
    bet_reference = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by_transfer = models.ForeignKey(
        Transfer, on_delete=models.PROTECT, null=True, blank=True, related_name="closed_holds"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount_minor__gt=0), name="hold_amount_positive"),
            models.CheckConstraint(
                condition=Q(status=HoldStatus.OPEN, closed_at__isnull=True)
                | (~Q(status=HoldStatus.OPEN) & Q(closed_at__isnull=False)),
                name="hold_closed_at_matches_status",
            ),
        ]
        indexes = [
            models.Index(fields=["account", "status"], name="hold_account_status_idx"),
            models.Index(fields=["reference_type", "reference_id"], name="hold_reference_idx"),
        ]

    def __str__(self) -> str:
        return f"hold #{self.pk} {self.amount_minor} {self.status}"


class PayoutStatus(models.TextChoices):
    PENDING = "pending", "Pending approval"
    RELEASED = "released", "Released to the player"
    REJECTED = "rejected", "Rejected (back to the tray)"


class PendingPayout(models.Model):
    """A payout that settlement parked on the table's payouts-pending account until a pit boss
    releases it to the player or rejects it back to the tray. ``approval`` is the four-eyes
    record it waits on (``casino.four_eyes``): the money moves only once that is decided
    (``pending_payouts_decide``)."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="pending_payouts")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="pending_payouts")
    amount_minor = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=PayoutStatus.choices, default=PayoutStatus.PENDING)
    reference_type = models.CharField(max_length=40, blank=True)
    reference_id = models.CharField(max_length=80, blank=True)
    bet_reference = models.CharField(max_length=80, blank=True)
    settlement_transfer = models.ForeignKey(Transfer, on_delete=models.PROTECT, related_name="+")
    decided_transfer = models.ForeignKey(
        Transfer, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Null only for a payout parked before approvals were records of their own, none since the
    # migration that made one for each (wallet 0007).
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(amount_minor__gt=0), name="payout_amount_positive")]

    def __str__(self) -> str:
        return f"pending payout #{self.pk} {self.amount_minor} {self.status}"


class AdjustmentStatus(models.TextChoices):
    PENDING = "pending", "Pending approval"
    APPLIED = "applied", "Applied"
    REJECTED = "rejected", "Rejected"


class BalanceAdjustment(models.Model):
    """A pit boss's correction of a player's balance, with a reason. Above the approval threshold
    it waits for a second person (a four-eyes ``casino.Approval``, kind ``balance_adjustment``)
    before it moves money."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="adjustments")
    amount_minor = models.BigIntegerField()
    reason = models.CharField(max_length=300)
    status = models.CharField(max_length=10, choices=AdjustmentStatus.choices)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    transfer = models.OneToOneField(
        Transfer, on_delete=models.PROTECT, null=True, blank=True, related_name="adjustment"
    )
    # The four-eyes approval it waited for (above the threshold); None when it applied at once.
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(amount_minor=0), name="adjustment_not_zero")]

    def __str__(self) -> str:
        return f"adjustment #{self.pk} {self.amount_minor} {self.status}"
