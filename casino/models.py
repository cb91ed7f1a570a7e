"""The venue: casino, pits, players, staff login state, terminals and the audit trail."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from casino.gaming_days import gaming_day_of


class Casino(models.Model):
    """A venue. Every amount it knows is in its currency's minor units (cents for EUR/USD)."""

    code = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=120)
    currency = models.CharField(max_length=3, help_text="ISO 4217 code, e.g. EUR")
    currency_exponent = models.PositiveSmallIntegerField(
        default=2, help_text="Minor units per major unit as a power of ten (2: cents)"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    gaming_day_starts_at = models.TimeField(
        default=dt.time(6, 0), help_text="Local time at which a new gaming day begins"
    )
    # A cash-out above this many minor units is paid only once the cashier has confirmed it
    # (wallet.services.cage_cash_out): a slip of the keyboard (a zero too many) is caught before
    # the cash leaves the cage. 10,000.00 by default, the threshold of a currency transaction
    # report (31 CFR 1021.311).
    cash_out_confirmation_above_minor = models.PositiveBigIntegerField(
        default=1_000_000,
        help_text="A cash-out above this amount (in minor units) asks the cashier to confirm it",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        permissions = [
            ("run_table", "Run a live table as its dealer"),
            ("supervise_pit", "See the pit, its tables and their results"),
            ("approve_payout", "Approve or reject payouts above a table's threshold"),
            ("void_round", "Void rounds and correct misscanned cards"),
            ("adjust_balance", "Adjust a player's balance, with a reason"),
            ("configure_tables", "Configure tables, limits, rule sets and side-bet paytables"),
            ("manage_terminals", "Register terminals and issue or revoke their credentials"),
            ("manage_staff", "Create staff accounts and assign roles"),
            ("view_audit", "Read the audit trail, round records and reports"),
            ("operate_cage", "Buy-ins, cash-outs, fills and credits at the cage"),
            ("view_accounting", "Read the pit's accounting: counts, slips, drop, win and hold, reports"),
            ("sign_gaming_day", "Sign a gaming day's close for the accounting office"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    def gaming_day(self, moment: dt.datetime | None = None) -> dt.date:
        """The gaming day a moment (now by default) belongs to (``casino.gaming_days``)."""
        return gaming_day_of(self, moment or timezone.now())


class Pit(models.Model):
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="pits")
    name = models.CharField(max_length=60)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="pit_unique_name")]

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A carded player. The PIN is stored hashed; repeated wrong PINs lock the card for a while."""

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="players")
    card_number = models.CharField(max_length=32, unique=True)
    display_name = models.CharField(max_length=120)
    pin_hash = models.CharField(max_length=128)
    failed_pin_attempts = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.display_name} ({self.card_number})"


class StaffLoginState(models.Model):
    """Consecutive failed logins of a staff account, and the lock they lead to."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="login_state"
    )
    failed_attempts = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"login state of user {self.user_id}"

    def is_locked(self, now: dt.datetime | None = None) -> bool:
        return self.locked_until is not None and self.locked_until > (now or timezone.now())


class Terminal(models.Model):
    """A registered device bound to one table: a player terminal, a card reader (sends the cards
    of a physical shoe) or a dealer terminal (runs the table's rounds: a studio's automation, or a
    dealer's device)."""

    class Kind(models.TextChoices):
        PLAYER_TERMINAL = "player_terminal", _("Player terminal")
        CARD_READER = "card_reader", _("Card reader")
        DEALER_TERMINAL = "dealer_terminal", _("Dealer terminal")

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="terminals")
    name = models.CharField(max_length=60)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    table = models.ForeignKey(
        "Table", on_delete=models.PROTECT, null=True, blank=True, related_name="terminals"
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="terminal_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"


class TerminalCredential(models.Model):
    """A terminal's secret, shown once when issued. Only its SHA-256 digest is stored."""

    terminal = models.ForeignKey(Terminal, on_delete=models.PROTECT, related_name="credentials")
    token_prefix = models.CharField(max_length=12, db_index=True)
    token_digest = models.CharField(max_length=64, unique=True)
    issued_at = models.DateTimeField(default=timezone.now)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.terminal} credential {self.token_prefix}…"


class AuditRecord(models.Model):
    """One link of the hash-chained audit trail. Append-only: see casino.audit."""

    sequence = models.BigIntegerField(unique=True)
    recorded_at = models.DateTimeField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=40, blank=True)
    terminal = models.ForeignKey(Terminal, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    action = models.CharField(max_length=80, db_index=True)
    object_type = models.CharField(max_length=80, blank=True)
    object_id = models.CharField(max_length=80, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    previous_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)
    key_version = models.PositiveSmallIntegerField(
        help_text="Version of the HMAC key the hash was made with; 0: a plain SHA-256, from before the chain was keyed"
    )

    class Meta:
        ordering = ["sequence"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="audit_object_idx")]
        # The chain starts at 1: a row below it would stand outside the chain's walk.
        constraints = [
            models.CheckConstraint(condition=models.Q(sequence__gte=1), name="audit_sequence_from_one")
        ]

    def __str__(self) -> str:
        return f"#{self.sequence} {self.action}"


