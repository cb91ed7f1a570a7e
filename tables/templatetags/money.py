"""``{{ amount_minor|money }}``: integer minor units shown as major units with two decimals, the
way the active language writes them (``125050`` -> ``1,250.50`` in English, ``1 250,50`` in
Hungarian, Polish and Russian); ``{{ amount_minor|money_currency:casino }}`` (a Casino or an ISO
code) adds the currency as the language writes it (``€1,250.50``, ``1 250,50 €``). Both by
``tables.round_audit.money`` (integer arithmetic, no floats)."""

from __future__ import annotations

from django import template

from casino.models import Casino
from tables.round_audit import money as money_text

register = template.Library()


@register.filter
def money(amount_minor: int | None) -> str:
    return money_text(amount_minor)


@register.filter
def money_currency(amount_minor: int | None, currency: Casino | str | None) -> str:
    code = currency.currency if isinstance(currency, Casino) else (currency or "")
    return money_text(amount_minor, currency=code)
