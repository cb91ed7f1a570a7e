"""Cage operations: buy-in, cash-out, fills, credits, transfers between players."""

from __future__ import annotations

from typing import Any

import pytest

from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import AuditRecord
from tests.factories import TerminalFactory
from wallet.models import Account, AccountKind, Posting, Transfer, TransferKind
from wallet.selectors import account_balance
from wallet.services import (
    cage_buy_in,
    cage_cash_out,
    hold_place,
    system_buy_in,
    system_table_fill,
    table_credit,
    table_fill,
    transfer_between_players,
)


def _cage(casino: Any) -> Account:
    return Account.objects.get(casino=casino, kind=AccountKind.CAGE)


def test_buy_in_moves_money_from_the_cage_to_the_player(casino: Any, make_player: Any, cashier: Any) -> None:
    # given a player without a wallet
    player = make_player()
    audit_before = AuditRecord.objects.count()
    # when the cashier buys them in for 250.00
    transfer = cage_buy_in(player=player, amount_minor=25_000, actor=Actor.staff(cashier))
    # then one balanced transfer moved the money and one audit record says so
    assert transfer.kind == TransferKind.BUY_IN
    assert transfer.created_by == cashier
    assert sorted(transfer.postings.values_list("amount_minor", flat=True)) == [-25_000, 25_000]
    assert account_balance(player).balance_minor == 25_000
    assert account_balance(player).currency == "EUR"
    assert _cage(casino).balance_minor == -25_000
    record = AuditRecord.objects.order_by("-sequence").first()
    assert AuditRecord.objects.count() == audit_before + 1
    assert record.action == "wallet.buy_in"
    assert record.actor == cashier
    assert record.after["amount_minor"] == 25_000
    assert record.after["transfer_id"] == transfer.pk


def test_cash_out_moves_money_back_to_the_cage(casino: Any, make_player: Any, cashier: Any) -> None:
    player = make_player(30_000)
    cage_cash_out(player=player, amount_minor=12_345, actor=Actor.staff(cashier))
    assert account_balance(player).balance_minor == 17_655
    assert _cage(casino).balance_minor == -17_655
    assert AuditRecord.objects.order_by("-sequence").first().action == "wallet.cash_out"


