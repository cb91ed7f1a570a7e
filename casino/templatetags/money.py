"""``{{ amount_minor|money }}``: integer minor units shown as major units in the active exponent,
the way the active language writes them (``125050`` -> ``1,250.50`` in English, ``1 250,50`` in
Hungarian, Polish and Russian); ``{{ amount_minor|money_currency:casino }}`` (a Casino, whose
exponent it takes, or an ISO code) adds the currency as the language writes it (``€1,250.50``,
``1 250,50 €``). Both by ``casino.money.money``."""

from __future__ import annotations

from django import template

from casino import money as amounts
from casino.models import Casino

register = template.Library()


@register.filter(name="money")
def money_filter(amount_minor: int | None) -> str:
    return amounts.money(amount_minor)


@register.filter
def money_currency(amount_minor: int | None, currency: Casino | str | None) -> str:
    if isinstance(currency, Casino):
        return amounts.money(amount_minor, currency=currency.currency, exponent=currency.currency_exponent)
    return amounts.money(amount_minor, currency=currency or "")
