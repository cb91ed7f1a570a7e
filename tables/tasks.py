"""Celery tasks of the live tables. They take ids, call one service, and are safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

from tables.round_hash import round_verify
from tables.services.commands import round_apply_overdue_defaults

logger = logging.getLogger(__name__)


@shared_task
def apply_overdue_defaults(round_id: int) -> int:
    """At a decision deadline: apply the table's default (betting closed, insurance declined,
    stand). A no-op before the deadline or when a command already applied it."""
    return len(round_apply_overdue_defaults(round_id=round_id))


@shared_task
def round_verify_task() -> dict[str, object]:
    """Nightly check of the finished rounds against the audit chain (Celery beat): every round,
    event and payout line that differs is logged as an error for the on-call."""
    result = round_verify()
    for difference in result.differences:
        logger.error("round differs from the audit chain: %s", difference)
    logger.info(
        "rounds: %s verified, %s differ from the audit chain",
        result.checked,
        len({difference.round_id for difference in result.differences}),
    )
    return {
        "checked": result.checked,
        "differing_rounds": sorted({difference.round_id for difference in result.differences}),
    }
