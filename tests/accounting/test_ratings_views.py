"""The ratings' pages: a player's sessions and days, the players at a table, the search, the
cage's player page and the pit's floor; whole and as partials; for the roles that read them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from casino.actors import Actor
from casino.models import Player, Table
from tables.services import box_take
from tests.accounting.test_ratings import main_edge_known, main_edge_unknown, played_round, signed_in_at
from tests.factories import PlayerFactory, staff_user
from wallet.services import system_buy_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice_played(table: Table, dealer: Any) -> Player:
    """Alice signed in at BJ1 twenty minutes ago: 10.00 won and 20.00 lost, edge computed."""
    main_edge_known(table)
    alice = PlayerFactory(casino=table.casino, display_name="Alice Ambler", card_number="7100000001")
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    as_alice, _ = signed_in_at(table, alice, timezone.now() - dt.timedelta(minutes=20), None)
    box_take(table=table, box_number=1, actor=as_alice)
    played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000)])
    played_round(table, dealer, as_alice, ["TS", "TH", "6D", "TC"], [("main", 2000)])
    return alice


@pytest.mark.parametrize(
    ("url", "partial_id"),
    [
        ("/accounting/players/7100000001/ratings/", 'id="ratings"'),
        ("/accounting/players/at/BJ1/", 'id="table-players"'),
        ("/accounting/players/?q=Ambler", 'id="player-matches"'),
    ],
)
def test_each_page_is_whole_without_htmx_and_its_partial_with_it(
    url: str, partial_id: str, alice_played: Player, pit_boss: Any
) -> None:
    client = client_of(pit_boss)
    page, partial = client.get(url), client.get(url, headers=HTMX)
    assert (page.status_code, partial.status_code) == (200, 200)
    assert "<html" in page.text and partial_id in page.text
    assert "<html" not in partial.text and partial_id in partial.text
    assert "HX-Request" in page["Vary"] and "HX-Request" in partial["Vary"]


def test_the_ratings_page_shows_the_session_and_the_day(alice_played: Player, pit_boss: Any) -> None:
    page = client_of(pit_boss).get(f"/accounting/players/{alice_played.card_number}/ratings/")
    ratings = page.context["ratings"]
    assert (ratings.total.rounds, ratings.total.wagered_minor, ratings.total.actual_win_minor) == (
        2,
        3000,
        1000,
    )
    # theo = 3000 * 0.004598 = 13.794 -> 0.14
    assert ratings.total.theo_minor == 14
    assert page.text.count('class="session-row"') == 1
    assert page.text.count('class="day-row"') == 1
    assert 'data-theo="14"' in page.text and 'data-actual="1000"' in page.text
    assert 'id="theo-pending"' not in page.text
    # by id too, and an unknown player is not found
    assert client_of(pit_boss).get(f"/accounting/players/{alice_played.pk}/ratings/").status_code == 200
    assert client_of(pit_boss).get("/accounting/players/0000000000/ratings/").status_code == 404


def test_a_rating_waiting_for_its_edge_says_so_and_offers_the_pit_boss_to_compute_it(
    table: Table, dealer: Any, pit_boss: Any
) -> None:
    main_edge_unknown(table)
    alice = PlayerFactory(casino=table.casino, card_number="7100000002")
    system_buy_in(player=alice, amount_minor=100_000, actor=Actor.automatic("test"))
    as_alice, _ = signed_in_at(table, alice, timezone.now() - dt.timedelta(minutes=5), None)
    box_take(table=table, box_number=1, actor=as_alice)
    played_round(table, dealer, as_alice, ["TS", "7H", "9D", "TC"], [("main", 1000)])
    page = client_of(pit_boss).get("/accounting/players/7100000002/ratings/")
    assert 'id="theo-pending"' in page.text
    assert 'data-complete="no"' in page.text
    assert "Compute the edge" in page.text


def test_a_search_by_card_goes_to_the_ratings_and_by_name_lists_the_matches(
    alice_played: Player, pit_boss: Any
) -> None:
    client = client_of(pit_boss)
    answer = client.get("/accounting/players/?q=7100000001")
    assert (answer.status_code, answer["Location"]) == (302, "/accounting/players/7100000001/ratings/")
    assert client.get("/accounting/players/?q=ambl").text.count('class="player-match"') == 1
    assert "No player found." in client.get("/accounting/players/?q=nobody").text


def test_the_players_at_a_table_and_the_floors_link_to_them(alice_played: Player, pit_boss: Any) -> None:
    client = client_of(pit_boss)
    page = client.get("/accounting/players/at/BJ1/")
    assert page.text.count('class="player-row"') == 1
    assert "Alice Ambler" in page.text
    assert "No player is signed in at this table." in client.get("/accounting/players/at/BJ2/").text
    floor = client.get("/pit/")
    assert 'href="/accounting/players/at/BJ1/"' in floor.text


def test_the_cage_shows_a_cashier_the_players_rating(alice_played: Player, cashier: Any) -> None:
    page = client_of(cashier).get(f"/cage/players/{alice_played.pk}/")
    assert page.status_code == 200
    assert 'id="player-rating"' in page.text
    today = page.text.split('id="rating-today"')[1].split("</tr>")[0]
    assert 'data-theo="14"' in today and 'data-actual="1000"' in today
    assert '<td class="num rating-rounds">2</td>' in today
    # the cashier does not read the accounting's pages: no link to them
    assert 'id="rating-link"' not in page.text
    assert (
        client_of(cashier).get(f"/accounting/players/{alice_played.card_number}/ratings/").status_code == 403
    )


@pytest.mark.parametrize(
    ("role", "status"),
    [
        ("pit_boss", 200),
        ("accountant", 200),
        ("auditor", 200),
        ("cashier", 403),
        ("dealer", 403),
        ("operator", 403),
    ],
)
def test_the_ratings_pages_are_read_with_view_accounting(
    alice_played: Player, role: str, status: int
) -> None:
    client = client_of(staff_user(role))
    for url in (
        "/accounting/players/",
        f"/accounting/players/{alice_played.card_number}/ratings/",
        "/accounting/players/at/BJ1/",
    ):
        assert client.get(url).status_code == status, url


def test_an_anonymous_visitor_is_sent_to_the_login(seeded: Any) -> None:
    assert Client().get("/accounting/players/").status_code == 302
    assert Client().get("/accounting/cash-log/").status_code == 302
