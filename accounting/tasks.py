"""Celery tasks of the pit accounting. They take ids, call one service, and are safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

from accounting.hold import HOLD_CHECK_PROCESS, hold_check
from casino.actors import Actor

logger = logging.getLogger(__name__)


@shared_task
def hold_check_task() -> dict[str, object]:
    """Every hour (Celery beat, ``hold-check``): each table's hold of the previous and the
    current gaming day against the casino's bands; the alerts not raised yet are raised
    (``accounting.hold.hold_check``: once per table, day and kind, so a second run raises none)."""
    raised = hold_check(actor=Actor.automatic(HOLD_CHECK_PROCESS))
    for alert in raised:
        logger.warning(
            "hold alert %s: table %s, %s, %s", alert.pk, alert.table_id, alert.gaming_day, alert.kind
        )
    return {"raised": [alert.pk for alert in raised]}
