"""The canasta card room: a table's configuration versions, games (seats, holds, the agreed stake),
deals as event logs with their scores, and the hosts' requests to void a game. The physical table
and the rule sets are the venue's (casino.models). Each model keeps the database table it was
created with in the live tables' app (``tables_canasta...``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from casino.models import RuleSetVersion, Table


class CanastaDealKind(models.TextChoices):
    VIRTUAL = "virtual", "Virtual (server shuffle, moves through the terminals)"
    PHYSICAL = "physical", "Physical cards (the host enters each finished deal)"


class CanastaFeeKind(models.TextChoices):
    NONE = "none", "No fee"
    POT_SHARE = "pot_share", "A share of the pot"
    PER_HOUR = "per_hour", "A charge per started hour"
    PER_DEAL = "per_deal", "A charge per deal"


class CanastaTableSettings(models.Model):
    """A version of a canasta table's configuration: the rule set version (its preset and
    options), how deals are run, the stake rules a game is agreed within and the house fee.
    Numbered per table; the highest number is current; a game copies it when it opens, so a
    change takes effect from the next game. Insert-only (a change is a new number), written when
    a second person approves the change (``approval``, kind ``canasta_config``:
    ``cardroom.services.config``); the system's (seeds) and the versions from before four
    eyes have none."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="canasta_settings")
    number = models.PositiveIntegerField()
    rule_set_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="+")
    deal_kind = models.CharField(
        max_length=10, choices=CanastaDealKind.choices, default=CanastaDealKind.VIRTUAL
    )
    teams = models.PositiveSmallIntegerField(null=True, blank=True, help_text="ru6: 2 teams of 3 or 3 of 2")
    # The stake is agreed per ``stake_points`` points of difference (1 or 100), within these limits.
    stake_points = models.PositiveIntegerField(default=100)
    stake_min_minor = models.BigIntegerField(default=10)
    stake_max_minor = models.BigIntegerField(default=10_000)
    # The most points of difference a player pays for: his hold is this times the stake.
    max_loss_points = models.PositiveIntegerField(default=10_000)
    fee_kind = models.CharField(max_length=10, choices=CanastaFeeKind.choices, default=CanastaFeeKind.NONE)
    fee_basis_points = models.PositiveIntegerField(default=0, help_text="Pot share, in 1/10000 of the pot")
    fee_minor = models.BigIntegerField(default=0, help_text="Per hour or per deal")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "tables_canastatablesettings"
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="canasta_settings_unique_number"),
            models.CheckConstraint(
                condition=models.Q(stake_min_minor__gt=0, stake_max_minor__gte=models.F("stake_min_minor")),
                name="canasta_settings_stake_limits",
            ),
            models.CheckConstraint(
                condition=models.Q(fee_minor__gte=0, fee_basis_points__lte=10_000),
                name="canasta_settings_fee_range",
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} canasta settings v{self.number}"

    # The values of a version, by name; the rule set version by its id.
    VALUE_FIELDS = (
        "rule_set_version",
        "deal_kind",
        "teams",
        "stake_points",
        "stake_min_minor",
        "stake_max_minor",
        "max_loss_points",
        "fee_kind",
        "fee_basis_points",
        "fee_minor",
    )

    def values(self) -> dict[str, object]:
        return {
            name: self.rule_set_version_id if name == "rule_set_version" else getattr(self, name)
            for name in self.VALUE_FIELDS
        }


class CanastaGameStatus(models.TextChoices):
    SEATING = "seating", "Seating the players"
    PLAYING = "playing", "Playing"
    ENDED = "ended", "Ended and settled"
    VOIDED = "voided", "Voided"


OPEN_CANASTA_GAME_STATUSES = (CanastaGameStatus.SEATING, CanastaGameStatus.PLAYING)


