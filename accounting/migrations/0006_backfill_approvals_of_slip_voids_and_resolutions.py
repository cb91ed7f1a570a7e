"""The four-eyes approvals (``casino.Approval``) of the slip voids and investigation resolutions
recorded before they went through ``casino.four_eyes``, so that their history reads as the new
ones do, and the old rows link to them:

- a proposed void: an approval of kind ``slip_void`` requested by the proposer with the
  proposal's reason, pending, or approved by the person who confirmed the void, at the time
  they did;
- a resolution: an approval of kind ``variance_investigation`` requested by the person who wrote
  its note and approved at that moment by nobody else (one person resolved an investigation
  then; ``decided_by`` stays empty and the decision says so), the opener's signers excluded as
  the rule now does.

Nothing is changed or removed but the new links; backwards, the links are cleared and the
approvals stay (history is never removed)."""

import datetime as dt
from zoneinfo import ZoneInfo

from django.db import migrations

BACKFILLED_RESOLUTION = "Resolved by one person, before a resolution waited for a second."


def _gaming_day(casino, moment):
    local = moment.astimezone(ZoneInfo(casino.time_zone))
    if local.time() < casino.gaming_day_starts_at:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def approvals_backfill(apps, schema_editor):
    Approval = apps.get_model("casino", "Approval")
    SlipSignature = apps.get_model("accounting", "SlipSignature")
    InvestigationResolution = apps.get_model("accounting", "InvestigationResolution")
    TrayCountSignature = apps.get_model("accounting", "TrayCountSignature")

    proposals = (
        SlipSignature.objects.filter(step="void_proposed", approval__isnull=True)
        .select_related("slip__casino", "slip__table", "signer")
        .order_by("pk")
    )
    for proposal in proposals:
        slip = proposal.slip
        voided = SlipSignature.objects.filter(slip=slip, step="voided").select_related("signer").first()
        decided_by = voided.signer if voided is not None and voided.signer_id != proposal.signer_id else None
        approval = Approval.objects.create(
            casino=slip.casino,
            kind="slip_void",
            subject_type="accounting.slip",
            subject_id=str(slip.pk),
            place=slip.table.name[:120],
            summary=f"Void of {slip.kind} slip {slip.year}-{slip.number} at {slip.table.name}"[:300],
            amount_minor=slip.total_minor,
            gaming_day=_gaming_day(slip.casino, proposal.signed_at),
            requested_by=proposal.signer,
            requested_by_name=proposal.signer.username,
            requested_at=proposal.signed_at,
            request_reason=proposal.reason,
            excluded={},
            status="approved" if voided is not None else "pending",
            decided_by=decided_by,
            decided_at=voided.signed_at if voided is not None else None,
            decision_reason=voided.reason if voided is not None and voided.reason != proposal.reason else "",
        )
        linked = [proposal.pk] + ([voided.pk] if voided is not None else [])
        SlipSignature.objects.filter(pk__in=linked).update(approval=approval)

    resolutions = (
        InvestigationResolution.objects.filter(approval__isnull=True)
        .select_related("investigation__table__casino", "resolved_by")
        .order_by("pk")
    )
    for resolution in resolutions:
        investigation = resolution.investigation
        table = investigation.table
        signers = sorted(
            TrayCountSignature.objects.filter(count_id=investigation.opener_id).values_list("signer_id", flat=True)
        )
        approval = Approval.objects.create(
            casino=table.casino,
            kind="variance_investigation",
            subject_type="accounting.varianceinvestigation",
            subject_id=str(investigation.pk),
            place=table.name[:120],
            summary=f"Resolution of the opener variance of {investigation.variance_minor} at {table.name}"[:300],
            amount_minor=investigation.variance_minor,
            gaming_day=_gaming_day(table.casino, resolution.resolved_at),
            requested_by=resolution.resolved_by,
            requested_by_name=resolution.resolved_by.username,
            requested_at=resolution.resolved_at,
            request_reason=resolution.note,
            excluded={"opener_signers": signers} if signers else {},
            status="approved",
            decided_by=None,
            decided_at=resolution.resolved_at,
            decision_reason=BACKFILLED_RESOLUTION,
        )
        InvestigationResolution.objects.filter(pk=resolution.pk).update(approval=approval)


def approvals_links_clear(apps, schema_editor):
    SlipSignature = apps.get_model("accounting", "SlipSignature")
    InvestigationResolution = apps.get_model("accounting", "InvestigationResolution")
    SlipSignature.objects.filter(approval__isnull=False).update(approval=None)
    InvestigationResolution.objects.filter(approval__isnull=False).update(approval=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0005_slip_void_and_resolution_approvals"),
        ("casino", "0013_approval"),
    ]

    operations = [migrations.RunPython(approvals_backfill, approvals_links_clear)]
