"""``{% open_hold_alerts user as count %}``: how many hold alerts of the user's casino wait for a
pit boss's resolution note (the accounting pages' menu shows it beside "Hold alerts")."""

from __future__ import annotations

from typing import Any

from django import template

from accounting.models import HoldAlert
from casino.selectors import casino_for_user

register = template.Library()


@register.simple_tag
def open_hold_alerts(user: Any) -> int:
    casino = casino_for_user(user)
    if casino is None:
        return 0
    return HoldAlert.objects.filter(table__casino=casino, resolution__isnull=True).count()
