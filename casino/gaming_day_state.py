"""Whether a gaming day takes writes: open, or closed; how a day closes and how it reopens.

The venue owns its gaming day: which day an instant belongs to (``casino.gaming_days``), and its
state, here, so that every app asks the same question in the same way (the wallet and the tables
know nothing of the accounting, which signs the close):

- **A closed day takes no write** (:func:`gaming_day_writable`, the first lock of every command
  that writes a record a day's figures read: a ledger transfer, a bet or a stake held, a round
  opened, a player's sign-in, a tip, a count, a slip, a drop count, a buy-in at the table; the
  list, with the code of each, is ``docs/controls.md``, "Gaming day"). A write
  belongs to the gaming day of the moment it is made, and also to the day of the older record it
  writes about (a count's signature, a slip's next step, a drop count of an earlier shift, a tip of
  a round, a correction of a buy-in, the reversal of a transfer). A write for a closed day is
  refused (``gaming_day_closed``): it never moves into the next day, which would put one day's
  play into another's figures. A mistake found in a closed day is corrected by a new record of
  the open day naming the old one, as a count's correction does.
- **A day closes once it has ended and every earlier day is closed**
  (:func:`gaming_day_close_check`): its last shift ends at the next day's start
  (``gaming_day_not_ended``), and the days since the casino's first are closed in order
  (``gaming_day_earlier_open``). The accounting's two signatures close it
  (``accounting.services.gaming_day_sign``, which writes the close with :func:`gaming_day_close`).
  Since a day closes only after its end, a write made now always falls in an open day: the
  refusal meets the writes for an earlier day, and a write that was on its way when its day
  closed (the closing waits for the writes holding the day's lock; a write that comes after sees
  the day closed).
- **A closed day reopens only through four eyes** (:func:`gaming_day_reopen_request`, kind
  ``day_reopen`` of ``casino/controls.toml``, and :func:`gaming_day_reopen_decide`): someone who
  signs gaming days asks with a reason, someone else who does approves; the latest closed day
  reopens first (``gaming_day_later_closed``). The reopened day is signed and closed again as its
  next closing (``GamingDayClose.closing``); its history (:func:`gaming_day_history`) is on the
  accounting's day page and in the day's reports.

Locks (``casino/locking.py``): the day's advisory lock (shared to write, exclusive to close or
reopen), before any row of the command; the approval row after it; the audit chain last.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import (
    ApprovalNotFoundError,
    GamingDayAlreadyClosedError,
    GamingDayClosedError,
    GamingDayEarlierOpenError,
    GamingDayLaterClosedError,
    GamingDayNotClosedError,
    GamingDayNotEndedError,
    reason_required,
)
from casino.four_eyes import approval_audit_fields, approval_check, approval_decide, approval_request
from casino.gaming_days import gaming_day_bounds
from casino.locking import gaming_day_lock
from casino.models import Approval, Casino, GamingDayClose, GamingDayReopening

if TYPE_CHECKING:
    from django.contrib.auth.models import User

REOPEN_KIND = "day_reopen"
REOPEN_SUBJECT = "casino.gamingday"


# ---------------------------------------------------------------- reads


def _closes_standing(casino_id: int) -> QuerySet[GamingDayClose]:
    """The casino's closings that no reopening undid."""
    return GamingDayClose.objects.filter(casino_id=casino_id, reopening__isnull=True)


def gaming_day_close_standing(casino_id: int, day: dt.date) -> GamingDayClose | None:
    """The closing of ``day`` that stands (None when the day is open)."""
    return _closes_standing(casino_id).filter(gaming_day=day).select_related("closed_by").first()


def is_gaming_day_closed(casino_id: int, day: dt.date) -> bool:
    return _closes_standing(casino_id).filter(gaming_day=day).exists()


def gaming_day_first(casino: Casino) -> dt.date:
    """The casino's first gaming day: the day it was set up in. Every day from it on is closed
    in order."""
    return casino.gaming_day(casino.created_at)


def gaming_days_open(casino: Casino, *, until: dt.date) -> list[dt.date]:
    """The open days from the casino's first to ``until`` (included), oldest first."""
    first = gaming_day_first(casino)
    closed = set(
        _closes_standing(casino.pk)
        .filter(gaming_day__gte=first, gaming_day__lte=until)
        .values_list("gaming_day", flat=True)
    )
    return [
        day
        for day in (first + dt.timedelta(days=offset) for offset in range((until - first).days + 1))
        if day not in closed
    ]


def gaming_day_closing_number(casino_id: int, day: dt.date) -> int:
    """The closing that the day's next close signatures are for: 1, then one more after each
    reopening."""
    return GamingDayClose.objects.filter(casino_id=casino_id, gaming_day=day).count() + 1


@dataclass(frozen=True)
class DayEvent:
    """A closing or a reopening of a gaming day, as its history shows it: when, by whom; for a
    reopening also who asked for it and why."""

    kind: str  # "closed" or "reopened"
    at: dt.datetime
    closing: int
    by: str
    asked_by: str = ""
    reason: str = ""


