"""The tips of a round in a real browser (Debian's chromium through Playwright's
``executable_path``): after a settled round the dealer records a tip by keyboard on the console
(``G``, the amount, Enter); a player's tip from their wallet appears on the open console; the
accounting office's tip report shows both in the shift's pool and the dealer's share. Screenshots in ``var/screens/tips-flow/`` (``docs/screens.md``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from playwright import sync_api

from accounting.models import Tip
from accounting.tips import tip_from_player
from casino.actors import Actor
from casino.models import Table
from tests.accounting.tips_support import settled_round
from tests.browser.conftest import Screens, signed_in
from tests.factories import TerminalFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_dealer_records_a_tip_by_keyboard_and_the_report_shows_it(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("tips-flow")
    # Given: round 1 at BJ1 dealt by the demo dealer and settled (a player's 10.00 won)
    table = Table.objects.select_related("casino").get(name="BJ1")
    dealer_user = get_user_model().objects.get(username="dealer")
    round_ = settled_round(table, dealer_user)
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
    expect(dealer.locator("#round-tips")).to_contain_text(f"Tips of round {round_.number}")
    screens.take(dealer, "console-tips-step")

    # When: the dealer presses G, types 5 and Enter
    dealer.keyboard.press("g")
    expect(dealer.locator("#tip-amount")).to_be_focused()
    dealer.keyboard.type("5")
    dealer.keyboard.press("Enter")

    # Then: the console shows the tip (no reload), and it is recorded for the round's dealer
    expect(dealer.locator("#tip-lines .tip-line")).to_contain_text("5.00")
    expect(dealer.locator("button[data-key='O']")).to_have_count(0)
    screens.take(dealer, "console-tip-recorded")
    tip = Tip.objects.get()
    assert (tip.amount_minor, tip.round_id, tip.dealer_id) == (500, round_.pk, dealer_user.pk)

    # When: the round's player tips 2.50 from their wallet at a terminal of the table
    tip_from_player(
        table=table,
        amount_minor=250,
        actor=Actor.at_terminal(TerminalFactory(casino=table.casino, table=table), round_.bets.get().player),
    )

    # Then: the console, not reloaded, shows it on the tips step at its next poll
    expect(dealer.locator("#tip-lines .tip-line[data-source='wallet']")).to_contain_text("2.50")
    screens.take(dealer, "console-wallet-tip-live")

    # And: the accounting office's tip report of the shift shows it, the pool and the share
    office = signed_in(browser, live_server, "accountant", "accountant-demo")
    office.goto(f"{live_server.url}/accounting/tips/")
    expect(office.locator("#pool-total")).to_contain_text("7.50")
    expect(office.locator(".tip-row")).to_have_count(2)
    for source in ("chips", "wallet"):
        expect(office.locator(f".tip-row[data-source='{source}']")).to_contain_text("BJ1")
    expect(office.locator(".share-row[data-dealer='dealer'] .share")).to_have_text("7.50")
    screens.take(office, "tip-report")

    # And: the dealer reads their own share on the same page
    dealer.goto(f"{live_server.url}/accounting/tips/")
    expect(dealer.locator(".share-row[data-dealer='dealer'] .share")).to_have_text("7.50")
    expect(dealer.locator("#pool-total")).to_have_count(0)
    screens.take(dealer, "tip-report-own-share")
