"""The audit chain starts at sequence 1: a row below it would stand outside the chain's walk."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("casino", "0006_auditrecord_key_version")]

    operations = [
        migrations.AddConstraint(
            model_name="auditrecord",
            constraint=models.CheckConstraint(
                condition=models.Q(sequence__gte=1), name="audit_sequence_from_one"
            ),
        ),
    ]
