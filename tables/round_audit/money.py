"""A round's money, one rule for the list, the round's page and the dealer's console: what a
payout line paid its player, what a bet has at risk before the round settles (its stakes on the
engine's hands), and the same rules as SQL conditions for the list's sums."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games.blackjack import RoundState, state_from_dict
from tables.models import OPEN_ROUND_STATUSES, ApprovalStatus, BetStatus, PayoutLine, RoundStatus

# A payout line paid the player when it was paid at once or a pit boss approved it; one waiting
# for approval is not paid yet, a rejected one never is. The same rule in Python (a line's
# ``approval_status``) and in SQL (the list's sums); tests/tables/test_views_rounds.py holds
# the list and the round's page together.
RECEIVED_STATUSES = (ApprovalStatus.NOT_NEEDED, ApprovalStatus.APPROVED)
RECEIVED_LINES = Q(needs_approval=False) | Q(decision__status=ApprovalStatus.APPROVED)
WAITING_LINES = Q(needs_approval=True, decision__isnull=True)
REJECTED_LINES = Q(needs_approval=True, decision__status=ApprovalStatus.REJECTED)
# A bet whose stake went back to its bettor without a payout line.
RETURNED_STATUSES = (BetStatus.CANCELLED, BetStatus.REFUNDED, BetStatus.VOIDED)
# Rounds whose bets are dealt and not settled: their stakes at risk are on the engine's hands.
IN_PLAY_STATUSES = tuple(status for status in OPEN_ROUND_STATUSES if status != RoundStatus.BETTING)


def line_received_minor(line: PayoutLine) -> int:
    """What ``line`` paid its player (``paid_minor`` is what the rules pay it)."""
    return line.paid_minor if line.approval_status in RECEIVED_STATUSES else 0


def stakes_on_hands(state: RoundState | None) -> dict[str, int]:
    """Each bet's stakes on the hands of a round's engine state, by engine bet id (a double or a
    split adds to them; bets on no hand are not there)."""
    stakes: dict[str, int] = {}
    for box in state.boxes if state is not None else ():
        for hand in box.hands:
            for stake in hand.stakes:
                stakes[stake.bet_id] = stakes.get(stake.bet_id, 0) + stake.stake_minor
    return stakes


def bet_at_risk_minor(*, bet_id: int, stake_minor: int, status: str, on_hands: dict[str, int]) -> int:
    """The stake a bet of an unsettled round has at risk: its stakes on the hands (``on_hands``,
    :func:`stakes_on_hands`), else its stake (a side bet, an insurance, a bet before the deal);
    nothing once cancelled, returned or voided."""
    if status != BetStatus.PLACED:
        return 0
    return on_hands.get(str(bet_id), stake_minor)


def round_state_of(snapshot: dict[str, Any] | None) -> RoundState | None:
    """The engine state of a round's snapshot; None without one, or for one the engine cannot
    read (the round then shows no cards)."""
    if not snapshot:
        return None
    try:
        return state_from_dict(snapshot)
    except Exception:  # a snapshot the engine cannot read shows no cards
        return None


__all__ = [
    "IN_PLAY_STATUSES",
    "RECEIVED_LINES",
    "RECEIVED_STATUSES",
    "REJECTED_LINES",
    "RETURNED_STATUSES",
    "WAITING_LINES",
    "bet_at_risk_minor",
    "line_received_minor",
    "round_state_of",
    "stakes_on_hands",
]
