"""Live blackjack tables: versioned configuration (limits, side-bet paytables), boxes and seats,
shoes, rounds and their event logs, bets, payouts, the dealers at a table and their requests. The
physical table and the rule sets are the venue's (casino.models). One module each; every model
is named here, as the app's models (``tables.models``) and its migrations know it."""

from __future__ import annotations

from tables.models.bets import (
    DECISION_STATUSES,
    ApprovalStatus,
    Bet,
    BetHold,
    BetKind,
    BetStatus,
    PayoutDecision,
    PayoutLine,
)
from tables.models.boxes import BOX_NUMBERS, Box, Seat
from tables.models.config import (
    SideBetPaytable,
    SideBetPaytableVersion,
    TableConfigProposal,
    TableConfigVersion,
)
from tables.models.dealers import RoundRequest, RoundRequestDecision, TableDealer, signed_on_dealer
from tables.models.rounds import OPEN_ROUND_STATUSES, Round, RoundEvent, RoundQuerySet, RoundStatus, Shoe

__all__ = [
    "BOX_NUMBERS",
    "DECISION_STATUSES",
    "OPEN_ROUND_STATUSES",
    "ApprovalStatus",
    "Bet",
    "BetHold",
    "BetKind",
    "BetStatus",
    "Box",
    "PayoutDecision",
    "PayoutLine",
    "Round",
    "RoundEvent",
    "RoundQuerySet",
    "RoundRequest",
    "RoundRequestDecision",
    "RoundStatus",
    "Seat",
    "Shoe",
    "SideBetPaytable",
    "SideBetPaytableVersion",
    "TableConfigProposal",
    "TableConfigVersion",
    "TableDealer",
    "signed_on_dealer",
]
