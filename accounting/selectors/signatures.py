"""The signatures waiting, of counts, drop counts and slips, at their tables: for the floor, and
for each person's count of what waits for them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet

from accounting.models import DropCount, SlipStep, TrayCount
from accounting.selectors.roles import (
    COUNT_ROLES,
    DROP_ROLE_PERMISSIONS,
    ROLE_PERMISSIONS,
    SLIP_STEP_PERMISSIONS,
)
from accounting.selectors.slips import slip_state, slip_steps, slips_with_steps
from casino.models import GamingDayClose, Table


@dataclass(frozen=True)
class SignatureWaiting:
    """A signature that a count, a drop count or a slip waits for, at its table: ``kind``
    (``opener``, ``closer``, ``drop_count``, ``fill``, ``credit``), ``waits_for`` (the missing
    roles of a count, ``issued``, ``received`` or ``voided`` for a slip), the permissions any of
    which signs it, and who may not (who signed the step before)."""

    kind: str
    object_id: int
    table: Table
    amount_minor: int
    gaming_day: dt.date
    since: dt.datetime
    waits_for: tuple[str, ...]
    permissions: tuple[str, ...]
    signed_by: frozenset[int]
    number: str = ""
    shift: int | None = None

    def may_sign(self, user: User | AnonymousUser) -> bool:
        return (
            user.is_authenticated
            and user.pk not in self.signed_by
            and any(user.has_perm(f"casino.{codename}") for codename in self.permissions)
        )


def _closed_days(casino_id: int) -> QuerySet[GamingDayClose, dt.date]:
    return GamingDayClose.objects.filter(casino_id=casino_id).values_list("gaming_day", flat=True)


def _counts_waiting(
    counts: QuerySet[Any], kind: str | None, permissions: Mapping[str, tuple[str, ...]]
) -> list[SignatureWaiting]:
    """The counts (tray or drop box counts: two signatures, one per role, of ``permissions`` in
    the order of signing) of open days not signed twice, each waiting for its missing roles."""
    waiting = []
    for count in (
        counts.annotate(signed=Count("signatures"))
        .filter(signed__lt=len(permissions))
        .select_related("table")
        .prefetch_related("signatures")
    ):
        signatures = list(count.signatures.all())
        signed = {signature.role for signature in signatures}
        missing = tuple(role for role in permissions if role not in signed)
        waiting.append(
            SignatureWaiting(
                kind=kind or count.kind,
                object_id=count.pk,
                table=count.table,
                amount_minor=count.total_minor,
                gaming_day=count.gaming_day,
                since=count.counted_at,
                waits_for=missing,
                permissions=tuple(codename for role in missing for codename in permissions[role]),
                signed_by=frozenset(signature.signer_id for signature in signatures),
                shift=count.shift,
            )
        )
    return waiting


# The step a slip waits for after its last one, and the step whose signer may not sign it.
_SLIP_NEXT = {
    SlipStep.REQUESTED: (SlipStep.ISSUED, SlipStep.REQUESTED),
    SlipStep.ISSUED: (SlipStep.RECEIVED, SlipStep.ISSUED),
}


def _slips_waiting(casino_id: int) -> list[SignatureWaiting]:
    slips = (
        slips_with_steps()
        .filter(casino_id=casino_id)
        .exclude(gaming_day__in=_closed_days(casino_id))
        .exclude(signatures__step__in=[SlipStep.RECEIVED, SlipStep.VOIDED])
    )
    waiting = []
    for slip in slips:
        steps = slip_steps(slip)
        state = slip_state(slip)
        if state not in _SLIP_NEXT:
            # A proposed void waits as a four-eyes approval (kind slip_void), not as a signature.
            continue
        step, before = _SLIP_NEXT[SlipStep(state)]
        waiting.append(
            SignatureWaiting(
                kind=slip.kind,
                object_id=slip.pk,
                table=slip.table,
                amount_minor=slip.total_minor,
                gaming_day=slip.gaming_day,
                since=steps[before].signed_at,
                waits_for=(str(step),),
                permissions=SLIP_STEP_PERMISSIONS[step],
                signed_by=frozenset({steps[before].signer_id}),
                number=f"{slip.year}-{slip.number}",
                shift=slip.shift,
            )
        )
    return waiting


def signatures_waiting(*, casino_id: int) -> list[SignatureWaiting]:
    """Every signature the casino's open gaming days wait for: tray counts (openers, closers)
    and drop counts signed once, slips requested or issued (a proposed void waits as an approval,
    ``casino.four_eyes``); oldest first,
    each with its table. A closed day's are left out (nothing signs in it any more). Four
    queries and their prefetches."""
    closed = _closed_days(casino_id)
    trays = TrayCount.objects.filter(table__casino_id=casino_id).exclude(gaming_day__in=closed)
    drops = DropCount.objects.filter(table__casino_id=casino_id).exclude(gaming_day__in=closed)
    waiting = [
        *_counts_waiting(trays, None, {role: (ROLE_PERMISSIONS[role],) for role in COUNT_ROLES}),
        *_counts_waiting(drops, "drop_count", DROP_ROLE_PERMISSIONS),
        *_slips_waiting(casino_id),
    ]
    return sorted(waiting, key=lambda entry: (entry.since, entry.kind, entry.object_id))


def signatures_waiting_for(*, user: User | AnonymousUser, casino_id: int) -> list[SignatureWaiting]:
    """The signatures waiting that ``user`` may give: they hold a permission of the step and did
    not sign the step before it."""
    return [entry for entry in signatures_waiting(casino_id=casino_id) if entry.may_sign(user)]
