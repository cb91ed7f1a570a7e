"""The dealers' tips pool: a venue account kind (``tips_pool``, never negative) and the transfer
kind of a tip from a player's wallet (``tip``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0005_transfer_without_idempotency_columns"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="account",
            name="account_owner_matches_kind",
        ),
        migrations.AlterField(
            model_name="account",
            name="kind",
            field=models.CharField(
                choices=[
                    ("player", "Player wallet"),
                    ("table_tray", "Table tray (bankroll)"),
                    ("table_payouts_pending", "Table payouts awaiting approval"),
                    ("cage", "Cage"),
                    ("house", "House (win/loss, fees, adjustments)"),
                    ("house_rounding", "House rounding remainders"),
                    ("tips_pool", "Dealers' tips pool"),
                ],
                max_length=30,
            ),
        ),
        migrations.AlterField(
            model_name="transfer",
            name="kind",
            field=models.CharField(
                choices=[
                    ("buy_in", "Buy-in"),
                    ("cash_out", "Cash-out"),
                    ("table_fill", "Table fill"),
                    ("table_credit", "Table credit"),
                    ("adjustment", "Balance adjustment"),
                    ("player_transfer", "Transfer between players"),
                    ("round_settlement", "Round settlement"),
                    ("payout_release", "Payout released"),
                    ("payout_reject", "Payout rejected"),
                    ("reversal", "Reversal"),
                    ("tip", "Tip to the dealers"),
                ],
                max_length=30,
            ),
        ),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind__in", ["player"]), ("player__isnull", False), ("table__isnull", True)),
                    models.Q(
                        ("kind__in", ["table_payouts_pending", "table_tray"]),
                        ("player__isnull", True),
                        ("table__isnull", False),
                    ),
                    models.Q(
                        ("kind__in", ["cage", "house", "house_rounding", "tips_pool"]),
                        ("player__isnull", True),
                        ("table__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="account_owner_matches_kind",
            ),
        ),
    ]
