import logging

from celery import shared_task
from django.core.exceptions import ImproperlyConfigured

from casino.audit import audit_anchor, audit_verify
from casino.errors import AuditChainBrokenError
from casino.jobs import job_run

logger = logging.getLogger(__name__)


@shared_task
def audit_verify_task() -> dict[str, object]:
    """Nightly check of the audit chain; a broken chain or an anchor that cannot be trusted is
    logged as an error for the on-call."""
    result = audit_verify()
    if result.broken_sequence is not None:
        logger.error("audit trail broken at #%s: %s", result.broken_sequence, result.reason)
    for problem in result.anchor_problems:
        logger.error("audit anchor not trusted: %s", problem)
    logger.info(
        "audit trail: %s records checked, %s anchors, %s records not yet anchored",
        result.checked,
        result.anchors_checked,
        result.unanchored,
    )
    return {
        "checked": result.checked,
        "broken_sequence": result.broken_sequence,
        "anchor_problems": list(result.anchor_problems),
        "unanchored": result.unanchored,
    }


@shared_task
def audit_anchor_task() -> str:
    """Anchor the chain's head (Celery beat, every AUDIT_ANCHOR_INTERVAL_SECONDS); the anchor line
    goes to the log as well as to its file. A refusal is logged as an error: the chain since the
    last anchor does not verify, or this worker lacks a key (production never generates one: a
    missing AUDIT_ANCHOR_SIGNING_KEY_FILE is named at every run until it is mounted)."""
    try:
        anchor = audit_anchor()
    except AuditChainBrokenError as error:
        logger.error("audit trail not anchored: %s", error.message)
        return ""
    except ImproperlyConfigured as error:
        logger.error(
            "audit trail not anchored: %s (the worker that runs this task needs the anchors' signing "
            "key, AUDIT_ANCHOR_SIGNING_KEY_FILE, and the audit HMAC keys)",
            error,
        )
        return ""
    if anchor is None:
        return ""
    logger.info("audit anchor %s", anchor.line())
    return anchor.line()


@shared_task
def job_run_task(job_id: int) -> str:
    """Run a background job (``casino.jobs.job_run``); a job already running or finished is left
    as it is, so a task delivered twice runs it once. Returns the job's status."""
    return str(job_run(job_id).status)
