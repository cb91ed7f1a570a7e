"""Pit accounting: the casino's accounting settings and chip set, the signatures closing a gaming
day (the closed day itself is the venue's, ``casino.GamingDayClose``), tray counts
with their signatures and variance investigations, fill and credit slips with their steps.

Writes go through ``accounting/services/`` only. Records are written once: a count, a slip, a
signature, a day's closing, an investigation and its resolution are never edited (the
application's database role may only read and insert them: ``INSERT_ONLY_TABLES`` of
``casino/database_roles.py``), so their rows are locked by advisory locks (``accounting/locking.py``).
A correction is a new record that names the old one (``TrayCount.corrects``); a slip is voided by
two signatures and keeps its number. Only the settings, the chip set and the slip counters change.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

DEFAULT_SHIFT_STARTS = ("06:00", "14:00", "22:00")
DEFAULT_CHIP_VALUES_MINOR = (100, 500, 2_500, 10_000, 50_000)


def default_shift_starts() -> list[str]:
    return list(DEFAULT_SHIFT_STARTS)


class AccountingSettings(models.Model):
    """One casino's accounting settings: the local start times of its shifts (``"HH:MM"``, the
    gaming day's start among them), the opener variance above which an investigation opens, the
    hold band of the hold alerts and the cash transaction log's two thresholds.
    The time zone and the gaming day's start time are the venue's own (``casino.Casino``), which
    the audit trail's anchors already use: one gaming day for the whole back office."""

    casino = models.OneToOneField(
        "casino.Casino", on_delete=models.PROTECT, related_name="accounting_settings"
    )
    shift_starts = models.JSONField(default=default_shift_starts)
    variance_threshold_minor = models.BigIntegerField(
        default=0,
        help_text="An opener differing from the previous closer by more than this opens an investigation",
    )
    # Hold alerts: a table's hold (win / drop) outside the fixed band, or further from the
    # statistical expectation of its own rule set and rounds than this many standard deviations.
    hold_band_low_bp = models.IntegerField(default=500, help_text="Lowest hold expected, in basis points")
    hold_band_high_bp = models.IntegerField(default=3000, help_text="Highest hold expected, in basis points")
    hold_band_sigmas = models.PositiveSmallIntegerField(default=3)
    # The cash transaction log: a player's cash transactions of a gaming day above the first
    # amount are logged (multiple-transaction log), a day's total above the second is reported.
    mtl_threshold_minor = models.BigIntegerField(default=300_000)
    large_cash_threshold_minor = models.BigIntegerField(default=1_000_000)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(variance_threshold_minor__gte=0), name="accounting_threshold_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(hold_band_low_bp__gte=-10_000)
                & Q(hold_band_low_bp__lte=F("hold_band_high_bp"))
                & Q(hold_band_high_bp__lte=10_000),
                name="accounting_hold_band_ordered",
            ),
            models.CheckConstraint(
                condition=Q(mtl_threshold_minor__gt=0) & Q(large_cash_threshold_minor__gt=0),
                name="accounting_cash_thresholds_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"accounting settings of casino {self.casino_id}"


class ChipDenomination(models.Model):
    """A chip value of the casino's chip set, in minor units. Withdrawn values stay (inactive):
    old counts and slips name them."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="chip_denominations")
    value_minor = models.BigIntegerField()
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["value_minor"]
        constraints = [
            models.UniqueConstraint(fields=["casino", "value_minor"], name="chip_denomination_unique_value"),
            models.CheckConstraint(condition=Q(value_minor__gt=0), name="chip_denomination_positive"),
        ]

    def __str__(self) -> str:
        return f"chip {self.value_minor}"


class DayCloseRole(models.TextChoices):
    PIT_BOSS = "pit_boss", "Pit boss"
    ACCOUNTANT = "accountant", "Accountant"


class GamingDaySignature(models.Model):
    """One of the two signatures closing a gaming day: a pit boss's and the accounting office's,
    by two different people. The second writes the day's close (``casino.GamingDayClose``, of the
    same ``closing``: a day reopened through four eyes is signed again for its next closing)."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    closing = models.PositiveSmallIntegerField(default=1)
    role = models.CharField(max_length=20, choices=DayCloseRole.choices)
    signed_at = models.DateTimeField()
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["signed_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["casino", "gaming_day", "closing", "role"], name="gaming_day_signed_once_per_role"
            ),
            models.UniqueConstraint(
                fields=["casino", "gaming_day", "closing", "signed_by"],
                name="gaming_day_signed_once_per_person",
            ),
        ]

    def __str__(self) -> str:
        return f"gaming day {self.gaming_day} signed as {self.role}"


