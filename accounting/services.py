"""Accounting services: the only code that writes the pit's accounting records.

Each command runs in one transaction: checks the signer's permission, takes its locks in the
order of ``accounting/locking.py`` (the gaming day shared, the table row, the record's advisory
lock, the slip counter), validates, inserts its records, lets the wallet move the chips (a slip's
issue only: ``wallet.services.table_fill``/``table_credit``), and appends the audit record last.
A refusal (``ServiceError``) leaves every record, balance and audit record as it was.

Controls: a count is signed by a dealer and a pit boss, two people (``same_person_signed_twice``,
``wrong_role``); an opener is checked against the table's previous closer and a variance above
the casino's threshold opens an investigation that must be resolved, its note approved by a
second person, before the table opens again (``investigation_unresolved``); slip numbers are
drawn from a counter row locked in the slip's own transaction (no gaps); a slip is issued by a
cashier and received by someone else; its chips move only while the table is open and its
closer not taken (``slip_table_closed``), and no closer is taken while one is in flight
(``slip_in_flight``), so that win = closer + credits + drop - opener - fills holds; a void takes
a reason and a second person's approval, and keeps its number; a change of the settings that
weakens a control waits for the accounting office; a closed gaming day takes no more records
(``gaming_day_closed``). Who may decide what waits is ``casino.four_eyes``'s rule alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounting.errors import (
    CountAwaitingSignaturesError,
    GamingDayHasOpenWorkError,
    InvalidCountError,
    InvestigationAlreadyResolvedError,
    InvestigationUnresolvedError,
    SamePersonSignedTwiceError,
    SignatureNotNeededError,
    SlipInFlightError,
    SlipStepRefusedError,
    SlipTableClosedError,
    TableAlreadyOpenError,
    TableNotOpenError,
    WrongRoleError,
)
from accounting.gaming_days import gaming_day_of, schedule_of, shift_of, shift_starts_parse
from accounting.locking import (
    count_lock,
    investigation_lock,
    settings_lock,
    slip_counter_lock,
    slip_lock,
    table_row_lock,
)
from accounting.models import (
    AccountingSettings,
    ChipDenomination,
    CountKind,
    DayCloseRole,
    GamingDaySignature,
    InvestigationResolution,
    SignatureRole,
    Slip,
    SlipKind,
    SlipLine,
    SlipSignature,
    SlipStep,
    TrayCount,
    TrayCountLine,
    TrayCountSignature,
    VarianceInvestigation,
)
from accounting.selectors import (
    INVESTIGATION_SUBJECT,
    ROLE_PERMISSIONS,
    SETTINGS_SUBJECT,
    SLIP_STEP_PERMISSIONS,
    SLIP_SUBJECT,
    chip_values,
    count_roles_signed,
    counts_of_table,
    is_count_signed,
    last_closer,
    open_work_of_day,
    settings_of,
    slip_steps,
    slip_void_proposal,
    slips_open,
    table_accounting,
    tray_ledger_minor,
)
from casino.actors import Actor, require_staff
from casino.errors import ServiceError, reason_required
from casino.four_eyes import (
    ApprovalNotFoundError,
    approval_audit_fields,
    approval_decide,
    approval_request,
    weakened_fields,
)
from casino.gaming_day_state import (
    gaming_day_close,
    gaming_day_close_check,
    gaming_day_writable,
)
from casino.locking import gaming_day_lock
from casino.models import Approval, Casino, GamingDayClose, Table
from tables.errors import RoundInProgressError
from tables.models import Round
from tables.services import table_play_by_count
from wallet.services import MAX_AMOUNT_MINOR, table_credit, table_fill

# A user holding both pit permissions signs as a pit boss first (an operator, a superuser).
COUNT_ROLE_ORDER = (SignatureRole.PIT_BOSS, SignatureRole.DEALER)


# ---------------------------------------------------------------- helpers


def _holds(user: User, role: str) -> bool:
    return bool(user.has_perm(f"casino.{ROLE_PERMISSIONS[role]}"))


def require_any(actor: Actor, *codenames: str) -> User:
    """The staff member giving the command, who holds one of the permissions ``codenames``;
    refused (``permission_denied``, naming the first) otherwise."""
    held = next((codename for codename in codenames if actor.has_perm(codename)), codenames[0])
    return require_staff(actor, held)


def _lines_checked(casino: Casino, amounts: Mapping[int, int], *, positive_total: bool) -> dict[int, int]:
    """The amounts per chip value, checked: each a value of the casino's chip set, a whole
    number of minor units from 0 that is a multiple of its chip; zeros dropped. Raises
    ``invalid_count``."""
    values = set(chip_values(casino))
    lines: dict[int, int] = {}
    for value, amount in amounts.items():
        if isinstance(amount, bool) or not isinstance(amount, int) or not isinstance(value, int):
            raise InvalidCountError(_("An amount is a whole number of minor units."))
        if value not in values:
            raise InvalidCountError(
                _("%(value)s is not a chip of this casino.") % {"value": value}, value=value
            )
        if amount < 0 or amount > MAX_AMOUNT_MINOR:
            raise InvalidCountError(_("An amount is from zero up."), value=value)
        if amount % value:
            raise InvalidCountError(
                _("The amount in chips of %(value)s is not a whole number of chips.") % {"value": value},
                value=value,
                amount_minor=amount,
                chip_minor=value,
            )
        if amount:
            lines[value] = amount
    if positive_total and not lines:
        raise InvalidCountError(_("A slip moves at least one chip."))
    return lines


def moment(casino: Casino) -> tuple[dt.datetime, dt.date, int]:
    now = timezone.now()
    schedule = schedule_of(casino)
    return now, gaming_day_of(schedule, now), shift_of(schedule, now).number


def _lines_audited(lines: Mapping[int, int]) -> dict[str, int]:
    return {str(value): amount for value, amount in sorted(lines.items(), reverse=True)}


# ---------------------------------------------------------------- configuration


def chip_set_configure(*, casino: Casino, values_minor: Sequence[int], actor: Actor) -> list[int]:
    """The casino's chip set becomes ``values_minor``: new values are added, values left out are
    withdrawn (kept, inactive: old counts and slips name them). Needs ``configure_tables``.
    Locks the settings row (the chip set's changes take turns), then the audit chain. Raises
    ``permission_denied``, ``invalid_count``."""
    require_staff(actor, "configure_tables")
    values = sorted({int(value) for value in values_minor})
    if not values or any(value <= 0 or value > MAX_AMOUNT_MINOR for value in values):
        raise InvalidCountError(_("A chip set is one or more chip values above zero."))
    with transaction.atomic():
        settings_lock(casino_id=casino.pk)
        before = sorted(
            ChipDenomination.objects.filter(casino=casino, is_active=True).values_list(
                "value_minor", flat=True
            )
        )
        for value in values:
            chip, created = ChipDenomination.objects.get_or_create(casino=casino, value_minor=value)
            if not created and not chip.is_active:
                chip.is_active = True
                chip.save(update_fields=["is_active"])
        ChipDenomination.objects.filter(casino=casino).exclude(value_minor__in=values).update(is_active=False)
        actor.audit(
            action="accounting.chip_set_configured",
            object_type="casino.casino",
            object_id=casino.pk,
            before={"chip_values_minor": before},
            after={"chip_values_minor": values},
        )
    return values


SETTINGS_LIMITS = {
    # field: (lowest, highest) accepted
    "variance_threshold_minor": (0, MAX_AMOUNT_MINOR),
    "hold_band_low_bp": (-10_000, 10_000),
    "hold_band_high_bp": (-10_000, 10_000),
    "hold_band_sigmas": (1, 10),
    "mtl_threshold_minor": (1, MAX_AMOUNT_MINOR),
    "large_cash_threshold_minor": (1, MAX_AMOUNT_MINOR),
}
SETTINGS_REFUSALS = {
    "variance_threshold_minor": gettext_lazy("The variance threshold is an amount from zero up."),
    "hold_band_low_bp": gettext_lazy("A hold band's limit is a percentage from -100 to 100."),
    "hold_band_high_bp": gettext_lazy("A hold band's limit is a percentage from -100 to 100."),
    "hold_band_sigmas": gettext_lazy("The statistical band is 1 to 10 standard deviations wide."),
    "mtl_threshold_minor": gettext_lazy("A cash transaction log threshold is an amount above zero."),
    "large_cash_threshold_minor": gettext_lazy("A cash transaction log threshold is an amount above zero."),
}


def _settings_values(settings: AccountingSettings, changes: Mapping[str, int | None]) -> dict[str, int]:
    """The numeric settings after ``changes`` (``None``: as they are), each checked against
    :data:`SETTINGS_LIMITS`. Raises ``invalid_settings``."""
    values = {name: int(getattr(settings, name)) for name in SETTINGS_LIMITS}
    for name, value in changes.items():
        if value is None:
            continue
        low, high = SETTINGS_LIMITS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ServiceError(str(SETTINGS_REFUSALS[name]), code="invalid_settings", field=name)
        values[name] = value
    if values["hold_band_low_bp"] > values["hold_band_high_bp"]:
        raise ServiceError(
            _("The hold band's lowest hold is above its highest."),
            code="invalid_settings",
            field="hold_band_low_bp",
        )
    if values["mtl_threshold_minor"] > values["large_cash_threshold_minor"]:
        raise ServiceError(
            _("The multiple-transaction log's threshold is above the large-cash report's."),
            code="invalid_settings",
            field="mtl_threshold_minor",
        )
    return values


@dataclass(frozen=True)
class SettingsChange:
    """What a change of the accounting settings did: the settings as they now stand, and the
    approval its part that weakens a control waits for (``None``: all of it applied)."""

    settings: AccountingSettings
    waiting: Approval | None


def accounting_settings_change(
    *,
    casino: Casino,
    shift_starts: Sequence[str],
    variance_threshold_minor: int | None = None,
    hold_band_low_bp: int | None = None,
    hold_band_high_bp: int | None = None,
    hold_band_sigmas: int | None = None,
    mtl_threshold_minor: int | None = None,
    large_cash_threshold_minor: int | None = None,
    actor: Actor,
) -> SettingsChange:
    """The casino's shift start times (local ``"HH:MM"``; the gaming day's start is always one),
    its opener variance threshold, the hold alerts' band (basis points, and the statistical band's
    width in standard deviations) and the cash transaction log's thresholds; a value left
    ``None`` stays as it is.

    A change of the thresholds and bands that weakens a control (``casino.four_eyes.
    weakened_fields``, scope ``accounting_settings``: a threshold raised, the band widened) does
    not apply on one person's word: those values, all the changed ones with them, wait as one
    approval of kind ``accounting_settings`` for the accounting office
    (:func:`accounting_settings_decide`). A change that weakens nothing applies at once, and so
    do the shift start times.

    Needs ``configure_tables``. Locks the settings row, then the audit chain (one record, the
    values before and after, and what waits). Raises ``permission_denied``, ``invalid_settings``,
    ``approval_pending`` (a weakening change waits already)."""
    by = require_staff(actor, "configure_tables")
    try:
        starts = sorted(set(shift_starts_parse(shift_starts)) | {casino.gaming_day_starts_at})
    except ValueError as error:
        raise ServiceError(_("A shift starts at a time such as 06:00."), code="invalid_settings") from error
    changes = {
        "variance_threshold_minor": variance_threshold_minor,
        "hold_band_low_bp": hold_band_low_bp,
        "hold_band_high_bp": hold_band_high_bp,
        "hold_band_sigmas": hold_band_sigmas,
        "mtl_threshold_minor": mtl_threshold_minor,
        "large_cash_threshold_minor": large_cash_threshold_minor,
    }
    with transaction.atomic():
        settings = settings_lock(casino_id=casino.pk)
        values = _settings_values(settings, changes)
        current = {name: int(getattr(settings, name)) for name in values}
        changed = {name: value for name, value in values.items() if value != current[name]}
        before = {"shift_starts": settings.shift_starts, **current}
        waiting = None
        if weakened_fields(scope="accounting_settings", before=current, after=changed):
            waiting = approval_request(
                actor=actor,
                casino=casino,
                kind="accounting_settings",
                subject_type=SETTINGS_SUBJECT,
                subject_id=settings.pk,
                summary="A change of the accounting settings that weakens a control",
                place=casino.name,
                before={name: current[name] for name in changed},
                after=changed,
            )
            changed = {}
        settings.shift_starts = [moment.strftime("%H:%M") for moment in starts]
        for name, value in changed.items():
            setattr(settings, name, value)
        settings.updated_by = by
        settings.save()
        actor.audit(
            action="accounting.settings_changed",
            object_type="accounting.accountingsettings",
            object_id=settings.pk,
            before=before,
            after={
                "shift_starts": settings.shift_starts,
                **{name: int(getattr(settings, name)) for name in values},
                "waiting": (
                    {"before": waiting.before, "after": waiting.after, **approval_audit_fields(waiting)}
                    if waiting is not None
                    else None
                ),
            },
        )
    return SettingsChange(settings=settings, waiting=waiting)


def accounting_settings_decide(
    *, casino: Casino, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> AccountingSettings:
    """The accounting office decides a change of the accounting settings that waits
    (``approval_id``): approved, its values apply, checked again against the settings as they
    now stand; rejected with a reason, the settings stay. Who may decide is
    ``casino.four_eyes``'s rule (kind ``accounting_settings``: ``sign_gaming_day``, not the
    requester).

    Locks the settings row, the approval, then the audit chain (the values before and after).
    Raises ``approval_not_found``, ``permission_denied``, ``four_eyes_required``,
    ``approval_decided``, ``reason_required``, ``invalid_settings``."""
    with transaction.atomic():
        settings = settings_lock(casino_id=casino.pk)
        waiting = Approval.objects.filter(
            pk=approval_id, casino=casino, kind="accounting_settings", subject_type=SETTINGS_SUBJECT
        ).first()
        if waiting is None:
            raise ApprovalNotFoundError(_("No change of the accounting settings waits for this decision."))
        decided = approval_decide(approval_id=approval_id, actor=actor, approve=approve, reason=reason)
        proposed = {name: value for name, value in (decided.after or {}).items() if name in SETTINGS_LIMITS}
        before = {name: int(getattr(settings, name)) for name in proposed}
        if approve:
            values = _settings_values(settings, proposed)
            for name in proposed:
                setattr(settings, name, values[name])
            settings.updated_by = actor.user
            settings.save()
        actor.audit(
            action="accounting.settings_change_approved"
            if approve
            else "accounting.settings_change_rejected",
            object_type="accounting.accountingsettings",
            object_id=settings.pk,
            before=before,
            after={
                **{name: int(getattr(settings, name)) for name in proposed},
                **approval_audit_fields(decided),
            },
        )
    return settings


def accounting_configure(
    *, casino: Casino, chip_values_minor: Sequence[int], actor: Actor, **settings: Any
) -> SettingsChange:
    """The chip set and the settings in one transaction (``chip_set_configure`` then
    ``accounting_settings_change`` with ``settings``): a refusal of either leaves both as they
    were."""
    with transaction.atomic():
        chip_set_configure(casino=casino, values_minor=chip_values_minor, actor=actor)
        return accounting_settings_change(casino=casino, actor=actor, **settings)


# ---------------------------------------------------------------- gaming days


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


# ---------------------------------------------------------------- tray counts


def _count_role(count_roles: set[str], user: User) -> str:
    """The role ``user`` signs a count in: the first of pit boss and dealer they hold and that
    has not signed yet. Raises ``wrong_role``, ``signature_not_needed``."""
    missing = [role for role in COUNT_ROLE_ORDER if role not in count_roles]
    if not missing:
        raise SignatureNotNeededError(_("This count is signed already."))
    for role in missing:
        if _holds(user, role):
            return str(role)
    labels = {SignatureRole.DEALER: _("a dealer"), SignatureRole.PIT_BOSS: _("a pit boss")}
    needed = ", ".join(str(labels[SignatureRole(role)]) for role in missing)
    raise WrongRoleError(
        _("This count still needs the signature of: %(roles)s.") % {"roles": needed}, needed=needed
    )


def _no_slip_in_flight(table: Table) -> None:
    """A closer counts the tray as it ends the day's play: a fill or credit requested or issued
    and not received (nor voided) would change that tray after the count, and the day's win with
    it (MICS: the closer, the fills and the credits of the same table and day must agree)."""
    in_flight = slips_open(table.casino, table=table)
    if in_flight:
        slip = in_flight[0]
        raise SlipInFlightError(
            _(
                "Slip %(slip)s of this table is not received yet: receive it, or void it before "
                "the cage issues it, then count the table at its close."
            )
            % {"slip": f"{slip.year}-{slip.number}"},
            slip_id=slip.pk,
        )


def tray_count_record(
    *,
    table: Table,
    kind: str,
    amounts: Mapping[int, int],
    actor: Actor,
    corrects: TrayCount | None = None,
    reason: str = "",
) -> TrayCount:
    """A count of ``table``'s tray (``amounts``: minor units per chip value), signed by ``actor``
    as a pit boss or a dealer; it needs the other role's signature (``tray_count_sign``). The
    ledger's tray balance is recorded with it: the difference shows, no money moves.

    An opener needs the table closed (no count yet, or its last count a closer) and no
    unresolved investigation; a closer needs it open. With ``corrects`` (a signed count, of any
    day, even a closed one) and a ``reason``, it is a correction of that count, of its kind,
    recorded in the current gaming day, and the table's state does not change.

    Needs ``supervise_pit`` or ``run_table``. Locks the gaming day (shared), the table row, the
    corrected count, then the audit chain. Raises ``permission_denied``, ``gaming_day_closed``,
    ``invalid_count``, ``count_awaiting_signatures``, ``table_already_open``, ``table_not_open``,
    ``round_in_progress`` (a closer while a round is open), ``investigation_unresolved``,
    ``reason_required``, ``wrong_role``, ``slip_in_flight`` (a closer while a fill or credit of the
    table is requested or issued and not received)."""
    by = require_any(actor, "supervise_pit", "run_table")
    casino = table.casino
    if corrects is not None:
        kind = corrects.kind
        reason = reason_required(reason, _("A correction says why."))
    if kind not in CountKind.values:
        raise InvalidCountError(_("A count is an opener or a closer."))
    lines = _lines_checked(casino, amounts, positive_total=False)
    with transaction.atomic():
        now, day, shift = moment(casino)
        gaming_day_writable(casino=casino, at=now)
        locked = table_row_lock(table.pk)
        assert locked is not None
        if corrects is not None:
            count_lock(corrects.pk)
        state = table_accounting(locked)
        if state.pending is not None:
            raise CountAwaitingSignaturesError(
                _("The table's count %(count)s waits for its second signature.")
                % {"count": state.pending.pk},
                count_id=state.pending.pk,
            )
        if corrects is not None:
            if corrects.table_id != table.pk or not is_count_signed(corrects):
                raise CountAwaitingSignaturesError(_("Only a signed count of this table is corrected."))
        elif kind == CountKind.OPENER:
            if state.is_open:
                raise TableAlreadyOpenError(_("The table is open: count it at its close first."))
            if state.investigation is not None:
                raise InvestigationUnresolvedError(
                    _("The variance found at the last opening waits for its resolution note."),
                    investigation_id=state.investigation.pk,
                )
        elif not state.is_open:
            raise TableNotOpenError(_("The table is closed: its opening count comes first."))
        elif Round.objects.filter(table=locked).open().exists():
            raise RoundInProgressError(
                _("A round is in progress: settle or void it before the closing count.")
            )
        else:
            _no_slip_in_flight(locked)
        role = _count_role(set(), by)
        count = TrayCount.objects.create(
            table=locked,
            kind=kind,
            gaming_day=day,
            shift=shift,
            counted_at=now,
            counted_by=by,
            total_minor=sum(lines.values()),
            ledger_minor=tray_ledger_minor(locked),
            corrects=corrects,
            correction_reason=reason if corrects is not None else "",
        )
        TrayCountLine.objects.bulk_create(
            TrayCountLine(count=count, denomination_minor=value, amount_minor=amount)
            for value, amount in lines.items()
        )
        TrayCountSignature.objects.create(count=count, role=role, signer=by, signed_at=now)
        actor.audit(
            action="accounting.count_recorded",
            object_type="accounting.traycount",
            object_id=count.pk,
            after={
                "table_id": table.pk,
                "kind": kind,
                "gaming_day": day.isoformat(),
                "shift": shift,
                "lines_minor": _lines_audited(lines),
                "total_minor": count.total_minor,
                "ledger_minor": count.ledger_minor,
                "signed_as": role,
                "corrects": corrects.pk if corrects is not None else None,
                "reason": count.correction_reason,
            },
        )
    return count


def tray_count_sign(*, count: TrayCount, actor: Actor) -> TrayCountSignature:
    """The count's second signature, by someone else than the first signer, in the role that is
    missing (a dealer's after a pit boss's, or the other way round). When it completes an
    opener, the opener is checked against the table's previous closer: a difference above the
    casino's threshold opens an investigation. A signed opener opens the table for play, a
    signed closer closes it (``tables.services.table_play_by_count``; a correction changes
    neither): "open" and "closed" on every screen come from the counts.

    Needs ``supervise_pit`` or ``run_table``. Locks the gaming days (the count's and today's,
    shared), the table row, the count, then the audit chain. Raises ``permission_denied``,
    ``gaming_day_closed``, ``same_person_signed_twice``, ``wrong_role``,
    ``signature_not_needed``, ``round_in_progress`` (a closer while a round is open),
    ``slip_in_flight`` (a closer while a fill or credit of the table is on its way)."""
    by = require_any(actor, "supervise_pit", "run_table")
    table = count.table
    with transaction.atomic():
        now, _day, _shift = moment(table.casino)
        gaming_day_writable(casino=table.casino, also=[count.gaming_day], at=now)
        table_row_lock(table.pk)
        count_lock(count.pk)
        fresh = counts_of_table(table).get(pk=count.pk)
        if any(signature.signer_id == by.pk for signature in fresh.signatures.all()):
            raise SamePersonSignedTwiceError(
                _("You signed this count already: the second signature is someone else's.")
            )
        role = _count_role(count_roles_signed(fresh), by)
        if fresh.kind == CountKind.CLOSER and fresh.corrects_id is None:
            _no_slip_in_flight(table)
        signature = TrayCountSignature.objects.create(count=fresh, role=role, signer=by, signed_at=now)
        investigation = None
        if fresh.kind == CountKind.OPENER and fresh.corrects_id is None:
            investigation = _opener_checked(fresh, now)
        if fresh.corrects_id is None:  # the count, not its correction, opens or closes the table
            table_play_by_count(
                table=table, is_open=fresh.kind == CountKind.OPENER, actor=actor, count_id=fresh.pk
            )
        actor.audit(
            action="accounting.count_signed",
            object_type="accounting.traycount",
            object_id=fresh.pk,
            after={
                "table_id": table.pk,
                "kind": fresh.kind,
                "signed_as": role,
                "investigation_id": investigation.pk if investigation else None,
                "variance_minor": investigation.variance_minor if investigation else None,
            },
        )
    return signature


def _opener_checked(opener: TrayCount, now: dt.datetime) -> VarianceInvestigation | None:
    closer = last_closer(opener.table)
    if closer is None:
        return None
    threshold = settings_of(opener.table.casino).variance_threshold_minor
    variance = opener.total_minor - closer.total_minor
    if abs(variance) <= threshold:
        return None
    return VarianceInvestigation.objects.create(
        table=opener.table,
        opener=opener,
        closer=closer,
        variance_minor=variance,
        threshold_minor=threshold,
        opened_at=now,
    )


def _resolution_refused_if_resolved(investigation: VarianceInvestigation) -> None:
    if InvestigationResolution.objects.filter(investigation=investigation).exists():
        raise InvestigationAlreadyResolvedError(_("This investigation is resolved already."))


def investigation_resolve(*, investigation: VarianceInvestigation, note: str, actor: Actor) -> Approval:
    """A pit boss proposes the resolution of a variance investigation with a note saying what
    was found. It waits for a second person (``casino.four_eyes``, kind
    ``variance_investigation``: ``view_accounting``, neither the proposer nor a signer of the
    opener that found the variance), decided with :func:`investigation_resolution_decide`; the
    table opens again once it is approved. Returns the pending approval.

    Needs ``supervise_pit``. Locks the investigation, then the audit chain. Raises
    ``permission_denied``, ``reason_required``, ``investigation_already_resolved``,
    ``approval_pending`` (a resolution waits already)."""
    require_staff(actor, "supervise_pit")
    note = reason_required(note, _("A resolution says what was found."))
    with transaction.atomic():
        investigation_lock(investigation.pk)
        _resolution_refused_if_resolved(investigation)
        table = investigation.table
        signers = sorted(
            TrayCountSignature.objects.filter(count_id=investigation.opener_id).values_list(
                "signer_id", flat=True
            )
        )
        approval = approval_request(
            actor=actor,
            casino=table.casino,
            kind="variance_investigation",
            subject_type=INVESTIGATION_SUBJECT,
            subject_id=investigation.pk,
            summary=f"Resolution of the opener variance of {investigation.variance_minor} at {table.name}",
            place=table.name,
            amount_minor=investigation.variance_minor,
            reason=note,
            excluded={"opener_signers": signers},
        )
        actor.audit(
            action="accounting.investigation_resolution_proposed",
            object_type="accounting.varianceinvestigation",
            object_id=investigation.pk,
            after={
                "table_id": investigation.table_id,
                "variance_minor": investigation.variance_minor,
                "note": note,
                **approval_audit_fields(approval),
            },
        )
    return approval


def investigation_resolution_decide(
    *, investigation: VarianceInvestigation, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> InvestigationResolution | None:
    """A second person decides a proposed resolution (``approval_id``, the approval it waits
    for): approved, the investigation is resolved with the proposal's note (returned) and the
    table may open again; rejected with a reason, it stays open for another proposal (``None``).
    Who may decide is ``casino.four_eyes``'s rule.

    Locks the investigation, the approval, then the audit chain. Raises ``approval_not_found``
    (no such proposal for this investigation), ``investigation_already_resolved``,
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``."""
    with transaction.atomic():
        investigation_lock(investigation.pk)
        proposal = Approval.objects.filter(
            pk=approval_id,
            kind="variance_investigation",
            subject_type=INVESTIGATION_SUBJECT,
            subject_id=str(investigation.pk),
        ).first()
        if proposal is None:
            raise ApprovalNotFoundError(_("No resolution of this investigation waits for this decision."))
        _resolution_refused_if_resolved(investigation)
        now = timezone.now()
        decided = approval_decide(
            approval_id=approval_id, actor=actor, approve=approve, reason=reason, at=now
        )
        resolution = None
        if approve:
            assert decided.decided_by is not None  # approval_decide: a staff member decided
            resolution = InvestigationResolution.objects.create(
                investigation=investigation,
                note=decided.request_reason,
                resolved_by=decided.decided_by,
                resolved_at=now,
                approval=decided,
            )
        actor.audit(
            action="accounting.investigation_resolved"
            if approve
            else "accounting.investigation_resolution_rejected",
            object_type="accounting.varianceinvestigation",
            object_id=investigation.pk,
            after={
                "table_id": investigation.table_id,
                "variance_minor": investigation.variance_minor,
                "note": decided.request_reason,
                **approval_audit_fields(decided),
            },
        )
    return resolution


# ---------------------------------------------------------------- fills and credits


def _slip_table_checked(table: Table) -> None:
    """Refuse a slip step that moves chips (its request, the cage's issue, the table's receipt)
    when the table is closed or its closing count is taken: the chips would reach a tray after
    the count that closes the table's win (the closer) or before the one that opens it (the
    opener), and win = closer + credits + drop - opener - fills would miss or double them.
    Call it holding the table row's lock (counts of the table take turns with it)."""
    state = table_accounting(table)
    if not state.takes_slips:
        raise SlipTableClosedError(
            _(
                "%(table)s is closed, or its closing count is taken: no fill or credit moves chips "
                "to or from it until its next opening count is signed."
            )
            % {"table": table.name},
            table=table.name,
        )


