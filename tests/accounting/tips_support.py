"""Helpers of the tips tests: a round played to settlement at BJ1, and what a refused tip must
leave as it was."""

from __future__ import annotations

from typing import Any

from accounting.models import Tip
from casino.models import AuditRecord, Player, Table
from tables.models import Round
from tables.services import (
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    decision_make,
    round_close_betting,
    round_open,
    round_settle,
)
from tests.tables.conftest import at_terminal, funded_player, stack_shoe
from wallet.models import Account, AccountKind, Transfer


def settled_round(table: Table, dealer: Any, *, sign_on: bool = True, player: Player | None = None) -> Round:
    """A settled round at ``table`` dealt by ``dealer``: a player's 10.00 on box 1 stands on 19
    against the dealer's 17 (paid 20.00)."""
    if sign_on:
        dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    player = player or funded_player(table, 10_000, name="Alice Archer")
    as_player = at_terminal(table, player)
    if not table.boxes.filter(number=1, owner=player).exists():
        box_take(table=table, box_number=1, actor=as_player)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk,
        actor=as_player,
        box_number=1,
        kind="main",
        stake_minor=1000,
        idempotency_key=f"m{round_.pk}",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_player, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    settled = Round.objects.select_related("table__casino", "dealer").get(pk=round_.pk)
    assert settled.status == "settled"
    return settled


def written() -> dict[str, int]:
    """What a refused tip must leave as it was: tips, transfers, audit records."""
    return {
        "tips": Tip.objects.count(),
        "transfers": Transfer.objects.count(),
        "audit": AuditRecord.objects.count(),
    }


def wallet_of(player: Player) -> int:
    return Account.objects.get(player=player, kind=AccountKind.PLAYER).balance_minor


def pool_balance(casino: Any) -> int:
    account = Account.objects.filter(casino=casino, kind=AccountKind.TIPS_POOL).first()
    return account.balance_minor if account else 0
