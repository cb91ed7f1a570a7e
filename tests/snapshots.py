"""Snapshots of everything a refused command must leave untouched, compared before and after."""

from __future__ import annotations

from typing import Any

from casino.models import Approval, AuditRecord, IdempotencyRecord, PlayerSession
from tables.models import Bet, Box, Round, RoundEvent, Seat
from wallet.models import (
    Account,
    BalanceAdjustment,
    Hold,
    PendingPayout,
    Posting,
    Transfer,
)


def ledger_snapshot() -> dict[str, Any]:
    """Every row a money command can write, as plain values."""
    return {
        "accounts": list(Account.objects.order_by("pk").values_list("pk", "balance_minor", "held_minor")),
        "transfers": list(Transfer.objects.order_by("pk").values_list("pk", flat=True)),
        "postings": list(Posting.objects.order_by("pk").values_list("pk", "account_id", "amount_minor")),
        "holds": list(Hold.objects.order_by("pk").values_list("pk", "status", "amount_minor")),
        "payouts": list(PendingPayout.objects.order_by("pk").values_list("pk", "status")),
        "adjustments": list(BalanceAdjustment.objects.order_by("pk").values_list("pk", "status")),
        "approvals": list(Approval.objects.order_by("pk").values_list("pk", "status", "decided_by_id")),
        "idempotency": list(IdempotencyRecord.objects.order_by("pk").values_list("pk", flat=True)),
        "audit": list(AuditRecord.objects.order_by("sequence").values_list("sequence", "hash")),
    }


def table_snapshot() -> dict[str, Any]:
    """Every row a table command can write: boxes, seats, rounds and their events, bets."""
    return {
        "boxes": list(Box.objects.order_by("pk").values_list("owner_id", "accepts_bets_behind")),
        "seats": list(Seat.objects.order_by("pk").values_list("box_id", "player_id")),
        "rounds": list(Round.objects.order_by("pk").values_list("pk", "status", "version")),
        "events": list(RoundEvent.objects.order_by("pk").values_list("pk", flat=True)),
        "bets": list(Bet.objects.order_by("pk").values_list("pk", "status", "stake_minor")),
        "sessions": list(PlayerSession.objects.order_by("pk").values_list("pk", "ended_at")),
    }


def refused_snapshot() -> dict[str, Any]:
    """All of it, but the idempotency records: the terminal API stores a refusal under its key,
    so that a retry hears it again (that record is the one row a refusal writes)."""
    everything = {**ledger_snapshot(), **table_snapshot()}
    del everything["idempotency"]
    return everything
