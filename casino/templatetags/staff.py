"""``{{ user|staff_name }}``: a staff member as screens name them, their full name, or their
username when they have none ("" for nobody)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def staff_name(user: Any) -> str:
    if user is None:
        return ""
    return str(user.get_full_name() or user.get_username())
