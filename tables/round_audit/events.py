"""A round's event log in words (``/pit/rounds/<id>/``): each event with who gave it and a short
readable description of its payload, and the audit records that name the round."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from casino.models import AuditRecord
from casino.money import money
from casino.refusals import refusal_sentence
from tables.models import Bet, Round, RoundEvent
from tables.round_audit.cards import card_text
from tables.round_audit.labels import BET_KIND_LABELS, DECISION_LABELS, EVENT_KIND_LABELS, status_label

# A describer of one kind of event: its payload, the payload's engine action (``{}`` without one)
# and the engine's player ids to display names, to one line of text.
Describer = Callable[[dict[str, Any], dict[str, Any], dict[str, str]], str]

DECISIONS = ("hit", "stand", "double", "split", "surrender")


@dataclass(frozen=True)
class EventView:
    sequence: int
    created_at: dt.datetime
    kind: str
    kind_label: str
    actor_name: str
    role: str
    terminal_name: str
    description: str
    # A player's command (a bet, a decision at the terminal): who, by name and card number.
    player_name: str = ""
    player_card: str = ""


def _player_text(engine_player: object, names: dict[str, str]) -> str:
    return names.get(str(engine_player), str(engine_player))


def _engine_event(payload: dict[str, Any], type_: str) -> dict[str, Any]:
    """The first engine event of ``type_`` the payload records, ``{}`` without one."""
    return next((event for event in payload.get("events", []) if event.get("type") == type_), {})


def event_description(kind: str, payload: dict[str, Any], names: dict[str, str]) -> str:
    """A short readable line for one event's payload: the card and where it went, the bet, the
    decision, the reason. ``names`` maps the engine's player ids to display names. A kind without
    a describer (``DESCRIBERS``) says its engine action's type, else the payload's keys."""
    action = payload.get("action") or {}
    describe = DESCRIBERS.get(kind)
    if describe is not None:
        return describe(payload, action, names)
    return _action_type_text(payload, action)


def _action_type_text(payload: dict[str, Any], action: dict[str, Any]) -> str:
    """What any other event says: its engine action's type in words, else its payload's keys."""
    if action.get("type"):
        return str(action["type"]).replace("_", " ")
    return ", ".join(sorted(payload))


def _betting_opened(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    return str(
        _("shoe #%(shoe)s, configuration #%(config)s")
        % {"shoe": payload.get("shoe_id"), "config": payload.get("config_id")}
    )


def _bet_placed(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    """Bets enter the log at "no more bets" (recorded by whoever closed betting), in placing
    order; the payload keeps the moment each was placed."""
    bet = action.get("bet") or {}
    fields = {
        "player": _player_text(bet.get("player"), names),
        "kind": BET_KIND_LABELS.get(str(bet.get("kind")), bet.get("kind")),
        "stake": money(bet.get("stake_minor")),
        "box": bet.get("box"),
    }
    placed = payload.get("placed_at")
    if not placed:
        return str(_("%(player)s: %(kind)s %(stake)s on box %(box)s") % fields)
    placed_at = timezone.localtime(dt.datetime.fromisoformat(str(placed)))
    return str(
        _("%(player)s: %(kind)s %(stake)s on box %(box)s, placed at %(time)s (logged at no more bets)")
        % {**fields, "time": date_format(placed_at, "H:i:s")}
    )


def _bet_not_placed(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    detail = payload.get("message") or payload.get("status") or payload.get("code") or ""
    return str(_("bet %(bet)s: %(detail)s") % {"bet": payload.get("bet_id"), "detail": detail})


def _card_dealt(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    """The card and where it went: the dealer (face down for a hole card), a box's hand."""
    dealt = _engine_event(payload, "card_dealt")
    card = card_text(action.get("card", dealt.get("card", "")))
    if dealt.get("to") == "dealer":
        if dealt.get("is_face_up") is False:
            text = _("%(card)s to the dealer, face down") % {"card": card}
        else:
            text = _("%(card)s to the dealer") % {"card": card}
    elif dealt.get("box") is not None:
        text = _("%(card)s to box %(box)s, hand %(hand)s") % {
            "card": card,
            "box": dealt.get("box"),
            "hand": (dealt.get("hand") or 0) + 1,
        }
    else:
        text = card
    # A virtual shoe deals what the round expects as soon as it does, within the command that
    # made it expect a card: the event is recorded under that command's actor (a player's
    # last decision, the dealer's "no more bets"), not under someone who dealt it.
    if payload.get("source") == "virtual_shoe":
        return str(_("%(dealt)s, dealt by the virtual shoe") % {"dealt": text})
    return str(text)


def _decision_text(action: dict[str, Any]) -> str:
    decision = str(action.get("type"))
    return str(
        _("box %(box)s: %(decision)s")
        % {"box": action.get("box"), "decision": DECISION_LABELS.get(decision, decision)}
    )


