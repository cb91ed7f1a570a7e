"""Fixtures for the wallet: a casino, a table, staff in their roles, funded players, and a
snapshot of everything a refused command must leave untouched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from casino.actors import Actor
from casino.services import roles_sync, staff_role_assign
from tests.snapshots import ledger_snapshot
from tests.wallet.factories import CasinoFactory, PlayerFactory, TableFactory, UserFactory
from wallet.services import cage_buy_in, table_fill


@pytest.fixture
def casino(db: Any) -> Any:
    return CasinoFactory()


@pytest.fixture
def table(casino: Any) -> Any:
    return TableFactory(casino=casino, name="BJ1")


def _staff(username: str, role: str) -> Any:
    roles_sync()
    user = UserFactory(username=username)
    staff_role_assign(user=user, role=role, actor=Actor.automatic("system"))
    return type(user).objects.get(pk=user.pk)  # fresh instance: no stale permission cache


@pytest.fixture
def cashier(db: Any) -> Any:
    return _staff("cashier", "cashier")


@pytest.fixture
def pit_boss(db: Any) -> Any:
    return _staff("pitboss", "pit_boss")


@pytest.fixture
def other_pit_boss(db: Any) -> Any:
    return _staff("pitboss2", "pit_boss")


@pytest.fixture
def dealer(db: Any) -> Any:
    return _staff("dealer", "dealer")


@pytest.fixture
def make_player(casino: Any, cashier: Any) -> Callable[..., Any]:
    """A player with a wallet bought in for ``balance_minor`` (none when 0)."""

    def make(balance_minor: int = 0, **fields: Any) -> Any:
        player = PlayerFactory(casino=casino, **fields)
        if balance_minor:
            cage_buy_in(player=player, amount_minor=balance_minor, actor=Actor.staff(cashier))
        return player

    return make


@pytest.fixture
def filled_table(table: Any, cashier: Any) -> Any:
    """The table with 1 000.00 in its tray."""
    table_fill(table=table, amount_minor=100_000, actor=Actor.staff(cashier))
    return table


@pytest.fixture
def snapshot() -> Callable[[], dict[str, Any]]:
    return ledger_snapshot


def waiting_on_locks() -> int:
    """How many transactions of the test database wait on a lock now (threads' tests)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])
