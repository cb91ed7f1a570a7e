"""The auditor's checks as background jobs (``casino.jobs``): the audit chain, the ledger, and the
replay of the rounds settled in a time range. Each runner returns a JSON-ready summary that names
what is wrong (the record and the reason, the transfers, the rounds); the result pages read it.

This module knows the wallet and the tables, which the venue's core modules may not import: it is
registered from ``CasinoConfig.ready`` by kind name.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from casino.audit import audit_verify
from casino.jobs import Progress, register
from tables.models import Round, RoundStatus
from tables.replay import round_replay_check
from wallet.selectors import ledger_verify

CHAIN_CHECK = "audit.chain_check"
LEDGER_CHECK = "audit.ledger_check"
ROUND_REPLAY = "audit.round_replay"
AUDIT_JOB_KINDS = (CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY)

# The differences kept per round that does not reproduce: the round's page shows them all.
DIFFERENCES_KEPT = 10
# Rounds replayed between two progress reports.
REPLAY_PROGRESS_EVERY = 20


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


def _moment(value: Any, name: str) -> dt.datetime:
    moment = parse_datetime(str(value)) if value else None
    if moment is None or moment.tzinfo is None:
        raise ValueError(f"{name} must be an ISO datetime with its offset, not {value!r}")
    return moment


def round_replay(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Replay every round settled from ``params["from"]`` (included) to ``params["to"]``
    (excluded), ISO datetimes, in the casino ``params["casino_id"]``, and name the rounds whose
    replay does not reproduce their recorded payout lines (``tables.replay.round_replay_check``)."""
    start = _moment(params.get("from"), "from")
    end = _moment(params.get("to"), "to")
    rounds = Round.objects.filter(
        table__casino_id=params["casino_id"],
        status=RoundStatus.SETTLED,
        settled_at__gte=start,
        settled_at__lt=end,
    ).select_related("table")
    total = rounds.count()
    stage = _("Replaying the settled rounds")
    progress(0, total, stage)
    failed: list[dict[str, Any]] = []
    replayed = 0
    for round_ in rounds.order_by("settled_at", "pk").iterator(chunk_size=200):
        replay = round_replay_check(round_)
        replayed += 1
        if not replay.is_equal:
            failed.append(
                {
                    "round_id": round_.pk,
                    "table": round_.table.name,
                    "number": round_.number,
                    "settled_at": round_.settled_at.isoformat() if round_.settled_at else "",
                    "differences": replay.differences[:DIFFERENCES_KEPT],
                    "differences_count": len(replay.differences),
                }
            )
        if replayed % REPLAY_PROGRESS_EVERY == 0:
            progress(replayed, total, stage)
    progress(replayed, max(total, replayed), stage)
    return {"from": start.isoformat(), "to": end.isoformat(), "replayed": replayed, "failed": failed}


def register_audit_jobs() -> None:
    register(CHAIN_CHECK, chain_check)
    register(LEDGER_CHECK, ledger_check)
    register(ROUND_REPLAY, round_replay)