def _decision(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    if action.get("type") in DECISIONS:
        return _decision_text(action)
    return _action_type_text(payload, action)


def _default_applied(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    """The decision the time running out made, or the default the payload names."""
    if action.get("type") in DECISIONS:
        return str(_("%(text)s (by default, the time ran out)") % {"text": _decision_text(action)})
    return str(_("by default: %(default)s") % {"default": payload.get("default") or action.get("type")})


def _insurance(kind: str) -> Describer:
    """The describer of ``kind``, an insurance event: closed, or a player's choice on a bet."""

    def describe(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
        if kind == "insurance_closed":
            return str(_("insurance closed"))
        return str(
            _("%(player)s: %(choice)s for bet %(bet)s")
            % {
                "player": _player_text(action.get("player"), names),
                "choice": _("insurance taken") if kind == "insurance_taken" else _("insurance declined"),
                "bet": action.get("bet_id"),
            }
        )

    return describe


def _betting_closed(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    boxes = ", ".join(str(box) for box in _engine_event(payload, "betting_closed").get("boxes", []))
    return str(_("boxes playing: %(boxes)s") % {"boxes": boxes or "-"})


def _misscan(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    return str(
        _("card %(card)s refused: %(reason)s")
        % {
            "card": card_text(payload.get("card", "")),
            "reason": refusal_sentence(str(payload.get("reason", ""))),
        }
    )


def _card_corrected(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    corrected = payload.get("card") or action.get("card")
    return str(
        _("corrected to %(card)s: %(reason)s")
        % {
            "card": card_text(corrected) if corrected else _("no card"),
            "reason": payload.get("reason", ""),
        }
    )


def _voided(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    return str(
        _("voided (was %(status)s): %(reason)s")
        % {
            "status": status_label(str(payload.get("status_before", ""))),
            "reason": payload.get("reason", ""),
        }
    )


def _settled(payload: dict[str, Any], action: dict[str, Any], names: dict[str, str]) -> str:
    """As the round settled: what the lines pay by the rules, those awaiting approval included
    (the summary says what the players received)."""
    totals = payload.get("totals") or {}
    return str(
        _("%(lines)s payout lines, staked %(staked)s, payouts %(paid)s, %(waiting)s awaiting approval")
        % {
            "lines": totals.get("lines", 0),
            "staked": money(totals.get("stake_minor", 0)),
            "paid": money(totals.get("paid_minor", 0)),
            "waiting": totals.get("awaiting_approval", 0),
        }
    )


# Each kind of event with a description of its own (``event_description``).
DESCRIBERS: dict[str, Describer] = {
    "betting_opened": _betting_opened,
    "bet_placed": _bet_placed,
    "bet_cancelled": _bet_not_placed,
    "bet_refused": _bet_not_placed,
    "card_dealt": _card_dealt,
    "decision": _decision,
    "default_applied": _default_applied,
    "insurance_taken": _insurance("insurance_taken"),
    "insurance_declined": _insurance("insurance_declined"),
    "insurance_closed": _insurance("insurance_closed"),
    "betting_closed": _betting_closed,
    "misscan": _misscan,
    "card_corrected": _card_corrected,
    "voided": _voided,
    "settled": _settled,
}


def round_event_log(round_: Round) -> list[EventView]:
    """The round's events in sequence order, each with who gave it (a player by name and card
    number, at their terminal) and a short readable description (the engine snapshots are not
    read)."""
    events = list(
        RoundEvent.objects.filter(round=round_)
        .defer("snapshot")
        .select_related("terminal", "player")
        .order_by("sequence")
    )
    players = Bet.objects.filter(round=round_).values_list("player_id", "player__display_name")
    names = {str(player_id): name for player_id, name in players}
    return [
        EventView(
            sequence=event.sequence,
            created_at=event.created_at,
            kind=event.kind,
            kind_label=str(EVENT_KIND_LABELS.get(event.kind, event.kind.replace("_", " "))),
            actor_name=event.actor_name,
            role=event.role,
            terminal_name=event.terminal.name if event.terminal else "",
            description=event_description(event.kind, event.payload or {}, names),
            player_name=event.player.display_name if event.player else "",
            player_card=event.player.card_number if event.player else "",
        )
        for event in events
    ]


def round_audit_records(round_: Round) -> QuerySet[AuditRecord]:
    """The audit records that name the round (``tables.round`` with its id), in chain order."""
    return (
        AuditRecord.objects.filter(object_type="tables.round", object_id=str(round_.pk))
        .only("sequence", "action", "actor_name", "role", "recorded_at")
        .order_by("sequence")
    )


__all__ = ["DESCRIBERS", "EventView", "event_description", "round_audit_records", "round_event_log"]
