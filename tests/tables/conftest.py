"""Fixtures of the live table tests: the seeded demo casino, BJ1 with a stacked virtual shoe."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from casino.errors import ServiceError
from casino.models import Player, Table
from tables.models import Round, Shoe
from tables.services import (
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    round_open,
    shoe_shuffle,
)
from tables.services.shoes import shoe_commitment
from tests.factories import PlayerFactory, TerminalFactory, staff_user, table_settings_applied
from wallet.models import Account, AccountKind
from wallet.services import system_buy_in


@pytest.fixture
def dealer(seeded: Any) -> Any:
    return staff_user("dealer", "dealer-1")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


@pytest.fixture
def operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-1")


@pytest.fixture
def table(seeded: Any) -> Table:
    return Table.objects.get(name="BJ1")


def funded_player(table: Table, amount_minor: int = 100_000, name: str = "") -> Player:
    player = PlayerFactory(casino=table.casino, display_name=name or "Test player")
    system_buy_in(player=player, amount_minor=amount_minor, actor=Actor.automatic("test"))
    return player


def at_terminal(table: Table, player: Player) -> Actor:
    return Actor.at_terminal(TerminalFactory(casino=table.casino, table=table), player)


def balance(player: Player) -> tuple[int, int]:
    account = Account.objects.get(player=player, kind=AccountKind.PLAYER)
    return account.balance_minor, account.held_minor


def stack_shoe(table: Table, dealer: Any, cards: list[str]) -> Shoe:
    """Shuffle, then put ``cards`` on top of the new virtual shoe (the rest keeps its order)."""
    shoe = shoe_shuffle(table=table, actor=Actor.staff(dealer))
    order = list(shoe.order)
    for code in cards:
        order.remove(code)
    order = [*cards, *order]
    Shoe.objects.filter(pk=shoe.pk).update(order=order, commitment=shoe_commitment(shoe.secret, order))
    shoe.refresh_from_db()
    return shoe


def physical(table: Table, operator: Any) -> None:
    table_settings_applied(table=table, operator=operator, settings={"shoe_kind": "physical"})


def refused(code: str, call: Any, **kwargs: Any) -> ServiceError:
    """``call(**kwargs)`` raised the refusal ``code`` (in a savepoint of its own, so that the
    test may go on and count what was written)."""
    with pytest.raises(ServiceError) as info, transaction.atomic():
        call(**kwargs)
    assert info.value.code == code, info.value.message
    return info.value


def alice_betting(table: Table, dealer: Any) -> tuple[Player, Round]:
    """Alice (100.00) bets 10.00 on box 1 of a round dealt by ``dealer``, signed on; betting open."""
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    return alice, round_
