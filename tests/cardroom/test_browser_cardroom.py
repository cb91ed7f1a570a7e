"""The host's page of a canasta table in a real browser (Debian's chromium through Playwright's
``executable_path``): at CA2 (physical cards, as seeded) the dealer opens a game, seats four
players by card number, starts it and enters the first finished deal field by field; the score
sheet shows it, and the pit boss's floor shows the game. The screenshots go to
``var/screens/cardroom-flow/``; ``docs/screens/cardroom-flow/`` keeps the set."""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from cardroom.models import CanastaGame
from casino.models import Player
from tests.browser.conftest import Screens, browser, signed_in  # noqa: F401  (the browser fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_host_runs_a_physical_game_from_the_page(browser: Any, live_server: Any, seeded: None) -> None:  # noqa: F811
    players = list(Player.objects.order_by("card_number").values_list("card_number", "display_name")[:4])
    screens = Screens("cardroom-flow")
    page = signed_in(browser, live_server, "dealer", "dealer-demo")

    page.goto(f"{live_server.url}/cardroom/tables/CA2/")  # physical cards, as seeded
    screens.take(page, "no-game")
    page.fill("#game-open input[name=stake]", "0.50")
    with page.expect_navigation():
        page.click("#game-open button[type=submit]")
    for seat, (card, name) in enumerate(players):
        page.select_option("#seat-form select[name=seat]", label=str(seat + 1))  # seats shown from 1
        page.fill("#seat-form input[name=card_number]", card)
        with page.expect_navigation():  # the page drawn again, with the player in their seat
            page.click("#seat-form button[type=submit]")
        sync_api.expect(page.locator("main")).to_contain_text(name)
    screens.take(page, "seated")
    page.click("text=Start the game")
    page.fill("textarea[name=side0_melds]", "7S 7H 7D 7C 7S 7H 7D\nKS KH KD KC JK 2S JK")
    page.fill("input[name=side0_red_threes]", "3H 3D")
    page.fill("input[name=side0_hand1]", "9S 4S")
    page.fill("textarea[name=side1_melds]", "QS QH QD JK\n5S 5H 5D")
    page.fill("input[name=side1_red_threes]", "3H")
    page.fill("input[name=side1_hand0]", "AS 8S 3S")
    page.fill("input[name=side1_hand1]", "JK 6S")
    page.select_option("select[name=went_out]", "0:0")
    page.fill("input[name=discard]", "9D")
    screens.take(page, "deal-entry")
    page.click("#deal-entry button[type=submit]")

    assert "Deal scored." in page.content()
    screens.take(page, "scored")
    assert CanastaGame.objects.get().totals == [1280, 10]
    # the pit boss's floor shows the game, its deals and the players' holds in play
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit.goto(f"{live_server.url}/pit/")
    row = pit.locator("#floor-CA2")
    assert row.get_attribute("data-state") == "playing"
    assert "game 1, 1 deal scored" in row.inner_text()
    screens.take(pit, "the-floor-shows-the-game")
    pit.context.close()
    page.context.close()
