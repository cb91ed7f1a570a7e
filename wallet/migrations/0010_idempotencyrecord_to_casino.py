"""The request idempotency record leaves the wallet for the venue's API edge
(``casino.IdempotencyRecord``, casino/idempotency.py). A move of the model's state only: the table
``wallet_idempotencyrecord``, its rows, its sequence and its unique constraint stay as they are;
``casino.0016_idempotencyrecord`` takes the model into its state on the same table."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0009_table_moves_to_the_venue"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
