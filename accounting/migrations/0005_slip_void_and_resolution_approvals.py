"""Slip voids and variance investigations' resolutions decided through the venue's four eyes
(``casino.Approval``): a slip's void proposal and its void, and a resolution, name the approval
they wait for or were approved by; a rejected void leaves its proposal, so a slip may hold
several proposals (every other step still once). The accounting office signs a void it approves
(``SignatureRole.ACCOUNTING``). 0006 backfills the approvals of the existing voids and
resolutions."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounting', '0004_tips'),
        ('casino', '0013_approval'),
        ('wallet', '0006_tips_pool'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='slipsignature',
            name='slip_signature_one_per_step',
        ),
        migrations.AddField(
            model_name='investigationresolution',
            name='approval',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='casino.approval'),
        ),
        migrations.AddField(
            model_name='slipsignature',
            name='approval',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='casino.approval'),
        ),
        migrations.AlterField(
            model_name='slipsignature',
            name='role',
            field=models.CharField(choices=[('dealer', 'Dealer'), ('pit_boss', 'Pit boss'), ('cashier', 'Cashier'), ('accounting', 'Accounting office')], max_length=10),
        ),
        migrations.AlterField(
            model_name='traycountsignature',
            name='role',
            field=models.CharField(choices=[('dealer', 'Dealer'), ('pit_boss', 'Pit boss'), ('cashier', 'Cashier'), ('accounting', 'Accounting office')], max_length=10),
        ),
        migrations.AddConstraint(
            model_name='slipsignature',
            constraint=models.UniqueConstraint(condition=models.Q(('step', 'void_proposed'), _negated=True), fields=('slip', 'step'), name='slip_signature_one_per_step'),
        ),
    ]
