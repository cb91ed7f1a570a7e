"""The cage's player page follows the player's stream: every move of a player's wallet (a hold
placed or voided, a transfer) hints the player once committed, a refused one nothing, and a move
of no player's wallet no player; the page's money is read again from ``live/`` (204 while it has
not moved); the stream is the page's, for the cage's staff, of their casino's players."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from casino.actors import Actor
from tests.asgi_server import AsgiServer, events, open_stream, session_cookie_of, stream_status
from tests.hints import hinted_by
from tests.wallet.factories import CasinoFactory, PlayerFactory
from wallet.errors import InsufficientFundsError
from wallet.services import (
    cage_buy_in,
    cage_cash_out,
    hold_place,
    holds_void,
    table_fill,
    transfer_between_players,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_move_of_a_wallet_hints_its_player_and_a_refused_one_nothing(
    make_player: Callable[..., Any], table: Any, cashier: Any, hints_received: Any
) -> None:
    alice, bob = make_player(10_000), make_player(0)
    as_cashier = Actor.staff(cashier)
    holds: list[Any] = []

    assert hinted_by(hints_received, lambda: cage_buy_in(player=bob, amount_minor=500, actor=as_cashier)) == {
        f"player:{bob.pk}"
    }
    assert hinted_by(
        hints_received, lambda: holds.append(hold_place(player=alice, amount_minor=1_000, table=table))
    ) == {f"player:{alice.pk}"}
    assert hinted_by(
        hints_received, lambda: holds_void(hold_ids=[holds[0].pk], reason="round voided", actor=as_cashier)
    ) == {f"player:{alice.pk}"}
    moved = hinted_by(
        hints_received,
        lambda: transfer_between_players(
            from_player=alice, to_player=bob, amount_minor=100, actor=as_cashier
        ),
    )
    assert moved == {f"player:{alice.pk}", f"player:{bob.pk}"}
    # no player's wallet moves: no player hinted
    assert (
        hinted_by(hints_received, lambda: table_fill(table=table, amount_minor=5_000, actor=as_cashier))
        == set()
    )

    def cash_out_too_much() -> None:
        with pytest.raises(InsufficientFundsError):
            cage_cash_out(player=bob, amount_minor=10**6, actor=as_cashier, confirmed=True)

    assert hinted_by(hints_received, cash_out_too_much) == set()

    def hold_too_much() -> None:
        with pytest.raises(InsufficientFundsError):
            hold_place(player=bob, amount_minor=10**6, table=table)

    assert hinted_by(hints_received, hold_too_much) == set()


def test_the_pages_money_is_read_again_once_it_moved(make_player: Callable[..., Any], cashier: Any) -> None:
    player = make_player(10_000)
    client = Client()
    client.force_login(cashier)
    page = client.get(f"/cage/players/{player.pk}/").content.decode()
    version = re.search(r'cage/players/\d+/live/\?version=([0-9a-f]+)"', page)
    assert version is not None
    assert f'sse-connect="/cage/players/{player.pk}/stream/"' in page
    assert 'http-equiv="refresh"' not in page  # amounts are typed here: no reload without JavaScript
    assert 'hx-trigger="sse:player, every 15s"' in page and 'id="statement-page" value="1"' in page
    live = f"/cage/players/{player.pk}/live/?version={version[1]}&page=1"

    assert client.get(live, HTTP_HX_REQUEST="true").status_code == 204  # nothing moved

    cage_buy_in(player=player, amount_minor=2_500, actor=Actor.staff(cashier))
    moved = client.get(live, HTTP_HX_REQUEST="true")
    html = moved.content.decode()
    assert moved.status_code == 200 and html.lstrip().startswith('<dl class="cage-balance" id="balance"')
    assert re.search(r'id="balance-total">\s*125\.00', html)
    assert '<section class="card" id="holds" hx-swap-oob="true">' in html
    assert '<section class="card" id="statement" hx-swap-oob="true">' in html and "+25.00" in html
    assert "<html" not in html and 'id="buy-in"' not in html  # the forms as typed are left alone


def test_the_stream_is_the_pages_own(
    make_player: Callable[..., Any], cashier: Any, dealer: Any, asgi_server: AsgiServer
) -> None:
    player = make_player(10_000)
    elsewhere = PlayerFactory(casino=CasinoFactory(code="other", name="Other Casino"))
    stream = f"/cage/players/{player.pk}/stream/"
    at_cage = session_cookie_of(cashier)

    assert stream_status(asgi_server, stream) == 302  # to the login page, as the page
    assert stream_status(asgi_server, stream, session_cookie_of(dealer)) == 403
    assert stream_status(asgi_server, f"/cage/players/{elsewhere.pk}/stream/", at_cage) == 404
    response = open_stream(asgi_server, stream, {"Cookie": at_cage})
    assert response.status == 200
    assert [each["event"] for each in events(response, 1)] == ["player"]  # at once

    cage_buy_in(player=player, amount_minor=500, actor=Actor.staff(cashier))

    (moved,) = events(response, 1)
    assert moved["event"] == "player" and moved["data"].startswith(f"player:{player.pk} ")
    response.close()
