"""The host's page follows its table's stream: every command that changes what the page shows
hints the table (and its casino's pit floor) once committed, a refused one nothing; the stream
is the page's, for the page's staff of the table's casino, and passes each committed change on."""

from __future__ import annotations

from typing import Any

import pytest

from cardroom.errors import CanastaGameInProgressError
from cardroom.services import (
    canasta_game_open,
    canasta_game_start,
    canasta_seat_leave,
    canasta_seat_take,
    canasta_void_approve,
    canasta_void_request,
)
from casino.actors import Actor
from casino.models import Game, Table
from tests.asgi_server import AsgiServer, events, open_stream, session_cookie_of, stream_status
from tests.factories import staff_user
from tests.hints import hinted_by
from tests.wallet.factories import CasinoFactory, TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

STREAM = "/cardroom/tables/CA1/stream/"


def test_each_command_on_a_game_hints_the_table_and_a_refused_one_nothing(
    canasta_table: Table, four_players: list[Any], host: Any, pit_boss: Any, hints_received: Any
) -> None:
    table = {f"table:{canasta_table.pk}", f"floor:{canasta_table.casino_id}"}
    queue = f"queue:{canasta_table.casino_id}"
    as_host = Actor.staff(host)
    games: list[Any] = []

    # the game opened, the players seated (their holds placed), one leaving and back, the start
    assert (
        hinted_by(
            hints_received,
            lambda: games.append(canasta_game_open(table=canasta_table, actor=as_host, stake_minor=100)),
        )
        == table
    )
    game = games[0]
    for seat, player in enumerate(four_players):
        seated = hinted_by(
            hints_received,
            lambda seat=seat, player=player: canasta_seat_take(
                game_id=game.pk, seat=seat, actor=as_host, player=player
            ),
        )
        assert seated == table | {f"player:{player.pk}"}
    assert hinted_by(hints_received, lambda: canasta_seat_leave(game_id=game.pk, seat=3, actor=as_host)) == (
        table | {f"player:{four_players[3].pk}"}
    )
    hinted_by(
        hints_received,
        lambda: canasta_seat_take(game_id=game.pk, seat=3, actor=as_host, player=four_players[3]),
    )
    assert hinted_by(hints_received, lambda: canasta_game_start(game_id=game.pk, actor=as_host)) == table

    # a second game refused at the table: nothing
    def open_again() -> None:
        with pytest.raises(CanastaGameInProgressError):
            canasta_game_open(table=canasta_table, actor=as_host, stake_minor=100)

    assert hinted_by(hints_received, open_again) == set()

    # the void asked (the queue moves too), then approved: every hold released
    requests: list[Any] = []
    assert hinted_by(
        hints_received,
        lambda: requests.append(canasta_void_request(game_id=game.pk, actor=as_host, reason="players left")),
    ) == table | {queue}
    approved = hinted_by(
        hints_received, lambda: canasta_void_approve(request_id=requests[0].pk, actor=Actor.staff(pit_boss))
    )
    assert approved == table | {queue} | {f"player:{player.pk}" for player in four_players}


def test_the_stream_is_the_pages_own(seeded: None, asgi_server: AsgiServer) -> None:
    host = session_cookie_of(staff_user("dealer", "host-stream"))
    cashier = session_cookie_of(staff_user("cashier", "cashier-stream"))
    elsewhere = CasinoFactory(code="other", name="Other Casino")
    TableFactory(casino=elsewhere, name="CX1", game=Game.CANASTA)

    assert stream_status(asgi_server, STREAM) == 302  # to the login page, as the page
    assert stream_status(asgi_server, STREAM, cashier) == 403
    assert stream_status(asgi_server, "/cardroom/tables/BJ1/stream/", host) == 403  # not a card-room table
    assert stream_status(asgi_server, "/cardroom/tables/CX1/stream/", host) == 404  # another casino's
    assert stream_status(asgi_server, STREAM, host) == 200


def test_the_stream_passes_on_a_player_seated_from_elsewhere(
    canasta_table: Table, four_players: list[Any], host: Any, asgi_server: AsgiServer
) -> None:
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    response = open_stream(asgi_server, STREAM, {"Cookie": session_cookie_of(host)})
    assert response.status == 200
    assert {each["event"] for each in events(response, 2)} == {"table", "queue"}  # at once

    canasta_seat_take(game_id=game.pk, seat=0, actor=Actor.staff(host), player=four_players[0])

    (moved,) = events(response, 1)
    assert moved["event"] == "table" and moved["data"].startswith(f"table:{canasta_table.pk} ")
    response.close()
