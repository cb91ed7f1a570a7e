"""The dealer console ``/dealer/tables/<table>/``: one page per table for the touch screen at the
table and its keyboard, on the services the terminal API uses.

The page shows the table as ``tables.selectors.table_state`` reads it, and only the actions the
round allows now (``console_actions``), each a form that works without JavaScript (POST, then a
redirect back; a refusal redraws the page with the reason) and, with htmx, swaps the console in
place. The console follows its table's stream (``stream/``, ``casino/streams.py``): on each hint
of the table, at a countdown's end, and every 15 seconds besides, it asks ``live/`` whether
anything changed (``console_version``: a few indexed counters, no state built), and redraws only
then; what it draws at a version is
built once and cached under that version (``table_view``), so that the consoles of a table share
it. A stale screen's action, one sent for a round that moved on since it was drawn, is refused
``stale_screen`` with nothing moved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import NoRoundToTipError
from accounting.models import Slip
from accounting.selectors import slip_signed_last, slip_state, slips_open
from accounting.tips import round_tips, round_tips_marker, tip_record, tips_none_record
from accounting.views_tips import tip_amount_read
from casino.errors import ServiceError, game
from casino.hints import queue_topic, table_topic
from casino.htmx import htmx_render, htmx_vary
from casino.models import Game, Table
from casino.refusals import refusal_text
from casino.streams import hint_stream
from casino.views import HtmxHttpRequest, staff_page, staff_table, staff_user
from floor.errors import InvalidInputError, NoSuchActionError, NotABlackjackTableError, StaleScreenError
from games.cards import Card
from tables.api.state import table_state_version_current
from tables.errors import NotSignedOnError
from tables.models import Round, RoundRequest, RoundStatus, TableConfigVersion, TableDealer, signed_on_dealer
from tables.round_audit.labels import BET_KIND_LABELS, DECISION_LABELS, ROUND_STATUS_LABELS
from tables.round_audit.summary import RoundSummary, round_summary
from tables.selectors import rounds_latest_first, seconds_left, table_state_of_round
from tables.services import (
    Actor,
    card_enter,
    dealer_sign_off,
    dealer_sign_on,
    decision_make,
    insurance_close,
    insurance_decide,
    round_close_betting,
    round_open,
    round_request_create,
    round_settle,
    shoe_shuffle,
)
from tables.services.common import table_dealer_id
from tables.services.shoes import shoe_and_config_current

CONSOLE = "floor/dealer/console.html"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS = (("S", "♠"), ("H", "♥"), ("D", "♦"), ("C", "♣"))
# What happens when a countdown runs out (rules/blackjack.md 3.1, 3.3, 5.6).
DEFAULTS = {
    RoundStatus.BETTING: gettext_lazy("no more bets"),
    RoundStatus.INSURANCE: gettext_lazy("no insurance"),
    RoundStatus.PLAYERS: DECISION_LABELS["stand"],
}


@dataclass(frozen=True)
class ConsoleAction:
    """A button of the console: the action's slug (``do/<name>/``), its label and its key; or,
    with ``href``, a link to the page where it is done (the tray's counts open and close the
    table: the table's accounting page)."""

    name: str
    label: str
    key: str
    is_primary: bool = False
    href: str = ""


def console_version(table: Table) -> str:
    """What the console shows, as a version: the terminals' counters (rounds, bets, boxes, seats,
    shoe, configuration; an overdue default applied first) and what only the console shows (the
    dealer signed on, the round's requests, the pit boss's payout decisions on it), read in one
    statement (``tables.sql.table_version_row``), and the last step signed on a fill or credit
    slip of the table (one statement: a slip requested, issued, received or voided shows within
    a poll). While the latest round is settled, its tips too (one statement more, then only): a
    tip from a player's wallet shows on the tips step within a poll, as the dealer's own do."""
    version = table_state_version_current(table_id=table.pk, for_player_id=None, for_console=True)
    parts = [version.value]
    slips = slip_signed_last(table.pk)
    if slips:
        parts.append(f"slips:{slips}")
    if version.round_id is not None and version.round_status == RoundStatus.SETTLED:
        count, last = round_tips_marker(version.round_id)
        parts.append(f"{count}:{last}")
    if len(parts) == 1:
        return version.value
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:32]


