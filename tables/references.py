"""How the cage names what a live table's hold is for (``wallet.references``): a round by its
number at its table."""

from __future__ import annotations

from collections.abc import Collection

from tables.models import Round


def round_numbers(round_ids: Collection[int]) -> dict[int, int]:
    """Each round's number at its table, by round id (the cage's open holds name their round)."""
    return dict(Round.objects.filter(pk__in=round_ids).values_list("pk", "number"))
