import django.db.models.deletion
from django.db import migrations, models

from casino.migration_operations import DropIndexQuietly


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("tables", "0003_bet_round_box_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="bet",
                    name="round",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="bets",
                        to="tables.round",
                    ),
                ),
            ],
            database_operations=[
                DropIndexQuietly(table="tables_bet", column="round_id", name="tables_bet_round_id_f9706073"),
            ],
        ),
    ]
