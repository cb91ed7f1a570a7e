"""Balances, statements, totals and the ledger verification command."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from casino.actors import Actor
from wallet.models import Account, AccountKind, Posting, Transfer, TransferKind
from wallet.selectors import account_balance, ledger_totals, ledger_verify, player_statement
from wallet.services import cage_buy_in, cage_cash_out, hold_place, table_fill, transfer_between_players


def test_a_statement_lists_movements_with_a_running_balance(make_player: Any, cashier: Any) -> None:
    player, other = make_player(), make_player(1_000)
    cage_buy_in(player=player, amount_minor=10_000, actor=Actor.staff(cashier))
    cage_cash_out(player=player, amount_minor=2_500, actor=Actor.staff(cashier))
    transfer_between_players(
        from_player=other, to_player=player, amount_minor=300, actor=Actor.staff(cashier)
    )
    lines = player_statement(player)
    assert [(line.kind, line.amount_minor, line.balance_after_minor) for line in lines] == [
        (TransferKind.BUY_IN, 10_000, 10_000),
        (TransferKind.CASH_OUT, -2_500, 7_500),
        (TransferKind.PLAYER_TRANSFER, 300, 7_800),
    ]


def test_a_statement_since_a_moment_starts_from_the_balance_then(make_player: Any, cashier: Any) -> None:
    player = make_player()
    cage_buy_in(player=player, amount_minor=10_000, actor=Actor.staff(cashier))
    cage_cash_out(player=player, amount_minor=2_500, actor=Actor.staff(cashier))
    since = Transfer.objects.get(kind=TransferKind.CASH_OUT).created_at
    lines = player_statement(player, since=since)
    assert [(line.amount_minor, line.balance_after_minor) for line in lines] == [(-2_500, 7_500)]
    assert player_statement(player, since=since + dt.timedelta(days=1)) == []


def test_balance_of_a_player_without_a_wallet_is_zero(make_player: Any) -> None:
    assert account_balance(make_player()) == type(account_balance(make_player()))(0, 0, 0, "EUR")


def test_totals_per_kind_sum_to_zero(make_player: Any, table: Any, cashier: Any) -> None:
    player = make_player(10_000)
    table_fill(table=table, amount_minor=50_000, actor=Actor.staff(cashier))
    hold_place(player=player, amount_minor=400)
    totals = ledger_totals()
    assert totals.by_kind == {"cage": -60_000, "player": 10_000, "table_tray": 50_000}
    assert (totals.total_minor, totals.held_minor) == (0, 400)


def test_ledger_verify_is_clean_after_ordinary_work(
    make_player: Any, table: Any, cashier: Any, capsys: Any
) -> None:
    player = make_player(10_000)
    table_fill(table=table, amount_minor=50_000, actor=Actor.staff(cashier))
    hold_place(player=player, amount_minor=400)
    call_command("ledger_verify")
    assert capsys.readouterr().out == (
        "ledger clean: 2 transfers, 4 postings, 3 accounts, 1 open holds; sum of all balances 0; "
        "every transfer matches its audit record\n"
    )


def _raw(sql: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_ledger_verify_names_an_account_whose_cached_balance_drifted(
    make_player: Any, cashier: Any, capsys: Any
) -> None:
    player = make_player(10_000)
    account = Account.objects.get(player=player)
    _raw("UPDATE wallet_account SET balance_minor = balance_minor + 1 WHERE id = %s", [account.pk])
    with pytest.raises(SystemExit) as exited:
        call_command("ledger_verify")
    assert exited.value.code == 1
    assert (
        f"account {account.pk} (player): cached balance 10001 != sum of its postings 10000"
        in capsys.readouterr().err
    )


def test_ledger_verify_names_an_account_whose_held_amount_drifted(make_player: Any) -> None:
    player = make_player(10_000)
    hold = hold_place(player=player, amount_minor=400)
    _raw("UPDATE wallet_hold SET amount_minor = 399 WHERE id = %s", [hold.pk])
    result = ledger_verify()
    assert result.offender == f"account {hold.account_id} (player): held 400 != sum of its open holds 399"


@contextmanager
def _database_guards_off() -> Iterator[None]:
    """Let raw SQL break the ledger, as a bug or a hand edit could, so that verification can be
    seen to catch it. Only inside the test's own transaction (rolled back afterwards): the
    triggers stop firing (``session_replication_role = replica``, local to the transaction) and
    the account CHECK constraints are dropped (DDL is transactional)."""
    with connection.cursor() as cursor:
        # run the deferred checks queued so far (ALTER TABLE refuses pending trigger events)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("SET LOCAL session_replication_role = replica")
        for name in ("account_not_overdrawn", "account_may_go_negative_matches_kind"):
            cursor.execute(f"ALTER TABLE wallet_account DROP CONSTRAINT {name}")
    yield


def _unbalanced_transfer(account: Account) -> str:
    transfer = Transfer.objects.create(casino=account.casino, kind=TransferKind.ADJUSTMENT, currency="EUR")
    Posting.objects.create(transfer=transfer, account=account, amount_minor=5)
    Account.objects.filter(pk=account.pk).update(balance_minor=account.balance_minor + 5)
    return f"transfer {transfer.pk} does not balance: its postings sum to 5"


def _cached_balance_drift(account: Account) -> str:
    _raw("UPDATE wallet_account SET balance_minor = balance_minor + 1 WHERE id = %s", [account.pk])
    return (
        f"account {account.pk} (player): cached balance {account.balance_minor + 1} "
        f"!= sum of its postings {account.balance_minor}"
    )


def _held_drift(account: Account) -> str:
    _raw("UPDATE wallet_account SET held_minor = held_minor + 7 WHERE id = %s", [account.pk])
    return f"account {account.pk} (player): held 7 != sum of its open holds 0"


def _overdrawn(account: Account) -> str:
    # a balanced transfer that takes more than the player has, cached balance kept in step
    cage = Account.objects.get(casino=account.casino, kind=AccountKind.CAGE)
    transfer = Transfer.objects.create(casino=account.casino, kind=TransferKind.CASH_OUT, currency="EUR")
    taken = account.balance_minor + 500
    Posting.objects.create(transfer=transfer, account=account, amount_minor=-taken)
    Posting.objects.create(transfer=transfer, account=cage, amount_minor=taken)
    Account.objects.filter(pk=account.pk).update(balance_minor=-500)
    Account.objects.filter(pk=cage.pk).update(balance_minor=cage.balance_minor + taken)
    return f"account {account.pk} (player) breaks its no-negative rule: balance -500, held 0"


def _allowed_to_go_negative(account: Account) -> str:
    Account.objects.filter(pk=account.pk).update(may_go_negative=True)
    return f"account {account.pk} (player) may go negative, which a player account never may"


@pytest.mark.parametrize(
    "breach", [_unbalanced_transfer, _cached_balance_drift, _held_drift, _overdrawn, _allowed_to_go_negative]
)
def test_ledger_verify_exits_1_naming_the_first_offender_of_each_kind(
    breach: Callable[[Account], str], make_player: Any, capsys: Any
) -> None:
    # given a clean ledger with two funded players
    first, second = (Account.objects.get(player=make_player(10_000)) for _ in range(2))
    call_command("ledger_verify")
    capsys.readouterr()
    # when the same breach is written on both behind the services' back
    with _database_guards_off():
        expected = breach(first)
        breach(Account.objects.get(pk=second.pk))
        # then the command exits 1 and names the first offender (the lower id)
        with pytest.raises(SystemExit) as exited:
            call_command("ledger_verify")
    assert exited.value.code == 1
    assert capsys.readouterr().err.startswith(f"ledger broken: {expected} (")