def console_actions(
    *,
    state: dict[str, Any],
    is_my_table: bool,
    someone_else_deals: bool,
    dealer_decides: bool,
    pending: frozenset[str] = frozenset(),
) -> list[ConsoleAction]:
    """The buttons the dealer may press now, from the table's state and the kinds of request
    already waiting for the pit boss (``pending``; the services refuse the rest anyway: this
    only keeps the screen to what can succeed)."""
    if state["config"] is None:
        return []  # a card-room table (canasta) or one without a configuration: nothing to deal
    table = state["table"]
    round_ = state["round"]
    status = round_["status"] if round_ else None
    is_open_round = status not in (None, RoundStatus.SETTLED, RoundStatus.VOIDED)
    if not is_my_table:
        label = _("Take over the table") if someone_else_deals else _("Sign on")
        return [ConsoleAction("sign-on", label, "J", is_primary=True)]
    actions: list[ConsoleAction] = []
    if not is_open_round:
        if state["shuffle_due"]:
            actions.append(ConsoleAction("shuffle", _("Record the shuffle"), "R", is_primary=True))
        if table["is_open"]:
            if not state["shuffle_due"]:
                actions.append(ConsoleAction("open-betting", _("Open betting"), "B", is_primary=True))
                actions.append(ConsoleAction("shuffle", _("Shuffle now"), "R"))
            counts = reverse("accounting:table", args=[table["name"]])
            actions.append(ConsoleAction("close-table", _("Count the tray to close"), "W", href=counts))
        else:
            counts = reverse("accounting:table", args=[table["name"]])
            actions.append(
                ConsoleAction("open-table", _("Count the tray to open"), "T", is_primary=True, href=counts)
            )
            actions.append(ConsoleAction("sign-off", _("Sign off"), "Q"))
    elif round_["awaiting_correction"]:
        if "correction" not in pending:
            actions.append(ConsoleAction("correction", _("Correct the misscan"), "M", is_primary=True))
    elif status == RoundStatus.BETTING:
        actions.append(ConsoleAction("close-betting", _("No more bets"), "N", is_primary=True))
    elif status == RoundStatus.INSURANCE:
        actions.append(ConsoleAction("close-insurance", _("Close insurance"), "X", is_primary=True))
    elif status == RoundStatus.SETTLING:
        actions.append(ConsoleAction("settle", _("Settle"), "E", is_primary=True))
    if is_open_round and status == RoundStatus.PLAYERS and dealer_decides and round_["turn"]:
        allowed = set(round_["turn"]["decisions"])  # the rules' decisions on the hand now
        for name, label, key in (
            ("hit", pgettext("blackjack decision", "Hit"), "H"),
            ("stand", pgettext("blackjack decision", "Stand"), "S"),
            ("double", pgettext("blackjack decision", "Double"), "D"),
            ("split", pgettext("blackjack decision", "Split"), "P"),
            ("surrender", pgettext("blackjack decision", "Surrender"), "F"),
        ):
            if name in allowed:
                actions.append(ConsoleAction(f"decision-{name}", label, key))
    if is_open_round and "void" not in pending:
        actions.append(ConsoleAction("void", _("Ask to void the round"), "V"))
    return actions


@dataclass(frozen=True)
class TableView:
    """What every console of a table shows at one version of it (``console_version``), built once
    per version and language and kept in the cache (``table_view``): the state, the configuration,
    the dealer spells (the open one first, if any), the latest round with its waiting requests
    and, once settled, its summary. Nothing in it depends on who looks or when (the seconds left
    and the tips step are added per request); the summary's words and amounts are written in the
    language it was built in."""

    state: dict[str, Any]
    config: TableConfigVersion | None
    spell: TableDealer | None
    spells: list[TableDealer]
    last_round: Round | None
    pending: list[RoundRequest]
    summary: RoundSummary | None
    # The table's fill and credit slips not yet received nor voided, with their step.
    slips: list[tuple[Slip, str]]