def slip_request(*, table: Table, kind: str, amounts: Mapping[int, int], actor: Actor) -> Slip:
    """A pit boss asks for a fill (chips from the cage to the tray) or a credit (chips from the
    tray back to the cage), ``amounts`` in minor units per chip value. The slip takes the next
    number of the casino's calendar year (local time), drawn from the counter row in this very
    transaction: a refused or rolled-back request draws none, so the numbers have no gaps.

    The table must take slips: open (its last count an opener signed twice) and its closing
    count not taken, so that the slip's chips fall between the counts that frame its win.

    Needs ``supervise_pit``. Locks the gaming day (shared), the table row (a count of the table
    and its slips take turns), the slip counter, then the audit chain. Raises
    ``permission_denied``, ``gaming_day_closed``, ``invalid_count``, ``slip_table_closed``."""
    by = require_staff(actor, "supervise_pit")
    if kind not in SlipKind.values:
        raise InvalidCountError(_("A slip is a fill or a credit."))
    casino = table.casino
    lines = _lines_checked(casino, amounts, positive_total=True)
    with transaction.atomic():
        now, day, shift = moment(casino)
        gaming_day_writable(casino=casino, at=now)
        locked = table_row_lock(table.pk)
        assert locked is not None
        _slip_table_checked(locked)
        year = now.astimezone(schedule_of(casino).zone).year
        counter = slip_counter_lock(casino_id=casino.pk, year=year)
        counter.last_number += 1
        counter.save(update_fields=["last_number"])
        slip = Slip.objects.create(
            casino=casino,
            year=year,
            number=counter.last_number,
            kind=kind,
            table=table,
            gaming_day=day,
            shift=shift,
            total_minor=sum(lines.values()),
            created_at=now,
        )
        SlipLine.objects.bulk_create(
            SlipLine(slip=slip, denomination_minor=value, amount_minor=amount)
            for value, amount in lines.items()
        )
        SlipSignature.objects.create(
            slip=slip, step=SlipStep.REQUESTED, role=SignatureRole.PIT_BOSS, signer=by, signed_at=now
        )
        actor.audit(
            action="accounting.slip_requested",
            object_type="accounting.slip",
            object_id=slip.pk,
            after={
                "number": f"{year}-{slip.number}",
                "kind": kind,
                "table_id": table.pk,
                "gaming_day": day.isoformat(),
                "lines_minor": _lines_audited(lines),
                "total_minor": slip.total_minor,
            },
        )
    return slip


