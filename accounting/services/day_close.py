"""The close of a gaming day: signed by a pit boss and the accounting office, two people."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import GamingDayHasOpenWorkError, SamePersonSignedTwiceError, SignatureNotNeededError
from accounting.models import DayCloseRole, GamingDaySignature
from accounting.selectors import open_work_of_day
from accounting.services.checks import require_any
from casino.actors import Actor
from casino.gaming_day_state import gaming_day_close, gaming_day_close_check
from casino.locking import gaming_day_lock
from casino.models import Casino, GamingDayClose

# The permission each signature of a day's close needs; a user holding both (a superuser) signs
# for the accounting office first, and still cannot sign twice.
DAY_CLOSE_PERMISSIONS = {DayCloseRole.ACCOUNTANT: "sign_gaming_day", DayCloseRole.PIT_BOSS: "supervise_pit"}


def _day_close_role(signed: Mapping[str, GamingDaySignature], actor: Actor) -> str:
    """The role ``actor`` signs the day's close in. Raises ``permission_denied``,
    ``same_person_signed_twice``, ``signature_not_needed``."""
    roles = [role for role, codename in DAY_CLOSE_PERMISSIONS.items() if actor.has_perm(codename)]
    user = require_any(actor, *DAY_CLOSE_PERMISSIONS.values())
    if any(signature.signed_by_id == user.pk for signature in signed.values()):
        raise SamePersonSignedTwiceError(
            _("You have signed this gaming day's close already: the other signature is someone else's.")
        )
    missing = [role for role in roles if role not in signed]
    if not missing:
        raise SignatureNotNeededError(
            _("The %(role)s has signed this gaming day's close already.") % {"role": _role_name(roles[0])}
        )
    return missing[0]


def _role_name(role: str) -> str:
    return _("accounting office") if role == DayCloseRole.ACCOUNTANT else _("pit boss")


def gaming_day_sign(*, casino: Casino, day: dt.date, actor: Actor) -> GamingDayClose | None:
    """Sign a gaming day's close: a pit boss (``supervise_pit``) and the accounting office
    (``sign_gaming_day``) sign, two different people, in either order. The second signature
    closes the day (``casino.GamingDayClose``, returned; ``None`` while the other signature is
    missing): from then on nothing is written into it (``casino.gaming_day_state``; a correction
    is a new record of an open day naming the old). Each signature finds the day closable by the
    venue's rule (``gaming_day_close_check``: it has ended, its last shift with it, and every
    earlier day is closed) and nothing left open in it. A reopened day is signed again, for its
    next closing. Takes the day's lock exclusively (it waits for the commands writing into the
    day, and they wait for it), then the audit chain. Raises ``permission_denied``,
    ``gaming_day_already_closed``, ``gaming_day_not_ended``, ``gaming_day_earlier_open``,
    ``gaming_day_has_open_work`` (slips not yet received or voided, tray or drop box counts not
    yet signed twice), ``same_person_signed_twice``, ``signature_not_needed``."""
    by = require_any(actor, *DAY_CLOSE_PERMISSIONS.values())
    now = timezone.now()
    with transaction.atomic():
        gaming_day_lock(casino_id=casino.pk, day=day, exclusive=True)
        closing = gaming_day_close_check(casino=casino, day=day, at=now)
        signed = {
            signature.role: signature
            for signature in GamingDaySignature.objects.filter(casino=casino, gaming_day=day, closing=closing)
        }
        role = _day_close_role(signed, actor)
        work = open_work_of_day(casino.pk, day)
        if work["unsigned_counts"] or work["open_slips"] or work["unsigned_drop_counts"]:
            raise GamingDayHasOpenWorkError(
                _(
                    "The gaming day still has %(slips)s slip(s) in flight and %(counts)s count(s) to sign: "
                    "finish or void them first."
                )
                % {
                    "slips": len(work["open_slips"]),
                    "counts": len(work["unsigned_counts"]) + len(work["unsigned_drop_counts"]),
                },
                **work,
            )
        signature = GamingDaySignature.objects.create(
            casino=casino, gaming_day=day, closing=closing, role=role, signed_at=now, signed_by=by
        )
        actor.audit(
            action="accounting.gaming_day_signed",
            object_type="accounting.gamingdaysignature",
            object_id=signature.pk,
            after={"casino_id": casino.pk, "gaming_day": day.isoformat(), "closing": closing, "role": role},
        )
        if len(signed) + 1 < len(DAY_CLOSE_PERMISSIONS):
            return None
        closed = gaming_day_close(casino=casino, day=day, closed_by=by, at=now)
        actor.audit(
            action="accounting.gaming_day_closed",
            object_type="casino.gamingdayclose",
            object_id=closed.pk,
            after={
                "casino_id": casino.pk,
                "gaming_day": day.isoformat(),
                "closing": closed.closing,
                "signed_by": sorted([*(item.signed_by_id for item in signed.values()), by.pk]),
            },
        )
    return closed
