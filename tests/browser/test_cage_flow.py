"""The cashier's main flow in a real browser (Debian's chromium, driven by Playwright through
``executable_path``; never a downloaded browser).

The cashier signs in and lands on the cage; finds a player as they type; registers a new player;
buys them in for 200.00 and cashes out 50.00; a cash-out of 500.00 is refused with the reason on
the screen and moves nothing; the cashier opens the cash-out's receipt, which prints without the
navigation.

Each step's screenshot is written to ``var/screens/cage-flow/`` (``SCREENS_DIR`` overrides the
folder); ``docs/screens/cage-flow/`` keeps the set.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from casino.models import Player
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from wallet.models import Transfer, TransferKind
from wallet.selectors import account_balance

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_cashier_registers_a_player_buys_in_cashes_out_and_prints_a_receipt(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("cage-flow")

    # Given: the cashier signed in, on the cage's search
    cage = signed_in(browser, live_server, "cashier", "cashier-demo")
    expect(cage).to_have_url(f"{live_server.url}/cage/")
    expect(cage.locator("#search-hint")).to_be_visible()
    cage.wait_for_load_state()  # htmx listens to the search box once the page has loaded

    # The search answers as the cashier types
    cage.locator("#player-search").press_sequentially("Kov")
    expect(cage.locator(".player-row")).to_have_count(1)
    expect(cage.locator("#player-list")).to_contain_text("Ági Kovács")
    expect(cage.locator("#player-list")).to_contain_text("1000000001")
    screens.take(cage, "search-as-you-type")

    # When: the cashier registers a new player
    cage.click("#register-link")
    cage.fill("input[name=display_name]", "Dora Dunn")
    cage.fill("input[name=card_number]", "7000000099")
    cage.fill("input[name=pin]", "4321")
    cage.fill("input[name=pin_again]", "4321")
    screens.take(cage, "register-form")
    cage.click("#register-form button[type=submit]")
    expect(cage.locator("#cage-done")).to_have_text("Player registered.")
    expect(cage.locator("#player-name")).to_have_text("Dora Dunn")
    expect(cage.locator("#player-status")).to_have_text("Active")
    expect(cage.locator("#balance-available")).to_have_text("0.00 EUR")
    dora = Player.objects.get(card_number="7000000099")
    screens.take(cage, "player-registered")

    # buys in 200.00
    cage.fill("#buy-in input[name=buy_in-amount]", "200.00")
    cage.click("#buy-in button[type=submit]")
    expect(cage.locator("#cage-done")).to_contain_text("Buy-in recorded.")
    expect(cage.locator("#balance-available")).to_have_text("200.00 EUR")
    expect(cage.locator("#receipt-link")).to_be_visible()
    screens.take(cage, "bought-in")

    # cashes out 50.00
    cage.fill("#cash-out input[name=cash_out-amount]", "50.00")
    cage.click("#cash-out button[type=submit]")
    expect(cage.locator("#cage-done")).to_contain_text("Cash-out recorded.")
    expect(cage.locator("#balance-available")).to_have_text("150.00 EUR")
    cash_out = Transfer.objects.get(kind=TransferKind.CASH_OUT, postings__account__player=dora)
    expect(cage.locator("#receipt-link")).to_have_attribute("href", f"/cage/receipts/{cash_out.pk}/")
    screens.take(cage, "cashed-out")

    # a cash-out of 500.00 is refused with the reason on the screen, and moves nothing
    cage.fill("#cash-out input[name=cash_out-amount]", "500.00")
    cage.click("#cash-out button[type=submit]")
    expect(cage.locator("#cage-error")).to_have_text("Refused: the player has only 150.00 EUR available.")
    expect(cage.locator("#cage-error")).to_have_attribute("data-code", "insufficient_funds")
    expect(cage.locator("#balance-available")).to_have_text("150.00 EUR")
    expect(cage.locator("#statement .statement-line")).to_have_count(2)
    assert account_balance(dora).balance_minor == 15_000
    screens.take(cage, "cash-out-refused")

    # Then: the cash-out's receipt, from the statement
    cage.click(f'#statement .statement-line[data-transfer="{cash_out.pk}"] a')
    expect(cage.locator("#receipt-kind")).to_have_text("Cash-out")
    expect(cage.locator("#receipt-amount")).to_have_text("-50.00 EUR")
    expect(cage.locator("#receipt-player")).to_have_text("Dora Dunn")
    expect(cage.locator("#receipt-card")).to_have_text("••••••0099")
    expect(cage.locator("#receipt-transfer")).to_have_text(str(cash_out.pk))
    expect(cage.locator("#receipt-cashier")).to_have_text("cashier")
    screens.take(cage, "receipt")
    # printed, the receipt stands alone: no navigation, no buttons
    cage.emulate_media(media="print")
    expect(cage.locator("header.top")).to_be_hidden()
    expect(cage.locator(".no-print")).to_be_hidden()
    expect(cage.locator("#receipt")).to_be_visible()
    screens.take(cage, "receipt-printed")
    cage.context.close()


def test_a_pit_boss_adjusts_above_the_threshold_and_a_second_pit_boss_approves(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("cage-adjustment-flow")
    second = staff_user("pit_boss", "pitboss-2")
    second.set_password("pitboss-2-demo")
    second.save()
    agi = Player.objects.get(card_number="1000000001")
    before = account_balance(agi).balance_minor

    # Given: the pit boss on Ági's page, reached from the adjustments desk's search
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit.goto(f"{live_server.url}/cage/adjustments/")
    expect(pit.locator("#no-adjustments")).to_be_visible()
    pit.wait_for_load_state()
    pit.locator("#player-search").press_sequentially("1000000001")
    pit.click(f'.player-row[data-player="{agi.pk}"] a >> nth=0')
    expect(pit.locator("#player-name")).to_have_text("Ági Kovács")

    # When: the pit boss adjusts by +600.00, above the threshold: it waits
    pit.fill("#adjust input[name=adjust-amount]", "600")
    pit.fill("#adjust input[name=adjust-reason]", "jackpot paid short")
    pit.click("#adjust button[type=submit]")
    expect(pit.locator("#cage-done")).to_have_text("The adjustment waits for a second pit boss's approval.")
    expect(pit.locator(".pending-adjustment .own-request")).to_be_visible()
    screens.take(pit, "adjustment-waits")

    # Then: the second pit boss approves it on the desk, and its receipt is offered
    other = signed_in(browser, live_server, "pitboss-2", "pitboss-2-demo")
    other.goto(f"{live_server.url}/cage/adjustments/")
    expect(other.locator(".pending-adjustment")).to_have_count(1)
    screens.take(other, "desk-pending")
    other.click(".pending-adjustment button.primary")
    expect(other.locator("#adjustment-done")).to_contain_text("Adjustment approved and applied.")
    expect(other.locator("#no-adjustments")).to_be_visible()
    screens.take(other, "desk-approved")
    assert account_balance(agi).balance_minor == before + 60_000
    pit.context.close()
    other.context.close()
