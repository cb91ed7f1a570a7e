"""A held payout waits on a four-eyes approval (``casino.Approval``, kind ``payout``): the field,
then an approval for every payout parked before it, pending or decided, so that the history of
who asked, who decided, when and why is in one place (nothing is lost: the payout keeps its own
decision columns too)."""

import datetime as dt
from zoneinfo import ZoneInfo

import django.db.models.deletion
from django.db import migrations, models

PAYOUT_REFERENCE_PREFIX = "payout_line:"
STATUSES = {"pending": "pending", "released": "approved", "rejected": "rejected"}
CHUNK = 2000


def _gaming_day(casino, moment):
    # The casino's gaming day of a moment as the casino model gave it when this migration was
    # written (a migration does not call the code of the day it runs).
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    return local.date() - dt.timedelta(days=1) if local.time() < casino.gaming_day_starts_at else local.date()


def _line_id(payout):
    reference = payout.bet_reference or ""
    if reference.startswith(PAYOUT_REFERENCE_PREFIX) and reference[len(PAYOUT_REFERENCE_PREFIX) :].isdigit():
        return int(reference[len(PAYOUT_REFERENCE_PREFIX) :])
    return None


def _approval(apps, payout, line, round_):
    Approval = apps.get_model("casino", "Approval")
    table, transfer = payout.table, payout.settlement_transfer
    requested_at = transfer.created_at or payout.created_at
    requested_by = transfer.created_by
    status = STATUSES[payout.status]
    decided = status != "pending"
    # Nobody decides what they asked for (the approval's check constraint): a payout that the one
    # who settled its round decided keeps that person's name as the requester, not the link.
    same_person = decided and requested_by is not None and requested_by.pk == payout.decided_by_id
    if line is not None:
        box = line.bet.box_number
        hand = f" hand {line.hand + 1}" if line.hand is not None else ""
        number = round_.number if round_ is not None else "?"
        summary = f"{table.name} round {number}, box {box}{hand}: {line.rule}"
        after = {
            "round_id": line.round_id,
            "box": box,
            "hand": line.hand,
            "net_minor": line.net_minor,
            "paid_minor": line.paid_minor,
        }
    else:
        summary = f"{table.name}: payout of {payout.reference_type} {payout.reference_id}".strip()
        after = None
    return Approval(
        casino_id=table.casino_id,
        kind="payout",
        subject_type="tables.payoutline" if line is not None else "wallet.pendingpayout",
        subject_id=str(line.pk if line is not None else payout.pk),
        place=table.name[:120],
        summary=summary[:300],
        amount_minor=payout.amount_minor,
        after=after,
        gaming_day=_gaming_day(table.casino, requested_at),
        requested_by=None if same_person else requested_by,
        requested_by_name=requested_by.username if requested_by is not None else "system",
        requested_at=requested_at,
        excluded={"round_dealer": round_.dealer_id} if round_ is not None and round_.dealer_id else {},
        status=status,
        decided_by_id=payout.decided_by_id if decided else None,
        decided_at=(payout.decided_at or payout.created_at) if decided else None,
        decision_reason=payout.reason if decided else "",
    )


def approvals_create(apps, schema_editor):
    PendingPayout = apps.get_model("wallet", "PendingPayout")
    PayoutLine = apps.get_model("tables", "PayoutLine")
    Round = apps.get_model("tables", "Round")
    Approval = apps.get_model("casino", "Approval")
    waiting = (
        PendingPayout.objects.filter(approval__isnull=True)
        .select_related("table__casino", "settlement_transfer__created_by")
        .order_by("pk")
    )
    while True:
        payouts = list(waiting[:CHUNK])
        if not payouts:
            return
        line_ids = [line_id for line_id in map(_line_id, payouts) if line_id is not None]
        lines = {line.pk: line for line in PayoutLine.objects.filter(pk__in=line_ids).select_related("bet")}
        round_ids = [int(p.reference_id) for p in payouts if p.reference_type == "round" and p.reference_id.isdigit()]
        rounds = {round_.pk: round_ for round_ in Round.objects.filter(pk__in=round_ids)}
        approvals = []
        for payout in payouts:
            line = lines.get(_line_id(payout))
            round_id = line.round_id if line is not None else (
                int(payout.reference_id) if payout.reference_id.isdigit() else None
            )
            approvals.append(_approval(apps, payout, line, rounds.get(round_id)))
        created = Approval.objects.bulk_create(approvals)
        for payout, approval in zip(payouts, created):
            payout.approval_id = approval.pk
        PendingPayout.objects.bulk_update(payouts, ["approval"])


def approvals_remove(apps, schema_editor):
    PendingPayout = apps.get_model("wallet", "PendingPayout")
    Approval = apps.get_model("casino", "Approval")
    linked = list(PendingPayout.objects.filter(approval__isnull=False).values_list("approval_id", flat=True))
    PendingPayout.objects.update(approval=None)
    Approval.objects.filter(pk__in=linked).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0013_approval"),
        ("tables", "0009_canasta_games"),
        ("wallet", "0006_tips_pool"),
    ]

    operations = [
        migrations.AddField(
            model_name="pendingpayout",
            name="approval",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="casino.approval",
            ),
        ),
        migrations.RunPython(approvals_create, approvals_remove),
    ]
