"""``{% player_rating_summary player as rating %}``: what the cage's player page shows of a
player's rating (``accounting.ratings.player_rating_summary``), read when the page is drawn;
``{{ seconds|hours_minutes }}``: time played as ``h:mm``."""

from __future__ import annotations

from typing import Any

from django import template

from accounting.ratings import player_rating_summary
from casino.models import Player

register = template.Library()


@register.simple_tag(name="player_rating_summary")
def player_rating_summary_tag(player: Player) -> dict[str, Any]:
    return player_rating_summary(player)


@register.filter
def hours_minutes(seconds: int | None) -> str:
    """``5400`` -> ``"1:30"``; None -> ``""``."""
    if seconds is None:
        return ""
    hours, minutes = divmod(int(seconds) // 60, 60)
    return f"{hours}:{minutes:02d}"