class SignatureRole(models.TextChoices):
    DEALER = "dealer", "Dealer"
    PIT_BOSS = "pit_boss", "Pit boss"
    CASHIER = "cashier", "Cashier"
    # The second person of a slip's void who is no pit boss (``view_accounting``).
    ACCOUNTING = "accounting", "Accounting office"


class CountKind(models.TextChoices):
    OPENER = "opener", "Opening count"
    CLOSER = "closer", "Closing count"


class TrayCount(models.Model):
    """A count of a table's chip tray, per denomination (its lines), at the table's opening or
    closing. Valid once signed by a dealer and a pit boss, two different people. ``ledger_minor``
    is the tray's balance in the ledger when it was counted: the difference is shown, no money
    moves for a count. A correction is a new count naming the one it corrects."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="tray_counts")
    kind = models.CharField(max_length=10, choices=CountKind.choices)
    gaming_day = models.DateField()
    shift = models.PositiveSmallIntegerField()
    counted_at = models.DateTimeField()
    counted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    total_minor = models.BigIntegerField()
    ledger_minor = models.BigIntegerField()
    corrects = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="corrected_by"
    )
    correction_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["counted_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(total_minor__gte=0), name="tray_count_total_not_negative"),
            models.CheckConstraint(
                condition=Q(corrects__isnull=True) | ~Q(correction_reason=""),
                name="tray_count_correction_says_why",
            ),
        ]
        indexes = [models.Index(fields=["table", "counted_at"], name="tray_count_table_idx")]

    def __str__(self) -> str:
        return f"{self.kind} count #{self.pk} of table {self.table_id}"

    @property
    def difference_minor(self) -> int:
        """The count less the ledger's tray balance when it was counted."""
        return self.total_minor - self.ledger_minor


class TrayCountLine(models.Model):
    count = models.ForeignKey(TrayCount, on_delete=models.PROTECT, related_name="lines")
    denomination_minor = models.BigIntegerField()
    amount_minor = models.BigIntegerField()

    class Meta:
        ordering = ["-denomination_minor"]
        constraints = [
            models.UniqueConstraint(fields=["count", "denomination_minor"], name="tray_count_line_unique"),
            models.CheckConstraint(condition=Q(amount_minor__gte=0), name="tray_count_line_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.amount_minor} in {self.denomination_minor}"


class TrayCountSignature(models.Model):
    """One of a count's two signatures: one per role, one per person (the database holds both)."""

    count = models.ForeignKey(TrayCount, on_delete=models.PROTECT, related_name="signatures")
    role = models.CharField(max_length=10, choices=SignatureRole.choices)
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_at = models.DateTimeField()

    class Meta:
        ordering = ["signed_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["count", "role"], name="tray_count_signature_one_per_role"),
            models.UniqueConstraint(fields=["count", "signer"], name="tray_count_signature_one_per_person"),
        ]

    def __str__(self) -> str:
        return f"{self.role} signature of count {self.count_id}"


class VarianceInvestigation(models.Model):
    """An opener that differs from the table's previous closer by more than the casino's
    threshold. The table opens again only once it is resolved (``InvestigationResolution``)."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="+")
    opener = models.OneToOneField(TrayCount, on_delete=models.PROTECT, related_name="investigation")
    closer = models.ForeignKey(TrayCount, on_delete=models.PROTECT, related_name="+")
    variance_minor = models.BigIntegerField()
    threshold_minor = models.BigIntegerField()
    opened_at = models.DateTimeField()

    class Meta:
        ordering = ["opened_at", "pk"]

    def __str__(self) -> str:
        return f"investigation #{self.pk} ({self.variance_minor})"


class InvestigationResolution(models.Model):
    """An investigation's resolution: its note, as a second person approved it (``approval``:
    who wrote the note and who approved it, ``casino.four_eyes``). ``resolved_by`` is the
    approver; a resolution recorded before resolutions waited for a second person has the one
    person who wrote it, and an approval decided by nobody else (its history, kept)."""

    investigation = models.OneToOneField(
        VarianceInvestigation, on_delete=models.PROTECT, related_name="resolution"
    )
    note = models.CharField(max_length=300)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    resolved_at = models.DateTimeField()
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(note=""), name="investigation_resolution_has_note")
        ]

    def __str__(self) -> str:
        return f"resolution of investigation {self.investigation_id}"


# ---------------------------------------------------------------- drop, win and hold
# (accounting/services_drop.py writes these; accounting/win.py reads the figures.)


class TableBuyIn(models.Model):
    """Cash a player changed for chips at the table, as the dealer or the pit boss recorded it
    when it happened (the cash goes into the table's drop box). A mistake is corrected by a new
    record naming it (``corrects``), with a reason and the right amount (0: there was none)."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="buy_ins")
    gaming_day = models.DateField()
    shift = models.PositiveSmallIntegerField()
    amount_minor = models.BigIntegerField()
    recorded_at = models.DateTimeField()
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    corrects = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="corrected_by"
    )
    correction_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["recorded_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0) | (Q(amount_minor=0) & Q(corrects__isnull=False)),
                name="table_buy_in_positive",
            ),
            models.CheckConstraint(
                condition=Q(corrects__isnull=True) | ~Q(correction_reason=""),
                name="table_buy_in_correction_says_why",
            ),
        ]
        indexes = [models.Index(fields=["table", "gaming_day"], name="table_buy_in_day_idx")]

    def __str__(self) -> str:
        return f"buy-in #{self.pk} of {self.amount_minor} at table {self.table_id}"


