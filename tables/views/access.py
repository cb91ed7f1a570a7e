"""Scoping of the table pages: the table or round asked for, within the signed-in staff member's
casino (a table of another casino is not found, as one that does not exist)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404, HttpRequest

from casino.errors import NotFoundError
from casino.models import Table
from casino.selectors import casino_for_user, casino_id_for_user
from tables.models import Round
from tables.selectors import access_table


def staff_casino_id(request: HttpRequest) -> int:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino.pk


def staff_table(request: HttpRequest, table_name: str, tables: QuerySet[Table] | None = None) -> Table:
    """The table named ``table_name`` (or with that id) in the staff member's casino (of
    ``tables`` when given), read in one statement with its casino; 404 otherwise."""
    try:
        return access_table(table_id=table_name, casino_id=casino_id_for_user(request.user), tables=tables)
    except NotFoundError as error:
        raise Http404(error.message) from error


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
