"""The casino's accounting settings and its chip set, and a change of the settings that waits
for a second person."""

from __future__ import annotations

from accounting.models import DEFAULT_CHIP_VALUES_MINOR, AccountingSettings, ChipDenomination
from accounting.selectors.roles import SETTINGS_SUBJECT
from casino.models import Approval, Casino


def settings_of(casino: Casino) -> AccountingSettings:
    """The casino's accounting settings; the defaults (unsaved) when it has none yet."""
    found = AccountingSettings.objects.filter(casino=casino).first()
    return found if found is not None else AccountingSettings(casino=casino)


def chip_values(casino: Casino) -> list[int]:
    """The values (minor units) of the casino's active chips, highest first; the default chip set
    when none is configured."""
    values = list(
        ChipDenomination.objects.filter(casino=casino, is_active=True)
        .order_by("-value_minor")
        .values_list("value_minor", flat=True)
    )
    if values or ChipDenomination.objects.filter(casino=casino).exists():
        return values
    return sorted(DEFAULT_CHIP_VALUES_MINOR, reverse=True)


def settings_change_waiting(casino: Casino) -> Approval | None:
    """The change of the casino's accounting settings that waits for a second person, if any
    (it weakens a control: ``casino.four_eyes.weakened_fields``)."""
    return (
        Approval.objects.filter(
            casino=casino,
            kind="accounting_settings",
            subject_type=SETTINGS_SUBJECT,
            status=Approval.Status.PENDING,
        )
        .select_related("requested_by")
        .first()
    )