# How long a table's view stays in the cache; a new version is a new entry, so this bounds only
# the memory kept for versions no console will ask for again.
VIEW_SECONDS = 60


def table_view(table: Table, version: str) -> TableView:
    """The table's view at ``version`` (read before calling: a change committed while the view is
    built then shows under the older version, and the next poll builds it again). Twenty consoles
    redrawing after a change build it once per web process and language instead of twenty times
    (bench/live_updates.py)."""
    key = f"floor:console-view:{table.pk}:{version}:{get_language()}"
    view: TableView | None = cache.get(key)
    if view is None:
        view = _table_view_build(table)
        cache.set(key, view, VIEW_SECONDS)
    return view


def _table_view_build(table: Table) -> TableView:
    # The latest round, with whether any of its requests waits for the pit boss (most rounds
    # have none: then they are not read).
    waiting = RoundRequest.objects.filter(round=OuterRef("pk"), decision__isnull=True)
    last_round = rounds_latest_first(table).annotate(requests_waiting=Exists(waiting)).first()
    if last_round is not None:
        last_round.table = table
    shoe, config = shoe_and_config_current(table)
    state = table_state_of_round(table=table, round_=last_round, in_use=(shoe, config), bettor_names=True)
    _bets_named(state)
    # The last three spells: the open one (one dealer at a time, and the newest) and who dealt
    # before; only what the page names (never the dealer's account whole: the cache may be shared).
    spells = list(
        TableDealer.objects.filter(table=table)
        .select_related("dealer")
        .only(
            "table_id",
            "dealer_id",
            "signed_on_at",
            "signed_off_at",
            "dealer__username",
            "dealer__first_name",
            "dealer__last_name",
        )
        .order_by("-pk")[:3]
    )
    status = last_round.status if last_round else None
    return TableView(
        state=state,
        config=config,
        spell=spells[0] if spells and spells[0].signed_off_at is None else None,
        spells=spells,
        last_round=last_round,
        pending=(
            list(RoundRequest.objects.filter(round=last_round, decision__isnull=True).order_by("pk"))
            if last_round is not None and last_round.requests_waiting
            else []
        ),
        summary=round_summary(last_round) if last_round and status == RoundStatus.SETTLED else None,
        slips=[(slip, slip_state(slip)) for slip in slips_open(table.casino, table=table)],
    )


def _context(
    request: HttpRequest, table: Table, error: ServiceError | None = None, version: str | None = None
) -> dict[str, Any]:
    user = staff_user(request)
    # The version first, then what it stands for (``table_view``).
    version = version if version is not None else console_version(table)
    view = table_view(table, version)
    state = view.state
    round_ = state["round"]
    if round_:
        state = {**state, "round": {**round_, "seconds_left": seconds_left(round_["decision_deadline_at"])}}
        round_ = state["round"]
    spell, last_round, pending = view.spell, view.last_round, view.pending
    is_my_table = spell is not None and spell.dealer_id == user.pk
    dealer_decides = bool(view.config and view.config.dealer_records_decisions)
    actions = console_actions(
        state=state,
        is_my_table=is_my_table,
        someone_else_deals=spell is not None,
        dealer_decides=dealer_decides,
        pending=frozenset(request.kind for request in pending),
    )
    status = round_["status"] if round_ else None
    insurance_open = [
        bet
        for box in state["boxes"]
        for bet in box["bets"]
        if status == RoundStatus.INSURANCE and bet["kind"] in ("main", "behind") and bet["status"] == "placed"
    ]
    return {
        "table": table,
        "stream_url": reverse("floor:console_stream", args=[table.name]),
        "state": state,
        "config": view.config,
        "spell": spell,
        "spells": view.spells,
        "is_my_table": is_my_table,
        "actions": actions,
        "action_names": {action.name for action in actions},
        "card_wanted": bool(
            is_my_table
            and round_
            and round_["card_expected"]
            and not round_["awaiting_correction"]
            and state["shoe"]
            and state["shoe"]["kind"] == "physical"
        ),
        "dealer_decides": dealer_decides,
        "insurance_open": insurance_open if dealer_decides and is_my_table else [],
        "default_action": DEFAULTS.get(status) if status else None,
        "status_label": ROUND_STATUS_LABELS.get(status, status) if status else "",
        "round_version": last_round.version if last_round else "",
        "pending_requests": pending,
        "slips_in_flight": view.slips,
        "summary": view.summary,
        # The round's tips step, from its settlement until the next round opens (one statement,
        # only then; not part of the version): accounting/tips.py.
        "tips": round_tips(last_round.pk)
        if is_my_table and last_round and status == RoundStatus.SETTLED
        else None,
        "version": version,
        "ranks": RANKS,
        "suits": SUITS,
        "error": error,
        "error_text": refusal_text(error) if error is not None else "",
    }


