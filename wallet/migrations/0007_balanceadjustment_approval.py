"""A balance adjustment above the threshold waits as a four-eyes approval (``casino.Approval``, kind
``balance_adjustment``), linked by ``BalanceAdjustment.approval``.

The adjustments that waited before keep their history as approvals: a pending one waits as a
pending approval; one approved by a second pit boss (applied, decided by someone other than its
requester) as an approved one; a rejected one as a rejected one, with the reason its audit record
gave. An adjustment its requester withdrew (rejected by them, which the wallet allowed) names no
decider in its approval, as nobody decides their own request there; the adjustment row still
names them. An adjustment applied at once waited for no one and gets no approval."""

import datetime as dt
from zoneinfo import ZoneInfo

import django.db.models.deletion
from django.db import migrations, models

KIND = "balance_adjustment"
SUBJECT_TYPE = "wallet.balanceadjustment"
# The casino.Approval statuses, by the adjustment's.
STATUSES = {"pending": "pending", "applied": "approved", "rejected": "rejected"}
WITHDRAWN = "withdrawn by its requester"


def _gaming_day(casino, moment):
    """``casino.models.Casino.gaming_day``, which a migration's model does not have."""
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    if local.time() < casino.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def _rejection_reason(AuditRecord, adjustment_id):
    record = (
        AuditRecord.objects.filter(
            action="wallet.adjustment_rejected",
            object_type=SUBJECT_TYPE,
            object_id=str(adjustment_id),
        )
        .order_by("sequence")
        .first()
    )
    reason = (record.after or {}).get("reason", "") if record is not None else ""
    return str(reason)[:300]


def approvals_for_adjustments_that_waited(apps, schema_editor):
    BalanceAdjustment = apps.get_model("wallet", "BalanceAdjustment")
    Approval = apps.get_model("casino", "Approval")
    AuditRecord = apps.get_model("casino", "AuditRecord")
    waited = (
        BalanceAdjustment.objects.filter(approval__isnull=True)
        .filter(
            models.Q(status__in=["pending", "rejected"])
            | (models.Q(status="applied") & ~models.Q(decided_by=models.F("requested_by")))
        )
        .select_related("account__casino", "account__player", "requested_by")
        .order_by("pk")
    )
    for adjustment in waited:
        casino = adjustment.account.casino
        player = adjustment.account.player
        status = STATUSES[adjustment.status]
        withdrawn = status == "rejected" and adjustment.decided_by_id == adjustment.requested_by_id
        reason = _rejection_reason(AuditRecord, adjustment.pk) if status == "rejected" else ""
        if withdrawn:
            reason = f"{WITHDRAWN}: {reason}" if reason else WITHDRAWN
        approval = Approval.objects.create(
            casino=casino,
            kind=KIND,
            subject_type=SUBJECT_TYPE,
            subject_id=str(adjustment.pk),
            place=player.card_number if player else "",
            summary=f"{player.display_name if player else ''}: {adjustment.reason}"[:300],
            amount_minor=adjustment.amount_minor,
            after={"player_id": player.pk if player else None, "amount_minor": adjustment.amount_minor},
            gaming_day=_gaming_day(casino, adjustment.requested_at),
            requested_by=adjustment.requested_by,
            requested_by_name=adjustment.requested_by.username,
            requested_at=adjustment.requested_at,
            request_reason=adjustment.reason,
            excluded={},
            status=status,
            decided_by=None if status == "pending" or withdrawn else adjustment.decided_by,
            decided_at=None if status == "pending" else adjustment.decided_at or adjustment.requested_at,
            decision_reason=reason,
        )
        BalanceAdjustment.objects.filter(pk=adjustment.pk).update(approval=approval)


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("wallet", "0006_tips_pool"),
    ]

    operations = [
        migrations.AddField(
            model_name="balanceadjustment",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        # Back, the link goes and the approvals stay: they are the decisions' history.
        migrations.RunPython(approvals_for_adjustments_that_waited, migrations.RunPython.noop),
    ]