def test_cash_out_above_the_balance_is_refused_and_leaves_everything_as_it_was(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    player = make_player(5_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        cage_cash_out(player=player, amount_minor=5_001, actor=Actor.staff(cashier))
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def test_cash_out_cannot_take_held_money(make_player: Any, cashier: Any, snapshot: Any) -> None:
    # given 100.00 of which 60.00 is held by a bet
    player = make_player(10_000)
    hold_place(player=player, amount_minor=6_000)
    before = snapshot()
    # when the player asks for 50.00
    with pytest.raises(ServiceError) as refused:
        cage_cash_out(player=player, amount_minor=5_000, actor=Actor.staff(cashier))
    # then only the 40.00 available could leave: refused, nothing moved
    assert refused.value.code == "insufficient_funds"
    assert refused.value.details["available_minor"] == 4_000
    assert snapshot() == before
    cage_cash_out(player=player, amount_minor=4_000, actor=Actor.staff(cashier))
    assert account_balance(player) == type(account_balance(player))(6_000, 6_000, 0, "EUR")


@pytest.fixture
def player_confirmed_above_1000(casino: Any, make_player: Any) -> Any:
    """A player holding 5,000.00 in a casino asking for a confirmation of a cash-out above 1,000.00."""
    casino.cash_out_confirmation_above_minor = 100_000
    casino.save()
    return make_player(500_000)


def test_a_cash_out_above_the_casinos_confirmation_amount_is_refused_unconfirmed(
    player_confirmed_above_1000: Any, cashier: Any, snapshot: Any
) -> None:
    player = player_confirmed_above_1000
    before = snapshot()
    # when the cashier pays out 1,000.01 without confirming it
    with pytest.raises(ServiceError) as refused:
        cage_cash_out(player=player, amount_minor=100_001, actor=Actor.staff(cashier))
    # then it is refused with its code and the amounts, and nothing moved
    assert refused.value.code == "cash_out_confirmation_required"
    assert refused.value.status == 409
    assert refused.value.details == {"amount_minor": 100_001, "above_minor": 100_000}
    assert snapshot() == before


def test_a_confirmed_cash_out_above_the_confirmation_amount_is_paid_and_audited_as_confirmed(
    player_confirmed_above_1000: Any, cashier: Any
) -> None:
    player = player_confirmed_above_1000

    transfer = cage_cash_out(player=player, amount_minor=100_001, actor=Actor.staff(cashier), confirmed=True)

    assert account_balance(player).balance_minor == 399_999
    assert transfer.kind == TransferKind.CASH_OUT
    record = AuditRecord.objects.order_by("-sequence").first()
    assert (record.action, record.after["amount_minor"]) == ("wallet.cash_out", 100_001)
    assert record.after["confirmed_above_minor"] == 100_000


def test_a_cash_out_up_to_the_confirmation_amount_needs_no_confirmation(
    player_confirmed_above_1000: Any, cashier: Any
) -> None:
    player = player_confirmed_above_1000

    cage_cash_out(player=player, amount_minor=100_000, actor=Actor.staff(cashier))

    assert account_balance(player).balance_minor == 400_000
    assert "confirmed_above_minor" not in AuditRecord.objects.order_by("-sequence").first().after


def test_a_casino_asks_for_a_confirmation_above_10_000_by_default(casino: Any) -> None:
    assert casino.cash_out_confirmation_above_minor == 1_000_000


def test_a_pit_boss_cannot_operate_the_cage(make_player: Any, pit_boss: Any, snapshot: Any) -> None:
    player = make_player()
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        cage_buy_in(player=player, amount_minor=1_000, actor=Actor.staff(pit_boss))
    assert refused.value.code == "permission_denied"
    assert snapshot() == before


@pytest.mark.parametrize("amount", [0, -100, 10.5, True, "100"])
def test_amounts_must_be_positive_whole_minor_units(
    amount: Any, make_player: Any, cashier: Any, snapshot: Any
) -> None:
    player = make_player()
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        cage_buy_in(player=player, amount_minor=amount, actor=Actor.staff(cashier))
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before


def test_a_process_of_the_back_office_funds_in_its_own_name(
    casino: Any, table: Any, make_player: Any, snapshot: Any
) -> None:
    # given a player and a table, and no cashier: the demo seed, say
    player = make_player()
    # when the seed buys the player in and fills the tray
    system_buy_in(player=player, amount_minor=5_000, actor=Actor.automatic("seed"))
    system_table_fill(table=table, amount_minor=7_000, actor=Actor.automatic("seed"))
    # then the money moved from the cage, and the audit trail names the process as the actor
    assert account_balance(player).balance_minor == 5_000
    assert Account.objects.get(table=table, kind=AccountKind.TABLE_TRAY).balance_minor == 7_000
    assert _cage(casino).balance_minor == -12_000
    records = list(AuditRecord.objects.order_by("-sequence")[:2])
    assert [(r.action, r.actor, r.actor_name) for r in records] == [
        ("wallet.table_fill", None, "seed"),
        ("wallet.buy_in", None, "seed"),
    ]
    # and a refusal moves nothing
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        system_buy_in(player=player, amount_minor=0, actor=Actor.automatic("seed"))
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before


def test_the_processes_moves_are_not_a_persons_nor_a_terminals(
    table: Any, make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a player at a terminal, and a cashier
    player = make_player()
    terminal = TerminalFactory(casino=player.casino)
    before = snapshot()
    # when either would move money as a process of the back office, past the cage's permission
    for actor in (Actor.staff(cashier), Actor.at_terminal(terminal, player)):
        with pytest.raises(ValueError, match="is not a process of the back office"):
            system_buy_in(player=player, amount_minor=5_000, actor=actor)
        with pytest.raises(ValueError, match="is not a process of the back office"):
            system_table_fill(table=table, amount_minor=5_000, actor=actor)
    # then nothing moved
    assert snapshot() == before


def test_a_terminal_and_the_system_hold_no_permission_of_the_cage(make_player: Any, snapshot: Any) -> None:
    player = make_player(1_000)
    terminal = TerminalFactory(casino=player.casino)
    before = snapshot()
    for actor in (Actor.at_terminal(terminal, player), Actor.automatic("seed")):
        with pytest.raises(ServiceError) as refused:
            cage_cash_out(player=player, amount_minor=1_000, actor=actor)
        assert (refused.value.code, refused.value.details) == (
            "permission_denied",
            {"permission": "operate_cage"},
        )
    assert snapshot() == before


def test_fill_and_credit_move_chips_between_the_cage_and_the_tray(
    casino: Any, table: Any, cashier: Any
) -> None:
    table_fill(table=table, amount_minor=50_000, actor=Actor.staff(cashier))
    table_credit(table=table, amount_minor=20_000, actor=Actor.staff(cashier))
    tray = Account.objects.get(table=table, kind=AccountKind.TABLE_TRAY)
    assert tray.balance_minor == 30_000
    assert _cage(casino).balance_minor == -30_000
    assert list(Transfer.objects.order_by("pk").values_list("kind", flat=True)) == [
        "table_fill",
        "table_credit",
    ]


def test_a_credit_cannot_empty_the_tray_below_zero(table: Any, cashier: Any, snapshot: Any) -> None:
    table_fill(table=table, amount_minor=10_000, actor=Actor.staff(cashier))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        table_credit(table=table, amount_minor=10_001, actor=Actor.staff(cashier))
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def test_transfer_between_players(make_player: Any, cashier: Any) -> None:
    payer, payee = make_player(10_000), make_player(500)
    transfer = transfer_between_players(
        from_player=payer, to_player=payee, amount_minor=2_500, actor=Actor.staff(cashier)
    )
    assert transfer.kind == TransferKind.PLAYER_TRANSFER
    assert account_balance(payer).balance_minor == 7_500
    assert account_balance(payee).balance_minor == 3_000


def test_transfer_to_oneself_is_refused(make_player: Any, cashier: Any, snapshot: Any) -> None:
    player = make_player(10_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        transfer_between_players(
            from_player=player, to_player=player, amount_minor=1, actor=Actor.staff(cashier)
        )
    assert refused.value.code == "same_account"
    assert snapshot() == before


def test_transfer_beyond_the_available_balance_is_refused(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    payer, payee = make_player(1_000), make_player()
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        transfer_between_players(
            from_player=payer, to_player=payee, amount_minor=1_001, actor=Actor.staff(cashier)
        )
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def test_every_transfer_balances(make_player: Any, cashier: Any, table: Any) -> None:
    payer, payee = make_player(10_000), make_player(10_000)
    transfer_between_players(from_player=payer, to_player=payee, amount_minor=1, actor=Actor.staff(cashier))
    table_fill(table=table, amount_minor=7, actor=Actor.staff(cashier))
    for transfer in Transfer.objects.all():
        assert sum(transfer.postings.values_list("amount_minor", flat=True)) == 0
    assert Posting.objects.filter(amount_minor=0).count() == 0


@pytest.mark.parametrize("amount", [2**63, 10**16])
def test_an_amount_beyond_the_ledger_range_is_refused_with_a_clear_error(
    amount: int, make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a player
    player = make_player(1_000)
    before = snapshot()
    # when a cashier keys in an absurd amount (a bigint overflow, or beyond any real buy-in)
    with pytest.raises(ServiceError) as refused:
        cage_buy_in(player=player, amount_minor=amount, actor=Actor.staff(cashier))
    # then it is refused as an invalid amount, not a database error, and nothing moved
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before
