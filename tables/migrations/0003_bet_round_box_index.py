from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("casino", "0004_player_session"),
        ("tables", "0002_live_table"),
    ]

    # ``CREATE INDEX CONCURRENTLY``, so that bets keep being placed while the index builds on a
    # large ``tables_bet``.
    operations = [
        AddIndexConcurrently(
            model_name="bet",
            index=models.Index(
                condition=models.Q(("kind", "behind"), _negated=True),
                fields=["round", "box_number"],
                name="bet_round_box_main_side_idx",
            ),
        ),
    ]
