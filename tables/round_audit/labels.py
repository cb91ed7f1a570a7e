"""The round audit's words for codes: a bet's kind and status, a payout line's approval, a
round's status, a player's decision and an event's kind (any code without a label shows itself)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tables.models import ApprovalStatus, BetKind, BetStatus, RoundStatus

BET_KIND_LABELS: dict[str, Promise] = {
    BetKind.MAIN: _("Main"),
    BetKind.BEHIND: _("Bet behind"),
    BetKind.PERFECT_PAIRS: _("Perfect Pairs"),
    BetKind.TWENTY_ONE_PLUS_THREE: _("21+3"),
    BetKind.INSURANCE: _("Insurance"),
}

BET_STATUS_LABELS: dict[str, Promise] = {
    BetStatus.PLACED: _("Placed"),
    BetStatus.CANCELLED: _("Cancelled"),
    BetStatus.REFUNDED: _("Refunded (owner not playing)"),
    BetStatus.SETTLED: _("Settled"),
    BetStatus.VOIDED: _("Voided"),
}

APPROVAL_LABELS: dict[str, Promise] = {
    ApprovalStatus.NOT_NEEDED: _("Paid at once"),
    ApprovalStatus.PENDING: _("Awaiting approval"),
    ApprovalStatus.APPROVED: _("Approved"),
    ApprovalStatus.REJECTED: _("Rejected"),
}

ROUND_STATUS_LABELS: dict[str, Promise] = {
    RoundStatus.BETTING: _("Betting"),
    RoundStatus.DEALING: _("Dealing"),
    RoundStatus.INSURANCE: _("Insurance"),
    RoundStatus.PLAYERS: pgettext_lazy("round status", "Players"),
    RoundStatus.DEALER: pgettext_lazy("round status", "Dealer"),
    RoundStatus.SETTLING: _("Played, awaiting settlement"),
    RoundStatus.SETTLED: _("Settled"),
    RoundStatus.VOIDED: _("Voided"),
}

# A player's decision in words, as the event log and the console's countdown name it.
DECISION_LABELS: dict[str, Promise] = {
    "hit": pgettext_lazy("blackjack decision", "hit"),
    "stand": pgettext_lazy("blackjack decision", "stand"),
    "double": pgettext_lazy("blackjack decision", "double"),
    "split": pgettext_lazy("blackjack decision", "split"),
    "surrender": pgettext_lazy("blackjack decision", "surrender"),
}

# What happened in a round, in words (the event log's first column; any other kind shows its code).
EVENT_KIND_LABELS: dict[str, Promise] = {
    "betting_opened": pgettext_lazy("round event", "betting opened"),
    "bet_placed": pgettext_lazy("round event", "bet placed"),
    "bet_cancelled": pgettext_lazy("round event", "bet cancelled"),
    "bet_refused": pgettext_lazy("round event", "bet refused"),
    "betting_closed": pgettext_lazy("round event", "no more bets"),
    "card_dealt": pgettext_lazy("round event", "card dealt"),
    "decision": pgettext_lazy("round event", "decision"),
    "default_applied": pgettext_lazy("round event", "default applied"),
    "insurance_taken": pgettext_lazy("round event", "insurance taken"),
    "insurance_declined": pgettext_lazy("round event", "insurance declined"),
    "insurance_closed": pgettext_lazy("round event", "insurance closed"),
    "misscan": pgettext_lazy("round event", "misscan"),
    "card_corrected": pgettext_lazy("round event", "card corrected"),
    "voided": pgettext_lazy("round event", "voided"),
    "settled": pgettext_lazy("round event", "settled"),
}


def status_label(status: str) -> str:
    return str(ROUND_STATUS_LABELS.get(status, status))


__all__ = [
    "APPROVAL_LABELS",
    "BET_KIND_LABELS",
    "BET_STATUS_LABELS",
    "DECISION_LABELS",
    "EVENT_KIND_LABELS",
    "ROUND_STATUS_LABELS",
    "status_label",
]
