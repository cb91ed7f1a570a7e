"""Transfers lose the idempotency columns of the time when services took keys: they have been blank
since the keys moved to the edge (``IdempotencyRecord``, one per request). Dropping a column is DDL:
the append-only triggers, which refuse UPDATE and DELETE of rows, do not stand in its way."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0004_hold_account_no_single_index"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="transfer",
            name="idempotency_key",
        ),
        migrations.RemoveField(
            model_name="transfer",
            name="idempotency_scope",
        ),
    ]
