"""Celery tasks of the wallet. They take ids (or nothing), call one selector or service, and are
safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

from wallet.selectors import ledger_verify

logger = logging.getLogger(__name__)


@shared_task
def ledger_verify_task() -> dict[str, object]:
    """Nightly check of the ledger (Celery beat): a broken invariant and every transfer the audit
    chain does not vouch for are logged as errors for the on-call."""
    result = ledger_verify()
    if result.offender:
        logger.error("ledger broken: %s", result.offender)
    for forged in result.forged:
        logger.error("forged %s", forged)
    logger.info(
        "ledger: %s transfers, %s postings, %s accounts checked, %s not vouched for by the audit chain",
        result.transfers,
        result.postings,
        result.accounts,
        len(result.forged),
    )
    return {
        "transfers": result.transfers,
        "offender": result.offender,
        "forged": [forged.transfer_id for forged in result.forged],
    }
