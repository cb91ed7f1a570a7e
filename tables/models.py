"""Tables and their versioned configuration (rule sets and side-bet paytables)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Game(models.TextChoices):
    BLACKJACK = "blackjack", "Blackjack"
    CANASTA = "canasta", "Canasta"


class RuleSet(models.Model):
    """A named rule set (a profile of options). Its content lives in numbered versions."""

    game = models.CharField(max_length=20, choices=Game.choices)
    name = models.SlugField(max_length=60)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="ruleset_unique_name")]

    def __str__(self) -> str:
        return f"{self.get_game_display()} {self.name}"

    def current_version(self) -> RuleSetVersion | None:
        return self.versions.filter(approved_at__isnull=False).order_by("-number").first()


class RuleSetVersion(models.Model):
    """One version of a rule set's options. Immutable once approved."""

    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    options = models.JSONField()
    source = models.CharField(max_length=200, blank=True, help_text="Where the options come from")
    created_at = models.DateTimeField(auto_now_add=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rule_set", "number"], name="ruleset_version_unique")]
        ordering = ["rule_set", "number"]

    def __str__(self) -> str:
        return f"{self.rule_set} v{self.number}"


class SideBetPaytable(models.Model):
    class Kind(models.TextChoices):
        PERFECT_PAIRS = "perfect_pairs", "Perfect Pairs"
        TWENTY_ONE_PLUS_THREE = "twenty_one_plus_three", "21+3"

    kind = models.CharField(max_length=30, choices=Kind.choices)
    name = models.SlugField(max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "name"], name="paytable_unique_name")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}"

    def current_version(self) -> SideBetPaytableVersion | None:
        return self.versions.filter(approved_at__isnull=False).order_by("-number").first()


class SideBetPaytableVersion(models.Model):
    """Payouts as X (of X:1) per outcome. Immutable once approved."""

    paytable = models.ForeignKey(SideBetPaytable, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    payouts = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["paytable", "number"], name="paytable_version_unique")]
        ordering = ["paytable", "number"]

    def __str__(self) -> str:
        return f"{self.paytable} v{self.number}"


class Table(models.Model):
    """A live gaming table in a pit."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="tables")
    pit = models.ForeignKey("casino.Pit", on_delete=models.PROTECT, related_name="tables")
    name = models.CharField(max_length=30)
    game = models.CharField(max_length=20, choices=Game.choices)
    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="tables")
    is_open = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="table_unique_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
