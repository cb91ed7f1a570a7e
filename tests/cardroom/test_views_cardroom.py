"""The host's page of a canasta table: a physical-cards game run from its forms (open, seat by
card number, start, the finished deal entered field by field, next deal), the score sheet shown;
the void asked and decided; the page for dealers and pit bosses of the table's casino only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from cardroom.models import CanastaDealScore, CanastaGame, CanastaGameStatus
from tables.services import Actor
from tests.cardroom.conftest import balance, configured
from tests.factories import staff_user

URL = "/cardroom/tables/CA1/"


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client: Client, action: str, **data: Any) -> str:
    response = client.post(f"{URL}do/{action}/", data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_a_physical_game_run_from_the_host_page(canasta_table, four_players, host, operator):
    configured(canasta_table, operator, deal_kind="physical")
    page = client_of(host)
    assert 'id="game-open"' in page.get(URL).content.decode()

    assert "Game opened" in post(page, "open", stake="0.50")
    for seat, player in enumerate(four_players):
        assert "Player seated" in post(page, "seat", seat=seat, card_number=player.card_number)
    assert "Game started" in post(page, "start")
    html = post(
        page,
        "enter",
        side0_melds="7S 7H 7D 7C 7S 7H 7D\nKS KH KD KC JK 2S JK",
        side0_red_threes="3H 3D",
        side0_hand0="",
        side0_hand1="9S 4S",
        side1_melds="QS QH QD JK\n5S 5H 5D",
        side1_red_threes="3H",
        side1_hand0="AS 8S 3S",
        side1_hand1="JK 6S",
        went_out="0:0",
        discard="9D",
    )

    assert "Deal scored." in html
    assert "1280 → <strong>1280</strong>" in html and "10 → <strong>10</strong>" in html
    game = CanastaGame.objects.get()
    assert game.totals == [1280, 10] and CanastaDealScore.objects.count() == 2
    assert [balance(player) for player in four_players] == [(100_000, 5_000)] * 4
    # an impossible deal is refused in words, nothing scored
    assert "Next deal started." in post(page, "deal")
    refused = post(page, "enter", side0_melds="7S 7H 7D 7C", went_out="0:0")
    assert '<li class="error">going out needs 1 canasta(s) (G2)</li>' in refused
    assert CanastaDealScore.objects.count() == 2


@pytest.mark.django_db
def test_a_void_asked_on_the_page_and_approved_by_another_pit_boss(
    canasta_table, four_players, host, pit_boss
):
    page = client_of(host)
    post(page, "open", stake="1")
    for seat, player in enumerate(four_players):
        post(page, "seat", seat=seat, card_number=player.card_number)
    assert "Void requested" in post(page, "void", reason="players left")

    html = client_of(pit_boss).get(URL).content.decode()
    assert "players left" in html and "Approve the void" in html
    request_id = CanastaGame.objects.get().void_requests.get().pk
    assert "Game voided" in post(client_of(pit_boss), "void-approve", request=request_id)

    assert CanastaGame.objects.get().status == CanastaGameStatus.VOIDED
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4


@pytest.mark.parametrize("role", ["cashier", "auditor"])
@pytest.mark.django_db
def test_the_page_is_not_for_other_roles(seeded, role):
    response = client_of(staff_user(role, f"{role}-x")).get(URL)

    assert response.status_code == 403


@pytest.mark.django_db
def test_a_blackjack_table_has_no_card_room_page_and_anonymous_visitors_log_in(seeded, host):
    assert client_of(host).get("/cardroom/tables/BJ1/").status_code == 403
    assert Client().get(URL).status_code == 302


def test_the_host_page_is_drawn_again_when_the_game_moves_on_elsewhere(canasta_table, four_players, host):
    import re

    from cardroom.services import canasta_game_open, canasta_seat_take

    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    client = client_of(host)
    page = client.get("/cardroom/tables/CA1/").content.decode()
    version = re.search(r"live/\?version=([0-9a-f]+)", page)
    assert version is not None and 'id="cardroom"' in page
    # the page follows its table's stream, and reads itself again on each hint of the table
    assert (
        'sse-connect="/cardroom/tables/CA1/stream/"' in page and 'hx-trigger="sse:table, every 15s"' in page
    )
    partial = client.get("/cardroom/tables/CA1/", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in partial and partial.lstrip().startswith('<div id="cardroom"')
    # nothing moved: 204
    assert client.get(f"/cardroom/tables/CA1/live/?version={version[1]}").status_code == 204
    # a player sits down from elsewhere: the page's partial, with the player, a new version
    canasta_seat_take(game_id=game.pk, seat=0, actor=Actor.staff(host), player=four_players[0])
    moved = client.get(f"/cardroom/tables/CA1/live/?version={version[1]}")
    assert moved.status_code == 200 and four_players[0].display_name in moved.content.decode()
    assert 'hx-preserve="true"' in moved.content.decode()  # the card number being typed is kept
    # a cashier reaches neither
    cashier = client_of(staff_user("cashier", "cashier-1"))
    assert cashier.get("/cardroom/tables/CA1/live/").status_code == 403


@pytest.mark.django_db
def test_the_host_page_names_seats_from_1_in_its_refusals(canasta_table, four_players, host):
    page = client_of(host)
    post(page, "open", stake="1")
    post(page, "seat", seat=0, card_number=four_players[0].card_number)

    taken = post(page, "seat", seat=0, card_number=four_players[1].card_number)
    empty = post(page, "unseat", seat=2)

    assert '<li class="error">Seat 1 is taken.</li>' in taken
    assert '<li class="error">Nobody sits in seat 3.</li>' in empty
    assert list(CanastaGame.objects.get().seats.values_list("seat", "player")) == [(0, four_players[0].pk)]


@pytest.mark.django_db
def test_the_host_page_names_the_seat_on_turn_from_1(canasta_table, four_players, host):
    from cardroom.services import canasta_game_open, canasta_game_start, canasta_seat_take

    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    for seat, player in enumerate(four_players):
        canasta_seat_take(game_id=game.pk, seat=seat, actor=Actor.staff(host), player=player)
    deal = canasta_game_start(game_id=game.pk, actor=Actor.staff(host))

    html = client_of(host).get(URL).content.decode()

    assert deal.snapshot is not None and deal.snapshot["turn"] == 1
    assert "Seat 2 to play;" in html


@pytest.mark.django_db
def test_the_pit_boss_who_asked_for_a_void_cannot_decide_it_on_the_page(
    canasta_table, four_players, pit_boss
):
    from casino.models import Approval, AuditRecord

    page = client_of(pit_boss)
    post(page, "open", stake="1")
    for seat, player in enumerate(four_players):
        post(page, "seat", seat=seat, card_number=player.card_number)
    assert "Void requested" in post(page, "void", reason="players left")
    request_id = CanastaGame.objects.get().void_requests.get().pk

    html = page.get(URL).content.decode()
    audit = AuditRecord.objects.count()
    refused = post(page, "void-approve", request=request_id)

    assert "Approve the void" not in html and "Waits for a second person" in html
    assert (
        '<li class="error">A second person must decide: whoever asked for it cannot, '
        "nor, for a payout, the round&#x27;s dealer.</li>"
    ) in refused
    assert CanastaGame.objects.get().status == CanastaGameStatus.SEATING
    assert Approval.objects.get().status == "pending" and AuditRecord.objects.count() == audit
    assert [balance(player) for player in four_players] == [(100_000, 10_000)] * 4
    other = client_of(staff_user("pit_boss", "pitboss-2"))
    assert "Approve the void" in other.get(URL).content.decode()
    assert "Game voided" in post(other, "void-approve", request=request_id)
    assert [balance(player) for player in four_players] == [(100_000, 0)] * 4