def _slip_locked(slip: Slip) -> tuple[Slip, dict[str, SlipSignature], dt.datetime]:
    """The gaming days' shared locks, the slip's table row, then the slip's own lock; the slip
    read again under them, with its steps in effect."""
    now = timezone.now()
    gaming_day_writable(casino=slip.casino, also=[slip.gaming_day], at=now)
    table_row_lock(slip.table_id)
    slip_lock(slip.pk)
    fresh = (
        Slip.objects.select_related("table__casino", "casino")
        .prefetch_related(
            Prefetch(
                "signatures",
                queryset=SlipSignature.objects.select_related("approval").order_by("signed_at", "pk"),
            )
        )
        .get(pk=slip.pk)
    )
    return fresh, slip_steps(fresh), now


def _step_refused(message: str, steps: Mapping[str, SlipSignature]) -> SlipStepRefusedError:
    return SlipStepRefusedError(message, steps=sorted(steps))


def _is_final(steps: Mapping[str, SlipSignature]) -> bool:
    return SlipStep.VOIDED in steps or SlipStep.RECEIVED in steps


def _slip_number(slip: Slip) -> str:
    return f"{slip.year}-{slip.number}"


def slip_issue(*, slip: Slip, actor: Actor) -> SlipSignature:
    """The cage issues a requested slip: a cashier, not its requester, signs, and the chips
    move in the ledger (``table_fill``: cage -> tray; ``table_credit``: tray -> cage). The table
    must still take slips (open, its closing count not taken).

    Needs ``operate_cage``. Locks the gaming days (shared), the table row, the slip, then (the
    wallet) the accounts and the audit chain. Raises ``permission_denied``,
    ``gaming_day_closed``, ``slip_step_refused`` (issued, voided or with a void waiting for its
    decision), ``same_person_signed_twice``, ``slip_table_closed``, ``insufficient_funds`` (a
    credit above the tray's balance)."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.ISSUED])
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED in steps or _is_final(steps) or SlipStep.VOID_PROPOSED in steps:
            raise _step_refused(_("This slip is not waiting for the cage."), steps)
        if steps[SlipStep.REQUESTED].signer_id == by.pk:
            raise SamePersonSignedTwiceError(_("The requester of a slip does not issue it."))
        _slip_table_checked(fresh.table)
        move = table_fill if fresh.kind == SlipKind.FILL else table_credit
        transfer = move(
            table=fresh.table,
            amount_minor=fresh.total_minor,
            actor=actor,
            reference_type="accounting.slip",
            reference_id=fresh.pk,
        )
        signature = SlipSignature.objects.create(
            slip=fresh,
            step=SlipStep.ISSUED,
            role=SignatureRole.CASHIER,
            signer=by,
            signed_at=now,
            transfer=transfer,
        )
        actor.audit(
            action="accounting.slip_issued",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, "transfer_id": transfer.pk},
        )
    return signature


def slip_receive(*, slip: Slip, actor: Actor) -> SlipSignature:
    """The table receives an issued slip: a dealer or a pit boss, not the cashier who issued
    it, signs; the table must still take slips (open, its closing count not taken). Needs
    ``run_table`` or ``supervise_pit``. Locks the gaming days (shared), the table row, the slip,
    then the audit chain. Raises ``permission_denied``, ``gaming_day_closed``,
    ``slip_step_refused``, ``same_person_signed_twice``, ``slip_table_closed``."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.RECEIVED])
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED not in steps or _is_final(steps):
            raise _step_refused(_("This slip is not waiting for the table."), steps)
        if steps[SlipStep.ISSUED].signer_id == by.pk:
            raise SamePersonSignedTwiceError(_("The cashier who issued a slip does not receive it."))
        _slip_table_checked(fresh.table)
        role = SignatureRole.PIT_BOSS if _holds(by, SignatureRole.PIT_BOSS) else SignatureRole.DEALER
        signature = SlipSignature.objects.create(
            slip=fresh, step=SlipStep.RECEIVED, role=role, signer=by, signed_at=now
        )
        actor.audit(
            action="accounting.slip_received",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, "signed_as": role},
        )
    return signature