class DropSignatureRole(models.TextChoices):
    COUNT_TEAM = "count_team", "Count team"
    VERIFIER = "verifier", "Pit boss or accounting office"


class DropCount(models.Model):
    """The count of a table's drop box for one shift (the cash taken for chips at the table),
    entered for that gaming day and shift. Valid once signed by the count team (a cashier) and
    a verifier (a pit boss or the accounting office), two different people. A correction is a
    new count of the same table and shift naming the one it corrects."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="drop_counts")
    gaming_day = models.DateField()
    shift = models.PositiveSmallIntegerField()
    total_minor = models.BigIntegerField()
    counted_at = models.DateTimeField()
    counted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    corrects = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="corrected_by"
    )
    correction_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["counted_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(total_minor__gte=0), name="drop_count_not_negative"),
            models.CheckConstraint(
                condition=Q(corrects__isnull=True) | ~Q(correction_reason=""),
                name="drop_count_correction_says_why",
            ),
            # One count of a box per table and shift; a later one is a correction of it.
            models.UniqueConstraint(
                fields=["table", "gaming_day", "shift"],
                condition=Q(corrects__isnull=True),
                name="drop_count_once_per_shift",
            ),
        ]
        indexes = [models.Index(fields=["table", "gaming_day"], name="drop_count_day_idx")]

    def __str__(self) -> str:
        return f"drop count #{self.pk} of table {self.table_id}"


class DropCountSignature(models.Model):
    """One of a drop count's two signatures: one per role, one per person (the database holds
    both)."""

    count = models.ForeignKey(DropCount, on_delete=models.PROTECT, related_name="signatures")
    role = models.CharField(max_length=12, choices=DropSignatureRole.choices)
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_at = models.DateTimeField()

    class Meta:
        ordering = ["signed_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["count", "role"], name="drop_signature_one_per_role"),
            models.UniqueConstraint(fields=["count", "signer"], name="drop_signature_one_per_person"),
        ]

    def __str__(self) -> str:
        return f"{self.role} signature of drop count {self.count_id}"


class HoldAlertKind(models.TextChoices):
    FIXED_BAND = "fixed_band", "Hold outside the fixed band"
    STATISTICAL = "statistical", "Win far from its expectation"


class HoldAlert(models.Model):
    """A table's gaming day whose hold the scheduled check found outside a band: the fixed band
    of the settings, or the statistical band of its own rounds (``accounting/hold.py``).
    ``figures`` keeps what the check saw (win, drop, hold, band, expectation, standard
    deviation). Raised once per table, day and kind; it needs a pit boss's resolution note."""

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="hold_alerts")
    gaming_day = models.DateField()
    kind = models.CharField(max_length=12, choices=HoldAlertKind.choices)
    figures = models.JSONField(default=dict)
    raised_at = models.DateTimeField()

    class Meta:
        ordering = ["-gaming_day", "table", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day", "kind"], name="hold_alert_once_per_day")
        ]

    def __str__(self) -> str:
        return f"{self.kind} hold alert of table {self.table_id} on {self.gaming_day}"


class HoldAlertResolution(models.Model):
    alert = models.OneToOneField(HoldAlert, on_delete=models.PROTECT, related_name="resolution")
    note = models.CharField(max_length=300)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    resolved_at = models.DateTimeField()

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(note=""), name="hold_alert_resolution_has_note")]

    def __str__(self) -> str:
        return f"resolution of hold alert {self.alert_id}"


class SlipKind(models.TextChoices):
    FILL = "fill", "Fill"
    CREDIT = "credit", "Credit"