class PlayerSession(models.Model):
    """A player signed in at a player terminal: a short-lived token bound to that player, terminal
    and table. Only the token's SHA-256 digest is stored. It expires after a spell without use
    (``expires_at`` slides forward on use, never past ``hard_expires_at``) and ends at sign-out."""

    class EndReason(models.TextChoices):
        SIGNED_OUT = "signed_out", "Signed out"
        REPLACED = "replaced", "Replaced by a newer sign-in at the terminal"

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="sessions")
    terminal = models.ForeignKey(Terminal, on_delete=models.PROTECT, related_name="player_sessions")
    table = models.ForeignKey("Table", on_delete=models.PROTECT, related_name="+")
    token_prefix = models.CharField(max_length=12)
    token_digest = models.CharField(max_length=64, unique=True)
    started_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    hard_expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, choices=EndReason.choices, blank=True)

    class Meta:
        indexes = [models.Index(fields=["terminal", "ended_at"], name="player_session_terminal_idx")]
        # One open session per player and per terminal: a new sign-in ends the old one.
        constraints = [
            models.UniqueConstraint(
                fields=["player"],
                condition=models.Q(ended_at__isnull=True),
                name="player_session_one_open_per_player",
            ),
            models.UniqueConstraint(
                fields=["terminal"],
                condition=models.Q(ended_at__isnull=True),
                name="player_session_one_open_per_terminal",
            ),
        ]

    def __str__(self) -> str:
        return f"session of player {self.player_id} at terminal {self.terminal_id}"


class BackgroundJob(models.Model):
    """A piece of work run outside the request that asked for it (``casino.jobs``): what to run
    (``kind`` and ``params``), how far it got, and what it found. A working record, not money:
    its rows are updated as the work goes on."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=80)
    params = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    stage = models.CharField(max_length=120, blank=True)
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["kind", "status", "-created_at"], name="background_job_kind_idx")]

    def __str__(self) -> str:
        return f"job {self.pk} {self.kind} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.SUCCEEDED, self.Status.FAILED}


class StaffPreference(models.Model):
    """What a staff member chose for their screens, kept across logins and devices: the language
    (a code of ``settings.LANGUAGES``, checked by ``casino.services.staff_language_set``; blank:
    none chosen); and whether their password is a temporary one, given by whoever created the
    account or reset its password, that they must change at their next login."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_preference"
    )
    language = models.CharField(max_length=16, blank=True, default="")
    password_change_required = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"preferences of user {self.user_id}"


