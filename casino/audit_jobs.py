"""The auditor's checks as background jobs (``casino.jobs``): the audit chain, the ledger, and the
replay of the rounds settled in a time range. Each runner returns a JSON-ready summary that names
what is wrong (the record and the reason, the transfers, the rounds); the result pages
(``casino.audit_views``) read it.

The venue names the three kinds and runs the chain check; the app that owns what is checked
registers the runner of its kind from its ``AppConfig.ready``: the ledger check is the wallet's
(``wallet.jobs``), the round replay the live tables' (``tables.jobs``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from casino.audit import audit_verify
from casino.jobs import Progress, register

CHAIN_CHECK = "audit.chain_check"
LEDGER_CHECK = "audit.ledger_check"
ROUND_REPLAY = "audit.round_replay"
AUDIT_JOB_KINDS = (CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY)


def chain_check(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``casino.audit.audit_verify`` over the whole chain, reporting the records walked."""

    def walked(done: int, total: int) -> None:
        progress(done, total, _("Checking the audit records"))

    verification = audit_verify(progress=walked)
    return {
        "is_intact": verification.is_intact,
        "checked": verification.checked,
        "broken_sequence": verification.broken_sequence,
        "reason": verification.reason,
        "unkeyed": verification.unkeyed,
        "anchors_checked": verification.anchors_checked,
        "anchor_problems": list(verification.anchor_problems),
        "last_anchored_sequence": verification.last_anchored_sequence,
        "head_sequence": verification.head_sequence,
        "unanchored": verification.unanchored,
    }


def register_audit_jobs() -> None:
    register(CHAIN_CHECK, chain_check)