class SlipCounter(models.Model):
    """The last slip number drawn by a casino in a calendar year. Locked and moved on in the
    transaction that inserts the slip: the numbers have no gaps."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="+")
    year = models.PositiveSmallIntegerField()
    last_number = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "year"], name="slip_counter_unique_year")]

    def __str__(self) -> str:
        return f"slip counter {self.year}: {self.last_number}"


class Slip(models.Model):
    """A numbered fill (cage -> tray) or credit (tray -> cage) slip, amounts per denomination in
    its lines. Its steps are its signatures: requested (pit boss), issued (cashier: the ledger
    moves), received (dealer or pit boss), or voided (proposed and confirmed by two people)."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="+")
    year = models.PositiveSmallIntegerField()
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=SlipKind.choices)
    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="slips")
    gaming_day = models.DateField()
    shift = models.PositiveSmallIntegerField()
    total_minor = models.BigIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["year", "number"]
        constraints = [
            models.UniqueConstraint(fields=["casino", "year", "number"], name="slip_unique_number"),
            models.CheckConstraint(condition=Q(total_minor__gt=0), name="slip_total_positive"),
            models.CheckConstraint(condition=Q(number__gte=1), name="slip_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} slip {self.year}-{self.number}"


class SlipLine(models.Model):
    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="lines")
    denomination_minor = models.BigIntegerField()
    amount_minor = models.BigIntegerField()

    class Meta:
        ordering = ["-denomination_minor"]
        constraints = [
            models.UniqueConstraint(fields=["slip", "denomination_minor"], name="slip_line_unique"),
            models.CheckConstraint(condition=Q(amount_minor__gt=0), name="slip_line_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.amount_minor} in {self.denomination_minor}"


class SlipStep(models.TextChoices):
    REQUESTED = "requested", "Requested"
    ISSUED = "issued", "Issued"
    RECEIVED = "received", "Received"
    VOID_PROPOSED = "void_proposed", "Void proposed"
    VOIDED = "voided", "Voided"


class SlipSignature(models.Model):
    """One step of a slip, signed. Each step at most once (the database holds it), but for a
    void's proposal: a void a second person rejected leaves its proposal, and the slip may be
    proposed for a void again. ``transfer`` is the ledger's movement of the issue, ``reason`` the
    void's; ``approval`` the four-eyes decision a void's proposal waits for (``casino.four_eyes``,
    kind ``slip_void``), on both the proposal and the void it approved."""

    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="signatures")
    step = models.CharField(max_length=15, choices=SlipStep.choices)
    role = models.CharField(max_length=10, choices=SignatureRole.choices)
    signer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_at = models.DateTimeField()
    transfer = models.OneToOneField(
        "wallet.Transfer", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reason = models.CharField(max_length=300, blank=True)
    approval = models.ForeignKey(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["signed_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["slip", "step"],
                condition=~Q(step="void_proposed"),
                name="slip_signature_one_per_step",
            ),
            models.CheckConstraint(
                condition=~Q(step="issued") | Q(transfer__isnull=False), name="slip_issue_has_transfer"
            ),
            models.CheckConstraint(
                condition=~Q(step="void_proposed") | ~Q(reason=""), name="slip_void_says_why"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.step} of slip {self.slip_id}"


# ---------------------------------------------------------------- Tips


class TipSource(models.TextChoices):
    CHIPS = "chips", "Chips handed to the dealer"
    WALLET = "wallet", "From a player's wallet"
    NONE = "none", "No tips"


class Tip(models.Model):
    """A tip to the dealer of a round (``round.dealer``), or the dealer's record that the round
    brought none (``source="none"``, amount 0). Chips handed to the dealer go to the dealers' toke
    box and move nothing in the ledger; a wallet tip is the ledger transfer ``transfer`` from the
    player's wallet to the casino's tips pool. ``gaming_day`` and ``shift`` are those the round
    opened in: the pool of that shift shares it. Insert-only (``accounting/tips.py`` writes it)."""

    casino = models.ForeignKey("casino.Casino", on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey("tables.Round", on_delete=models.PROTECT, related_name="tips")
    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="tips")
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    gaming_day = models.DateField()
    shift = models.PositiveSmallIntegerField()
    amount_minor = models.BigIntegerField()
    source = models.CharField(max_length=10, choices=TipSource.choices)
    box = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.ForeignKey(
        "casino.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    transfer = models.OneToOneField(
        "wallet.Transfer", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    terminal = models.ForeignKey(
        "casino.Terminal", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["recorded_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(source="chips", amount_minor__gt=0, transfer__isnull=True, recorded_by__isnull=False)
                    | Q(source="wallet", amount_minor__gt=0, transfer__isnull=False, player__isnull=False)
                    | Q(source="none", amount_minor=0, transfer__isnull=True, recorded_by__isnull=False)
                ),
                name="tip_source_matches_amount",
            ),
            models.CheckConstraint(
                condition=Q(box__isnull=True) | Q(box__gte=1, box__lte=7), name="tip_box_of_the_table"
            ),
        ]
        indexes = [
            models.Index(fields=["casino", "gaming_day", "shift"], name="tip_shift_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source} tip #{self.pk} of {self.amount_minor} on round {self.round_id}"
