"""The wallet's background job (``casino.jobs``): the auditor's ledger check, registered under the
venue's kind name (``casino.audit_jobs.LEDGER_CHECK``) from ``WalletConfig.ready``; its result page
is the auditor's (``casino.audit_views``)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from casino.audit_jobs import LEDGER_CHECK
from casino.jobs import Progress, register
from wallet.selectors import ledger_verify


def ledger_check(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``wallet.selectors.ledger_verify``: the ledger's invariants and every transfer the audit
    chain does not vouch for (``ledger_forgeries``)."""
    progress(0, 1, _("Checking the ledger"))
    verification = ledger_verify()
    progress(1, 1, _("Checking the ledger"))
    return {
        "is_clean": verification.is_clean,
        "transfers": verification.transfers,
        "postings": verification.postings,
        "accounts": verification.accounts,
        "open_holds": verification.open_holds,
        "offender": verification.offender,
        "forged": [
            {
                "transfer_id": forged.transfer_id,
                "kind": forged.kind,
                "amount_minor": forged.amount_minor,
                "reason": forged.reason,
            }
            for forged in verification.forged
        ],
    }


def register_wallet_jobs() -> None:
    register(LEDGER_CHECK, ledger_check)