class Approval(models.Model):
    """A change or a payment that waits for a second person: what (``kind`` and its subject, with
    the values before and after), who asked and when, and who decided, when, how and why. The one
    record of every four-eyes decision the back office takes (``casino.four_eyes``; the policy of
    which changes wait is ``casino/controls.toml``). Written pending by the service that asks, and
    decided once: a decided approval never changes again (the audit trail holds both steps)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        APPROVED = "approved", _("Approved")
        REJECTED = "rejected", _("Rejected")

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="approvals")
    kind = models.CharField(max_length=40)
    # What waits: "<app>.<model>" and its id (a payout line, a configuration proposal, a slip...).
    subject_type = models.CharField(max_length=80)
    subject_id = models.CharField(max_length=80)
    # Where it happens, for the queues: a table's name, a player's card, a gaming day.
    place = models.CharField(max_length=120, blank=True)
    summary = models.CharField(max_length=300)
    amount_minor = models.BigIntegerField(null=True, blank=True)
    before = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    after = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    gaming_day = models.DateField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_by_name = models.CharField(max_length=150)
    requested_terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField()
    request_reason = models.CharField(max_length=300, blank=True)
    # People who may not decide besides the requester, by why: {"round_dealer": 12}.
    excluded = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["casino", "status", "kind"], name="approval_queue_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "subject_type", "subject_id"],
                condition=models.Q(status="pending"),
                name="approval_one_pending_per_subject",
            ),
            # The database's own word on the rule: nobody decides what they asked for.
            models.CheckConstraint(
                condition=~models.Q(decided_by=models.F("requested_by")), name="approval_second_person"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(status="pending", decided_by__isnull=True, decided_at__isnull=True)
                    | (~models.Q(status="pending") & models.Q(decided_at__isnull=False))
                ),
                name="approval_decided_consistently",
            ),
        ]

    def __str__(self) -> str:
        return f"approval #{self.pk} {self.kind} {self.subject_type}:{self.subject_id} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status == self.Status.PENDING


class GamingDayClose(models.Model):
    """A gaming day closed: from then on nothing is written into it (``casino.gaming_day_state``).
    The accounting writes it with the second of the day's two close signatures (a pit boss's and
    the accounting office's, ``accounting.GamingDaySignature``), once the day has ended and every
    earlier day is closed. ``closing`` numbers the closings of a day from 1: a day reopened
    through four eyes (``GamingDayReopening``) closes again as its next closing. Written once."""

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    closing = models.PositiveSmallIntegerField(default=1)
    closed_at = models.DateTimeField()
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["gaming_day", "closing"]
        constraints = [
            models.UniqueConstraint(
                fields=["casino", "gaming_day", "closing"], name="gaming_day_closing_numbered_once"
            ),
            models.CheckConstraint(condition=models.Q(closing__gte=1), name="gaming_day_closing_from_one"),
        ]

    def __str__(self) -> str:
        return f"gaming day {self.gaming_day} closed ({self.closing})"


class GamingDayReopening(models.Model):
    """The reopening of a closed gaming day: the closing it undoes, and the approval (kind
    ``day_reopen``) that decided it, which says who asked, why, and who approved it and when.
    Written once, by ``casino.gaming_day_state.gaming_day_reopen_decide``."""

    close = models.OneToOneField(GamingDayClose, on_delete=models.PROTECT, related_name="reopening")
    approval = models.OneToOneField(Approval, on_delete=models.PROTECT, related_name="+")
    reopened_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"gaming day {self.close.gaming_day} reopened"


# ---------------------------------------------------------------------------------------------
# The games the venue offers: rule sets (profiles of a game's options, in numbered versions) and
# the physical tables, each with its game, its rule set and whether it is open.


class ImmutableOnceApprovedError(Exception):
    """An approved configuration version was about to be changed (a bug: make a new version)."""


class ImmutableOnceApproved(models.Model):
    """A configuration version (a rule set's, a paytable's, a table's): once ``approved_at`` is
    set, the row never changes again; a change is a new version. An integrity guard, not
    business logic: the services never try."""

    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk and type(self)._default_manager.filter(pk=self.pk, approved_at__isnull=False).exists():
            raise ImmutableOnceApprovedError(f"{self} is approved and immutable")
        super().save(*args, **kwargs)


class Game(models.TextChoices):
    BLACKJACK = "blackjack", _("Blackjack")
    CANASTA = "canasta", _("Canasta")


class RuleSet(models.Model):
    """A named rule set (a profile of options). Its content lives in numbered versions."""

    game = models.CharField(max_length=20, choices=Game.choices)
    name = models.SlugField(max_length=60)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tables_ruleset"
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="ruleset_unique_name")]

    def __str__(self) -> str:
        return f"{self.get_game_display()} {self.name}"

    def current_version(self) -> RuleSetVersion | None:
        return self.versions.filter(approved_at__isnull=False).order_by("-number").first()


class RuleSetVersion(ImmutableOnceApproved):
    """One version of a rule set's options. Immutable once approved."""

    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    options = models.JSONField()
    source = models.CharField(max_length=200, blank=True, help_text="Where the options come from")
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
        db_table = "tables_rulesetversion"
        constraints = [
            models.UniqueConstraint(fields=["rule_set", "number"], name="ruleset_version_unique"),
            # Nobody approves the version they made (the database's word on the four-eyes rule).
            models.CheckConstraint(
                condition=~models.Q(approved_by=models.F("created_by")), name="ruleset_version_second_person"
            ),
        ]
        ordering = ["rule_set", "number"]

    def __str__(self) -> str:
        return f"{self.rule_set} v{self.number}"


class Table(models.Model):
    """A physical gaming table in a pit: its game (blackjack or canasta), its rule set and whether
    it is open. What is played at it lives with the game: tables (live blackjack), cardroom (canasta)."""

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="tables")
    pit = models.ForeignKey(Pit, on_delete=models.PROTECT, related_name="tables")
    name = models.CharField(max_length=30)
    game = models.CharField(max_length=20, choices=Game.choices)
    rule_set = models.ForeignKey(RuleSet, on_delete=models.PROTECT, related_name="tables")
    is_open = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "tables_table"
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="table_unique_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class IdempotencyRecord(models.Model):
    """The first answer to a request that moves money (an API request, a cage form, a seed step),
    keyed by (scope, key). Written in the request's own transaction, so it exists exactly when the
    request's effect does; a refusal's answer in a transaction of its own. See
    casino/idempotency.py. Its table kept the name it had in the wallet, with its rows."""

    scope = models.CharField(max_length=80)
    key = models.CharField(max_length=200)
    request_fingerprint = models.CharField(max_length=64)
    response = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "wallet_idempotencyrecord"
        constraints = [models.UniqueConstraint(fields=["scope", "key"], name="idempotency_unique_key")]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"
