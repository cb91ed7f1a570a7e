"""A live table's versioned configuration: side-bet paytables and their versions, the table's
configuration versions (rule set and paytable versions, limits, settings) and the proposals that
wait for a second person."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from casino.models import ImmutableOnceApproved, RuleSetVersion, Table


class SideBetPaytable(models.Model):
    class Kind(models.TextChoices):
        PERFECT_PAIRS = "perfect_pairs", _("Perfect Pairs")
        TWENTY_ONE_PLUS_THREE = "twenty_one_plus_three", _("21+3")

    kind = models.CharField(max_length=30, choices=Kind.choices)
    name = models.SlugField(max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "name"], name="paytable_unique_name")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.name}"

    def current_version(self) -> SideBetPaytableVersion | None:
        return self.versions.filter(approved_at__isnull=False).order_by("-number").first()


class SideBetPaytableVersion(ImmutableOnceApproved):
    """Payouts as X (of X:1) per outcome. Immutable once approved."""

    paytable = models.ForeignKey(SideBetPaytable, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    payouts = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    # Who proposed it (null: the system, or a version made before authors were recorded); a
    # second person approves it (tables.services.versions).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # The four-eyes approval it waited for (casino.four_eyes); null: made by the system (seeds),
    # which waits for nobody.
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["paytable", "number"], name="paytable_version_unique"),
            # Nobody approves the version they made (the database's word on the four-eyes rule).
            models.CheckConstraint(
                condition=~models.Q(approved_by=models.F("created_by")), name="paytable_version_second_person"
            ),
        ]
        ordering = ["paytable", "number"]

    def __str__(self) -> str:
        return f"{self.paytable} v{self.number}"


class TableConfigVersion(ImmutableOnceApproved):
    """Everything a round of one table runs with: rule set and paytable versions, limits per bet
    type and the table settings. Numbered per table; a change is a new version taking effect from
    the next round: approved with the change, or, for a limit change above the casino's step,
    proposed and approved by a second person. Immutable once approved."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="config_versions")
    number = models.PositiveIntegerField()
    rule_set_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="+")
    perfect_pairs_version = models.ForeignKey(
        SideBetPaytableVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    twenty_one_plus_three_version = models.ForeignKey(
        SideBetPaytableVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    main_min_minor = models.BigIntegerField()
    main_max_minor = models.BigIntegerField()
    perfect_pairs_min_minor = models.BigIntegerField()
    perfect_pairs_max_minor = models.BigIntegerField()
    twenty_one_plus_three_min_minor = models.BigIntegerField()
    twenty_one_plus_three_max_minor = models.BigIntegerField()
    behind_min_minor = models.BigIntegerField()
    behind_max_minor = models.BigIntegerField()
    boxes = models.PositiveSmallIntegerField(default=7)
    boxes_per_player = models.PositiveSmallIntegerField(default=2)
    shuffle_every_rounds = models.PositiveSmallIntegerField(default=5)
    decision_seconds = models.PositiveSmallIntegerField(default=15)
    betting_seconds = models.PositiveSmallIntegerField(default=30)
    bets_behind_allowed = models.BooleanField(default=True)
    payout_approval_threshold_minor = models.BigIntegerField(default=1_000_000)
    shoe_kind = models.CharField(max_length=10, default="virtual")
    dealer_records_decisions = models.BooleanField(
        default=False, help_text="The dealer enters the seated players' decisions from their signals"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who proposed it (null: the system, or a version made before authors were recorded); a
    # second person approves it (tables.services.versions).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # The four-eyes approval of the change that waited for a second person (casino.four_eyes);
    # null: a change that waited for nobody, applied by its author (``approved_by``).
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="table_config_version_unique"),
            # What waited was approved by a second person (the database's word on the rule).
            models.CheckConstraint(
                condition=models.Q(approval__isnull=True) | ~models.Q(approved_by=models.F("created_by")),
                name="table_config_version_second_person",
            ),
            models.CheckConstraint(
                condition=models.Q(shuffle_every_rounds__gte=3, shuffle_every_rounds__lte=6),
                name="table_config_shuffle_3_to_6",
            ),
            models.CheckConstraint(
                condition=models.Q(main_min_minor__gt=0, main_max_minor__gte=models.F("main_min_minor")),
                name="table_config_main_limits",
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} config v{self.number}"

    LIMIT_FIELDS = (
        "main_min_minor",
        "main_max_minor",
        "perfect_pairs_min_minor",
        "perfect_pairs_max_minor",
        "twenty_one_plus_three_min_minor",
        "twenty_one_plus_three_max_minor",
        "behind_min_minor",
        "behind_max_minor",
    )
    SETTING_FIELDS = (
        "boxes",
        "boxes_per_player",
        "shuffle_every_rounds",
        "decision_seconds",
        "betting_seconds",
        "bets_behind_allowed",
        "payout_approval_threshold_minor",
        "shoe_kind",
        "dealer_records_decisions",
    )

    def values(self) -> dict[str, object]:
        """Every value of the version (the audit's before/after)."""
        out: dict[str, object] = {
            name: getattr(self, name) for name in (*self.LIMIT_FIELDS, *self.SETTING_FIELDS)
        }
        out["rule_set_version_id"] = self.rule_set_version_id
        out["perfect_pairs_version_id"] = self.perfect_pairs_version_id
        out["twenty_one_plus_three_version_id"] = self.twenty_one_plus_three_version_id
        return out


class TableConfigProposal(models.Model):
    """A change of a table's configuration that waits for a second person (a limit moved beyond
    the casino's step, ``TABLE_LIMIT_CHANGE_APPROVAL_MINOR``, or a change that weakens a control
    by the policy, ``casino/controls.toml``). Who asked, who decided, when and why is its
    ``approval`` (``casino.four_eyes``). Approved, it becomes the table's next configuration
    version; rejected, it stays here. At most one waits per table, and no other change of the
    table is made while it waits."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="config_proposals")
    # The changed fields with their new values (versions by id), as table_config_change takes them.
    changes = models.JSONField()
    based_on = models.ForeignKey(TableConfigVersion, on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # The approval's status, kept here for the one-waiting-per-table constraint.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    version = models.OneToOneField(
        TableConfigVersion, on_delete=models.PROTECT, null=True, blank=True, related_name="proposal"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status="pending"),
                name="table_config_one_pending_proposal",
            ),
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.table} config proposal {self.pk} ({self.status})"
