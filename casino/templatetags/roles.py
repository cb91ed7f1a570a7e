"""``{{ record.role|role_label }}``: a role's name in the active language (``casino.roles``)."""

from __future__ import annotations

from django import template

from casino.roles import role_label as label_of

register = template.Library()


@register.filter
def role_label(role: str | None) -> str:
    return label_of(role) if role else ""
