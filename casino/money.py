"""Money as people read and type it: the one place that turns integer minor units into text and
typed text back into minor units.

An amount is an ``int`` of the casino's minor units everywhere else. How many minor units make a
major one is the casino's ``currency_exponent`` (2 for cents, 0 for a currency without them, such
as HUF): the *active* exponent, like the active language and time zone. A signed-in staff
member's requests take the venue's (``casino.middleware``, kept in the session at login); any
other code runs with :data:`DEFAULT_EXPONENT` unless it activates one or passes ``exponent``.

- :func:`money`: for a person, in the active language: ``123456`` -> ``"1,234.56"`` in English,
  ``"1 234,56"`` in Hungarian, Polish and Russian, with the currency when given (``"€1,234.56"``,
  ``"1 234,56 €"``);
- :func:`money_plain`: for a file (CSV, JSON), the same in every language: ``"1234.56"``;
- :func:`money_input`: the value of a form's field, as the person would type it: the language's
  decimal mark and no grouping (``"1234,56"``), which :func:`amount_minor_parse` reads back;
- :func:`amount_minor_parse`: what a person typed (``150``, ``150,50``, ``1,250.50``) as minor
  units, refused with the code ``invalid_amount``; :class:`MoneyField`, a form field that does it.

Integer and decimal arithmetic only: never a float.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from asgiref.local import Local
from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

DEFAULT_EXPONENT = 2
# Amounts with more digits than this are keying errors (the services refuse more than 10**15).
AMOUNT_MAX_LENGTH = 20
AMOUNT_HELP = _("Enter an amount such as 150 or 150.50.")
# Where the currency has no minor units; the sentence the accounting settings use for whole numbers.
WHOLE_AMOUNT_HELP = _("A whole number such as 3.")

_active = Local()


def currency_exponent_activate(exponent: int) -> None:
    """Make ``exponent`` the active one for this thread or task (a request's venue)."""
    _active.exponent = int(exponent)


def currency_exponent_deactivate() -> None:
    """Back to :data:`DEFAULT_EXPONENT` (the end of a request)."""
    if hasattr(_active, "exponent"):
        del _active.exponent


def currency_exponent() -> int:
    """The active exponent: minor units per major unit as a power of ten."""
    return int(getattr(_active, "exponent", DEFAULT_EXPONENT))


@dataclass(frozen=True)
class MoneyStyle:
    """How a language writes an amount: the separator of thousands, the decimal mark, and whether
    the currency comes before the number (``€1,234.56``) or after it (``1 234,56 €``)."""

    group: str
    decimal: str
    currency_first: bool


NO_BREAK_SPACE = "\u00a0"
MONEY_STYLES = {
    "en": MoneyStyle(group=",", decimal=".", currency_first=True),
    "hu": MoneyStyle(group=NO_BREAK_SPACE, decimal=",", currency_first=False),
    "pl": MoneyStyle(group=NO_BREAK_SPACE, decimal=",", currency_first=False),
    "ru": MoneyStyle(group=NO_BREAK_SPACE, decimal=",", currency_first=False),
}
# ISO 4217 codes with a symbol every language of the back office writes; any other currency
# shows its code.
CURRENCY_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}


def money_style(language: str | None = None) -> MoneyStyle:
    """The style of ``language`` (by default the active one; English for any other)."""
    code = (language or get_language() or "en").split("-")[0].lower()
    return MONEY_STYLES.get(code, MONEY_STYLES["en"])


def _number(amount_minor: int, exponent: int | None, *, group: str, decimal: str) -> str:
    places = currency_exponent() if exponent is None else exponent
    sign = "-" if amount_minor < 0 else ""
    major, minor = divmod(abs(int(amount_minor)), 10**places)
    number = f"{major:,}".replace(",", group) if group else str(major)
    return f"{sign}{number}{decimal}{minor:0{places}d}" if places else f"{sign}{number}"


