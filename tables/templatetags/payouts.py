"""``{{ line.rule|rule_label }}``: a payout line's rule in words (``tables.payout_labels``)."""

from __future__ import annotations

from django import template

from tables.payout_labels import rule_label as _rule_label

register = template.Library()


@register.filter
def rule_label(rule: str) -> str:
    return _rule_label(rule)
