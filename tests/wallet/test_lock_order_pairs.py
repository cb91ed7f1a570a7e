"""Money commands that once waited on each other in opposite orders, made to meet at their locks
(``tests/racing.py``): each pair passes, one after the other, with no deadlock."""

from __future__ import annotations

from typing import Any

import pytest

from casino.actors import Actor
from tests.racing import committing_while, no_error, paused_before
from tests.wallet.payouts import payout_approval, pending_payout_release
from wallet.models import Account, AccountKind, PendingPayout
from wallet.services import (
    SettlementLine,
    SettlementReference,
    adjustment_approve,
    adjustments,
    balance_adjust,
    cage_buy_in,
    hold_place,
    holds_settle,
    transfer_reverse,
    venue_accounts_open,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _parked_payouts(player: Any, table: Any, casino: Any, count: int) -> list[PendingPayout]:
    """``count`` payouts of 300.00 on 10.00 stakes of ``player``, parked for approval."""
    holds = [hold_place(player=player, amount_minor=1_000, table=table) for _ in range(count)]
    lines = [
        SettlementLine(
            account_id=hold.account_id,
            hold_id=hold.pk,
            stake_minor=1_000,
            payout_minor=30_000,
            needs_approval=True,
            approval_id=payout_approval(casino),
        )
        for hold in holds
    ]
    settled = holds_settle(
        casino=casino,
        table=table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    return list(PendingPayout.objects.filter(pk__in=settled.pending_payout_ids).order_by("pk"))


def test_a_reversal_while_a_buy_in_commits_deadlocks_nobody(
    make_player: Any, cashier: Any, pit_boss: Any
) -> None:
    # given a buy-in of Bob's keyed by mistake, and Alice buying in
    alice, bob = make_player(1_000), make_player()
    wrong = cage_buy_in(player=bob, amount_minor=5_000, actor=Actor.staff(cashier))

    # when the reversal runs while Alice's buy-in commits (the audit chain held, its transfer's
    # foreign key to the casino still to check)
    bought, reversal = committing_while(
        lambda: cage_buy_in(player=alice, amount_minor=2_000, actor=Actor.staff(cashier)),
        lambda: transfer_reverse(transfer=wrong, reason="keyed twice", actor=Actor.staff(pit_boss)),
    )

    # then both pass, one after the other
    no_error(bought, reversal)
    assert reversal.reverses_id == wrong.pk
    assert Account.objects.get(player=alice).balance_minor == 3_000
    assert Account.objects.get(player=bob).balance_minor == 0


def test_a_payout_release_while_a_buy_in_commits_deadlocks_nobody(
    make_player: Any, filled_table: Any, casino: Any, cashier: Any, pit_boss: Any
) -> None:
    # given a payout parked for approval, and another player buying in
    winner, other = make_player(10_000), make_player(1_000)
    (payout,) = _parked_payouts(winner, filled_table, casino, 1)

    # when the pit boss releases it while the buy-in commits
    bought, released = committing_while(
        lambda: cage_buy_in(player=other, amount_minor=2_000, actor=Actor.staff(cashier)),
        lambda: pending_payout_release(payout=payout, actor=Actor.staff(pit_boss)),
    )

    # then both pass
    no_error(bought, released)
    assert Account.objects.get(player=winner).balance_minor == 10_000 - 1_000 + 30_000
    assert Account.objects.get(player=other).balance_minor == 3_000
    assert PendingPayout.objects.get(pk=payout.pk).status == "released"


def test_a_payout_release_while_the_next_round_of_its_table_settles_deadlocks_nobody(
    make_player: Any, filled_table: Any, casino: Any, pit_boss: Any
) -> None:
    # given a payout of the first round parked for approval, and a bet of the next round
    winner, other = make_player(10_000), make_player(10_000)
    (payout,) = _parked_payouts(winner, filled_table, casino, 1)
    hold = hold_place(player=other, amount_minor=1_000, table=filled_table)
    line = SettlementLine(
        account_id=hold.account_id,
        hold_id=hold.pk,
        stake_minor=1_000,
        payout_minor=40_000,
        needs_approval=True,
        approval_id=payout_approval(casino),
    )

    # when the payout is released while the next round's settlement commits (the chain held, its
    # parked payout's key to the table and its transfer's to the casino still to check)
    settled, released = committing_while(
        lambda: holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 2),
            lines=[line],
            actor=Actor.automatic("test"),
        ),
        lambda: pending_payout_release(payout=payout, actor=Actor.staff(pit_boss)),
    )

    # then both pass
    no_error(settled, released)
    assert Account.objects.get(player=winner).balance_minor == 10_000 - 1_000 + 30_000
    assert list(PendingPayout.objects.order_by("pk").values_list("status", flat=True)) == [
        "released",
        "pending",
    ]


def test_an_adjustment_approval_while_another_adjustment_of_the_player_deadlocks_nobody(
    make_player: Any, casino: Any, pit_boss: Any, other_pit_boss: Any, monkeypatch: Any
) -> None:
    # given the house account opened before Alice's wallet (a lower id), and a large adjustment of
    # Alice's waiting for a second pit boss
    venue_accounts_open(casino=casino)
    alice = make_player(10_000)
    house = Account.objects.get(casino=casino, kind=AccountKind.HOUSE)
    assert house.pk < Account.objects.get(player=alice).pk
    pending = balance_adjust(player=alice, amount_minor=60_000, reason="jackpot", actor=Actor.staff(pit_boss))

    # when the approval, its adjustment read, is about to lock the accounts while another pit
    # boss takes 5.00 off Alice's balance (house, then Alice, in id order)
    approved, adjusted = paused_before(
        monkeypatch,
        adjustments,
        "accounts_lock",
        lambda: adjustment_approve(adjustment=pending, actor=Actor.staff(other_pit_boss)),
        lambda: balance_adjust(
            player=alice, amount_minor=-500, reason="chip lost", actor=Actor.staff(pit_boss)
        ),
    )

    # then both pass
    no_error(approved, adjusted)
    assert approved.status == "applied"
    assert Account.objects.get(player=alice).balance_minor == 10_000 + 60_000 - 500
