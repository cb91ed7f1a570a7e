"""Canasta games at card-room tables: a table's canasta settings, games, their players, deals,
the deals' event logs and scores, void requests and decisions. The database refuses UPDATE,
DELETE and TRUNCATE of the deal events and scores (migration 0006's ``tables_refuse_change``)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

TABLES = ("tables_canastadealevent", "tables_canastadealscore")


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION tables_refuse_change()"
            )
            cursor.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION tables_refuse_change()"
            )


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
            cursor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0010_staffpreference"),
        ("tables", "0008_config_authors_and_proposals"),
        ("wallet", "0005_transfer_without_idempotency_columns"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CanastaGame",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("seating", "Seating the players"),
                            ("playing", "Playing"),
                            ("ended", "Ended and settled"),
                            ("voided", "Voided"),
                        ],
                        default="seating",
                        max_length=10,
                    ),
                ),
                ("preset", models.CharField(max_length=20)),
                (
                    "options",
                    models.JSONField(default=dict, help_text="The overrides of the preset as played"),
                ),
                ("teams", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("players", models.PositiveSmallIntegerField()),
                (
                    "deal_kind",
                    models.CharField(
                        choices=[
                            ("virtual", "Virtual (server shuffle, moves through the terminals)"),
                            ("physical", "Physical cards (the host enters each finished deal)"),
                        ],
                        max_length=10,
                    ),
                ),
                ("stake_minor", models.BigIntegerField()),
                ("stake_points", models.PositiveIntegerField()),
                ("max_loss_points", models.PositiveIntegerField()),
                ("hold_minor", models.BigIntegerField(help_text="Held on each player's wallet for the game")),
                (
                    "fee_kind",
                    models.CharField(
                        choices=[
                            ("none", "No fee"),
                            ("pot_share", "A share of the pot"),
                            ("per_hour", "A charge per started hour"),
                            ("per_deal", "A charge per deal"),
                        ],
                        max_length=10,
                    ),
                ),
                ("fee_basis_points", models.PositiveIntegerField(default=0)),
                ("fee_minor", models.BigIntegerField(default=0)),
                ("totals", models.JSONField(default=list)),
                ("next_dealer", models.PositiveSmallIntegerField(default=0)),
                ("deals_scored", models.PositiveIntegerField(default=0)),
                ("winner_side", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("margin", models.IntegerField(blank=True, null=True)),
                ("fee_charged_minor", models.BigIntegerField(blank=True, null=True)),
                ("opened_by_name", models.CharField(blank=True, max_length=150)),
                ("opened_at", models.DateTimeField()),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("ended_at", models.DateTimeField(blank=True, null=True)),
                (
                    "opened_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "rule_set_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="tables.rulesetversion",
                    ),
                ),
                (
                    "settlement_transfer",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="wallet.transfer",
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="canasta_games",
                        to="tables.table",
                    ),
                ),
            ],
            options={
                "ordering": ["table", "number"],
            },
        ),
        migrations.CreateModel(
            name="CanastaDeal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("virtual", "Virtual (server shuffle, moves through the terminals)"),
                            ("physical", "Physical cards (the host enters each finished deal)"),
                        ],
                        max_length=10,
                    ),
                ),
                ("dealer_seat", models.PositiveSmallIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("playing", "Playing"),
                            ("scored", "Scored"),
                            ("voided", "Voided with its game"),
                        ],
                        default="playing",
                        max_length=10,
                    ),
                ),
                ("scores_before", models.JSONField(default=list)),
                ("snapshot", models.JSONField(blank=True, null=True)),
                ("version", models.PositiveIntegerField(default=0)),
                ("started_at", models.DateTimeField()),
                ("scored_at", models.DateTimeField(blank=True, null=True)),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="deals",
                        to="tables.canastagame",
                    ),
                ),
            ],
            options={
                "ordering": ["game", "number"],
            },
        ),
        migrations.CreateModel(
            name="CanastaGamePlayer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat", models.PositiveSmallIntegerField()),
                ("side", models.PositiveSmallIntegerField()),
                ("seated_at", models.DateTimeField()),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="seats",
                        to="tables.canastagame",
                    ),
                ),
                (
                    "hold",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="wallet.hold"
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="casino.player"
                    ),
                ),
            ],
            options={
                "ordering": ["game", "seat"],
            },
        ),
        migrations.CreateModel(
            name="CanastaTableSettings",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                (
                    "deal_kind",
                    models.CharField(
                        choices=[
                            ("virtual", "Virtual (server shuffle, moves through the terminals)"),
                            ("physical", "Physical cards (the host enters each finished deal)"),
                        ],
                        default="virtual",
                        max_length=10,
                    ),
                ),
                (
                    "teams",
                    models.PositiveSmallIntegerField(
                        blank=True, help_text="ru6: 2 teams of 3 or 3 of 2", null=True
                    ),
                ),
                ("stake_points", models.PositiveIntegerField(default=100)),
                ("stake_min_minor", models.BigIntegerField(default=10)),
                ("stake_max_minor", models.BigIntegerField(default=10000)),
                ("max_loss_points", models.PositiveIntegerField(default=10000)),
                (
                    "fee_kind",
                    models.CharField(
                        choices=[
                            ("none", "No fee"),
                            ("pot_share", "A share of the pot"),
                            ("per_hour", "A charge per started hour"),
                            ("per_deal", "A charge per deal"),
                        ],
                        default="none",
                        max_length=10,
                    ),
                ),
                (
                    "fee_basis_points",
                    models.PositiveIntegerField(default=0, help_text="Pot share, in 1/10000 of the pot"),
                ),
                ("fee_minor", models.BigIntegerField(default=0, help_text="Per hour or per deal")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="canasta_settings",
                        to="tables.table",
                    ),
                ),
            ],
            options={
                "ordering": ["table", "number"],
            },
        ),
        migrations.CreateModel(
            name="CanastaVoidRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reason", models.CharField(max_length=300)),
                ("requested_by_name", models.CharField(max_length=150)),
                ("requested_at", models.DateTimeField()),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="void_requests",
                        to="tables.canastagame",
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "terminal",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="casino.terminal",
                    ),
                ),
            ],
            options={
                "ordering": ["game", "id"],
            },
        ),
        migrations.CreateModel(
            name="CanastaVoidDecision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("approved", "Approved and paid"), ("rejected", "Rejected")], max_length=10
                    ),
                ),
                ("decided_at", models.DateTimeField()),
                ("reason", models.CharField(blank=True, max_length=300)),
                (
                    "decided_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "request",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="decision",
                        to="tables.canastavoidrequest",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="CanastaDealEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("sequence", models.PositiveIntegerField()),
                ("kind", models.CharField(max_length=30)),
                ("payload", models.JSONField(default=dict)),
                ("actor_name", models.CharField(blank=True, max_length=150)),
                ("role", models.CharField(blank=True, max_length=40)),
                ("created_at", models.DateTimeField()),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "deal",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="tables.canastadeal",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="casino.player",
                    ),
                ),
                (
                    "terminal",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="casino.terminal",
                    ),
                ),
            ],
            options={
                "ordering": ["deal", "sequence"],
                "constraints": [
                    models.UniqueConstraint(fields=("deal", "sequence"), name="canasta_event_unique_sequence")
                ],
            },
        ),
        migrations.CreateModel(
            name="CanastaDealScore",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("side", models.PositiveSmallIntegerField()),
                ("score_before", models.IntegerField()),
                ("melded", models.IntegerField()),
                ("canasta_bonus", models.IntegerField()),
                ("canastas", models.JSONField(default=dict)),
                ("red_threes", models.IntegerField()),
                ("going_out", models.IntegerField()),
                ("hand", models.IntegerField()),
                ("deal_total", models.IntegerField()),
                ("total", models.IntegerField()),
                ("next_opening", models.JSONField(default=dict)),
                (
                    "deal",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="scores",
                        to="tables.canastadeal",
                    ),
                ),
            ],
            options={
                "ordering": ["deal", "side"],
                "constraints": [
                    models.UniqueConstraint(fields=("deal", "side"), name="canasta_score_unique_side")
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="canastagame",
            constraint=models.UniqueConstraint(fields=("table", "number"), name="canasta_game_unique_number"),
        ),
        migrations.AddConstraint(
            model_name="canastagame",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ["seating", "playing"])),
                fields=("table",),
                name="canasta_game_one_open_per_table",
            ),
        ),
        migrations.AddConstraint(
            model_name="canastagame",
            constraint=models.CheckConstraint(
                condition=models.Q(("hold_minor__gt", 0), ("stake_minor__gt", 0)),
                name="canasta_game_stake_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="canastadeal",
            constraint=models.UniqueConstraint(fields=("game", "number"), name="canasta_deal_unique_number"),
        ),
        migrations.AddConstraint(
            model_name="canastadeal",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "playing")), fields=("game",), name="canasta_deal_one_playing"
            ),
        ),
        migrations.AddConstraint(
            model_name="canastagameplayer",
            constraint=models.UniqueConstraint(fields=("game", "seat"), name="canasta_player_unique_seat"),
        ),
        migrations.AddConstraint(
            model_name="canastagameplayer",
            constraint=models.UniqueConstraint(
                fields=("game", "player"), name="canasta_player_unique_player"
            ),
        ),
        migrations.AddConstraint(
            model_name="canastatablesettings",
            constraint=models.UniqueConstraint(
                fields=("table", "number"), name="canasta_settings_unique_number"
            ),
        ),
        migrations.AddConstraint(
            model_name="canastatablesettings",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("stake_max_minor__gte", models.F("stake_min_minor")), ("stake_min_minor__gt", 0)
                ),
                name="canasta_settings_stake_limits",
            ),
        ),
        migrations.AddConstraint(
            model_name="canastatablesettings",
            constraint=models.CheckConstraint(
                condition=models.Q(("fee_basis_points__lte", 10000), ("fee_minor__gte", 0)),
                name="canasta_settings_fee_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="canastavoiddecision",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["approved", "rejected"])),
                name="canasta_void_decision_status",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
