"""The migration that gives the slip voids and investigation resolutions recorded before they went
through four eyes their approvals: pending and decided, linked, nothing else changed."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.utils import timezone

from accounting.models import (
    CountKind,
    InvestigationResolution,
    SignatureRole,
    SlipKind,
    SlipSignature,
    SlipStep,
    VarianceInvestigation,
)
from accounting.selectors import slip_state, slip_void_waiting
from accounting.services import slip_request, slip_void_decide
from casino.actors import Actor
from casino.models import Approval, Table
from tests.accounting.conftest import TRAY, counted, opened

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("bj1_open")]

backfill = importlib.import_module(
    "accounting.migrations.0006_backfill_approvals_of_slip_voids_and_resolutions"
)


def signed_as_before(slip: Any, step: str, signer: Any, reason: str) -> SlipSignature:
    return SlipSignature.objects.create(
        slip=slip,
        step=step,
        role=SignatureRole.PIT_BOSS,
        signer=signer,
        signed_at=timezone.now(),
        reason=reason,
    )


def test_the_voids_and_resolutions_recorded_before_get_their_approvals(
    table: Table, dealer: Any, pit_boss: Any, pit_boss_two: Any, accountant: Any
) -> None:
    # given, as the back office wrote them before: an investigation resolved by one pit boss, a
    # void proposed and confirmed, and a void proposed only
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    investigation = VarianceInvestigation.objects.get()
    resolution = InvestigationResolution.objects.create(
        investigation=investigation,
        note="a chip under the float",
        resolved_by=pit_boss,
        resolved_at=timezone.now(),
    )
    voided = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 500}, actor=Actor.staff(pit_boss))
    proposed = signed_as_before(voided, SlipStep.VOID_PROPOSED, pit_boss, "asked twice")
    confirmed = signed_as_before(voided, SlipStep.VOIDED, pit_boss_two, "asked twice")
    waiting = slip_request(table=table, kind=SlipKind.CREDIT, amounts={100: 700}, actor=Actor.staff(pit_boss))
    pending = signed_as_before(waiting, SlipStep.VOID_PROPOSED, pit_boss_two, "wrong table")

    # when the migration runs (twice: the second run finds nothing left to do)
    backfill.approvals_backfill(apps, None)
    backfill.approvals_backfill(apps, None)

    # then the confirmed void has an approved approval, requested and decided by its two signers
    approvals = list(Approval.objects.order_by("pk"))
    assert len(approvals) == 3
    first, second, third = approvals
    assert (first.kind, first.subject_id, first.status, first.requested_by, first.decided_by) == (
        "slip_void",
        str(voided.pk),
        "approved",
        pit_boss,
        pit_boss_two,
    )
    assert (first.request_reason, first.amount_minor, first.place, first.decided_at) == (
        "asked twice",
        500,
        "BJ1",
        confirmed.signed_at,
    )
    assert set(SlipSignature.objects.filter(approval=first).values_list("pk", flat=True)) == {
        proposed.pk,
        confirmed.pk,
    }
    # the void only proposed waits, and is decided as any other
    assert (second.kind, second.subject_id, second.status, second.requested_by) == (
        "slip_void",
        str(waiting.pk),
        "pending",
        pit_boss_two,
    )
    assert SlipSignature.objects.get(pk=pending.pk).approval_id == second.pk
    assert slip_void_waiting(waiting) == second
    slip_void_decide(slip=waiting, approval_id=second.pk, actor=Actor.staff(accountant), approve=True)
    assert slip_state(waiting) == "voided"
    # the resolution: approved when it was written, by nobody else, the opener's signers named
    assert (third.kind, third.subject_id, third.status, third.requested_by, third.decided_by) == (
        "variance_investigation",
        str(investigation.pk),
        "approved",
        pit_boss,
        None,
    )
    assert (third.request_reason, third.decided_at, third.decision_reason) == (
        "a chip under the float",
        resolution.resolved_at,
        backfill.BACKFILLED_RESOLUTION,
    )
    assert third.excluded == {"opener_signers": sorted([dealer.pk, pit_boss.pk])}
    assert InvestigationResolution.objects.get(pk=resolution.pk).approval_id == third.pk
