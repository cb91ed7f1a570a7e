# Drop, win and hold: buy-ins at the table, drop box counts and their signatures, hold alerts and
# their resolutions.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0002_day_signatures_hold_bands_cash_thresholds"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DropCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('shift', models.PositiveSmallIntegerField()),
                ('total_minor', models.BigIntegerField()),
                ('counted_at', models.DateTimeField()),
                ('correction_reason', models.CharField(blank=True, max_length=300)),
                ('corrects', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrected_by', to='accounting.dropcount')),
                ('counted_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='drop_counts', to='tables.table')),
            ],
            options={
                'ordering': ['counted_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='DropCountSignature',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('role', models.CharField(choices=[('count_team', 'Count team'), ('verifier', 'Pit boss or accounting office')], max_length=12)),
                ('signed_at', models.DateTimeField()),
                ('count', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='signatures', to='accounting.dropcount')),
                ('signer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['signed_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='HoldAlert',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('kind', models.CharField(choices=[('fixed_band', 'Hold outside the fixed band'), ('statistical', 'Win far from its expectation')], max_length=12)),
                ('figures', models.JSONField(default=dict)),
                ('raised_at', models.DateTimeField()),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='hold_alerts', to='tables.table')),
            ],
            options={
                'ordering': ['-gaming_day', 'table', 'kind'],
            },
        ),
        migrations.CreateModel(
            name='HoldAlertResolution',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('note', models.CharField(max_length=300)),
                ('resolved_at', models.DateTimeField()),
                ('alert', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='resolution', to='accounting.holdalert')),
                ('resolved_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='TableBuyIn',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('shift', models.PositiveSmallIntegerField()),
                ('amount_minor', models.BigIntegerField()),
                ('recorded_at', models.DateTimeField()),
                ('correction_reason', models.CharField(blank=True, max_length=300)),
                ('corrects', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrected_by', to='accounting.tablebuyin')),
                ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='buy_ins', to='tables.table')),
            ],
            options={
                'ordering': ['recorded_at', 'pk'],
            },
        ),
        migrations.AddIndex(
            model_name='dropcount',
            index=models.Index(fields=['table', 'gaming_day'], name='drop_count_day_idx'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.CheckConstraint(condition=models.Q(('total_minor__gte', 0)), name='drop_count_not_negative'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.CheckConstraint(condition=models.Q(('corrects__isnull', True), models.Q(('correction_reason', ''), _negated=True), _connector='OR'), name='drop_count_correction_says_why'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.UniqueConstraint(condition=models.Q(('corrects__isnull', True)), fields=('table', 'gaming_day', 'shift'), name='drop_count_once_per_shift'),
        ),
        migrations.AddConstraint(
            model_name='dropcountsignature',
            constraint=models.UniqueConstraint(fields=('count', 'role'), name='drop_signature_one_per_role'),
        ),
        migrations.AddConstraint(
            model_name='dropcountsignature',
            constraint=models.UniqueConstraint(fields=('count', 'signer'), name='drop_signature_one_per_person'),
        ),
        migrations.AddConstraint(
            model_name='holdalert',
            constraint=models.UniqueConstraint(fields=('table', 'gaming_day', 'kind'), name='hold_alert_once_per_day'),
        ),
        migrations.AddConstraint(
            model_name='holdalertresolution',
            constraint=models.CheckConstraint(condition=models.Q(('note', ''), _negated=True), name='hold_alert_resolution_has_note'),
        ),
        migrations.AddIndex(
            model_name='tablebuyin',
            index=models.Index(fields=['table', 'gaming_day'], name='table_buy_in_day_idx'),
        ),
        migrations.AddConstraint(
            model_name='tablebuyin',
            constraint=models.CheckConstraint(condition=models.Q(('amount_minor__gt', 0), models.Q(('amount_minor', 0), ('corrects__isnull', False)), _connector='OR'), name='table_buy_in_positive'),
        ),
        migrations.AddConstraint(
            model_name='tablebuyin',
            constraint=models.CheckConstraint(condition=models.Q(('corrects__isnull', True), models.Q(('correction_reason', ''), _negated=True), _connector='OR'), name='table_buy_in_correction_says_why'),
        ),
    ]
