from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class AddIndexConcurrentlyOnPostgres(AddIndexConcurrently):
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, so that bets keep being placed while the index
    builds on a large ``tables_bet``; a plain index on other databases."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("casino", "0004_player_session"),
        ("tables", "0002_live_table"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="bet",
            index=models.Index(
                condition=models.Q(("kind", "behind"), _negated=True),
                fields=["round", "box_number"],
                name="bet_round_box_main_side_idx",
            ),
        ),
    ]
