"""The closed gaming day moves to the venue (``casino.GamingDayClose``): the wallet and the tables
ask whether a day is closed, and they know nothing of the accounting. Every closing is copied
with its id (the audit trail names it), as the day's first closing, before the accounting's table
goes; the close signatures name their closing too (1 for those of before)."""

from django.conf import settings
from django.core.management.color import no_style
from django.db import migrations, models


def closes_copy_to_the_venue(apps, schema_editor):
    old = apps.get_model("accounting", "GamingDayClose")
    new = apps.get_model("casino", "GamingDayClose")
    new.objects.bulk_create(
        new(
            pk=close.pk,
            casino_id=close.casino_id,
            gaming_day=close.gaming_day,
            closing=1,
            closed_at=close.closed_at,
            closed_by_id=close.closed_by_id,
        )
        for close in old.objects.order_by("pk")
    )
    _sequence_reset(schema_editor, new)


def closes_copy_back(apps, schema_editor):
    old = apps.get_model("accounting", "GamingDayClose")
    new = apps.get_model("casino", "GamingDayClose")
    old.objects.bulk_create(
        old(
            pk=close.pk,
            casino_id=close.casino_id,
            gaming_day=close.gaming_day,
            closed_at=close.closed_at,
            closed_by_id=close.closed_by_id,
        )
        for close in new.objects.filter(closing=1).order_by("pk")
    )
    _sequence_reset(schema_editor, old)


def _sequence_reset(schema_editor, model):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [model]):
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0004_tips"),
        ("casino", "0014_gaming_day_close_and_reopening"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(closes_copy_to_the_venue, closes_copy_back),
        migrations.RemoveConstraint(
            model_name="gamingdaysignature",
            name="gaming_day_signed_once_per_role",
        ),
        migrations.RemoveConstraint(
            model_name="gamingdaysignature",
            name="gaming_day_signed_once_per_person",
        ),
        migrations.AddField(
            model_name="gamingdaysignature",
            name="closing",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddConstraint(
            model_name="gamingdaysignature",
            constraint=models.UniqueConstraint(
                fields=("casino", "gaming_day", "closing", "role"), name="gaming_day_signed_once_per_role"
            ),
        ),
        migrations.AddConstraint(
            model_name="gamingdaysignature",
            constraint=models.UniqueConstraint(
                fields=("casino", "gaming_day", "closing", "signed_by"),
                name="gaming_day_signed_once_per_person",
            ),
        ),
        migrations.DeleteModel(
            name="GamingDayClose",
        ),
    ]
