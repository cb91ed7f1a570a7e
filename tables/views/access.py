"""Scoping of the table pages: the table or round asked for, within the signed-in staff member's
casino (a table of another casino is not found, as one that does not exist)."""

from __future__ import annotations

from django.http import Http404, HttpRequest

from casino.views import staff_casino_id
from tables.models import Round


def staff_round(request: HttpRequest, round_id: int) -> Round:
    """The round ``round_id`` of a table of the staff member's casino, with its table; 404 otherwise."""
    round_ = (
        Round.objects.select_related("table", "config", "shoe", "dealer")
        .filter(pk=round_id, table__casino_id=staff_casino_id(request))
        .first()
    )
    if round_ is None:
        raise Http404(f"no round {round_id}")
    return round_
