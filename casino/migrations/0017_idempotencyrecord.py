"""The request idempotency record, moved from the wallet (``wallet.0009_idempotencyrecord_to_casino``)
with its table: the model enters the venue's state on the existing table
``wallet_idempotencyrecord``, and nothing in the database changes (its rows stay)."""

from django.db import migrations, models


def content_type_move(apps, schema_editor):
    """The record's content type follows it from the wallet (its permissions keep pointing at it);
    a fresh database has none yet."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="wallet", model="idempotencyrecord").update(app_label="casino")


def content_type_move_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="casino", model="idempotencyrecord").update(app_label="wallet")


class Migration(migrations.Migration):
    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("casino", "0016_table_and_rule_sets_from_tables"),
        ("wallet", "0010_idempotencyrecord_to_casino"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("scope", models.CharField(max_length=80)),
                        ("key", models.CharField(max_length=200)),
                        ("request_fingerprint", models.CharField(max_length=64)),
                        ("response", models.JSONField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "wallet_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(fields=("scope", "key"), name="idempotency_unique_key")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_move, content_type_move_back),
    ]
