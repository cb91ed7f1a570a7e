"""Canasta card-room services: the only code that writes the card room's state.

Keyword-only, each in its own transaction, refusals as ``casino.errors.ServiceError`` subclasses
with stable codes (``cardroom.errors``); called with an ``Actor`` by the card room's pages and
terminal API.
"""

from cardroom.services.config import canasta_config_change, canasta_config_decide
from cardroom.services.games import (
    canasta_deal_enter,
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_move,
    canasta_seat_leave,
    canasta_seat_take,
)
from cardroom.services.settlement import canasta_void_approve, canasta_void_reject, canasta_void_request

__all__ = [
    "canasta_config_change",
    "canasta_config_decide",
    "canasta_deal_enter",
    "canasta_deal_start",
    "canasta_game_open",
    "canasta_game_start",
    "canasta_move",
    "canasta_seat_leave",
    "canasta_seat_take",
    "canasta_void_approve",
    "canasta_void_reject",
    "canasta_void_request",
]
