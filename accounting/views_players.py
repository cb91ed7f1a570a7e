"""The players' pages of the accounting, readable with ``casino.view_accounting``:

- ``/accounting/players/``: find a player by card number (or id) for their ratings;
- ``/accounting/players/<card or id>/ratings/``: the player's sessions and gaming days with time
  played, rounds, average bet, rounds per hour, theo and actual win (``accounting.ratings``),
  over a range of gaming days (``?from=`` and ``?to=``, the last seven by default);
- ``/accounting/players/at/<table>/``: the players signed in at a table now, with their
  session's and the day's rating there (the pit's floor links to it);
- ``/accounting/cash-log/``: the cash transaction log of a gaming day (``?day=``), its
  multiple-transaction log and large-cash report (``accounting.cash_log``), and the same as
  CSV (``csv/``) and PDF (``pdf/``).

Each page is the whole page, or its partial for htmx (``Vary: HX-Request``). The cage's player
page shows a short rating through ``{% include "accounting/_player_rating.html" %}``
(``accounting.templatetags.player_ratings``), which cashiers read too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET

from accounting.cash_log import cash_log, cash_log_report
from accounting.documents import report_csv, report_pdf
from accounting.gaming_days import gaming_day_of, schedule_of
from accounting.ratings import player_ratings, players_at_table
from accounting.reports import day_state_notes
from casino.htmx import htmx_render
from casino.models import Casino, Player
from casino.selectors import casino_for_user
from casino.views import HtmxHttpRequest, staff_page, staff_table

PLAYERS = "accounting/players.html"
RATINGS = "accounting/player_ratings.html"
AT_TABLE = "accounting/table_players.html"
CASH_LOG = "accounting/cash_log.html"
DEFAULT_DAYS = 7
# A range longer than this is cut to it (from its last day back): a page, not an export.
MOST_DAYS = 92


def _casino(request: HttpRequest) -> Casino:
    casino = casino_for_user(request.user)
    if casino is None:
        raise Http404("no casino")
    return casino


def day_read(text: str | None, default: dt.date) -> dt.date:
    """A gaming day typed as ``YYYY-MM-DD``; ``default`` for anything else."""
    try:
        return dt.date.fromisoformat((text or "").strip())
    except ValueError:
        return default


def player_find(casino: Casino, key: str) -> Player | None:
    """The casino's player with card number ``key``, else with id ``key``."""
    key = key.strip()
    found = Player.objects.select_related("casino").filter(casino=casino, card_number=key).first()
    if found is None and key.isdigit() and len(key) < 12:
        found = Player.objects.select_related("casino").filter(casino=casino, pk=int(key)).first()
    return found


# ---------------------------------------------------------------------------- ratings


@staff_page("view_accounting")
@require_GET
def players(request: HtmxHttpRequest) -> HttpResponse:
    """Find a player: an exact card number (or id) goes to their ratings; a name lists matches."""
    casino = _casino(request)
    text = request.GET.get("q", "").strip()[:120]
    matches: list[Player] = []
    if text:
        found = player_find(casino, text)
        if found is not None:
            return redirect("accounting:player_ratings", key=found.card_number)
        matches = list(
            Player.objects.filter(casino=casino)
            .filter(Q(display_name__icontains=text) | Q(card_number__startswith=text))
            .order_by("display_name", "card_number")[:25]
        )
    context = {"casino": casino, "q": text, "matches": matches, "searched": bool(text)}
    return htmx_render(request, PLAYERS, context, partial="player-matches")


@staff_page("view_accounting")
@require_GET
def player_ratings_page(request: HtmxHttpRequest, key: str) -> HttpResponse:
    """A player's sessions and gaming days from ``?from=`` to ``?to=`` (the last seven days)."""
    casino = _casino(request)
    player = player_find(casino, key)
    if player is None:
        raise Http404(f"no player {key}")
    today = gaming_day_of(schedule_of(casino), timezone.now())
    last_day = min(day_read(request.GET.get("to"), today), today)
    first_day = day_read(request.GET.get("from"), last_day - dt.timedelta(days=DEFAULT_DAYS - 1))
    first_day = max(min(first_day, last_day), last_day - dt.timedelta(days=MOST_DAYS - 1))
    context = {
        "casino": casino,
        "player": player,
        "ratings": player_ratings(player, first_day, last_day),
        "back": request.get_full_path(),
    }
    return htmx_render(request, RATINGS, context, partial="ratings")


@staff_page("view_accounting")
@require_GET
def table_players(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """The players signed in at a table now, each with the open session's and the day's rating
    at that table."""
    table = staff_table(request, table_name)
    found, pending = players_at_table(table)
    context = {
        "casino": table.casino,
        "table": table,
        "players": found,
        "pending_versions": pending,
        "back": request.get_full_path(),
    }
    return htmx_render(request, AT_TABLE, context, partial="table-players")


# ---------------------------------------------------------------------------- the cash log


def _cash_log_of(request: HttpRequest) -> Any:
    casino = _casino(request)
    today = gaming_day_of(schedule_of(casino), timezone.now())
    return cash_log(casino, min(day_read(request.GET.get("day"), today), today))


@staff_page("view_accounting")
@require_GET
def cash_log_page(request: HtmxHttpRequest) -> HttpResponse:
    """The cash transaction log of ``?day=`` (the current gaming day by default)."""
    log = _cash_log_of(request)
    context = {
        "casino": log.casino,
        "log": log,
        "rows": [(item, log.is_logged(item)) for item in log.transactions],
        "previous_day": log.gaming_day - dt.timedelta(days=1),
        "next_day": log.gaming_day + dt.timedelta(days=1),
        "is_today": log.gaming_day >= gaming_day_of(schedule_of(log.casino), timezone.now()),
        "day_state": day_state_notes(log.casino, log.gaming_day),
    }
    return htmx_render(request, CASH_LOG, context, partial="cash-log")


def _file(content: bytes, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@staff_page("view_accounting")
@require_GET
def cash_log_csv(request: HttpRequest) -> HttpResponse:
    log = _cash_log_of(request)
    return _file(
        report_csv(cash_log_report(log, plain=True)),
        "text/csv; charset=utf-8",
        f"cash-log-{log.gaming_day.isoformat()}.csv",
    )


@staff_page("view_accounting")
@require_GET
def cash_log_pdf(request: HttpRequest) -> HttpResponse:
    log = _cash_log_of(request)
    return _file(
        report_pdf(cash_log_report(log, plain=False)),
        "application/pdf",
        f"cash-log-{log.gaming_day.isoformat()}.pdf",
    )
