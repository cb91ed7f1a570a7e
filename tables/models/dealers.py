"""Who deals at a table, and the dealer's requests that wait for a pit boss."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from casino.models import Table
from tables.models.bets import DECISION_STATUSES
from tables.models.rounds import Round


class TableDealer(models.Model):
    """A dealer's spell at a table, from signing on to signing off (by themselves, by the dealer
    who takes over, or by a pit boss). One dealer at a table at a time and one table per dealer
    at a time (partial unique indexes); the spells in order are the table's dealer changes."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="dealer_spells")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_on_at = models.DateTimeField()
    signed_off_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(signed_off_at__isnull=True), name="table_one_dealer"
            ),
            models.UniqueConstraint(
                fields=["dealer"], condition=models.Q(signed_off_at__isnull=True), name="dealer_one_table"
            ),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.dealer_id} at {self.table}"


def signed_on_dealer(table: Any) -> models.Subquery:
    """The user id of the dealer signed on to a table (its open spell's), as a subquery of a
    query that names the table (``OuterRef("pk")`` of tables, ``OuterRef("table_id")`` of
    rounds): read with the table, as ``signed_on_dealer_id``
    (``tables.services.common.table_dealer_id``)."""
    return models.Subquery(
        TableDealer.objects.filter(table_id=table, signed_off_at__isnull=True)
        .order_by("pk")
        .values("dealer_id")[:1]
    )


class RoundRequest(models.Model):
    """A dealer's request that needs a pit boss (rules/blackjack.md 3.5, DESIGN "Shoes"): void
    the round, or correct its misscan with the card that really left the shoe (``card`` blank:
    none did, a double read). Insert-only; the pit boss's answer is a ``RoundRequestDecision``.

    It waits as a four-eyes ``approval`` (``casino.four_eyes``, kinds ``round_void`` and
    ``round_correction``, its subject the round): asked with the request, decided with the
    answer (null only for a request older than the approvals, none since migration 0010)."""

    class Kind(models.TextChoices):
        VOID = "void", "Void the round"
        CORRECTION = "correction", "Correct the misscan"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="requests")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    card = models.CharField(max_length=3, blank=True)
    misscan = models.JSONField(null=True, blank=True, help_text="Correction: the misscan it resolves")
    reason = models.CharField(max_length=300)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField()
    approval = models.ForeignKey(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["round", "id"]

    def __str__(self) -> str:
        return f"{self.kind} request {self.pk} on {self.round_id}"


class RoundRequestDecision(models.Model):
    """A pit boss's answer to a dealer's request: approved (the void or the correction done in
    the same transaction) or rejected, with a reason. Insert-only; one per request."""

    request = models.OneToOneField(RoundRequest, on_delete=models.PROTECT, related_name="decision")
    status = models.CharField(
        max_length=10, choices=[(status.value, status.label) for status in DECISION_STATUSES]
    )
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField()
    reason = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=[status.value for status in DECISION_STATUSES]),
                name="round_request_decision_status",
            )
        ]

    def __str__(self) -> str:
        return f"decision {self.status} on request {self.request_id}"