class CanastaGame(models.Model):
    """A canasta game at a table, deal after deal to the target score. It keeps what was agreed
    when it opened: the rule set version, preset and options as played, the stake per
    ``stake_points`` points, each player's hold and the fee configuration. ``totals`` are the
    sides' running scores; ``next_dealer`` the seat that deals next (D1). One game at a time is
    seating or playing at a table."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="canasta_games")
    number = models.PositiveIntegerField()
    status = models.CharField(
        max_length=10, choices=CanastaGameStatus.choices, default=CanastaGameStatus.SEATING
    )
    rule_set_version = models.ForeignKey(RuleSetVersion, on_delete=models.PROTECT, related_name="+")
    preset = models.CharField(max_length=20)
    options = models.JSONField(default=dict, help_text="The overrides of the preset as played")
    teams = models.PositiveSmallIntegerField(null=True, blank=True)
    players = models.PositiveSmallIntegerField()
    deal_kind = models.CharField(max_length=10, choices=CanastaDealKind.choices)
    stake_minor = models.BigIntegerField()
    stake_points = models.PositiveIntegerField()
    max_loss_points = models.PositiveIntegerField()
    hold_minor = models.BigIntegerField(help_text="Held on each player's wallet for the game")
    fee_kind = models.CharField(max_length=10, choices=CanastaFeeKind.choices)
    fee_basis_points = models.PositiveIntegerField(default=0)
    fee_minor = models.BigIntegerField(default=0)
    totals = models.JSONField(default=list)
    next_dealer = models.PositiveSmallIntegerField(default=0)
    deals_scored = models.PositiveIntegerField(default=0)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    margin = models.IntegerField(null=True, blank=True)
    fee_charged_minor = models.BigIntegerField(null=True, blank=True)
    settlement_transfer = models.ForeignKey(
        "wallet.Transfer", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    opened_by_name = models.CharField(max_length=150, blank=True)
    opened_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tables_canastagame"
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="canasta_game_unique_number"),
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status__in=[status.value for status in OPEN_CANASTA_GAME_STATUSES]),
                name="canasta_game_one_open_per_table",
            ),
            models.CheckConstraint(
                condition=models.Q(stake_minor__gt=0, hold_minor__gt=0), name="canasta_game_stake_positive"
            ),
        ]
        ordering = ["table", "number"]

    def __str__(self) -> str:
        return f"{self.table} canasta game {self.number}"


class CanastaGamePlayer(models.Model):
    """A player in a seat of a game (seats 0.. clockwise, the side from ``engine.seating``), with
    the hold placed on his wallet when he sat down."""

    game = models.ForeignKey(CanastaGame, on_delete=models.PROTECT, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()
    player = models.ForeignKey("casino.Player", on_delete=models.PROTECT, related_name="+")
    hold = models.OneToOneField("wallet.Hold", on_delete=models.PROTECT, related_name="+")
    seated_at = models.DateTimeField()

    class Meta:
        db_table = "tables_canastagameplayer"
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="canasta_player_unique_seat"),
            models.UniqueConstraint(fields=["game", "player"], name="canasta_player_unique_player"),
        ]
        ordering = ["game", "seat"]

    def __str__(self) -> str:
        return f"{self.game} seat {self.seat}: player {self.player_id}"


class CanastaDealStatus(models.TextChoices):
    PLAYING = "playing", "Playing"
    SCORED = "scored", "Scored"
    VOIDED = "voided", "Voided with its game"


class CanastaDeal(models.Model):
    """One deal of a game: a row every command on it locks, the engine snapshot after its last
    event (virtual deals) and ``version``, the sequence of its last event (a move sent against an
    older version is stale). A physical deal has no engine state until the host enters it."""

    game = models.ForeignKey(CanastaGame, on_delete=models.PROTECT, related_name="deals")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=CanastaDealKind.choices)
    dealer_seat = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=10, choices=CanastaDealStatus.choices, default=CanastaDealStatus.PLAYING
    )
    scores_before = models.JSONField(default=list)
    snapshot = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    scored_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "tables_canastadeal"
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="canasta_deal_unique_number"),
            models.UniqueConstraint(
                fields=["game"], condition=models.Q(status="playing"), name="canasta_deal_one_playing"
            ),
        ]
        ordering = ["game", "number"]

    def __str__(self) -> str:
        return f"{self.game} deal {self.number}"


class CanastaDealEvent(models.Model):
    """Append-only log of a deal (the database refuses UPDATE, DELETE and TRUNCATE: migration
    0009). The first event (``deal_started``) holds the shuffle, the dealer and the scores the
    deal starts from; each ``move`` holds the engine action and its events; a ``deal_entered``
    holds the host's finished deal (docs/canasta-deal.md). The ``canasta.deal_scored`` audit
    record carries the hash of the events."""

    deal = models.ForeignKey(CanastaDeal, on_delete=models.PROTECT, related_name="events")
    sequence = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
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
        db_table = "tables_canastadealevent"
        constraints = [
            models.UniqueConstraint(fields=["deal", "sequence"], name="canasta_event_unique_sequence")
        ]
        ordering = ["deal", "sequence"]

    def __str__(self) -> str:
        return f"{self.deal} #{self.sequence} {self.kind}"


class CanastaDealScore(models.Model):
    """One side's score of a deal, as the engine computed it (rules section 7): written once when
    the deal is scored (append-only, migration 0009). ``total`` is the running score after it;
    ``next_opening`` the initial meld the side needs in the next deal."""

    deal = models.ForeignKey(CanastaDeal, on_delete=models.PROTECT, related_name="scores")
    side = models.PositiveSmallIntegerField()
    score_before = models.IntegerField()
    melded = models.IntegerField()
    canasta_bonus = models.IntegerField()
    canastas = models.JSONField(default=dict)
    red_threes = models.IntegerField()
    going_out = models.IntegerField()
    hand = models.IntegerField()
    deal_total = models.IntegerField()
    total = models.IntegerField()
    next_opening = models.JSONField(default=dict)

    class Meta:
        db_table = "tables_canastadealscore"
        constraints = [models.UniqueConstraint(fields=["deal", "side"], name="canasta_score_unique_side")]
        ordering = ["deal", "side"]

    def __str__(self) -> str:
        return f"{self.deal} side {self.side}: {self.deal_total}"


class CanastaVoidRequest(models.Model):
    """The host's request to void a game, with a reason. It waits for a second person as a
    four-eyes approval (``approval``, kind ``canasta_void``: ``casino.four_eyes``), whose decision
    (who, when, approved or rejected, why) is the request's; approved, the game is voided and its
    holds released in the same transaction. Insert-only."""

    game = models.ForeignKey(CanastaGame, on_delete=models.PROTECT, related_name="void_requests")
    reason = models.CharField(max_length=300)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_by_name = models.CharField(max_length=150)
    terminal = models.ForeignKey(
        "casino.Terminal", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_at = models.DateTimeField()
    # Null only before four eyes were one capability: migration 0011 gave every such request its
    # approval, decided as it was.
    approval = models.OneToOneField(
        "casino.Approval", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "tables_canastavoidrequest"
        ordering = ["game", "id"]

    def __str__(self) -> str:
        return f"void request {self.pk} on {self.game_id}"
