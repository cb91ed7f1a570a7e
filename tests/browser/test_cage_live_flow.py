"""The cage's player page follows the player's stream in a real browser (Debian's chromium, driven
by Playwright through ``executable_path``; never a downloaded browser).

The cashier has Ági's page open while BJ1 takes bets; Ági bets 10.00 from a terminal through the
API; the page shows the stake held and the available money down within two seconds, without a
reload and without polling: the page reads its money again once, on the bet's hint.

Each step's screenshot is written to ``var/screens/cage-live/`` (``SCREENS_DIR`` overrides the
folder).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from casino.actors import Actor
from casino.models import Player, Table, Terminal
from tables.services import dealer_sign_on, round_open
from tests.api.conftest import ApiClient, make_device, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from tests.tables.conftest import stack_shoe
from wallet.selectors import account_balance

# What the page must show in time: pushed at once; two seconds leave room for a loaded machine.
SHOWN_WITHIN_MS = 2_000

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_bet_from_a_terminal_shows_on_the_cage_page_without_polling(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("cage-live")
    # Given: BJ1 taking bets, Ági signed in at its terminal on box 1
    table = Table.objects.get(name="BJ1")
    dealer = staff_user("dealer", "dealer-cage-live")
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    device = make_device("T-BJ1-live", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    agi = ApiClient(device, sign_in(device, "1000000001", "1111"))
    assert agi.post(f"/api/v1/tables/{table.pk}/boxes/1/take/").status_code == 200
    player = Player.objects.get(card_number="1000000001")
    before = account_balance(player)

    # and the cashier on Ági's page, its requests for the page's money recorded
    cage = signed_in(browser, live_server, "cashier", "cashier-demo")
    live_url = f"/cage/players/{player.pk}/live/"
    reads: list[Any] = []
    cage.on("response", lambda response: reads.append(response) if live_url in response.url else None)
    cage.goto(f"{live_server.url}/cage/players/{player.pk}/")
    expect(cage.locator("#balance-held")).to_have_text("0.00")
    cage.wait_for_timeout(1_000)  # the stream open: its first hint read the money once (204)
    opened = [response.status for response in reads]
    assert opened in ([], [204])
    screens.take(cage, "player-before-the-bet")
    cage.evaluate("window.notReloaded = true")

    # When: Ági bets 10.00 through the terminal API
    response = agi.post(
        f"/api/v1/tables/{table.pk}/rounds/{round_.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "agi-live-1"},
    )
    assert response.status_code == 201, response.content

    # Then: the page shows the stake held and less available, at once, from one read
    expect(cage.locator("#balance-held")).to_have_text("10.00", timeout=SHOWN_WITHIN_MS)
    available = f"{(before.available_minor - 1000) / 100:,.2f} EUR"
    expect(cage.locator("#balance-available")).to_have_text(available)
    expect(cage.locator(".hold-row")).to_have_count(1)
    assert cage.evaluate("window.notReloaded") is True
    cage.wait_for_timeout(500)  # nothing more comes
    assert [response.status for response in reads[len(opened) :]] == [200]
    screens.take(cage, "player-after-the-bet")
    cage.context.close()
