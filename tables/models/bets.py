"""Bets, the wallet holds behind them, payout lines and the pit boss's decisions on them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tables.models.rounds import Round


class BetKind(models.TextChoices):
    MAIN = "main", "Main"
    BEHIND = "behind", "Bet behind"
    PERFECT_PAIRS = "perfect_pairs", "Perfect Pairs"
    TWENTY_ONE_PLUS_THREE = "twenty_one_plus_three", "21+3"
    INSURANCE = "insurance", "Insurance"


class BetStatus(models.TextChoices):
    PLACED = "placed", "Placed"
    CANCELLED = "cancelled", "Cancelled"
    REFUNDED = "refunded", "Refunded (owner not playing)"
    SETTLED = "settled", "Settled"
    VOIDED = "voided", "Voided"


class Bet(models.Model):
    """A bet of a player on a box. Its engine id is ``str(pk)``. The stake is held on the
    player's wallet at once (``holds``: the first hold, then one per double or split)."""

    # No index of its own: ``bet_round_player_idx`` leads with the round (one index fewer for every bet to write).
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bets", db_index=False)
    box_number = models.PositiveSmallIntegerField()
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="bets")
    kind = models.CharField(max_length=30, choices=BetKind.choices)
    stake_minor = models.BigIntegerField()
    follow_double = models.BooleanField(default=False)
    follow_split = models.BooleanField(default=False)
    insures = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    status = models.CharField(max_length=10, choices=BetStatus.choices, default=BetStatus.PLACED)
    idempotency_key = models.CharField(max_length=200, blank=True)
    placed_at = models.DateTimeField(auto_now_add=True)
    terminal = models.ForeignKey(
        "casino.Terminal", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(stake_minor__gt=0), name="bet_stake_positive")
        ]
        indexes = [
            models.Index(fields=["round", "player"], name="bet_round_player_idx"),
            # A box's main and side bets (a few per box, however many bets behind it has): what
            # a bet checks before it is placed (``bet_place``).
            models.Index(
                fields=["round", "box_number"],
                condition=~models.Q(kind="behind"),
                name="bet_round_box_main_side_idx",
            ),
        ]
        ordering = ["round", "id"]

    def __str__(self) -> str:
        return f"bet {self.pk} {self.kind} {self.stake_minor}"


class BetHold(models.Model):
    """A wallet hold behind a bet: the original stake, or a stake added by a double or split."""

    bet = models.ForeignKey(Bet, on_delete=models.PROTECT, related_name="holds")
    hold = models.OneToOneField("wallet.Hold", on_delete=models.PROTECT, related_name="+")
    amount_minor = models.BigIntegerField()
    reason = models.CharField(max_length=10, default="placed")

    def __str__(self) -> str:
        return f"hold {self.hold_id} of bet {self.bet_id}"


class ApprovalStatus(models.TextChoices):
    NOT_NEEDED = "not_needed", "Paid at once"
    PENDING = "pending", "Awaiting approval"
    APPROVED = "approved", "Approved and paid"
    REJECTED = "rejected", "Rejected"


class PayoutLine(models.Model):
    """What one bet (on one hand) got back, as the engine settled it, with its rule. Append-only
    (migration 0006): written once at settlement, never updated. A payout waiting for approval is
    the wallet PendingPayout whose ``bet_reference`` is ``payout_line:<pk>``; the pit boss's
    decision on it is a row of its own (``PayoutDecision``)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="payout_lines")
    bet = models.ForeignKey(Bet, on_delete=models.PROTECT, related_name="payout_lines")
    hand = models.SmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=30)
    rule = models.CharField(max_length=120)
    multiplier_numerator = models.BigIntegerField()
    multiplier_denominator = models.BigIntegerField()
    stake_minor = models.BigIntegerField()
    net_minor = models.BigIntegerField()
    paid_minor = models.BigIntegerField()
    rounding_remainder = models.CharField(max_length=40, default="0")
    needs_approval = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "id"]

    def __str__(self) -> str:
        return f"payout line {self.pk} {self.outcome} {self.paid_minor}"

    @property
    def approval_status(self) -> str:
        """Paid at once (``not_needed``), ``pending`` until a pit boss decides, then the
        decision's ``approved`` or ``rejected``."""
        if not self.needs_approval:
            return ApprovalStatus.NOT_NEEDED
        try:
            return self.decision.status
        except PayoutDecision.DoesNotExist:
            return ApprovalStatus.PENDING


DECISION_STATUSES = (ApprovalStatus.APPROVED, ApprovalStatus.REJECTED)


class PayoutDecision(models.Model):
    """A pit boss's decision on a payout line that waited for approval: approved (paid to the
    player) or rejected (back to the tray), by whom, when and why. Append-only like the line
    (migration 0006); a line is decided once (one decision per line)."""

    line = models.OneToOneField(PayoutLine, on_delete=models.PROTECT, related_name="decision")
    status = models.CharField(
        max_length=10, choices=[(status.value, status.label) for status in DECISION_STATUSES]
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField()
    reason = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=[status.value for status in DECISION_STATUSES]),
                name="payout_decision_status_decided",
            )
        ]

    def __str__(self) -> str:
        return f"decision {self.status} on payout line {self.line_id}"
