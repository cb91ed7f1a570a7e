"""Seats of a canasta game and a canasta table's configuration: who may sit where, the hold
placed and released, the start, the stake rules and the fee; blackjack tables unchanged."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from cardroom.models import CanastaGame, CanastaGamePlayer
from cardroom.services import (
    canasta_deal_start,
    canasta_game_open,
    canasta_game_start,
    canasta_seat_leave,
    canasta_seat_take,
)
from casino.errors import ServiceError
from casino.models import RuleSet, Table
from casino.refusals import refusal_text
from tables.models import TableConfigVersion
from tables.services import Actor, table_config_change
from tests.cardroom.conftest import at_terminal, balance, configured, funded
from wallet.models import Hold, HoldStatus


def code_of(call: Any, **kwargs: Any) -> str:
    with pytest.raises(ServiceError) as refused:
        call(**kwargs)
    return refused.value.code


@pytest.mark.django_db
def test_seats_refusals_leave_nothing_and_leaving_releases_the_hold(canasta_table, four_players, host):
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    north, east = (at_terminal(canasta_table, player) for player in four_players[:2])
    canasta_seat_take(game_id=game.pk, seat=0, actor=north)
    holds = Hold.objects.count()

    assert code_of(canasta_seat_take, game_id=game.pk, seat=0, actor=east) == "seat_taken"
    assert code_of(canasta_seat_take, game_id=game.pk, seat=1, actor=north) == "already_seated"
    assert code_of(canasta_seat_take, game_id=game.pk, seat=4, actor=east) == "no_such_seat"
    assert code_of(canasta_game_start, game_id=game.pk, actor=Actor.staff(host)) == "seats_not_filled"
    assert code_of(canasta_seat_leave, game_id=game.pk, seat=0, actor=east) == "permission_denied"
    assert code_of(canasta_game_open, table=canasta_table, actor=Actor.staff(host), stake_minor=100) == (
        "canasta_game_in_progress"
    )
    assert Hold.objects.count() == holds and balance(four_players[1]) == (100_000, 0)

    canasta_seat_leave(game_id=game.pk, seat=0, actor=north)

    assert balance(four_players[0]) == (100_000, 0)
    assert CanastaGamePlayer.objects.count() == 0
    assert Hold.objects.get().status == HoldStatus.VOIDED
    assert code_of(canasta_deal_start, game_id=game.pk, actor=Actor.staff(host)) == "game_not_playing"


@pytest.mark.django_db
def test_only_the_host_opens_and_starts_and_a_player_cannot(canasta_table, four_players):
    player = at_terminal(canasta_table, four_players[0])

    assert (
        code_of(canasta_game_open, table=canasta_table, actor=player, stake_minor=100) == "permission_denied"
    )
    assert CanastaGame.objects.count() == 0


@pytest.mark.django_db
def test_a_blackjack_table_is_no_canasta_table(seeded, host):
    table = Table.objects.get(name="BJ1")

    assert (
        code_of(canasta_game_open, table=table, actor=Actor.staff(host), stake_minor=100)
        == "not_a_canasta_table"
    )


@pytest.mark.django_db
def test_the_stake_is_agreed_within_the_tables_limits(canasta_table, host, operator):
    configured(
        canasta_table, operator, stake_points=1, stake_min_minor=2, stake_max_minor=5, max_loss_points=3000
    )

    assert (
        code_of(canasta_game_open, table=canasta_table, actor=Actor.staff(host), stake_minor=6)
        == "stake_out_of_range"
    )
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=5)
    assert (game.stake_points, game.hold_minor) == (1, 15_000)


@pytest.mark.django_db(transaction=True)
def test_two_players_racing_for_one_seat_one_sits_and_one_hold_is_placed(seeded):
    # Given: a game being seated, two funded players at their terminals
    table = Table.objects.get(name="CA1")
    game = canasta_game_open(table=table, actor=Actor.automatic("test"), stake_minor=100)
    players = [funded(table, 50_000, name) for name in ("Ann", "Bob")]
    actors = [at_terminal(table, player) for player in players]
    results: list[str] = []
    barrier = threading.Barrier(2)

    def sit(actor: Actor) -> None:
        barrier.wait()
        try:
            canasta_seat_take(game_id=game.pk, seat=0, actor=actor)
            results.append("seated")
        except ServiceError as error:
            results.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=sit, args=(actor,)) for actor in actors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then: one sat, the other was refused, one hold
    assert sorted(results) == ["seat_taken", "seated"]
    assert CanastaGamePlayer.objects.count() == 1
    assert sorted(balance(player)[1] for player in players) == [0, 10_000]


@pytest.mark.django_db
def test_a_canasta_table_runs_no_blackjack_round(canasta_table, operator, host):
    from tables.services import shoe_shuffle

    classic4 = RuleSet.objects.get(game="canasta", name="classic4").current_version()
    versions = TableConfigVersion.objects.count()

    # its rule set is part of its canasta configuration, never of a blackjack one
    assert (
        code_of(
            table_config_change,
            table=canasta_table,
            actor=Actor.staff(operator),
            changes={"rule_set_version": classic4},
        )
        == "invalid_configuration"
    )
    assert TableConfigVersion.objects.count() == versions
    assert code_of(shoe_shuffle, table=canasta_table, actor=Actor.staff(host)) == "invalid_configuration"


@pytest.mark.django_db
def test_seat_refusals_number_the_seats_from_1(canasta_table, four_players, host):
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    canasta_seat_take(game_id=game.pk, seat=0, actor=Actor.staff(host), player=four_players[0])
    holds = Hold.objects.count()

    with pytest.raises(ServiceError) as taken:
        canasta_seat_take(game_id=game.pk, seat=0, actor=Actor.staff(host), player=four_players[1])
    with pytest.raises(ServiceError) as missing:
        canasta_seat_take(game_id=game.pk, seat=4, actor=Actor.staff(host), player=four_players[1])
    with pytest.raises(ServiceError) as empty:
        canasta_seat_leave(game_id=game.pk, seat=2, actor=Actor.staff(host))

    assert (taken.value.code, taken.value.message, refusal_text(taken.value)) == (
        "seat_taken",
        "seat 1 is taken",
        "Seat 1 is taken.",
    )
    assert (missing.value.code, refusal_text(missing.value)) == ("no_such_seat", "The game has seats 1 to 4.")
    assert (empty.value.code, refusal_text(empty.value)) == ("not_seated", "Nobody sits in seat 3.")
    assert Hold.objects.count() == holds
    assert list(CanastaGamePlayer.objects.values_list("seat", "player")) == [(0, four_players[0].pk)]
