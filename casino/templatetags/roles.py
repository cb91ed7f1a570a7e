"""``{{ record.role|role_label }}``: a role's name in the active language (``casino.roles``)."""

from __future__ import annotations

from django import template

from casino.roles import role_label

register = template.Library()


@register.filter(name="role_label")
def role_label_filter(role: str | None) -> str:
    return role_label(role) if role else ""
