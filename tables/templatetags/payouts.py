"""``{{ line.rule|rule_label }}``: a payout line's rule in words (``tables.payout_labels``);
``{{ bet.kind|bet_kind_label }}``: a bet's kind in words."""

from __future__ import annotations

from django import template

from tables.payout_labels import rule_label
from tables.round_audit.labels import BET_KIND_LABELS

register = template.Library()


@register.filter(name="rule_label")
def rule_label_filter(rule: str) -> str:
    return rule_label(rule)


@register.filter
def bet_kind_label(kind: str) -> str:
    return str(BET_KIND_LABELS.get(kind, kind))
