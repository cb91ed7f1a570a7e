"""``{{ error|refusal }}``: a refusal's text in the active language (``casino.refusals``)."""

from __future__ import annotations

from django import template

from casino.errors import ServiceError
from casino.refusals import refusal_text

register = template.Library()


@register.filter
def refusal(error: ServiceError | None) -> str:
    return refusal_text(error) if error is not None else ""