def money(
    amount_minor: int | None, *, currency: str = "", language: str | None = None, exponent: int | None = None
) -> str:
    """An amount in the active language (or ``language``), in the active exponent (or
    ``exponent``): in English ``123456`` -> ``"1,234.56"``, ``-5`` -> ``"-0.05"``, with
    ``currency="EUR"`` ``"€1,234.56"``; in Hungarian, Polish and Russian ``"1 234,56"`` and
    ``"1 234,56 €"`` (no-break spaces). With exponent 0, ``123456`` -> ``"123,456"``. A currency
    without a symbol shows its code (``"CHF 1,234.56"``, ``"1 234,56 CHF"``). None -> ``""``."""
    if amount_minor is None:
        return ""
    style = money_style(language)
    signed = _number(amount_minor, exponent, group=style.group, decimal=style.decimal)
    if not currency:
        return signed
    sign, number = ("-", signed[1:]) if signed.startswith("-") else ("", signed)
    symbol = CURRENCY_SYMBOLS.get(currency.upper())
    if style.currency_first:
        return f"{sign}{symbol}{number}" if symbol else f"{sign}{currency}{NO_BREAK_SPACE}{number}"
    return f"{sign}{number}{NO_BREAK_SPACE}{symbol or currency}"


def money_plain(amount_minor: int | None, *, exponent: int | None = None) -> str:
    """An amount for a file (CSV, JSON): the same in every language, ``123456`` -> ``"1234.56"``,
    ``-5`` -> ``"-0.05"`` (``"123456"`` and ``"-5"`` with exponent 0); None -> ``""``."""
    if amount_minor is None:
        return ""
    return _number(amount_minor, exponent, group="", decimal=".")


def money_input(amount_minor: int, *, exponent: int | None = None) -> str:
    """An amount as a person types it, with the active language's decimal mark and no grouping:
    ``500000`` -> ``"5000.00"`` (English), ``"5000,00"`` (Hungarian, Polish, Russian);
    :func:`amount_minor_parse` reads both."""
    return _number(amount_minor, exponent, group="", decimal=money_style().decimal)


@functools.cache
def _amount_pattern(exponent: int) -> re.Pattern[str]:
    decimals = rf"(?:\.[0-9]{{1,{exponent}}})?" if exponent else ""
    return re.compile(rf"^[+-]?[0-9]{{1,15}}{decimals}$")


def amount_minor_parse(
    text: str, *, signed: bool = False, allow_zero: bool = False, exponent: int | None = None
) -> int:
    """What a person typed, in major units, as minor units of the active exponent (or
    ``exponent``). With exponent 2: ``"150"`` -> ``15000``, ``"150.50"`` and ``"150,50"`` ->
    ``15050``, ``"1,250.50"`` and ``"1 250,50"`` -> ``125050``; at most two decimals. With
    exponent 0: ``"150"`` -> ``150``, no decimals. With ``signed``, ``"-20"`` and ``"+20"`` are
    read too; more than zero (not zero when signed) unless ``allow_zero``. Raises
    ``forms.ValidationError`` with the code ``invalid_amount``."""
    places = currency_exponent() if exponent is None else exponent
    cleaned = (text or "").strip().replace(" ", "").replace(NO_BREAK_SPACE, "")
    # With a point too (1,250.50) a comma groups thousands; alone (150,50) it is the decimal mark.
    cleaned = cleaned.replace(",", "" if "." in cleaned else ".")
    if not _amount_pattern(places).match(cleaned):
        raise forms.ValidationError(AMOUNT_HELP if places else WHOLE_AMOUNT_HELP, code="invalid_amount")
    if cleaned[0] in "+-" and not signed:
        raise forms.ValidationError(_("Enter the amount without a sign."), code="invalid_amount")
    minor = Decimal(cleaned).scaleb(places)
    if minor == 0 and not allow_zero:
        raise forms.ValidationError(_("The amount must be more than zero."), code="invalid_amount")
    return int(minor)


class MoneyField(forms.CharField):
    """An amount in major units, cleaned to integer minor units (:func:`amount_minor_parse`);
    ``allow_zero`` for thresholds and fees."""

    def __init__(self, *, allow_zero: bool = False, **kwargs: Any) -> None:
        self.allow_zero = allow_zero
        kwargs.setdefault("max_length", AMOUNT_MAX_LENGTH)
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "class": "money"}))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return money_input(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def clean(self, value: Any) -> int:
        return amount_minor_parse(str(super().clean(value)), allow_zero=self.allow_zero)
