"""``{{ error|refusal }}``: a refusal's text in the active language (``casino.refusals``);
``{{ code|refusal_sentence }}``: the sentence of a code recorded without its error (a misscan's
reason), for screens that show the code only as the element's title."""

from __future__ import annotations

from django import template

from casino.errors import ServiceError
from casino.refusals import refusal_sentence, refusal_text

register = template.Library()


@register.filter
def refusal(error: ServiceError | None) -> str:
    return refusal_text(error) if error is not None else ""


@register.filter(name="refusal_sentence")
def refusal_sentence_filter(code: str | None) -> str:
    return refusal_sentence(code) if code else ""
