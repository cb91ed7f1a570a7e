import django.db.models.deletion
from django.db import migrations, models

from casino.migration_operations import DropIndexQuietly


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("wallet", "0003_account_may_go_negative_matches_kind"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="hold",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="holds",
                        to="wallet.account",
                    ),
                ),
            ],
            database_operations=[
                DropIndexQuietly(table="wallet_hold", column="account_id", name="wallet_hold_account_id_2b94e47f"),
            ],
        ),
    ]
