"""The audit chain becomes keyed: each record names the version of the HMAC key its hash was made
with. The records already there were hashed with a plain SHA-256 and get version 0, which
audit_verify accepts only before the first keyed record and counts as unkeyed. Adding the column
with a default writes no row, so the append-only trigger is not involved."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("casino", "0005_player_session_one_open")]

    operations = [
        migrations.AddField(
            model_name="auditrecord",
            name="key_version",
            field=models.PositiveSmallIntegerField(
                default=0,
                help_text="Version of the HMAC key the hash was made with; 0: a plain SHA-256, from before the chain was keyed",
            ),
            preserve_default=False,
        ),
    ]
