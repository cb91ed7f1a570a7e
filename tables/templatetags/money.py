"""``{{ amount_minor|money }}``: integer minor units shown as major units with two decimals
(``125050`` -> ``1,250.50``), by ``tables.round_audit.money`` (integer arithmetic, no floats)."""

from __future__ import annotations

from django import template

from tables.round_audit import money as money_text

register = template.Library()


@register.filter
def money(amount_minor: int | None) -> str:
    return money_text(amount_minor)
