"""The pit boss's desk ``/pit/``: the floor (every table of the casino live, the card room's
canasta tables with their game, the signatures of counts and slips waiting) and the approvals
queue (held payouts by round, box and hand; dealers' requests to void or correct, misscans
waiting for a correction, hosts' requests to void a canasta game), each a partial redrawn only
when its version moved on. Each asks ``live/`` when the page's stream (``stream/``,
``casino/streams.py``) passes a hint of its kind on (the floor: ``floor``, and ``queue`` for its
signatures waiting; the approvals: ``queue``), and every 15 seconds in any case. Decisions go
through ``payouts_decide`` (a round's held lines in one command), ``round_request_approve``/
``round_request_reject`` and ``canasta_void_approve``/``canasta_void_reject``; the services
refuse the dealer of the round and the requester."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.contrib import messages
from django.db.models import Exists, IntegerField, OuterRef, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Concat, NullIf, Trim
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounting.selectors import signatures_waiting
from cardroom.models import OPEN_CANASTA_GAME_STATUSES, CanastaGame, CanastaGameStatus, CanastaVoidRequest
from cardroom.services import canasta_void_approve, canasta_void_reject
from casino.errors import ServiceError
from casino.four_eyes import may_decide
from casino.hints import floor_topic, queue_topic
from casino.htmx import htmx_render, htmx_vary
from casino.models import Game, Table
from casino.refusals import refusal_text
from casino.streams import hint_stream
from casino.views import HtmxHttpRequest, staff_casino_id, staff_page, staff_user
from floor.errors import FloorNoSuchRecordError
from tables.errors import NoSuchDecisionError
from tables.models import (
    OPEN_ROUND_STATUSES,
    Bet,
    BetStatus,
    PayoutLine,
    Round,
    RoundEvent,
    RoundRequest,
    RoundStatus,
    TableDealer,
)
from tables.selectors import HeldRound, config_approvals_waiting, held_payouts
from tables.services import Actor, card_correct, payouts_decide, round_request_approve, round_request_reject

FLOOR = "floor/pit/floor.html"
FLOOR_STATES = {
    "closed": gettext_lazy("Closed"),
    "open": gettext_lazy("Open, no round"),
    "betting": gettext_lazy("Betting"),
    "dealing": gettext_lazy("Dealing"),
    "settling": gettext_lazy("Settling"),
    "waiting": gettext_lazy("Waiting for approval"),
    # a canasta table's game (the card room)
    "seating": gettext_lazy("Seating the players"),
    "playing": gettext_lazy("Game in play"),
}
DEALING = (RoundStatus.DEALING, RoundStatus.INSURANCE, RoundStatus.PLAYERS, RoundStatus.DEALER)
# Whose signature a count, a drop count or a slip waits for (accounting.selectors.SignatureWaiting).
WAITS_FOR = {
    "dealer": gettext_lazy("a dealer"),
    "pit_boss": gettext_lazy("a pit boss"),
    "count_team": gettext_lazy("the count team (a cashier)"),
    "verifier": gettext_lazy("a pit boss or the accounting office"),
    "issued": gettext_lazy("the cage, to issue it"),
    "received": gettext_lazy("the table, to receive it"),
    "voided": gettext_lazy("a second person, to confirm its void"),
}


def floor_rows(casino_id: int) -> list[dict[str, Any]]:
    """Every table of the casino with its state, dealer, latest round, the stakes in play and
    when its round last changed; a canasta table with its open game instead (its number, deals
    scored, host, the players' holds): one query (a subquery per column)."""
    now = timezone.now()
    return [_floor_row(table, now) for table in _floor_tables(casino_id)]


def _floor_tables(casino_id: int) -> QuerySet[Table]:
    """The casino's tables by pit and name, each annotated with what its floor row shows: the
    signed-on dealer, the latest round and when it last changed, the stakes in play, whether
    something waits for a pit boss, the open canasta game."""
    game = CanastaGame.objects.filter(table_id=OuterRef("pk"), status__in=OPEN_CANASTA_GAME_STATUSES)
    void_asked = CanastaVoidRequest.objects.filter(
        game__table_id=OuterRef("pk"), approval__status="pending"
    ).filter(game__status__in=OPEN_CANASTA_GAME_STATUSES)
    latest = Round.objects.filter(table_id=OuterRef("pk")).order_by("-number")
    held = PayoutLine.objects.filter(
        round__table_id=OuterRef("pk"), needs_approval=True, decision__isnull=True
    )
    asked = RoundRequest.objects.filter(round__table_id=OuterRef("pk"), decision__isnull=True)
    misscan = Round.objects.filter(
        table_id=OuterRef("pk"), status__in=OPEN_ROUND_STATUSES, awaiting_correction__isnull=False
    )
    in_play = (
        Bet.objects.filter(round__table_id=OuterRef("pk"), round__status__in=OPEN_ROUND_STATUSES)
        .filter(status=BetStatus.PLACED)
        .order_by()
        .values("round__table_id")
        .annotate(total=Sum("stake_minor"))
        .values("total")[:1]
    )
    return (
        Table.objects.filter(casino_id=casino_id)
        .select_related("pit")
        .annotate(
            dealer_name=Subquery(
                TableDealer.objects.filter(table_id=OuterRef("pk"), signed_off_at__isnull=True)
                .annotate(name=_full_name("dealer"))
                .values("name")[:1]
            ),
            round_id=Subquery(latest.values("pk")[:1]),
            round_number=Subquery(latest.values("number")[:1]),
            round_status=Subquery(latest.values("status")[:1]),
            round_version=Subquery(latest.values("version")[:1]),
            round_changed_at=Subquery(
                RoundEvent.objects.filter(round__table_id=OuterRef("pk"))
                .order_by("-round__number", "-sequence")
                .values("created_at")[:1]
            ),
            in_play_minor=Coalesce(Subquery(in_play), Value(0), output_field=IntegerField()),
            is_waiting=Exists(held) | Exists(asked) | Exists(misscan) | Exists(void_asked),
            game_number=Subquery(game.values("number")[:1]),
            game_status=Subquery(game.values("status")[:1]),
            game_deals=Subquery(game.values("deals_scored")[:1]),
            game_host=Subquery(game.values("opened_by_name")[:1]),
            game_held_minor=Subquery(game.values("hold_minor")[:1]),
            game_players=Subquery(game.values("players")[:1]),
        )
        .order_by("pit__name", "name")
    )


def _floor_row(table: Any, now: dt.datetime) -> dict[str, Any]:
    """One table of :func:`_floor_tables` as the floor shows it: its state in words, its dealer
    (a canasta table's host), its latest round or game, the stakes in play (a canasta game's
    holds) and how long it has been in its state."""
    state = _floor_state(table)
    changed_at: dt.datetime | None = table.round_changed_at
    is_canasta = table.game == Game.CANASTA
    in_play_minor: int = table.in_play_minor
    if is_canasta:
        in_play_minor = (table.game_held_minor or 0) * (table.game_players or 0)
    return {
        "table": table,
        "is_canasta": is_canasta,
        "state": state,
        "state_label": FLOOR_STATES[state],
        "dealer": (table.game_host or table.dealer_name or "") if is_canasta else table.dealer_name or "",
        "round_id": table.round_id,
        "round_number": table.round_number,
        "round_version": table.round_version,
        "game_number": table.game_number,
        "game_deals": table.game_deals,
        "in_play_minor": in_play_minor,
        "changed_at": changed_at,
        "seconds_in_state": int((now - changed_at).total_seconds()) if changed_at else None,
    }


def _full_name(user: str) -> Coalesce:
    """The ``user`` relation's full name as ``get_full_name()`` gives it, its username when it has
    none, as an SQL expression."""
    full = Trim(Concat(f"{user}__first_name", Value(" "), f"{user}__last_name"))
    return Coalesce(NullIf(full, Value("")), f"{user}__username")


def _floor_state(table: Any) -> str:
    if table.is_waiting:
        return "waiting"
    if table.game_status == CanastaGameStatus.SEATING:
        return "seating"
    if table.game_status == CanastaGameStatus.PLAYING:
        return "playing"
    if table.round_status == RoundStatus.BETTING:
        return "betting"
    if table.round_status in DEALING:
        return "dealing"
    if table.round_status == RoundStatus.SETTLING:
        return "settling"
    return "open" if table.is_open else "closed"


def floor_version(rows: list[dict[str, Any]]) -> str:
    parts = [
        (
            row["table"].pk,
            row["state"],
            row["dealer"],
            row["round_id"],
            row["round_version"],
            row["in_play_minor"],
            row["game_number"],
            row["game_deals"],
        )
        for row in rows
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


def queue_items(casino_id: int, user: Any) -> dict[str, Any]:
    """What waits for a pit boss: held payout lines by round (with whether ``user`` may decide
    them), dealers' requests, misscans, the card room hosts' requests to void a game."""
    payouts = held_payouts(casino_id=casino_id, user=user)
    requests = list(
        RoundRequest.objects.filter(round__table__casino_id=casino_id, decision__isnull=True)
        .select_related("round__table", "requested_by", "approval")
        .order_by("pk")
    )
    for round_request in requests:
        # Read by the queue: the decision buttons show to a second person only.
        round_request.may_decide = round_request.approval is not None and may_decide(  # type: ignore[attr-defined]
            approval=round_request.approval, user=user
        )
    asked = {request.round_id for request in requests if request.kind == RoundRequest.Kind.CORRECTION}
    misscans = [
        round_
        for round_ in Round.objects.filter(
            table__casino_id=casino_id, status__in=OPEN_ROUND_STATUSES, awaiting_correction__isnull=False
        ).select_related("table")
        if round_.pk not in asked
    ]
    canasta_voids = list(
        CanastaVoidRequest.objects.filter(game__table__casino_id=casino_id, approval__status="pending")
        .filter(game__status__in=OPEN_CANASTA_GAME_STATUSES)
        .select_related("game__table", "requested_by", "approval")
        .order_by("pk")
    )
    for void in canasta_voids:
        # Read by the queue: the decision buttons show to a second person only.
        void.may_decide = void.approval is not None and may_decide(approval=void.approval, user=user)  # type: ignore[attr-defined]
    return {"payouts": payouts, "requests": requests, "misscans": misscans, "canasta_voids": canasta_voids}


def queue_size(items: dict[str, Any]) -> int:
    """How many decisions wait: each held payout line, request, misscan and canasta void."""
    payouts: list[HeldRound] = items["payouts"]
    lines = sum(len(held.lines) for held in payouts)
    return lines + len(items["requests"]) + len(items["misscans"]) + len(items["canasta_voids"])


def queue_version(items: dict[str, Any], config_waiting: int = 0) -> str:
    parts = (
        config_waiting,
        [(held.line.pk, held.may_decide) for group in items["payouts"] for held in group.lines],
        [request.pk for request in items["requests"]],
        [(round_.pk, round_.version) for round_ in items["misscans"]],
        [request.pk for request in items["canasta_voids"]],
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]


def config_changes_waiting(casino_id: int) -> int:
    """The configuration changes that wait for a second person (``/operator/approvals/``)."""
    return config_approvals_waiting(casino_id=casino_id).count()


def _queue_context(request: HtmxHttpRequest) -> dict[str, Any]:
    casino_id = staff_casino_id(request)
    items = queue_items(casino_id, request.user)
    config_waiting = config_changes_waiting(casino_id)
    return {
        "queue": items,
        "queue_version": queue_version(items, config_waiting),
        "queue_size": queue_size(items),
        "config_waiting": config_waiting,
    }


def signature_rows(casino_id: int, user: Any) -> list[dict[str, Any]]:
    """Every signature the casino's counts, drop counts and slips wait for, with its table, whose
    it is in words, whether ``user`` may give it, and the page where it is given."""
    rows = []
    for entry in signatures_waiting(casino_id=casino_id):
        if entry.kind in ("opener", "closer"):
            url = reverse("accounting:table", args=[entry.table.name])
        elif entry.kind == "drop_count":
            url = reverse("accounting:drop")
        else:
            url = reverse("accounting:desk")
        rows.append(
            {
                "entry": entry,
                "waits_for": ", ".join(str(WAITS_FOR[step]) for step in entry.waits_for),
                "is_yours": entry.may_sign(user),
                "url": url,
            }
        )
    return rows


def _floor_context(request: HtmxHttpRequest) -> dict[str, Any]:
    casino_id = staff_casino_id(request)
    rows = floor_rows(casino_id)
    signatures = signature_rows(casino_id, request.user)
    marks = [
        (row["entry"].kind, row["entry"].object_id, row["entry"].waits_for, row["is_yours"])
        for row in signatures
    ]
    version = hashlib.sha256(f"{floor_version(rows)}:{marks}".encode()).hexdigest()[:24]
    return {"floor": rows, "signatures": signatures, "floor_version": version}


@staff_page("supervise_pit")
@require_GET
def floor(request: HtmxHttpRequest) -> HttpResponse:
    context = {
        **_floor_context(request),
        **_queue_context(request),
        "stream_url": reverse("floor:pit_stream"),
    }
    return htmx_render(request, FLOOR, context, partial="floor")


@staff_page("supervise_pit")
@require_GET
def floor_live(request: HtmxHttpRequest) -> HttpResponse:
    context = _floor_context(request)
    if request.GET.get("version") == context["floor_version"]:
        return htmx_vary(HttpResponse(status=204))
    return htmx_vary(render(request, f"{FLOOR}#floor", context))


@staff_page("supervise_pit")
@require_GET
def pit_stream(request: HtmxHttpRequest) -> HttpResponseBase:
    """The pit's stream (``casino/streams.py``), for the floor and the approvals pages: hints of
    the staff member's casino's floor (its tables moved) and queue (what waits for a decision or a
    signature; the header's count too)."""
    casino_id = staff_casino_id(request)
    return hint_stream(request, {floor_topic(casino_id): "floor", queue_topic(casino_id): "queue"})


@staff_page("supervise_pit")
@require_GET
def queue(request: HtmxHttpRequest) -> HttpResponse:
    context = {**_queue_context(request), "stream_url": reverse("floor:pit_stream")}
    return htmx_render(request, "floor/pit/queue.html", context, partial="queue")


@staff_page("supervise_pit")
@require_GET
def queue_live(request: HtmxHttpRequest) -> HttpResponse:
    context = _queue_context(request)
    if request.GET.get("version") == context["queue_version"]:
        return htmx_vary(HttpResponse(status=204))
    return htmx_vary(render(request, "floor/pit/queue.html#queue", context))


def _decided(request: HtmxHttpRequest, error: ServiceError | None, done: str) -> HttpResponse:
    """The queue again (htmx) with the refusal or what was done, or back to the page."""
    if request.htmx:
        context = {
            **_queue_context(request),
            "error": error,
            "error_text": refusal_text(error) if error else "",
            "done": "" if error else done,
        }
        status = error.status if error else 200
        return htmx_render(request, "floor/pit/queue.html", context, partial="queue", status=status)
    if error is not None:
        messages.error(request, f"{refusal_text(error)} ({error.code})")
    else:
        messages.success(request, done)
    return redirect(request.POST.get("next") or "floor:queue")


def _line_ids(values: list[str]) -> set[int]:
    return {int(value) for value in values if value.isdigit()}


@staff_page("approve_payout")
@require_POST
def round_payouts_decide(request: HtmxHttpRequest, round_id: int) -> HttpResponse:
    """A round's held payout lines decided in one command: ``decision`` (approve or reject) for
    every line of the form (``line``) but those ticked (``except``), which get the other
    decision; a rejection's ``reason``."""
    actor = Actor.staff(staff_user(request))
    decision = request.POST.get("decision", "")
    lines = _line_ids(request.POST.getlist("line"))
    exceptions = _line_ids(request.POST.getlist("except")) & lines
    error = None
    approved = rejected = 0
    try:
        if not Round.objects.filter(pk=round_id, table__casino_id=staff_casino_id(request)).exists():
            raise FloorNoSuchRecordError(_("No such round in this casino."))
        if decision not in ("approve", "reject"):
            raise NoSuchDecisionError(_("No such decision."))
        approve, reject = (
            (lines - exceptions, exceptions) if decision == "approve" else (exceptions, lines - exceptions)
        )
        payouts_decide(
            round_id=round_id,
            actor=actor,
            approve=sorted(approve),
            reject=sorted(reject),
            reason=request.POST.get("reason", ""),
        )
        approved, rejected = len(approve), len(reject)
    except ServiceError as refused:
        error = refused
    done = _("Payouts decided: %(approved)s approved and paid, %(rejected)s rejected.") % {
        "approved": approved,
        "rejected": rejected,
    }
    return _decided(request, error, done)


@staff_page("void_round")
@require_POST
def request_decide(request: HtmxHttpRequest, request_id: int, decision: str) -> HttpResponse:
    """A dealer's request (``decision`` approve or reject), or, with ``request_id`` 0 and a
    ``round``, the pit boss's own correction of a misscan nobody asked about (``correct``)."""
    actor = Actor.staff(staff_user(request))
    casino_id = staff_casino_id(request)
    error = None
    try:
        if decision == "correct":
            round_id = int(request.POST.get("round", "0") or 0)
            if not Round.objects.filter(pk=round_id, table__casino_id=casino_id).exists():
                raise FloorNoSuchRecordError(_("No such round in this casino."))
            card = None if request.POST.get("no_card") else request.POST.get("card", "")
            card_correct(round_id=round_id, actor=actor, card=card, reason=request.POST.get("reason", ""))
        else:
            if not RoundRequest.objects.filter(pk=request_id, round__table__casino_id=casino_id).exists():
                raise FloorNoSuchRecordError(_("No such request in this casino."))
            if decision == "approve":
                round_request_approve(request_id=request_id, actor=actor)
            elif decision == "reject":
                round_request_reject(
                    request_id=request_id, actor=actor, reason=request.POST.get("reason", "")
                )
            else:
                raise NoSuchDecisionError(_("No such decision."))
    except ServiceError as refused:
        error = refused
    done = {
        "approve": _("Request approved."),
        "reject": _("Request rejected."),
        "correct": _("Misscan corrected."),
    }
    return _decided(request, error, done.get(decision, ""))


@staff_page("void_round")
@require_POST
def canasta_void_decide(request: HtmxHttpRequest, request_id: int, decision: str) -> HttpResponse:
    """A card-room host's request to void a canasta game (``decision`` approve or reject): the
    holds released and nothing transferred, or the game plays on."""
    actor = Actor.staff(staff_user(request))
    casino_id = staff_casino_id(request)
    error = None
    try:
        if not CanastaVoidRequest.objects.filter(pk=request_id, game__table__casino_id=casino_id).exists():
            raise FloorNoSuchRecordError(_("No such request in this casino."))
        if decision == "approve":
            canasta_void_approve(request_id=request_id, actor=actor)
        elif decision == "reject":
            canasta_void_reject(request_id=request_id, actor=actor, reason=request.POST.get("reason", ""))
        else:
            raise NoSuchDecisionError(_("No such decision."))
    except ServiceError as refused:
        error = refused
    done = _("Game voided: the holds are released.") if decision == "approve" else _("Request rejected.")
    return _decided(request, error, done)
