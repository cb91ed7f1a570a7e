"""Shoes, rounds and their event logs."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models

from casino.models import Table
from games.blackjack.betting import betting_is_open
from tables.models.config import TableConfigVersion


class Shoe(models.Model):
    """A shoe between two shuffles. A virtual shoe keeps its order and secret hidden until it is
    retired; ``commitment`` (SHA-256 of secret and order) is stored before its first card."""

    class Kind(models.TextChoices):
        PHYSICAL = "physical", "Physical (cards entered)"
        VIRTUAL = "virtual", "Virtual (server shuffle)"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    decks = models.PositiveSmallIntegerField()
    commitment = models.CharField(max_length=64, blank=True)
    order = models.JSONField(
        null=True, blank=True, help_text="Virtual: the card order (secret until retired)"
    )
    secret = models.CharField(max_length=64, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Virtual: cards dealt so far")
    dealt_counts = models.JSONField(default=dict, help_text="Cards dealt from this shoe, by code")
    rounds_dealt = models.PositiveIntegerField(default=0)
    cut_card_position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Physical: cards behind the cut card, as the dealer placed it"
    )
    shuffled_at = models.DateTimeField(auto_now_add=True)
    shuffled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "id"]

    def __str__(self) -> str:
        return f"{self.table} shoe #{self.pk} ({self.kind})"


class RoundStatus(models.TextChoices):
    BETTING = "betting", "Betting"
    DEALING = "dealing", "Dealing"
    INSURANCE = "insurance", "Insurance"
    PLAYERS = "players", "Players"
    DEALER = "dealer", "Dealer"
    SETTLING = "settling", "Played, awaiting settlement"
    SETTLED = "settled", "Settled"
    VOIDED = "voided", "Voided"


OPEN_ROUND_STATUSES = (
    RoundStatus.BETTING,
    RoundStatus.DEALING,
    RoundStatus.INSURANCE,
    RoundStatus.PLAYERS,
    RoundStatus.DEALER,
    RoundStatus.SETTLING,
)


class RoundQuerySet(models.QuerySet["Round"]):
    def open(self) -> RoundQuerySet:
        """The rounds not settled or voided (a table has one at most: the partial unique index
        ``round_one_open_per_table`` finds it)."""
        return self.filter(status__in=OPEN_ROUND_STATUSES)


class Round(models.Model):
    """One round at a table: a row locked by every command on it (bets take it FOR SHARE),
    the engine snapshot after the last event, and the decision deadline."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=RoundStatus.choices, default=RoundStatus.BETTING)
    config = models.ForeignKey(TableConfigVersion, on_delete=models.PROTECT, related_name="rounds")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="rounds")
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    accepts_bets_behind = models.JSONField(default=dict, help_text="Box number -> owner's setting at opening")
    snapshot = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="Sequence of the last event")
    decision_deadline_at = models.DateTimeField(null=True, blank=True)
    awaiting_correction = models.JSONField(null=True, blank=True, help_text="The misscan the round waits on")
    opened_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_unique_number"),
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status__in=[status.value for status in OPEN_ROUND_STATUSES]),
                name="round_one_open_per_table",
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} round {self.number}"

    def betting_is_open(self, now: datetime.datetime) -> bool:
        """Bets are placed, taken back and left with their box only while the round is in
        ``betting`` and before its deadline: once the deadline passed, "no more bets" holds even
        if nothing has applied it yet."""
        return betting_is_open(
            is_betting=self.status == RoundStatus.BETTING, closes_at=self.decision_deadline_at, now=now
        )


class RoundEvent(models.Model):
    """Append-only log of a round (the database refuses UPDATE, DELETE and TRUNCATE: migration
    0006; the round's ``round.settled`` audit record carries the hash of its events, see
    ``tables/round_hash.py``). ``payload["action"]`` holds the engine action applied (when
    there is one), so replaying the actions rebuilds the round; ``snapshot`` is the engine state
    after the event (left out on the bet events written in bulk when betting closes)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="events")
    sequence = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
    snapshot = models.JSONField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=40, blank=True)
    terminal = models.ForeignKey(
        "casino.Terminal", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    player = models.ForeignKey(
        "casino.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "sequence"], name="round_event_unique_sequence")
        ]
        ordering = ["round", "sequence"]

    def __str__(self) -> str:
        return f"{self.round} #{self.sequence} {self.kind}"