def slip_void(*, slip: Slip, actor: Actor, reason: str = "") -> SlipSignature:
    """Propose the void of a slip the cage has not issued, with a reason: the proposal waits
    for a second person (``casino.four_eyes``, kind ``slip_void``; decided with
    :func:`slip_void_decide`), and the cage refuses to issue the slip meanwhile. The slip keeps
    its number, shown as voided in the report once the void is approved.

    Needs ``supervise_pit`` or ``operate_cage``. Locks the gaming days (shared), the table row,
    the slip, then the audit chain. Raises ``permission_denied``, ``reason_required``,
    ``gaming_day_closed``, ``slip_step_refused`` (issued, received or voided),
    ``approval_pending`` (a void of it waits already)."""
    by = require_any(actor, *SLIP_STEP_PERMISSIONS[SlipStep.VOID_PROPOSED])
    reason = reason_required(reason, _("A void says why."))
    role = SignatureRole.PIT_BOSS if _holds(by, SignatureRole.PIT_BOSS) else SignatureRole.CASHIER
    with transaction.atomic():
        fresh, steps, now = _slip_locked(slip)
        if SlipStep.ISSUED in steps or _is_final(steps):
            raise _step_refused(_("Only a slip the cage has not issued is voided."), steps)
        approval = approval_request(
            actor=actor,
            casino=fresh.casino,
            kind="slip_void",
            subject_type=SLIP_SUBJECT,
            subject_id=fresh.pk,
            summary=f"Void of {fresh.kind} slip {_slip_number(fresh)} at {fresh.table.name}",
            place=fresh.table.name,
            amount_minor=fresh.total_minor,
            reason=reason,
            at=now,
        )
        signature = SlipSignature.objects.create(
            slip=fresh,
            step=SlipStep.VOID_PROPOSED,
            role=role,
            signer=by,
            signed_at=now,
            reason=reason,
            approval=approval,
        )
        actor.audit(
            action="accounting.slip_void_proposed",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, **approval_audit_fields(approval)},
        )
    return signature


