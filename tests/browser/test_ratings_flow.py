"""Player ratings and the cash transaction log in a real browser (Debian's chromium, driven by
Playwright through ``executable_path``; never a downloaded browser).

Ági signs in at BJ1's terminal through the terminal API and plays three rounds (through the
table services, as the terminal's requests would): 10.00 and a Perfect Pairs bet of 5.00 (won,
lost), 20.00 (lost), 10.00 (won). The pit boss sees her among the players at BJ1 from the
floor, opens her ratings while the main game's edge is not computed yet (theo incomplete),
computes it, and reads the full theo. The cashier buys her in for 12,000.00 at the cage: the
cage's player page shows her rating. The accountant reads the day's cash transaction log: the
12,000.00 is in the multiple-transaction log and her day's cash in is in the large-cash report.

Each step's screenshot is written to ``var/screens/ratings-flow/`` (``SCREENS_DIR`` overrides
the folder); ``docs/screens.md`` shows the set.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from playwright import sync_api

from casino.models import Player, PlayerSession, Table, Terminal
from tables.models import Round
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    round_close_betting,
    round_open,
    round_settle,
)
from tests.accounting.test_ratings import main_edge_unknown
from tests.api.conftest import make_device, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from tests.tables.conftest import stack_shoe

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _round(table: Table, dealer: Any, agi: Actor, cards: list[str], bets: list[tuple[str, int]]) -> None:
    stack_shoe(table, dealer, cards)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    for index, (kind, stake) in enumerate(bets):
        bet_place(
            round_id=round_.pk,
            actor=agi,
            box_number=1,
            kind=kind,
            stake_minor=stake,
            idempotency_key=f"{round_.pk}-{index}",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=agi, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    assert Round.objects.get(pk=round_.pk).status == "settled"


def test_a_players_rating_on_the_floor_and_at_the_cage_and_a_large_cash_in_logged(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("ratings-flow")
    url = live_server.url
    table = Table.objects.get(name="BJ1")
    # BJ1's main-game edge as an install seeded before the seeds computed it: theo waits for it
    main_edge_unknown(table)
    agi = Player.objects.get(card_number="1000000001")

    # Given: Ági signed in at BJ1's terminal (a play session) and three rounds played
    device = make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    sign_in(device, "1000000001", "1111")
    # (she sat down forty minutes ago)
    PlayerSession.objects.filter(player=agi).update(started_at=timezone.now() - dt.timedelta(minutes=40))
    as_agi = Actor.at_terminal(device.terminal, agi)
    dealer = staff_user("dealer", "dealer-ratings")
    box_take(table=table, box_number=1, actor=as_agi)
    _round(table, dealer, as_agi, ["TS", "7H", "9D", "TC"], [("main", 1000), ("perfect_pairs", 500)])
    _round(table, dealer, as_agi, ["TS", "TH", "6D", "TC"], [("main", 2000)])
    _round(table, dealer, as_agi, ["TS", "7H", "9D", "TC"], [("main", 1000)])

    # The pit boss finds her among the players at BJ1 from the floor
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit.goto(f"{url}/pit/")
    expect(pit.locator("#floor-BJ1 a.floor-players")).to_be_visible()
    screens.take(pit, "floor-with-the-players-link")
    pit.click("#floor-BJ1 a.floor-players")
    expect(pit.locator(".player-row")).to_have_count(1)
    expect(pit.locator(".player-row")).to_contain_text("Ági Kovács")
    expect(pit.locator(".player-day-row .rating-rounds")).to_have_text("3")
    # forty minutes, three rounds: 4.5 an hour
    expect(pit.locator(".player-day-row .rating-time")).to_have_text("0:40")
    expect(pit.locator(".player-day-row .rating-rate")).to_have_text("4.5")
    screens.take(pit, "players-at-bj1")

    # Her ratings: the main game's edge is not computed yet, theo holds the side bet alone
    pit.click(".player-row a")
    expect(pit.locator("#theo-pending")).to_be_visible()
    expect(pit.locator("#total-row .rating-theo")).to_have_attribute("data-complete", "no")
    # 500 * 19/311 = 30.5466... -> 0.31
    expect(pit.locator("#total-row .rating-theo")).to_have_attribute("data-theo", "31")
    screens.take(pit, "ratings-theo-waiting-for-the-main-edge")

    # The pit boss computes the edge: the theo is whole
    pit.click("#theo-pending button[type=submit]")
    expect(pit.locator("#theo-pending")).to_have_count(0, timeout=60_000)
    expect(pit.locator("#total-row .rating-theo")).to_have_attribute("data-complete", "yes")
    # 4000 * 0.004598 + 500 * 19/311 = 18.392 + 30.5466... = 48.9386... -> 0.49
    expect(pit.locator("#total-row .rating-theo")).to_have_attribute("data-theo", "49")
    # staked 45.00, paid back 20.00 + 20.00: the house won 5.00
    expect(pit.locator("#total-row .rating-actual")).to_have_attribute("data-actual", "500")
    expect(pit.locator("#total-row .rating-rounds")).to_have_text("3")
    expect(pit.locator(".session-row")).to_have_count(1)
    expect(pit.locator(".session-row")).to_contain_text("playing")
    screens.take(pit, "ratings-sessions-and-days")

    # The cashier buys her in for 12,000.00: the cage's player page shows her rating
    cashier = signed_in(browser, live_server, "cashier", "cashier-demo")
    cashier.goto(f"{url}/cage/players/{agi.pk}/")
    expect(cashier.locator("#player-rating")).to_be_visible()
    expect(cashier.locator("#rating-today .rating-rounds")).to_have_text("3")
    expect(cashier.locator("#rating-today .rating-theo")).to_have_attribute("data-theo", "49")
    cashier.fill("#buy-in input[name$=amount]", "12000")
    cashier.click("#buy-in button[type=submit]")
    expect(cashier.locator("#cage-done")).to_contain_text("Buy-in recorded")
    cashier.locator("#player-rating").scroll_into_view_if_needed()
    screens.take(cashier, "cage-player-with-rating")

    # The accountant reads the day's cash transaction log: the 12,000.00 in the MTL and in the
    # large-cash report
    accountant = signed_in(browser, live_server, "accountant", "accountant-demo")
    accountant.goto(f"{url}/accounting/cash-log/")
    expect(accountant.locator(".mtl-row")).to_have_count(1)
    expect(accountant.locator(".mtl-row")).to_contain_text("12,000.00")
    expect(accountant.locator(".large-cash-row")).to_have_count(1)
    expect(accountant.locator(".large-cash-row")).to_contain_text("Ági Kovács")
    expect(accountant.locator(".large-cash-row")).to_contain_text("Cash in")
    screens.take(accountant, "cash-log-large-cash-in")
    with accountant.expect_download() as download:
        accountant.click("#cash-log-pdf")
    assert download.value.suggested_filename.startswith("cash-log-")
