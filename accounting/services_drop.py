"""Drop and hold services: buy-ins recorded at the table, drop box counts with their two
signatures, and the resolution of hold alerts. The only code that writes these records (the
hold check, which raises the alerts, is ``accounting.hold.hold_check``).

The shape of ``accounting/services/``: one transaction per command, the gaming day's shared
lock first (``casino.gaming_day_state.gaming_day_writable``: a closed day refuses everything,
``gaming_day_closed``), then the
table row, then the record's advisory lock, the audit record last. A refusal leaves every record
and audit record as it was. No money moves here: a buy-in at the table is cash going into the
drop box and chips leaving the tray, both counted later (the drop count, the closer).

Controls: a drop count is signed by the count team (a cashier, ``operate_cage``) and a verifier
(a pit boss, ``supervise_pit``, or the accounting office, ``sign_gaming_day``), two different
people (``same_person_signed_twice``, ``wrong_role``); a table's box is counted once per shift
(``drop_already_counted``: a mistake is a correction naming the count, with a reason); a count is
entered for a shift of its gaming day that has begun (``invalid_shift``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import (
    CountAwaitingSignaturesError,
    DropAlreadyCountedError,
    HoldAlertAlreadyResolvedError,
    InvalidBuyInError,
    InvalidShiftError,
    SamePersonSignedTwiceError,
    SignatureNotNeededError,
    WrongRoleError,
)
from accounting.gaming_days import schedule_of, shifts_of_day
from accounting.locking import table_row_lock
from accounting.models import (
    DropCount,
    DropCountSignature,
    DropSignatureRole,
    HoldAlert,
    HoldAlertResolution,
    TableBuyIn,
)
from accounting.selectors import DROP_ROLE_ORDER, DROP_ROLE_PERMISSIONS
from accounting.services import moment, require_any
from casino.actors import Actor, require_staff
from casino.errors import reason_required
from casino.gaming_day_state import gaming_day_writable
from casino.hints import hint, queue_topic
from casino.locking import advisory_lock
from casino.models import Table
from wallet.services import MAX_AMOUNT_MINOR

DROP_COUNT_LOCK_NAMESPACE = 0x0D50 << 32
BUY_IN_LOCK_NAMESPACE = 0x0B1E << 32
HOLD_ALERT_LOCK_NAMESPACE = 0x401D << 32


def _amount_checked(amount_minor: Any, *, allow_zero: bool) -> int:
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int):
        raise InvalidBuyInError(_("An amount is a whole number of minor units."))
    if amount_minor < 0 or amount_minor > MAX_AMOUNT_MINOR or (amount_minor == 0 and not allow_zero):
        raise InvalidBuyInError(_("A buy-in is an amount above zero."))
    return int(amount_minor)


# ---------------------------------------------------------------- buy-ins at the table


def table_buy_in_record(
    *, table: Table, amount_minor: int, actor: Actor, corrects: TableBuyIn | None = None, reason: str = ""
) -> TableBuyIn:
    """Cash changed for chips at ``table``, recorded by the dealer or the pit boss when it
    happens, in the current gaming day and shift. With ``corrects`` (a buy-in of this table) and
    a ``reason``, a correction: the right amount (0 when there was none) in the corrected
    buy-in's day and shift, which must still be open.

    Needs ``run_table`` or ``supervise_pit``. Locks the gaming days (shared), the table row, the
    corrected buy-in, then the audit chain. Raises ``permission_denied``, ``invalid_buy_in``,
    ``reason_required``, ``gaming_day_closed``, ``signature_not_needed`` (a buy-in corrected
    already: correct the correction)."""
    by = require_any(actor, "run_table", "supervise_pit")
    amount = _amount_checked(amount_minor, allow_zero=corrects is not None)
    if corrects is not None:
        reason = reason_required(reason, _("A correction says why."))
    with transaction.atomic():
        now, day, shift = moment(table.casino)
        if corrects is not None:
            day, shift = corrects.gaming_day, corrects.shift
        gaming_day_writable(casino=table.casino, also=[day], at=now)
        table_row_lock(table.pk)
        if corrects is not None:
            advisory_lock(BUY_IN_LOCK_NAMESPACE, corrects.pk)
            if TableBuyIn.objects.filter(corrects=corrects).exists():
                raise SignatureNotNeededError(_("This buy-in is corrected already: correct the correction."))
        buy_in = TableBuyIn.objects.create(
            table=table,
            gaming_day=day,
            shift=shift,
            amount_minor=amount,
            recorded_at=now,
            recorded_by=by,
            corrects=corrects,
            correction_reason=reason if corrects is not None else "",
        )
        actor.audit(
            action="accounting.table_buy_in_recorded",
            object_type="accounting.tablebuyin",
            object_id=buy_in.pk,
            after={
                "table_id": table.pk,
                "gaming_day": day.isoformat(),
                "shift": shift,
                "amount_minor": amount,
                "corrects": corrects.pk if corrects is not None else None,
                "reason": buy_in.correction_reason,
            },
        )
    return buy_in


# ---------------------------------------------------------------- drop box counts


def _holds_drop_role(user: User, role: str) -> bool:
    return any(user.has_perm(f"casino.{codename}") for codename in DROP_ROLE_PERMISSIONS[role])


def _drop_role(signed: set[str], user: User) -> str:
    """The role ``user`` signs a drop count in: the first of count team and verifier they hold
    that has not signed yet. Raises ``signature_not_needed``, ``wrong_role``."""
    missing = [role for role in DROP_ROLE_ORDER if role not in signed]
    if not missing:
        raise SignatureNotNeededError(_("This drop count is signed already."))
    for role in missing:
        if _holds_drop_role(user, role):
            return str(role)
    labels = {
        DropSignatureRole.COUNT_TEAM: _("the count team (a cashier)"),
        DropSignatureRole.VERIFIER: _("a pit boss or the accounting office"),
    }
    needed = ", ".join(str(labels[DropSignatureRole(role)]) for role in missing)
    raise WrongRoleError(
        _("This drop count still needs the signature of: %(roles)s.") % {"roles": needed}, needed=needed
    )


def _shift_checked(table: Table, day: dt.date, shift: int, now: dt.datetime) -> None:
    shifts = shifts_of_day(schedule_of(table.casino), day)
    chosen = next((entry for entry in shifts if entry.number == shift), None)
    if chosen is None or chosen.starts_at > now:
        raise InvalidShiftError(
            _("The gaming day %(day)s has no shift %(shift)s that has begun.")
            % {"day": day.isoformat(), "shift": shift},
            day=day.isoformat(),
            shift=shift,
        )


def drop_count_record(
    *,
    table: Table,
    gaming_day: dt.date,
    shift: int,
    total_minor: int,
    actor: Actor,
    corrects: DropCount | None = None,
    reason: str = "",
) -> DropCount:
    """The count of ``table``'s drop box for ``shift`` of ``gaming_day`` (a shift that has begun;
    the box is usually counted after it), signed by ``actor`` as the count team or as the verifier;
    it needs the other signature (``drop_count_sign``). With ``corrects`` (a count of this table)
    and a ``reason``, a correction of it, for its table and shift.

    Needs ``operate_cage``, ``supervise_pit`` or ``sign_gaming_day``. Locks the gaming days (the
    count's and today's, shared), the table row, the corrected count, then the audit chain.
    Raises ``permission_denied``, ``invalid_buy_in`` (an amount below zero), ``invalid_shift``,
    ``reason_required``, ``gaming_day_closed``, ``drop_already_counted``,
    ``count_awaiting_signatures`` (the corrected count is not signed yet),
    ``signature_not_needed`` (corrected already), ``wrong_role``."""
    by = require_any(actor, "operate_cage", "supervise_pit", "sign_gaming_day")
    total = _amount_checked(total_minor, allow_zero=True)
    if corrects is not None:
        reason = reason_required(reason, _("A correction says why."))
        gaming_day, shift = corrects.gaming_day, corrects.shift
    with transaction.atomic():
        now, _today, _shift = moment(table.casino)
        _shift_checked(table, gaming_day, shift, now)
        gaming_day_writable(casino=table.casino, also=[gaming_day], at=now)
        table_row_lock(table.pk)
        if corrects is not None:
            advisory_lock(DROP_COUNT_LOCK_NAMESPACE, corrects.pk)
            if DropCount.objects.filter(corrects=corrects).exists():
                raise SignatureNotNeededError(
                    _("This drop count is corrected already: correct the correction.")
                )
            if DropCountSignature.objects.filter(count=corrects).count() < len(DROP_ROLE_ORDER):
                raise CountAwaitingSignaturesError(_("Only a signed drop count is corrected."))
        elif DropCount.objects.filter(
            table=table, gaming_day=gaming_day, shift=shift, corrects__isnull=True
        ).exists():
            raise DropAlreadyCountedError(
                _(
                    "The drop box of %(table)s is counted for shift %(shift)s of %(day)s already: correct that count instead."
                )
                % {"table": table.name, "shift": shift, "day": gaming_day.isoformat()},
                table=table.name,
                shift=shift,
                day=gaming_day.isoformat(),
            )
        hint(queue_topic(table.casino_id))  # a signature waits: the pit's floor, the header's count
        role = _drop_role(set(), by)
        count = DropCount.objects.create(
            table=table,
            gaming_day=gaming_day,
            shift=shift,
            total_minor=total,
            counted_at=now,
            counted_by=by,
            corrects=corrects,
            correction_reason=reason if corrects is not None else "",
        )
        DropCountSignature.objects.create(count=count, role=role, signer=by, signed_at=now)
        actor.audit(
            action="accounting.drop_counted",
            object_type="accounting.dropcount",
            object_id=count.pk,
            after={
                "table_id": table.pk,
                "gaming_day": gaming_day.isoformat(),
                "shift": shift,
                "total_minor": total,
                "signed_as": role,
                "corrects": corrects.pk if corrects is not None else None,
                "reason": count.correction_reason,
            },
        )
    return count


def drop_count_sign(*, count: DropCount, actor: Actor) -> DropCountSignature:
    """The drop count's second signature, by someone else than the first signer, in the role
    that is missing. Needs ``operate_cage``, ``supervise_pit`` or ``sign_gaming_day``. Locks the
    gaming days (the count's and today's, shared), the count, then the audit chain. Raises
    ``permission_denied``, ``gaming_day_closed``, ``same_person_signed_twice``, ``wrong_role``,
    ``signature_not_needed``."""
    by = require_any(actor, "operate_cage", "supervise_pit", "sign_gaming_day")
    table = count.table
    with transaction.atomic():
        now, _today, _shift = moment(table.casino)
        gaming_day_writable(casino=table.casino, also=[count.gaming_day], at=now)
        advisory_lock(DROP_COUNT_LOCK_NAMESPACE, count.pk)
        signatures = list(DropCountSignature.objects.filter(count=count))
        hint(queue_topic(table.casino_id))  # the signature no longer waits
        if any(signature.signer_id == by.pk for signature in signatures):
            raise SamePersonSignedTwiceError(
                _("You signed this drop count already: the second signature is someone else's.")
            )
        role = _drop_role({signature.role for signature in signatures}, by)
        signature = DropCountSignature.objects.create(count=count, role=role, signer=by, signed_at=now)
        actor.audit(
            action="accounting.drop_count_signed",
            object_type="accounting.dropcount",
            object_id=count.pk,
            after={"table_id": table.pk, "total_minor": count.total_minor, "signed_as": role},
        )
    return signature


# ---------------------------------------------------------------- hold alerts


def hold_alert_resolve(*, alert: HoldAlert, note: str, actor: Actor) -> HoldAlertResolution:
    """A pit boss resolves a hold alert with a note saying what was found. Needs
    ``supervise_pit``. Locks the alert, then the audit chain. Raises ``permission_denied``,
    ``reason_required``, ``hold_alert_already_resolved``."""
    by = require_staff(actor, "supervise_pit")
    note = reason_required(note, _("A resolution says what was found."))
    with transaction.atomic():
        advisory_lock(HOLD_ALERT_LOCK_NAMESPACE, alert.pk)
        if HoldAlertResolution.objects.filter(alert=alert).exists():
            raise HoldAlertAlreadyResolvedError(_("This hold alert is resolved already."))
        resolution = HoldAlertResolution.objects.create(
            alert=alert, note=note, resolved_by=by, resolved_at=timezone.now()
        )
        actor.audit(
            action="accounting.hold_alert_resolved",
            object_type="accounting.holdalert",
            object_id=alert.pk,
            after={
                "table_id": alert.table_id,
                "gaming_day": alert.gaming_day.isoformat(),
                "kind": alert.kind,
                "note": note,
            },
        )
    return resolution
