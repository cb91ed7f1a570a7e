"""A pit boss's decision on a held payout becomes a row of its own (``PayoutDecision``), so that
no payout line is ever updated: the decisions already taken are copied over, then the line's
decision columns go."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def decisions_copy(apps, schema_editor):
    PayoutLine = apps.get_model("tables", "PayoutLine")
    PayoutDecision = apps.get_model("tables", "PayoutDecision")
    decided = PayoutLine.objects.filter(approval_status__in=["approved", "rejected"]).order_by("pk")
    PayoutDecision.objects.bulk_create(
        [
            PayoutDecision(
                line_id=line.pk,
                status=line.approval_status,
                decided_by_id=line.decided_by_id,
                decided_at=line.decided_at,
                reason=line.reason,
            )
            for line in decided.iterator(chunk_size=2000)
        ],
        batch_size=2000,
    )


def decisions_restore(apps, schema_editor):
    PayoutDecision = apps.get_model("tables", "PayoutDecision")
    PayoutLine = apps.get_model("tables", "PayoutLine")
    for decision in PayoutDecision.objects.order_by("pk").iterator(chunk_size=2000):
        PayoutLine.objects.filter(pk=decision.line_id).update(
            approval_status=decision.status,
            decided_by_id=decision.decided_by_id,
            decided_at=decision.decided_at,
            reason=decision.reason,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0004_bet_round_no_single_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PayoutDecision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("approved", "Approved and paid"), ("rejected", "Rejected")], max_length=10
                    ),
                ),
                ("decided_at", models.DateTimeField()),
                ("reason", models.CharField(blank=True, max_length=300)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "line",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="decision",
                        to="tables.payoutline",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("status__in", ["approved", "rejected"])),
                        name="payout_decision_status_decided",
                    )
                ],
            },
        ),
        migrations.RunPython(decisions_copy, decisions_restore),
        migrations.RemoveField(model_name="payoutline", name="approval_status"),
        migrations.RemoveField(model_name="payoutline", name="decided_at"),
        migrations.RemoveField(model_name="payoutline", name="decided_by"),
        migrations.RemoveField(model_name="payoutline", name="reason"),
    ]