def slip_void_decide(
    *, slip: Slip, approval_id: int, actor: Actor, approve: bool, reason: str = ""
) -> SlipSignature | None:
    """A second person decides the proposed void of a slip (``approval_id``, the approval its
    latest proposal waits for): approved, the slip is voided (its ``voided`` step, signed by the
    decider, returned); rejected with a reason, the slip waits for the cage again (``None``).
    Who may decide is ``casino.four_eyes``'s rule (kind ``slip_void``: ``view_accounting``, not
    the proposer).

    Locks the gaming days (shared), the table row, the slip, the approval, then the audit chain.
    Raises ``gaming_day_closed``, ``approval_not_found`` (no such proposal of this slip),
    ``permission_denied``, ``four_eyes_required``, ``approval_decided``, ``reason_required``."""
    with transaction.atomic():
        fresh, _steps, now = _slip_locked(slip)
        proposal = slip_void_proposal(fresh)
        if proposal is None or proposal.approval_id != approval_id:
            raise ApprovalNotFoundError(
                _("No void of slip %(number)s waits for this decision.") % {"number": _slip_number(fresh)}
            )
        decided = approval_decide(
            approval_id=approval_id, actor=actor, approve=approve, reason=reason, at=now
        )
        signature = None
        if approve:
            assert decided.decided_by is not None  # approval_decide: a staff member decided
            role = (
                SignatureRole.PIT_BOSS
                if _holds(decided.decided_by, SignatureRole.PIT_BOSS)
                else SignatureRole.ACCOUNTING
            )
            signature = SlipSignature.objects.create(
                slip=fresh,
                step=SlipStep.VOIDED,
                role=role,
                signer=decided.decided_by,
                signed_at=now,
                reason=proposal.reason,
                approval=decided,
            )
        actor.audit(
            action="accounting.slip_voided" if approve else "accounting.slip_void_rejected",
            object_type="accounting.slip",
            object_id=fresh.pk,
            after={"number": _slip_number(fresh), "kind": fresh.kind, **approval_audit_fields(decided)},
        )
    return signature