def _bets_named(state: dict[str, Any]) -> None:
    """Each bet of the state (read with its bettor's name) gets its box and its kind's label."""
    for box in state["boxes"]:
        for bet in box["bets"]:
            bet["box"] = box["number"]
            bet["kind_label"] = BET_KIND_LABELS.get(bet["kind"], bet["kind"])


def _render(
    request: HtmxHttpRequest, table: Table, error: ServiceError | None = None, version: str | None = None
) -> HttpResponse:
    status = error.status if error is not None else 200
    return htmx_render(
        request, CONSOLE, _context(request, table, error, version), partial="console", status=status
    )


@staff_page("run_table")
@require_GET
def console(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    return _render(request, staff_table(request, table_name))


@staff_page("run_table")
@require_GET
def console_live(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """The console again when its version moved on from ``?version=``, else 204 (htmx keeps
    the page as it is). Reading the version applies an overdue default, so that a console left
    open drives the round's timers even without a worker."""
    table = staff_table(request, table_name)
    version = console_version(table)
    if request.GET.get("version") == version:
        return htmx_vary(HttpResponse(status=204))
    return _render(request, table, version=version)


@staff_page("run_table")
@require_GET
def console_stream(request: HtmxHttpRequest, table_name: str) -> HttpResponseBase:
    """The console's stream (``casino/streams.py``): hints of the table (the console re-reads
    itself) and of its casino's queue (the header's count), for the staff the page serves."""
    table = staff_table(request, table_name)
    return hint_stream(request, {table_topic(table.pk): "table", queue_topic(table.casino_id): "queue"})


@staff_page("run_table")
@require_GET
def recall(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    """The table's last ten rounds, each with its cards, bets and payouts (last game recall)."""
    table = staff_table(request, table_name)
    rounds = list(
        Round.objects.filter(table=table, status__in=(RoundStatus.SETTLED, RoundStatus.VOIDED))
        .select_related("table")
        .order_by("-number")[:10]
    )
    context = {"table": table, "summaries": [(round_, round_summary(round_)) for round_ in rounds]}
    return htmx_render(request, "floor/dealer/recall.html", context, partial="recall")


def _card(request: HttpRequest) -> str:
    """The card typed (``KH``, ``TD``, ``10d``) or picked (rank and suit), as its code. What is
    not a card is a typing slip, refused ``invalid_card`` with nothing recorded (a card reader's
    unreadable scan, by contrast, is a misscan: ``card_enter``)."""
    typed = request.POST.get("card", "").strip() or request.POST.get("rank", "") + request.POST.get(
        "suit", ""
    )
    return game(lambda: Card.parse(typed).code)


def _number(request: HttpRequest, name: str) -> int:
    value = request.POST.get(name, "")
    if not value.strip().isdigit():
        raise InvalidInputError(_("%(name)s must be a number.") % {"name": name})
    return int(value)


def _tipped_round(table: Table, round_id: int) -> Round:
    """The round whose tips the console records (the table's latest: ``_perform`` checked it)."""
    round_ = Round.objects.select_related("table__casino", "dealer").filter(table=table, pk=round_id).first()
    if round_ is None:
        raise NoRoundToTipError(_("This table has no round whose dealer can be tipped."))
    return round_


def _perform(request: HttpRequest, table: Table, action: str) -> None:
    actor = Actor.staff(staff_user(request))
    if table.game != Game.BLACKJACK:
        raise NotABlackjackTableError(_("This console runs blackjack tables only."))
    if action == "sign-on":
        dealer_sign_on(table=table, actor=actor)
        return
    if table_dealer_id(table) != staff_user(request).pk:
        raise NotSignedOnError(_("Sign on to this table first."))
    round_id = table.last_round_id or 0  # type: ignore[attr-defined]  # console_tables()
    posted = (request.POST.get("round", ""), request.POST.get("round_version", ""))
    if round_id and posted != (str(round_id), str(table.last_round_version)):  # type: ignore[attr-defined]
        raise StaleScreenError(_("The table moved on since your screen was drawn: look again, then act."))
    performers: dict[str, Callable[[], object]] = {
        "sign-off": lambda: dealer_sign_off(table=table, actor=actor),
        "open-betting": lambda: round_open(table=table, actor=actor),
        "close-betting": lambda: round_close_betting(round_id=round_id, actor=actor),
        "close-insurance": lambda: insurance_close(round_id=round_id, actor=actor),
        "card": lambda: card_enter(round_id=round_id, actor=actor, card=_card(request)),
        "settle": lambda: round_settle(round_id=round_id, actor=actor),
        "shuffle": lambda: shoe_shuffle(
            table=table,
            actor=actor,
            cut_card_position=_number(request, "cut_card") if request.POST.get("cut_card") else None,
        ),
        "void": lambda: round_request_create(
            round_id=round_id, actor=actor, kind="void", reason=request.POST.get("reason", "")
        ),
        "correction": lambda: round_request_create(
            round_id=round_id,
            actor=actor,
            kind="correction",
            reason=request.POST.get("reason", ""),
            card=None if request.POST.get("no_card") else _card(request),
        ),
        "tip": lambda: tip_record(
            round_=_tipped_round(table, round_id),
            amount_minor=tip_amount_read(request.POST.get("amount", "")),
            actor=Actor.staff(staff_user(request)),
            box=_number(request, "box") if request.POST.get("box") else None,
        ),
        "no-tips": lambda: tips_none_record(
            round_=_tipped_round(table, round_id), actor=Actor.staff(staff_user(request))
        ),
        "insurance": lambda: insurance_decide(
            round_id=round_id,
            actor=actor,
            bet_id=_number(request, "bet"),
            take=request.POST.get("take") == "1",
        ),
    }
    if action.startswith("decision-"):
        decision = action.removeprefix("decision-")
        box = _number(request, "box")
        decision_make(round_id=round_id, actor=actor, box_number=box, decision=decision)
        return
    performer = performers.get(action)
    if performer is None:
        raise NoSuchActionError(_("No such action."))
    performer()


def console_tables() -> QuerySet[Table]:
    """Tables as an action of the console reads its table: with the dealer signed on to it
    (``signed_on_dealer_id``) and its last round's id and version (``last_round_id``,
    ``last_round_version``: what the screen that sent the action must have drawn), in the one
    statement that finds the table."""
    last = Round.objects.filter(table_id=OuterRef("pk")).order_by("-number")
    return Table.objects.annotate(
        signed_on_dealer_id=signed_on_dealer(OuterRef("pk")),
        last_round_id=Subquery(last.values("pk")[:1]),
        last_round_version=Subquery(last.values("version")[:1]),
    )


@staff_page("run_table")
@require_POST
def console_action(request: HtmxHttpRequest, table_name: str, action: str) -> HttpResponse:
    """One dealer action: the service's refusal is shown in words on the redrawn console (its
    status kept: 409 for a table that moved on), nothing having moved; success redraws the
    console (htmx) or redirects back to it (a plain form)."""
    table = staff_table(request, table_name, console_tables())
    # The console is drawn again with the table as read above: no action here changes its row.
    try:
        _perform(request, table, action)
    except ServiceError as error:
        return _render(request, table, error)
    if request.htmx:
        return _render(request, table)
    return redirect(reverse("floor:console", args=[table.name]), permanent=False)
