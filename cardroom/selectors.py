"""Reads of a canasta table: the game, its score sheet, and the deal as a seat sees it (rules
T5: a player sees his own hand, the others' card counts, the pile's top card, every meld and
red three laid out). Nothing here writes."""

from __future__ import annotations

from typing import Any

from cardroom.models import CanastaDeal, CanastaDealEvent, CanastaDealScore, CanastaGame, CanastaGamePlayer
from cardroom.services.common import deal_hash, game_rules
from cardroom.services.games import game_current
from casino.models import Table
from games.canasta import DealState, legal_actions, opening_requirement, state_from_dict
from games.canasta.pile import pile_view


def _meld_data(meld: Any) -> dict[str, Any]:
    return {
        "meld_id": meld.meld_id,
        "kind": meld.kind.value,
        "rank": meld.rank,
        "cards": [card.key for card in meld.cards],
        "is_canasta": bool(meld.is_canasta),
    }


def score_sheet(game: CanastaGame) -> list[dict[str, Any]]:
    """Every scored deal of the game, in order, with each side's breakdown and running total."""
    rows: dict[int, dict[str, Any]] = {}
    scores = (
        CanastaDealScore.objects.filter(deal__game=game)
        .select_related("deal")
        .order_by("deal__number", "side")
    )
    for score in scores:
        entry = rows.setdefault(
            score.deal.number,
            {"deal": score.deal.number, "dealer_seat": score.deal.dealer_seat, "sides": []},
        )
        entry["sides"].append(
            {
                "side": score.side,
                "melded": score.melded,
                "canasta_bonus": score.canasta_bonus,
                "canastas": score.canastas,
                "red_threes": score.red_threes,
                "going_out": score.going_out,
                "hand": score.hand,
                "deal_total": score.deal_total,
                "total": score.total,
            }
        )
    return [rows[number] for number in sorted(rows)]


def next_openings(game: CanastaGame) -> list[dict[str, Any]]:
    """The initial meld each side needs in the next deal (rules section 4): the last scored
    deal's (``openingBasis`` included), or the minimum at 0 before the first."""
    last = (
        CanastaDealScore.objects.filter(deal__game=game).order_by("-deal__number").values("deal_id").first()
    )
    if last is not None:
        return [
            {"side": score.side, **score.next_opening}
            for score in CanastaDealScore.objects.filter(deal_id=last["deal_id"]).order_by("side")
        ]
    rules = game_rules(game)
    out = []
    for side, total in enumerate(game.totals):
        requirement = opening_requirement(rules, total)
        out.append(
            {
                "side": side,
                "minimum": requirement.minimum,
                "canasta_at_once": requirement.canasta_at_once,
                "naturals": requirement.naturals,
            }
        )
    return out


def _deal_view(deal: CanastaDeal, state: DealState | None, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": deal.pk,
        "number": deal.number,
        "kind": deal.kind,
        "status": deal.status,
        "version": deal.version,
        "dealer_seat": deal.dealer_seat,
        "my_seat": seat,
        "turn": None,
        "phase": None,
        "stage": None,
        "stock_size": None,
        "pile": None,
        "hand_counts": [],
        "melds": [],
        "red_threes": [],
        "hand": None,
        "legal_actions": [],
    }
    if state is None:
        return out
    out.update(
        {
            "turn": state.turn,
            "phase": state.phase.value,
            "stage": state.stage.value,
            "stock_size": len(state.stock),
            "pile": pile_view(state),
            "hand_counts": [len(hand) for hand in state.hands],
            "melds": [[_meld_data(meld) for meld in side] for side in state.melds],
            "red_threes": [[card.key for card in side] for side in state.red_threes],
        }
    )
    if seat is not None:
        out["hand"] = [card.key for card in state.hands[seat]]
        out["legal_actions"] = [
            {key: value for key, value in action.to_dict().items() if key != "seat"}
            for action in legal_actions(state)
            if action.seat == seat
        ]
    return out


def canasta_table_state(*, table: Table, for_player_id: int | None = None) -> dict[str, Any]:
    """The table's game (seating, playing, or the last one), its seats and score sheet, and its
    last deal as ``for_player_id`` sees it (his hand and legal actions), or as the host sees it
    (no hand)."""
    game = game_current(table)
    if game is None:
        return {"table_id": table.pk, "game": None, "deal": None}
    seats = list(CanastaGamePlayer.objects.filter(game=game).select_related("player").order_by("seat"))
    my_seat = next(
        (row.seat for row in seats if for_player_id is not None and row.player_id == for_player_id), None
    )
    game_data = {
        "id": game.pk,
        "number": game.number,
        "status": game.status,
        "preset": game.preset,
        "players": game.players,
        "deal_kind": game.deal_kind,
        "stake_minor": game.stake_minor,
        "stake_points": game.stake_points,
        "hold_minor": game.hold_minor,
        "fee_kind": game.fee_kind,
        "totals": list(game.totals),
        "target": game_rules(game).target,
        "winner_side": game.winner_side,
        "margin": game.margin,
        "fee_charged_minor": game.fee_charged_minor,
        "seats": [
            {
                "seat": row.seat,
                "side": row.side,
                "player_id": row.player_id,
                "display_name": row.player.display_name,
            }
            for row in seats
        ],
        "score_sheet": score_sheet(game),
        "next_opening": next_openings(game),
    }
    deal = CanastaDeal.objects.filter(game=game).order_by("-number").first()
    deal_data = None
    if deal is not None:
        state = state_from_dict(deal.snapshot) if deal.snapshot is not None else None
        deal_data = _deal_view(deal, state, my_seat)
    return {"table_id": table.pk, "game": game_data, "deal": deal_data}


def canasta_deal_export(deal: CanastaDeal) -> dict[str, Any]:
    """A deal as an auditor exports it: its game, number, dealer and kind, every event (sequence,
    kind, payload, who, when) and each side's score; with ``deal_hash``, what the deal's
    ``canasta.deal_scored`` audit record carries."""
    events = CanastaDealEvent.objects.filter(deal=deal).order_by("sequence")
    return {
        "game": deal.game_id,
        "table": deal.game.table.name,
        "number": deal.number,
        "kind": deal.kind,
        "dealer_seat": deal.dealer_seat,
        "status": deal.status,
        "scores_before": list(deal.scores_before),
        "events": [
            {
                "sequence": event.sequence,
                "kind": event.kind,
                "payload": event.payload,
                "actor": event.actor_name,
                "role": event.role,
                "at": event.created_at.isoformat(),
            }
            for event in events
        ],
        "scores": [
            {
                "side": score.side,
                "melded": score.melded,
                "canasta_bonus": score.canasta_bonus,
                "canastas": score.canastas,
                "red_threes": score.red_threes,
                "going_out": score.going_out,
                "hand": score.hand,
                "deal_total": score.deal_total,
                "total": score.total,
                "next_opening": score.next_opening,
            }
            for score in CanastaDealScore.objects.filter(deal=deal).order_by("side")
        ],
        "deal_hash": deal_hash(deal),
    }