def gaming_day_history(casino_id: int, day: dt.date) -> list[DayEvent]:
    """The closings and reopenings of a gaming day, in order."""
    return gaming_days_history(casino_id, [day]).get(day, [])


def gaming_days_history(casino_id: int, days: Iterable[dt.date]) -> dict[dt.date, list[DayEvent]]:
    """The closings and reopenings of each of ``days`` that has any, in order, by day (one
    query)."""
    history: dict[dt.date, list[DayEvent]] = {}
    closes = (
        GamingDayClose.objects.filter(casino_id=casino_id, gaming_day__in=list(days))
        .select_related("closed_by", "reopening__approval__decided_by")
        .order_by("gaming_day", "closing")
    )
    for close in closes:
        events = history.setdefault(close.gaming_day, [])
        events.append(DayEvent("closed", close.closed_at, close.closing, close.closed_by.get_username()))
        reopening = _reopening_of(close)
        if reopening is not None:
            approval = reopening.approval
            events.append(
                DayEvent(
                    "reopened",
                    reopening.reopened_at,
                    close.closing,
                    approval.decided_by.get_username() if approval.decided_by else "",
                    asked_by=approval.requested_by_name,
                    reason=approval.request_reason,
                )
            )
    return history


def _reopening_of(close: GamingDayClose) -> GamingDayReopening | None:
    try:
        return close.reopening
    except GamingDayReopening.DoesNotExist:
        return None


def gaming_day_reopen_requests(casino_id: int) -> list[Approval]:
    """The reopenings of the casino's days that wait for a second person, oldest first."""
    return list(
        Approval.objects.filter(casino_id=casino_id, kind=REOPEN_KIND, status=Approval.Status.PENDING)
        .select_related("requested_by")
        .order_by("pk")
    )


def reopen_request_day(approval: Approval) -> dt.date:
    """The gaming day a reopening's approval is for."""
    return dt.date.fromisoformat(approval.subject_id.split(":", 1)[1])


# ---------------------------------------------------------------- writes


def gaming_day_writable(
    *, casino: Casino, also: Iterable[dt.date] = (), at: dt.datetime | None = None
) -> dt.date:
    """The gaming day of a write made now (or at ``at``), checked open for it, with the days in
    ``also`` (those of the older records the write belongs to): the one check of every write.

    Call it first in the command's transaction (a round's command: after the round's lock). Takes
    the days' shared advisory locks in date order (a closing of one of them, which takes its lock
    exclusively, waits for the write, and a write that waited for a closing sees the day closed),
    then refuses ``gaming_day_closed`` naming the first closed day. Writes nothing. Returns the
    gaming day of the moment."""
    today = casino.gaming_day(at)
    days = sorted({today, *also})
    for day in days:
        gaming_day_lock(casino_id=casino.pk, day=day)
    closed = sorted(
        set(_closes_standing(casino.pk).filter(gaming_day__in=days).values_list("gaming_day", flat=True))
    )
    if closed:
        raise GamingDayClosedError(
            f"The gaming day {closed[0].isoformat()} is closed: nothing more is written into it.",
            day=closed[0].isoformat(),
        )
    return today


def gaming_day_close_check(*, casino: Casino, day: dt.date, at: dt.datetime | None = None) -> int:
    """Refuse a closing of ``day`` that the rule forbids, and return the closing its signatures
    are for: the day is open (``gaming_day_already_closed``), it has ended, its last shift with it,
    at the next day's start (``gaming_day_not_ended``), and every day from the casino's first to
    the day before is closed (``gaming_day_earlier_open``, naming the earliest open one). Call it
    under the day's exclusive lock. Writes nothing."""
    if is_gaming_day_closed(casino.pk, day):
        raise GamingDayAlreadyClosedError("This gaming day is closed already.", day=day.isoformat())
    _starts_at, ends_at = gaming_day_bounds(casino, day)
    if (at or timezone.now()) < ends_at:
        local_end = timezone.localtime(ends_at, casino.zone)
        raise GamingDayNotEndedError(
            f"The gaming day {day.isoformat()} closes after its last shift, which ends at "
            f"{local_end:%H:%M} on {local_end.date().isoformat()}.",
            day=day.isoformat(),
            ends_at=f"{local_end:%H:%M}",  # the casino's local time, as the sentence says it
            end_day=local_end.date().isoformat(),
        )
    earlier = gaming_days_open(casino, until=day - dt.timedelta(days=1))
    if earlier:
        raise GamingDayEarlierOpenError(
            f"The gaming day {earlier[0].isoformat()} is open: close the days in order, "
            f"{earlier[0].isoformat()} first.",
            day=day.isoformat(),
            open_day=earlier[0].isoformat(),
        )
    return gaming_day_closing_number(casino.pk, day)


