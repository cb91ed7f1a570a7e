"""The pit's accounting flow in a real browser (Debian's chromium, driven by Playwright through
``executable_path``; never a downloaded browser).

The dealer counts BJ1's tray at its opening and the pit boss signs the count: the table is open,
its count agreeing with the ledger. The pit boss requests a fill of 2,000.00; the cashier issues
it at the cage (the chips move in the ledger) and the dealer receives it at the table. A credit
of 5,000.00 goes the same way back to the cage. The dealer counts the tray at the close, the pit
boss signs, the table is closed with its count equal to the ledger's 17,000.00. The pit boss
reads the slip report: numbers 1 and 2, both received, no void, no unused number. On the
gaming-day page today closes only after its last shift; of the casino's two earlier days,
yesterday's close is refused in words while the day before is open; the pit boss signs the day
before, and the accountant signs second, confirming, which closes it.

Each step's screenshot is written to ``var/screens/accounting-flow/`` (``SCREENS_DIR`` overrides
the folder); ``docs/screens/accounting-flow/`` keeps the set.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from playwright import sync_api

from accounting.models import Slip
from accounting.selectors import slip_state
from casino.models import Casino
from tests.browser.conftest import Screens, signed_in
from wallet.models import Account, AccountKind

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPENER = {"500.00": "10000", "100.00": "6000", "25.00": "3000", "5.00": "900", "1.00": "100"}
CLOSER = {"500.00": "5000", "100.00": "8000", "25.00": "3000", "5.00": "900", "1.00": "100"}
CHIPS = {"500.00": 50_000, "100.00": 10_000, "25.00": 2_500, "5.00": 500, "1.00": 100}


def _type_amounts(page: Any, form: str, amounts: dict[str, str]) -> None:
    for chip, amount in amounts.items():
        page.fill(f"{form} input[name=amount-{CHIPS[chip]}]", amount)


def _tray(table_name: str) -> int:
    return Account.objects.get(table__name=table_name, kind=AccountKind.TABLE_TRAY).balance_minor


def test_a_table_is_opened_filled_credited_and_closed_with_its_slips_reported(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("accounting-flow")
    url = live_server.url
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    pit_boss = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    cashier = signed_in(browser, live_server, "cashier", "cashier-demo")

    # The dealer counts BJ1's tray at the opening and signs
    dealer.goto(f"{url}/accounting/tables/BJ1/")
    expect(dealer.locator("#table-state")).to_have_text("Closed")
    _type_amounts(dealer, "#count-form", OPENER)
    screens.take(dealer, "opener-typed-by-the-dealer")
    dealer.click("#count-form button[type=submit]")
    expect(dealer.locator("#accounting-done")).to_contain_text("Count recorded")
    expect(dealer.locator("#pending-total")).to_have_text("20,000.00")
    # signing twice is refused in words
    dealer.click("#sign-form button[type=submit]")
    expect(dealer.locator("#accounting-error")).to_contain_text("You signed this count already")
    screens.take(dealer, "the-dealer-may-not-sign-twice")

    # The pit boss signs: the table is open, the count agreeing with the ledger
    pit_boss.goto(f"{url}/accounting/tables/BJ1/")
    pit_boss.click("#sign-form button[type=submit]")
    expect(pit_boss.locator("#table-state")).to_have_text("Open")
    expect(pit_boss.locator("#last-count")).to_contain_text("20,000.00")
    expect(pit_boss.locator("#ledger-difference")).to_contain_text("0.00")
    screens.take(pit_boss, "opened-and-signed-by-the-pit-boss")

    # The pit boss requests a fill of 2,000.00 in chips of 100.00
    pit_boss.goto(f"{url}/accounting/slips/")
    pit_boss.select_option("#slip-request-form select[name=table]", "BJ1")
    pit_boss.select_option("#slip-request-form select[name=kind]", "fill")
    _type_amounts(pit_boss, "#slip-request-form", {"100.00": "2000"})
    screens.take(pit_boss, "fill-typed")
    pit_boss.click("#slip-request-form button[type=submit]")
    expect(pit_boss.locator("#accounting-done")).to_contain_text("requested")
    fill = Slip.objects.get()
    row = f"#slip-{fill.year}-{fill.number}"
    expect(pit_boss.locator(row)).to_have_attribute("data-state", "requested")
    screens.take(pit_boss, "fill-requested")

    # The cashier issues it at the cage: the chips move to the tray in the ledger
    cashier.goto(f"{url}/accounting/slips/")
    cashier.click(f"{row} button.issue")
    expect(cashier.locator(row)).to_have_attribute("data-state", "issued")
    assert _tray("BJ1") == 2_200_000
    screens.take(cashier, "fill-issued-at-the-cage")

    # The dealer receives it at the table
    dealer.goto(f"{url}/accounting/slips/")
    dealer.click(f"{row} button.receive")
    expect(dealer.locator("#accounting-done")).to_contain_text("received at the table")
    expect(dealer.locator("#no-open-slips")).to_be_visible()
    screens.take(dealer, "fill-received-at-the-table")

    # A credit of 5,000.00 in chips of 500.00 goes back to the cage the same way
    pit_boss.goto(f"{url}/accounting/slips/")
    pit_boss.select_option("#slip-request-form select[name=kind]", "credit")
    _type_amounts(pit_boss, "#slip-request-form", {"500.00": "5000"})
    pit_boss.click("#slip-request-form button[type=submit]")
    expect(pit_boss.locator("#accounting-done")).to_contain_text("-2 requested")
    credit = Slip.objects.get(number=2)
    credit_row = f"#slip-{credit.year}-2"
    expect(pit_boss.locator(credit_row)).to_have_attribute("data-state", "requested")
    cashier.goto(f"{url}/accounting/slips/")
    cashier.click(f"{credit_row} button.issue")
    expect(cashier.locator(credit_row)).to_have_attribute("data-state", "issued")
    screens.take(cashier, "credit-issued-at-the-cage")
    dealer.goto(f"{url}/accounting/slips/")
    dealer.click(f"{credit_row} button.receive")
    expect(dealer.locator("#no-open-slips")).to_be_visible()
    assert _tray("BJ1") == 1_700_000
    assert [slip_state(slip) for slip in Slip.objects.order_by("number")] == ["received", "received"]

    # The dealer counts the tray at the close, the pit boss signs: closed, agreeing with the ledger
    dealer.goto(f"{url}/accounting/tables/BJ1/")
    _type_amounts(dealer, "#count-form", CLOSER)
    dealer.click("#count-form button[type=submit]")
    expect(dealer.locator("#pending-total")).to_have_text("17,000.00")
    pit_boss.goto(f"{url}/accounting/tables/BJ1/")
    pit_boss.click("#sign-form button[type=submit]")
    expect(pit_boss.locator("#table-state")).to_have_text("Closed")
    expect(pit_boss.locator("#last-count")).to_contain_text("17,000.00")
    expect(pit_boss.locator("#ledger-balance")).to_contain_text("17,000.00")
    screens.take(pit_boss, "closed-and-signed")

    # The slip report: numbers 1 and 2, received, no void, no unused number
    pit_boss.goto(f"{url}/accounting/slips/report/")
    expect(pit_boss.locator(".sequence-row")).to_have_count(2)
    expect(pit_boss.locator("#numbers-drawn")).to_have_text("2")
    expect(pit_boss.locator("#unused-numbers")).to_have_text("none")
    expect(pit_boss.locator("#fills-total")).to_contain_text("2,000.00")
    expect(pit_boss.locator("#credits-total")).to_contain_text("5,000.00")
    screens.take(pit_boss, "slip-report")

    # The gaming day: today's closes only after its last shift; the casino's earlier days (it was
    # set up two days ago) close in order, yesterday's refused while the day before is open
    Casino.objects.update(created_at=timezone.now() - dt.timedelta(days=2))
    pit_boss.goto(f"{url}/accounting/")
    expect(pit_boss.locator("#day-state")).to_have_text("Open")
    rows = pit_boss.locator(".day-row")
    expect(rows).to_have_count(3)
    expect(rows.last).to_contain_text("Closes after its last shift")
    expect(rows.last.locator("button.close-day")).to_have_count(0)
    screens.take(pit_boss, "gaming-day")
    rows.nth(1).locator("button.close-day").click()
    expect(pit_boss.locator("#accounting-error")).to_contain_text("close the days in order")
    screens.take(pit_boss, "gaming-day-close-refused")
    # the same refusal in Russian
    pit_boss.select_option("#language-switch select[name=language]", "ru")
    pit_boss.click("#language-switch button[type=submit]")
    expect(pit_boss.locator("html")).to_have_attribute("lang", "ru")
    pit_boss.locator(".day-row").nth(1).locator("button.close-day").click()
    expect(pit_boss.locator("#accounting-error")).to_be_visible()
    expect(pit_boss.locator("#accounting-error")).not_to_contain_text("close the days in order")
    screens.take(pit_boss, "gaming-day-close-refused-ru")
    pit_boss.select_option("#language-switch select[name=language]", "en")
    pit_boss.click("#language-switch button[type=submit]")
    expect(pit_boss.locator("html")).to_have_attribute("lang", "en")
    # the first signature asks no confirmation: it closes nothing
    pit_boss.locator(".day-row").first.locator("button.close-day").click()
    expect(pit_boss.locator("#accounting-done")).to_contain_text("closes with the second signature")
    screens.take(pit_boss, "gaming-day-signed-by-the-pit-boss")
    accountant = signed_in(browser, live_server, "accountant", "accountant-demo")
    confirmations: list[str] = []

    def confirmed(dialog: Any) -> None:
        confirmations.append(dialog.message)
        dialog.accept()

    accountant.once("dialog", confirmed)
    accountant.locator(".day-row").first.locator("button.close-day").click()
    expect(accountant.locator("#closed-days")).to_contain_text("closed by accountant")
    assert confirmations == ["Close this gaming day? Nothing more will be written into it."]
    expect(accountant.locator(".day-row")).to_have_count(2)
    screens.take(accountant, "gaming-day-closed")
