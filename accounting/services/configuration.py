"""The casino's accounting configuration: its chip set, and its settings (shift starts, the
opener variance threshold, the hold alerts' band, the cash transaction log's thresholds), a
change that weakens a control waiting for the accounting office."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounting.errors import InvalidCountError, InvalidSettingsError
from accounting.gaming_days import shift_starts_parse
from accounting.locking import settings_lock
from accounting.models import AccountingSettings, ChipDenomination
from accounting.selectors import SETTINGS_SUBJECT
from casino.actors import Actor, require_staff
from casino.errors import ApprovalNotFoundError
from casino.four_eyes import approval_audit_fields, approval_decide, approval_request, weakened_fields
from casino.models import Approval, Casino
from wallet.services import MAX_AMOUNT_MINOR


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
            raise InvalidSettingsError(str(SETTINGS_REFUSALS[name]), field=name)
        values[name] = value
    if values["hold_band_low_bp"] > values["hold_band_high_bp"]:
        raise InvalidSettingsError(
            _("The hold band's lowest hold is above its highest."),
            field="hold_band_low_bp",
        )
    if values["mtl_threshold_minor"] > values["large_cash_threshold_minor"]:
        raise InvalidSettingsError(
            _("The multiple-transaction log's threshold is above the large-cash report's."),
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
        raise InvalidSettingsError(_("A shift starts at a time such as 06:00.")) from error
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
        waiting = _weakening_change_request(casino, settings, current, changed, actor=actor)
        if waiting is not None:
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


def _weakening_change_request(
    casino: Casino,
    settings: AccountingSettings,
    current: Mapping[str, int],
    changed: dict[str, int],
    *,
    actor: Actor,
) -> Approval | None:
    """The approval a change of the settings that weakens a control waits for, requested with all
    the ``changed`` values (``casino.four_eyes.weakened_fields``); ``None`` when it weakens
    nothing."""
    if not weakened_fields(scope="accounting_settings", before=current, after=changed):
        return None
    return approval_request(
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