def gaming_day_close(
    *, casino: Casino, day: dt.date, closed_by: User, at: dt.datetime | None = None
) -> GamingDayClose:
    """Close ``day``: checked by :func:`gaming_day_close_check`, then recorded as its next
    closing. Call it in the closing command's transaction (``accounting.services.gaming_day_sign``,
    the second signature, which audits the command) under the day's exclusive lock."""
    moment = at or timezone.now()
    closing = gaming_day_close_check(casino=casino, day=day, at=moment)
    return GamingDayClose.objects.create(
        casino=casino, gaming_day=day, closing=closing, closed_at=moment, closed_by=closed_by
    )


def _subject_id(casino: Casino, day: dt.date) -> str:
    return f"{casino.pk}:{day.isoformat()}"


def _reopenable(casino: Casino, day: dt.date) -> GamingDayClose:
    """The standing closing of ``day``, which may be reopened: refuses ``gaming_day_not_closed``
    and ``gaming_day_later_closed``."""
    close = gaming_day_close_standing(casino.pk, day)
    if close is None:
        raise GamingDayNotClosedError(f"The gaming day {day.isoformat()} is open.", day=day.isoformat())
    later = _closes_standing(casino.pk).filter(gaming_day__gt=day).order_by("-gaming_day").first()
    if later is not None:
        raise GamingDayLaterClosedError(
            f"The gaming day {later.gaming_day.isoformat()} is closed: the latest closed day reopens first.",
            day=day.isoformat(),
            later_day=later.gaming_day.isoformat(),
        )
    return close


def gaming_day_reopen_request(*, casino: Casino, day: dt.date, actor: Actor, reason: str) -> Approval:
    """Ask for a closed day to be reopened, saying why: a pending approval of kind
    ``day_reopen``, which someone else holding ``sign_gaming_day`` decides
    (:func:`gaming_day_reopen_decide`). The day stays closed until then.

    Needs ``sign_gaming_day``. Locks the day exclusively, then the audit chain. Raises
    ``permission_denied``, ``reason_required``, ``gaming_day_not_closed``,
    ``gaming_day_later_closed``, ``approval_pending`` (asked already)."""
    require_staff(actor, "sign_gaming_day")
    cleaned = reason_required(reason, "A reopening says why.")
    with transaction.atomic():
        gaming_day_lock(casino_id=casino.pk, day=day, exclusive=True)
        close = _reopenable(casino, day)
        approval = approval_request(
            actor=actor,
            casino=casino,
            kind=REOPEN_KIND,
            subject_type=REOPEN_SUBJECT,
            subject_id=_subject_id(casino, day),
            summary=f"Reopen the gaming day {day.isoformat()}",
            place=day.isoformat(),
            before={"closing": close.closing, "closed_at": close.closed_at.isoformat()},
            reason=cleaned,
        )
        actor.audit(
            action="casino.gaming_day_reopen_requested",
            object_type="casino.gamingdayclose",
            object_id=close.pk,
            after={
                "casino_id": casino.pk,
                "gaming_day": day.isoformat(),
                "closing": close.closing,
                "approval_id": approval.pk,
                "reason": cleaned,
            },
        )
    return approval


def gaming_day_reopen_decide(
    *, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> GamingDayReopening | None:
    """Decide a reopening: approved, the day's standing closing is undone (a
    ``GamingDayReopening`` naming it and the approval, returned) and the day takes writes again
    until it is closed once more; rejected (with a reason), it stays closed (None).

    The second person holds ``sign_gaming_day`` and did not ask (``casino.four_eyes``). Locks the
    day exclusively, the approval, then the audit chain. Raises ``approval_not_found``,
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``, and
    for an approval ``gaming_day_not_closed`` or ``gaming_day_later_closed`` (a later day closed
    meanwhile): nothing written."""
    approval = Approval.objects.select_related("casino").filter(pk=approval_id, kind=REOPEN_KIND).first()
    if approval is None:
        raise ApprovalNotFoundError(f"There is no reopening {approval_id}.")
    casino, day = approval.casino, reopen_request_day(approval)
    with transaction.atomic():
        gaming_day_lock(casino_id=casino.pk, day=day, exclusive=True)
        approval_check(approval=approval, actor=actor)
        close = _reopenable(casino, day) if approve else gaming_day_close_standing(casino.pk, day)
        decided = approval_decide(approval_id=approval.pk, actor=actor, approve=approve, reason=reason)
        reopening = None
        if approve:
            assert close is not None  # _reopenable
            assert decided.decided_at is not None  # decided
            reopening = GamingDayReopening.objects.create(
                close=close, approval=decided, reopened_at=decided.decided_at
            )
        actor.audit(
            action="casino.gaming_day_reopened" if approve else "casino.gaming_day_reopen_rejected",
            object_type="casino.gamingdayclose",
            object_id=close.pk if close is not None else "",
            after={
                "casino_id": casino.pk,
                "gaming_day": day.isoformat(),
                "closing": close.closing if close is not None else None,
                **approval_audit_fields(decided),
            },
        )
    return reopening
