"""Canasta through the venue's four eyes (``casino.Approval``), the schema: a void request links
its approval (kind ``canasta_void``); a canasta table's configuration version names its rule set
version (the preset and options a game plays, until now the blackjack configuration's or the
table's rule set's) and the approval it was made with (kind ``canasta_config``; none for the
system's versions nor those made before). 0011 fills them in, 0012 requires the rule set version
and drops the void decisions' own table. Apart because PostgreSQL alters or indexes no table in
the transaction that changed its rows.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("tables", "0009_canasta_games"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="canastavoidrequest",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.AddField(
            model_name="canastatablesettings",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.AddField(
            model_name="canastatablesettings",
            name="rule_set_version",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="tables.rulesetversion",
            ),
        ),
    ]
