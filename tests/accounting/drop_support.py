"""Helpers of the drop, win and hold tests: a drop box counted and signed, a player signed in at
a table's terminal, and what a refused drop command must leave as it was."""

from __future__ import annotations

import datetime as dt
from typing import Any

from accounting.models import DropCount, DropCountSignature, HoldAlert, HoldAlertResolution, TableBuyIn
from accounting.services_drop import drop_count_record, drop_count_sign
from casino.actors import Actor
from casino.models import AuditRecord, Player, PlayerSession, Table
from tests.factories import TerminalFactory

# BJ1 closed at 19 000.00: 1 000.00 fewer 100.00 chips than the opener's 20 000.00 (conftest.TRAY).
CLOSER = {50_000: 1_000_000, 10_000: 500_000, 2_500: 300_000, 500: 90_000, 100: 10_000}


def drop_counted(
    table: Table, day: dt.date, shift: int, total_minor: int, cashier: Any, verifier: Any
) -> DropCount:
    """The drop box of ``table`` for the shift counted by ``cashier`` and signed by ``verifier``."""
    count = drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=total_minor, actor=Actor.staff(cashier)
    )
    drop_count_sign(count=count, actor=Actor.staff(verifier))
    return count


def signed_in(
    table: Table, player: Player, started_at: dt.datetime, ended_at: dt.datetime | None = None
) -> PlayerSession:
    """A terminal session of ``player`` at ``table`` (as the terminal API's sign-in leaves it)."""
    return PlayerSession.objects.create(
        player=player,
        terminal=TerminalFactory(casino=table.casino, table=table),
        table=table,
        token_prefix="t",
        token_digest=f"{player.pk}-{table.pk}-{started_at.timestamp()}",
        started_at=started_at,
        expires_at=(ended_at or started_at) + dt.timedelta(hours=1),
        hard_expires_at=started_at + dt.timedelta(hours=12),
        ended_at=ended_at,
        end_reason=PlayerSession.EndReason.SIGNED_OUT if ended_at else "",
    )


def drop_written() -> dict[str, int]:
    """What a refused drop command must leave as it was."""
    return {
        "buy_ins": TableBuyIn.objects.count(),
        "drop_counts": DropCount.objects.count(),
        "drop_signatures": DropCountSignature.objects.count(),
        "alerts": HoldAlert.objects.count(),
        "resolutions": HoldAlertResolution.objects.count(),
        "audit": AuditRecord.objects.count(),
    }
