"""Live blackjack tables: versioned configuration (limits, side-bet paytables), boxes and seats,
shoes, rounds and their event logs, bets, payouts. The physical table and the rule sets are the
venue's (casino.models)."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from casino.models import ImmutableOnceApproved, RuleSetVersion, Table
from games.blackjack.betting import betting_is_open


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


# ---------------------------------------------------------------------------------------------
# Live blackjack: versioned table configuration, boxes and seats, shoes, rounds, bets, payouts.


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


# The numbers of a blackjack table's boxes (a rule set may use fewer of them).
BOX_NUMBERS = range(1, 8)


class Box(models.Model):
    """One of the table's seven betting positions. ``owner`` is the first seated player still
    there (rules/blackjack.md 2.3); ``accepts_bets_behind`` is the owner's setting, copied into a
    round when it opens (so a change takes effect from the next round)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="boxes")
    number = models.PositiveSmallIntegerField()
    owner = models.ForeignKey(
        "casino.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="owned_boxes"
    )
    accepts_bets_behind = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="box_unique_number")]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} box {self.number}"


class Seat(models.Model):
    """A player at a box: its owner or a bettor behind. Arrival order is the primary key order.
    Deleted when the player leaves (and the win streak with it)."""

    box = models.ForeignKey(Box, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="seats")
    arrived_at = models.DateTimeField(auto_now_add=True)
    win_streak = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["box", "player"], name="seat_unique_player")]
        ordering = ["box", "id"]

    def __str__(self) -> str:
        return f"{self.player_id} at {self.box}"


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


# ---------------------------------------------------------------------------------------------
# Who deals at a table, and the dealer's requests that wait for a pit boss.


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
