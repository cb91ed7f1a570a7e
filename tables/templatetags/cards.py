"""``{{ code|playing_card }}``: a card code of the table's state as the screens draw it."""

from __future__ import annotations

from django import template

from tables.round_audit.cards import CardView, card_view

register = template.Library()


@register.filter
def playing_card(code: str) -> CardView:
    return card_view(code)
