"""What the accounting commands check first: the signer's permission and role, the amounts in chips
of a count or a slip, and the moment a record is made in (its gaming day and shift)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext as _

from accounting.errors import InvalidCountError
from accounting.gaming_days import gaming_day_of, schedule_of, shift_of
from accounting.selectors import ROLE_PERMISSIONS, chip_values
from casino.actors import Actor, require_staff
from casino.models import Casino
from wallet.services import MAX_AMOUNT_MINOR


def role_held(user: User, role: str) -> bool:
    return bool(user.has_perm(f"casino.{ROLE_PERMISSIONS[role]}"))


def require_any(actor: Actor, *codenames: str) -> User:
    """The staff member giving the command, who holds one of the permissions ``codenames``;
    refused (``permission_denied``, naming the first) otherwise."""
    held = next((codename for codename in codenames if actor.has_perm(codename)), codenames[0])
    return require_staff(actor, held)


def chip_lines_checked(casino: Casino, amounts: Mapping[int, int], *, positive_total: bool) -> dict[int, int]:
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


def chip_lines_audited(lines: Mapping[int, int]) -> dict[str, int]:
    return {str(value): amount for value, amount in sorted(lines.items(), reverse=True)}
