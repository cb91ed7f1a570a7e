"""The four-eyes approvals of held payout lines (``casino.Approval``, kind ``payout``): read by the
settlement that decides them and by the pit's selectors that list them."""

from __future__ import annotations

from collections.abc import Iterable

from casino.models import Approval

PAYOUT_SUBJECT = "tables.payoutline"


def payout_approvals(line_ids: Iterable[int]) -> dict[int, Approval]:
    """The approval each of these held payout lines waits (or waited) on: the pending one, else
    the latest decided (a line waits once), by line id. One query."""
    found: dict[int, Approval] = {}
    rows = Approval.objects.filter(
        kind="payout", subject_type=PAYOUT_SUBJECT, subject_id__in=[str(pk) for pk in line_ids]
    ).order_by("pk")
    for approval in rows:
        line_id = int(approval.subject_id)
        if line_id not in found or not found[line_id].is_pending:
            found[line_id] = approval
    return found
