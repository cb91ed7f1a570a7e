"""The resolution of a variance investigation (an opener far from the previous closer): proposed
by a pit boss, decided by a second person."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import InvestigationAlreadyResolvedError
from accounting.locking import investigation_lock
from accounting.models import InvestigationResolution, TrayCountSignature, VarianceInvestigation
from accounting.selectors import INVESTIGATION_SUBJECT
from casino.actors import Actor, require_staff
from casino.errors import ApprovalNotFoundError, reason_required
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request
from casino.models import Approval


def _resolution_refused_if_resolved(investigation: VarianceInvestigation) -> None:
    if InvestigationResolution.objects.filter(investigation=investigation).exists():
        raise InvestigationAlreadyResolvedError(_("This investigation is resolved already."))


def investigation_resolve(*, investigation: VarianceInvestigation, note: str, actor: Actor) -> Approval:
    """A pit boss proposes the resolution of a variance investigation with a note saying what
    was found. It waits for a second person (``casino.four_eyes``, kind
    ``variance_investigation``: ``view_accounting``, neither the proposer nor a signer of the
    opener that found the variance), decided with :func:`investigation_resolution_decide`; the
    table opens again once it is approved. Returns the pending approval.

    Needs ``supervise_pit``. Locks the investigation, then the audit chain. Raises
    ``permission_denied``, ``reason_required``, ``investigation_already_resolved``,
    ``approval_pending`` (a resolution waits already)."""
    require_staff(actor, "supervise_pit")
    note = reason_required(note, _("A resolution says what was found."))
    with transaction.atomic():
        investigation_lock(investigation.pk)
        _resolution_refused_if_resolved(investigation)
        table = investigation.table
        signers = sorted(
            TrayCountSignature.objects.filter(count_id=investigation.opener_id).values_list(
                "signer_id", flat=True
            )
        )
        approval = approval_request(
            actor=actor,
            casino=table.casino,
            kind="variance_investigation",
            subject_type=INVESTIGATION_SUBJECT,
            subject_id=investigation.pk,
            summary=f"Resolution of the opener variance of {investigation.variance_minor} at {table.name}",
            place=table.name,
            amount_minor=investigation.variance_minor,
            reason=note,
            excluded={"opener_signers": signers},
        )
        actor.audit(
            action="accounting.investigation_resolution_proposed",
            object_type="accounting.varianceinvestigation",
            object_id=investigation.pk,
            after={
                "table_id": investigation.table_id,
                "variance_minor": investigation.variance_minor,
                "note": note,
                **approval_audit_fields(approval),
            },
        )
    return approval


def investigation_resolution_decide(
    *, investigation: VarianceInvestigation, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> InvestigationResolution | None:
    """A second person decides a proposed resolution (``approval_id``, the approval it waits
    for): approved, the investigation is resolved with the proposal's note (returned) and the
    table may open again; rejected with a reason, it stays open for another proposal (``None``).
    Who may decide is ``casino.four_eyes``'s rule.

    Locks the investigation, the approval, then the audit chain. Raises ``approval_not_found``
    (no such proposal for this investigation), ``investigation_already_resolved``,
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``."""
    with transaction.atomic():
        investigation_lock(investigation.pk)
        proposal = Approval.objects.filter(
            pk=approval_id,
            kind="variance_investigation",
            subject_type=INVESTIGATION_SUBJECT,
            subject_id=str(investigation.pk),
        ).first()
        if proposal is None:
            raise ApprovalNotFoundError(_("No resolution of this investigation waits for this decision."))
        _resolution_refused_if_resolved(investigation)
        now = timezone.now()
        decided = approval_decide(
            approval_id=approval_id, actor=actor, approve=approve, reason=reason, at=now
        )
        resolution = None
        if approve:
            assert decided.decided_by is not None  # approval_decide: a staff member decided
            resolution = InvestigationResolution.objects.create(
                investigation=investigation,
                note=decided.request_reason,
                resolved_by=decided.decided_by,
                resolved_at=now,
                approval=decided,
            )
        actor.audit(
            action="accounting.investigation_resolved"
            if approve
            else "accounting.investigation_resolution_rejected",
            object_type="accounting.varianceinvestigation",
            object_id=investigation.pk,
            after={
                "table_id": investigation.table_id,
                "variance_minor": investigation.variance_minor,
                "note": decided.request_reason,
                **approval_audit_fields(decided),
            },
        )
    return resolution
