"""The live tables' audit job (``casino.jobs``): the replay of the rounds settled in a time range,
registered under the venue's kind name (``casino.audit_jobs.ROUND_REPLAY``) from
``TablesConfig.ready``; its result page is the auditor's (``casino.audit_views``). The house edge
of a rule-set version is the tables' other job (``tables.odds_jobs``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from casino.audit_jobs import ROUND_REPLAY
from casino.jobs import Progress, register
from tables.models import Round, RoundStatus
from tables.replay import round_replay_check

# The differences kept per round that does not reproduce: the round's page shows them all.
DIFFERENCES_KEPT = 10
# Rounds replayed between two progress reports.
REPLAY_PROGRESS_EVERY = 20


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


def register_tables_jobs() -> None:
    register(ROUND_REPLAY, round_replay)
