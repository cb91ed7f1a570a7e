"""Tips: a tip to the dealer of a round (chips at the table, or a player's wallet through a
terminal), or the dealer's record that the round brought none. Insert-only for the application
(``casino/database_roles.py``)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0003_drop_win_hold"),
        ("casino", "0010_staffpreference"),
        ("tables", "0008_config_authors_and_proposals"),
        ("wallet", "0006_tips_pool"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Tip",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField()),
                ("shift", models.PositiveSmallIntegerField()),
                ("amount_minor", models.BigIntegerField()),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("chips", "Chips handed to the dealer"),
                            ("wallet", "From a player's wallet"),
                            ("none", "No tips"),
                        ],
                        max_length=10,
                    ),
                ),
                ("box", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("recorded_at", models.DateTimeField()),
                (
                    "casino",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="casino.casino"
                    ),
                ),
                (
                    "dealer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
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
                    "recorded_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "round",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="tips", to="tables.round"
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="tips", to="tables.table"
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
                (
                    "transfer",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="wallet.transfer",
                    ),
                ),
            ],
            options={
                "ordering": ["recorded_at", "pk"],
                "indexes": [models.Index(fields=["casino", "gaming_day", "shift"], name="tip_shift_idx")],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(
                                ("amount_minor__gt", 0),
                                ("recorded_by__isnull", False),
                                ("source", "chips"),
                                ("transfer__isnull", True),
                            ),
                            models.Q(
                                ("amount_minor__gt", 0),
                                ("player__isnull", False),
                                ("source", "wallet"),
                                ("transfer__isnull", False),
                            ),
                            models.Q(
                                ("amount_minor", 0),
                                ("recorded_by__isnull", False),
                                ("source", "none"),
                                ("transfer__isnull", True),
                            ),
                            _connector="OR",
                        ),
                        name="tip_source_matches_amount",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("box__isnull", True), models.Q(("box__gte", 1), ("box__lte", 7)), _connector="OR"
                        ),
                        name="tip_box_of_the_table",
                    ),
                ],
            },
        ),
    ]
