"""``{{ rule_set|rule_set_description }}``: a rule set's description in the reader's language when
it is a seeded one (``tables.rule_set_texts``), else as it was typed."""

from __future__ import annotations

from django import template

from casino.models import RuleSet
from tables.rule_set_texts import rule_set_description

register = template.Library()


@register.filter(name="rule_set_description")
def rule_set_description_filter(rule_set: RuleSet) -> str:
    return rule_set_description(rule_set)
