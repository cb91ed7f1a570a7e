"""Fixtures of the canasta card-room tests: CA1 (classic4) with four funded players, its host
(a dealer), a pit boss, and a chooser that plays the engine's legal actions, melding much."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from cardroom.models import CanastaTableSettings
from cardroom.services import canasta_config_change, canasta_config_decide
from casino.actors import Actor
from casino.models import Approval, Player, Table
from games.canasta import (
    Action,
    AnswerPartner,
    AskPartner,
    DealState,
    DeclineDoubleGoOut,
    Discard,
    Draw,
    Meld,
    TakePile,
)
from tests.factories import PlayerFactory, TerminalFactory, staff_user
from wallet.models import Account, AccountKind
from wallet.services import system_buy_in


@pytest.fixture
def canasta_table(seeded: Any) -> Table:
    return Table.objects.get(name="CA1")


@pytest.fixture
def host(seeded: Any) -> Any:
    return staff_user("dealer", "host-1")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


@pytest.fixture
def operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-1")


def configured(table: Table, operator: Any, **changes: Any) -> CanastaTableSettings:
    """The table's next configuration version with ``changes``, through four eyes: ``operator``
    asks, a second operator approves."""
    approval = canasta_config_change(table=table, actor=Actor.staff(operator), changes=changes)
    assert isinstance(approval, Approval)
    version = canasta_config_decide(
        approval_id=approval.pk, actor=Actor.staff(staff_user("operator")), approve=True
    )
    assert version is not None
    return version


def funded(table: Table, amount_minor: int, name: str) -> Player:
    player = PlayerFactory(casino=table.casino, display_name=name)
    system_buy_in(player=player, amount_minor=amount_minor, actor=Actor.automatic("test"))
    return player


@pytest.fixture
def four_players(canasta_table: Table) -> list[Player]:
    return [funded(canasta_table, 100_000, name) for name in ("North", "East", "South", "West")]


def at_terminal(table: Table, player: Player) -> Actor:
    return Actor.at_terminal(TerminalFactory(casino=table.casino, table=table), player)


def balance(player: Player) -> tuple[int, int]:
    account = Account.objects.get(player=player, kind=AccountKind.PLAYER)
    return account.balance_minor, account.held_minor


def venue_balance(table: Table, kind: str) -> int:
    account = Account.objects.filter(casino=table.casino, kind=kind, player=None, table=None).first()
    return 0 if account is None else account.balance_minor


def _size(action: Action) -> int:
    if isinstance(action, (Meld, TakePile)):
        return sum(len(group) for group in action.melds) + sum(len(add.cards) for add in action.additions)
    return 0


def greedy(state: DealState, legal: Sequence[Action]) -> Action:
    """Meld and take the pile as much as possible, go out when it can, discard the cheapest
    non-wild card: a deal ends fast and a game reaches 5000 in a handful of deals."""

    def rank(action: Action) -> float:
        if isinstance(action, AskPartner):
            return 200
        if isinstance(action, AnswerPartner):
            return 100 if action.yes else 0
        if isinstance(action, TakePile):
            return 90 + _size(action)
        if isinstance(action, Meld):
            return 80 + _size(action)
        if isinstance(action, Draw):
            return 50
        if isinstance(action, Discard):
            return 10 - (100 if action.card.is_wild else action.card.points) / 100
        if isinstance(action, DeclineDoubleGoOut):
            return 5
        return 1

    return max(legal, key=rank)


def canasta_deal_scored(table: Table) -> None:
    """A physical-cards canasta game at ``table`` with one deal entered and scored (its events and
    scores written), by the system: four funded players seated."""
    from cardroom.services import canasta_deal_enter, canasta_game_open, canasta_game_start, canasta_seat_take
    from tests.cardroom.test_host_entry import DEAL

    system = Actor.automatic("test")
    canasta_config_change(table=table, actor=system, changes={"deal_kind": "physical"})
    game = canasta_game_open(table=table, actor=system, stake_minor=10)
    for seat in range(game.players):
        canasta_seat_take(
            game_id=game.pk, seat=seat, actor=system, player=funded(table, 10_000, f"Seat {seat}")
        )
    canasta_game_start(game_id=game.pk, actor=system)
    canasta_deal_enter(game_id=game.pk, actor=system, deal_data=DEAL)
