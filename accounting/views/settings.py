"""The casino's accounting settings (``/accounting/settings/``): the chip set, the shift start
times, the variance threshold, the hold band and the cash transaction log's thresholds, in one
form; a change that weakens a control waits for the accounting office's approval."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import InvalidCountError, InvalidSettingsError
from accounting.selectors import chip_values, settings_change_waiting, settings_of
from accounting.services import accounting_configure, accounting_settings_decide
from accounting.views.common import answered, any_permission, decision_read, page, staff_casino
from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.models import Approval, Casino
from casino.money import amount_minor_parse, money_plain
from casino.views import HtmxHttpRequest, staff_user

SETTINGS = "accounting/settings.html"


def _settings_context(casino: Casino, user: Any) -> dict[str, Any]:
    settings = settings_of(casino)
    waiting = settings_change_waiting(casino)
    return {
        "casino": casino,
        "settings": settings,
        "waiting": waiting,
        "waiting_fields": _settings_change_rows(waiting),
        "may_decide_waiting": waiting is not None and may_decide(approval=waiting, user=user),
        "chips": chip_values(casino),
        "chips_text": ", ".join(money_plain(value) for value in sorted(chip_values(casino))),
        "shifts_text": ", ".join(settings.shift_starts),
        "threshold_text": money_plain(settings.variance_threshold_minor),
        "hold_low_text": _percent_text(settings.hold_band_low_bp),
        "hold_high_text": _percent_text(settings.hold_band_high_bp),
        "mtl_text": money_plain(settings.mtl_threshold_minor),
        "large_cash_text": money_plain(settings.large_cash_threshold_minor),
    }


SETTINGS_LABELS = {
    "variance_threshold_minor": gettext_lazy("Opener variance threshold"),
    "hold_band_low_bp": gettext_lazy("Lowest hold expected, in percent"),
    "hold_band_high_bp": gettext_lazy("Highest hold expected, in percent"),
    "hold_band_sigmas": gettext_lazy("Statistical band (standard deviations)"),
    "mtl_threshold_minor": gettext_lazy("Multiple-transaction log threshold"),
    "large_cash_threshold_minor": gettext_lazy("Large-cash report threshold"),
}


def _setting_text(name: str, value: int) -> str:
    if name.endswith("_bp"):
        return _percent_text(value)
    if name.endswith("_minor"):
        return money_plain(value)
    return str(value)


def _settings_change_rows(waiting: Approval | None) -> list[dict[str, str]]:
    """A waiting change of the settings, field by field: its name, the value before and after."""
    if waiting is None:
        return []
    before, after = waiting.before or {}, waiting.after or {}
    return [
        {
            "field": name,
            "label": str(SETTINGS_LABELS[name]),
            "before": _setting_text(name, int(before[name])),
            "after": _setting_text(name, int(after[name])),
        }
        for name in SETTINGS_LABELS
        if name in after and name in before
    ]


def _percent_text(basis_points: int) -> str:
    sign = "-" if basis_points < 0 else ""
    return f"{sign}{abs(basis_points) // 100}.{abs(basis_points) % 100:02d}"


def _basis_points(text: str, field: str) -> int | None:
    """A percentage as typed (``12.5``, ``12,5``, ``-3``) in basis points; blank: unchanged."""
    text = text.strip().replace(",", ".").rstrip("%").strip()
    if not text:
        return None
    try:
        value = Decimal(text) * 100
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite() or value != value.to_integral_value():
        raise InvalidSettingsError(_("A percentage such as 12.5."), field=field)
    return int(value)


def _whole(text: str, field: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        raise InvalidSettingsError(_("A whole number such as 3."), field=field)
    return int(text)


def _settings_page(
    request: HtmxHttpRequest, error: ServiceError | None = None, done: str = ""
) -> HttpResponse:
    context = _settings_context(staff_casino(request), request.user)
    return page(request, SETTINGS, "accounting-settings", context, error=error, done=done)


@any_permission("configure_tables", "sign_gaming_day")
@require_GET
def settings_page(request: HtmxHttpRequest) -> HttpResponse:
    """The settings: their form for the operator, and a change waiting for the accounting
    office's approval, with its decision for those who may take it."""
    return _settings_page(request)


@any_permission("sign_gaming_day")
@require_POST
def settings_decide(request: HtmxHttpRequest, approval_id: int, decision: str) -> HttpResponse:
    """The accounting office approves or rejects (with a reason) a change that weakens a control."""
    approve = decision_read(decision)
    error: ServiceError | None = None
    try:
        accounting_settings_decide(
            casino=staff_casino(request),
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = _("Change approved: the settings apply.") if approve else _("Change rejected: the settings stay.")
    back = reverse("accounting:settings")
    return answered(request, error, done, lambda *outcome: _settings_page(request, *outcome), back)


@any_permission("configure_tables")
@require_POST
def settings_change(request: HtmxHttpRequest) -> HttpResponse:
    """The chip set (values typed as amounts, separated by spaces), the shift start times, the
    variance threshold, the hold band and the cash transaction log's thresholds, in one form and
    one service (a field left blank stays as it is)."""
    casino = staff_casino(request)
    error: ServiceError | None = None
    try:
        chips = [
            _amount(text)
            for text in request.POST.get("chips", "").replace(";", " ").replace(", ", " ").split()
            if text.strip(",")
        ]
        threshold_text = request.POST.get("threshold", "").strip()
        threshold = 0 if threshold_text in ("", "0", "0.00") else _amount(threshold_text)
        shifts = [part for part in request.POST.get("shifts", "").replace(",", " ").split() if part]
        amounts = {
            name: _amount(request.POST[field]) if request.POST.get(field, "").strip() else None
            for name, field in (("mtl_threshold_minor", "mtl"), ("large_cash_threshold_minor", "large_cash"))
        }
        change = accounting_configure(
            casino=casino,
            chip_values_minor=chips,
            shift_starts=shifts,
            variance_threshold_minor=threshold,
            hold_band_low_bp=_basis_points(request.POST.get("hold_low", ""), "hold_band_low_bp"),
            hold_band_high_bp=_basis_points(request.POST.get("hold_high", ""), "hold_band_high_bp"),
            hold_band_sigmas=_whole(request.POST.get("sigmas", ""), "hold_band_sigmas"),
            **amounts,
            actor=Actor.staff(staff_user(request)),
        )
    except ServiceError as refused:
        error = refused
        change = None
    done = _("Accounting settings saved.")
    if change is not None and change.waiting is not None:
        done = _(
            "Accounting settings saved, but for the change that weakens a control: it waits for the "
            "accounting office's approval."
        )
    back = reverse("accounting:settings")
    return answered(request, error, done, lambda *outcome: _settings_page(request, *outcome), back)


def _amount(text: str) -> int:
    try:
        return amount_minor_parse(text.strip(","))
    except forms.ValidationError as error:
        raise InvalidCountError(" ".join(error.messages)) from error
