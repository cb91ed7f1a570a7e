"""The pit boss's desk shows the card room: a canasta table's open game on the floor (seating,
in play, waiting for a void decision; its players' holds in play), and the host's request to
void a game in the approvals queue, approved (holds released) or rejected there."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from cardroom.models import CanastaGame, CanastaVoidRequest
from cardroom.services import canasta_game_open, canasta_game_start, canasta_seat_take, canasta_void_request
from tables.services import Actor
from tests.cardroom.conftest import balance

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _row(page: str, table: str) -> str:
    start = page.index(f'id="floor-{table}"')
    return page[start : page.index("</tr>", start)]


def test_the_floor_shows_a_canasta_game_and_the_queue_its_void_request(
    canasta_table, host, pit_boss, four_players
):
    pit = _client(pit_boss)
    assert 'data-state="open"' in _row(pit.get("/pit/").content.decode(), "CA1")  # open, as seeded
    # a game opened: seating; the players' holds are in play
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    for seat, player in enumerate(four_players):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=Actor.staff(host), player=player)
    game.refresh_from_db()
    row = _row(pit.get("/pit/").content.decode(), "CA1")
    assert (
        'data-state="seating"' in row
        and "Seating the players" in row
        and 'href="/cardroom/tables/CA1/"' in row
    )
    held = game.hold_minor * 4
    from casino.money import money

    assert money(held) in row
    # started: in play, game 1 with no deal scored yet
    canasta_game_start(game_id=game.pk, actor=Actor.staff(host))
    row = _row(pit.get("/pit/").content.decode(), "CA1")
    assert 'data-state="playing"' in row and "game 1, 0 deals scored" in row
    # the host asks to void it: the floor says it waits, the queue lists it
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="players left")
    assert 'data-state="waiting"' in _row(pit.get("/pit/").content.decode(), "CA1")
    queue = pit.get("/pit/queue/").content.decode()
    assert f'data-request="{request.pk}"' in queue and "players left" in queue and "Void the game" in queue
    # a rejection needs its reason; then an approval voids the game and releases the holds
    refused = pit.post(f"/pit/canasta-voids/{request.pk}/reject/", {"reason": ""}, **HTMX)
    assert refused.status_code == 422 and "reason_required" in refused.content.decode()
    approved = pit.post(f"/pit/canasta-voids/{request.pk}/approve/", **HTMX)
    assert approved.status_code == 200 and "Game voided: the holds are released." in approved.content.decode()
    assert CanastaGame.objects.get(pk=game.pk).status == "voided"
    assert all(balance(player) == (100_000, 0) for player in four_players)
    assert 'data-state="open"' in _row(pit.get("/pit/").content.decode(), "CA1")


def test_the_host_does_not_decide_their_own_void_and_a_dealer_reaches_no_queue(canasta_table, host, pit_boss):
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(host), reason="no players")
    answer = _client(host).post(f"/pit/canasta-voids/{request.pk}/approve/")
    assert answer.status_code == 403
    assert CanastaVoidRequest.objects.get(pk=request.pk).approval.status == "pending"
    missing = _client(pit_boss).post("/pit/canasta-voids/999999/approve/", **HTMX)
    assert missing.status_code == 409 and "not_found" in missing.content.decode()


def test_the_queue_shows_a_void_s_buttons_to_a_second_person_only(canasta_table, host, pit_boss):
    from tests.factories import staff_user

    # given a pit boss who asked to void the game himself
    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    request = canasta_void_request(game_id=game.pk, actor=Actor.staff(pit_boss), reason="table closing")
    # then his queue lists it without the buttons, and another pit boss's with them
    own = _client(pit_boss).get("/pit/queue/").content.decode()
    other = _client(staff_user("pit_boss", "pitboss-second")).get("/pit/queue/").content.decode()
    assert f'data-request="{request.pk}"' in own and "A second person decides it." in own
    assert "Void the game" not in own
    assert "Void the game" in other and "A second person decides it." not in other
