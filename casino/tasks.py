import logging

from celery import shared_task

from casino.audit import audit_verify

logger = logging.getLogger(__name__)


@shared_task
def audit_verify_task() -> dict[str, object]:
    """Nightly check of the audit chain; a broken chain is logged as an error for the on-call."""
    result = audit_verify()
    if not result.is_intact:
        logger.error("audit trail broken at #%s: %s", result.broken_sequence, result.reason)
    return {"checked": result.checked, "broken_sequence": result.broken_sequence}
