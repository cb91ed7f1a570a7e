"""Celery tasks of the live tables. They take ids, call one service, and are safe to run twice."""

from __future__ import annotations

from celery import shared_task


@shared_task
def apply_overdue_defaults(round_id: int) -> int:
    """At a decision deadline: apply the table's default (betting closed, insurance declined,
    stand). A no-op before the deadline or when a command already applied it."""
    from tables.services.commands import round_apply_overdue_defaults

    return len(round_apply_overdue_defaults(round_id=round_id))
