"""The cage's forms: what a cashier types, checked and turned into the services' arguments.

Amounts typed by people (``150``, ``150.50``, ``150,50``, ``1,250.50``, ``-20`` for a debit) become
integer minor units in one place, ``casino.money.amount_minor_parse``. A form that moves money
carries a one-time ``form_token`` (a UUID drawn when the form is drawn): the view runs the
service once per token (``casino.idempotency.idempotent``), so a double submit moves nothing
twice.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from casino.money import AMOUNT_MAX_LENGTH, amount_minor_parse


def form_token() -> str:
    """A fresh one-time token for a form that moves money."""
    return str(uuid.uuid4())


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label=_("Card number or name"), required=False, max_length=120)


PIN_ATTRIBUTES = {"inputmode": "numeric", "autocomplete": "new-password"}


class PlayerRegisterForm(forms.Form):
    display_name = forms.CharField(label=_("Name"), max_length=120)
    card_number = forms.CharField(
        label=_("Card number"), max_length=32, widget=forms.TextInput(attrs={"autocomplete": "off"})
    )
    pin = forms.CharField(label=_("PIN"), max_length=8, widget=forms.PasswordInput(attrs=PIN_ATTRIBUTES))
    pin_again = forms.CharField(
        label=_("PIN again"), max_length=8, widget=forms.PasswordInput(attrs=PIN_ATTRIBUTES)
    )

    def clean_display_name(self) -> str:
        return str(self.cleaned_data["display_name"]).strip()

    def clean_card_number(self) -> str:
        return str(self.cleaned_data["card_number"]).strip()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("pin") and data.get("pin_again") and data["pin"] != data["pin_again"]:
            self.add_error("pin_again", forms.ValidationError(_("The two PINs differ."), code="pin_mismatch"))
        return data


class _OneTimeForm(forms.Form):
    form_token = forms.UUIDField(widget=forms.HiddenInput)

    def clean_form_token(self) -> str:
        return str(self.cleaned_data["form_token"])


class CageMoneyForm(_OneTimeForm):
    """A buy-in or a cash-out: an amount in major units."""

    amount = forms.CharField(label=_("Amount"), max_length=AMOUNT_MAX_LENGTH)

    def clean_amount(self) -> int:
        return amount_minor_parse(self.cleaned_data["amount"])


class CashOutForm(CageMoneyForm):
    """A cash-out: the amount, and the cashier's confirmation that the casino asks for above its
    ``cash_out_confirmation_above_minor``."""

    confirmed = forms.BooleanField(label=_("Confirmed"), required=False)


class AdjustmentForm(_OneTimeForm):
    """A balance adjustment: a signed amount (``-20.00`` takes from the player) and a reason."""

    amount = forms.CharField(label=_("Amount (+ or -)"), max_length=AMOUNT_MAX_LENGTH)
    reason = forms.CharField(label=_("Reason"), max_length=300, required=False)

    def clean_amount(self) -> int:
        return amount_minor_parse(self.cleaned_data["amount"], signed=True)


class ReasonForm(forms.Form):
    """A card lock or an adjustment's rejection: the reason (the service refuses an empty one)."""

    reason = forms.CharField(label=_("Reason"), max_length=300, required=False)
