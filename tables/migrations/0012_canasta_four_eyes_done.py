"""After 0011 gave every canasta void request its approval and every canasta configuration
version its rule set version: the version's rule set version is required, and the void decisions'
own table goes (its rows are the approvals' decisions now). Apart from 0011 because PostgreSQL
alters no table in the transaction that changed its rows."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0011_canasta_four_eyes_history"),
    ]

    operations = [
        migrations.AlterField(
            model_name="canastatablesettings",
            name="rule_set_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="tables.rulesetversion",
            ),
        ),
        migrations.DeleteModel(name="CanastaVoidDecision"),
    ]
