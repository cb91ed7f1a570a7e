"""Fills and credits: a slip's steps and state, the void that waits for a second person, the
slips in flight, the recent ones, and the slip report of a year."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from accounting.models import Slip, SlipCounter, SlipSignature, SlipStep
from casino.models import Approval, Casino, Table


def _is_rejected_proposal(signature: SlipSignature) -> bool:
    approval = signature.approval if signature.approval_id is not None else None
    return approval is not None and approval.status == Approval.Status.REJECTED


def slip_steps(slip: Slip) -> dict[str, SlipSignature]:
    """The slip's steps in effect, by step: a void's proposal that a second person rejected is no
    longer a step of the slip (its signature and the approval keep the history); of several
    proposals the latest counts."""
    return {
        signature.step: signature
        for signature in slip.signatures.all()
        if not _is_rejected_proposal(signature)
    }


def slip_void_proposal(slip: Slip) -> SlipSignature | None:
    """The slip's latest proposal of a void, whatever its approval's decision."""
    proposals = [signature for signature in slip.signatures.all() if signature.step == SlipStep.VOID_PROPOSED]
    return proposals[-1] if proposals else None


def slip_void_waiting(slip: Slip) -> Approval | None:
    """The approval a proposed void of the slip waits for (``casino.four_eyes``), if any."""
    proposal = slip_void_proposal(slip)
    if proposal is None or proposal.approval_id is None:
        return None
    approval = proposal.approval
    return approval if approval is not None and approval.is_pending else None


def slip_state(slip: Slip) -> str:
    """The slip's last step: requested, issued, received, void_proposed or voided."""
    steps = slip_steps(slip)
    for step in (SlipStep.VOIDED, SlipStep.RECEIVED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED):
        if step in steps:
            return str(step)
    return str(SlipStep.REQUESTED)


def slips_with_steps() -> QuerySet[Slip]:
    return Slip.objects.select_related("table").prefetch_related(
        "lines",
        Prefetch(
            "signatures",
            queryset=SlipSignature.objects.select_related(
                "signer", "transfer", "approval__requested_by", "approval__decided_by"
            ),
        ),
    )


OPEN_SLIP_STATES = frozenset({SlipStep.REQUESTED, SlipStep.ISSUED, SlipStep.VOID_PROPOSED})


def slips_open(casino: Casino, *, table: Table | None = None) -> list[Slip]:
    """The slips not yet received nor voided, oldest first."""
    slips = (
        slips_with_steps()
        .filter(casino=casino)
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
    )
    if table is not None:
        slips = slips.filter(table=table)
    return list(slips.order_by("year", "number"))


def slip_signed_last(table_id: int) -> int:
    """The id of the last step signed on any slip of the table (0 for none): what a screen that
    shows the table's slips in flight compares to know they changed. One statement."""
    last = SlipSignature.objects.filter(slip__table_id=table_id).order_by("-pk").values_list("pk", flat=True)
    return last.first() or 0


def slips_recent(casino: Casino, *, limit: int = 20) -> list[Slip]:
    return list(slips_with_steps().filter(casino=casino).order_by("-year", "-number")[:limit])


@dataclass(frozen=True)
class SlipReport:
    """A year's slips: each number from 1 to the counter's last, the slip holding it (None for a
    number no slip holds: there should be none), its state; the voids; the unused numbers."""

    year: int
    last_number: int
    rows: list[tuple[int, Slip | None, str]]
    voids: list[Slip]
    unused: list[int]
    totals_minor: dict[str, int]


def slip_report(casino: Casino, year: int) -> SlipReport:
    counter = SlipCounter.objects.filter(casino=casino, year=year).first()
    last_number = counter.last_number if counter else 0
    slips = {slip.number: slip for slip in slips_with_steps().filter(casino=casino, year=year)}
    rows: list[tuple[int, Slip | None, str]] = []
    voids, unused = [], []
    totals = {"fill": 0, "credit": 0}
    for number in range(1, max([last_number, *slips], default=0) + 1):
        slip = slips.get(number)
        if slip is None:
            unused.append(number)
            rows.append((number, None, "unused"))
            continue
        state = slip_state(slip)
        rows.append((number, slip, state))
        if state == SlipStep.VOIDED:
            voids.append(slip)
        elif state == SlipStep.RECEIVED:
            totals[slip.kind] += slip.total_minor
    return SlipReport(
        year=year, last_number=last_number, rows=rows, voids=voids, unused=unused, totals_minor=totals
    )


def slip_years(casino: Casino) -> list[int]:
    return list(SlipCounter.objects.filter(casino=casino).order_by("-year").values_list("year", flat=True))
