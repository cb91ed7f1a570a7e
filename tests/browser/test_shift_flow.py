"""A shift of BJ1 from its opener to its closer in a real browser (Debian's chromium, driven by
Playwright through ``executable_path``; never a downloaded browser), and its end-of-shift report.

The dealer counts the tray at 20,000.00 and the pit boss signs. A player changes 3,000.00 cash
for chips: the dealer records the buy-in. A fill of 1,000.00 and a credit of 500.00 go through
the desk (requested by the pit boss, issued by the cashier, received by the dealer). After the
shift the cashier counts the drop box, 3,000.00, and the pit boss signs the count (the cashier
signing twice is refused in words). The dealer counts the tray at the close, 19,000.00, and the
pit boss signs. The win page shows win = 19,000 + 500 + 3,000 - 20,000 - 1,000 = 1,500.00 and a
hold of 50.00 %, with its chart; the end-of-shift report shows the same as a page, and its CSV and
PDF are downloaded and read. The hold of 50 % is above the band's 30 %: the check run from the
alerts page raises an alert, which the pit boss resolves with a note.

Each step's screenshot is written to ``var/screens/shift-flow/`` (``SCREENS_DIR`` overrides the
folder); ``docs/screens/shift-flow/`` keeps the set.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api
from pypdf import PdfReader

from accounting.models import DropCount, HoldAlert, TableBuyIn
from tests.browser.conftest import Screens, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPENER = {"500.00": "10000", "100.00": "6000", "25.00": "3000", "5.00": "900", "1.00": "100"}
CLOSER = {"500.00": "10000", "100.00": "5000", "25.00": "3000", "5.00": "900", "1.00": "100"}
CHIPS = {"500.00": 50_000, "100.00": 10_000, "25.00": 2_500, "5.00": 500, "1.00": 100}


def _type_amounts(page: Any, form: str, amounts: dict[str, str]) -> None:
    for chip, amount in amounts.items():
        page.fill(f"{form} input[name=amount-{CHIPS[chip]}]", amount)


def _count(dealer: Any, pit_boss: Any, url: str, amounts: dict[str, str], total: str) -> None:
    dealer.goto(f"{url}/accounting/tables/BJ1/")
    _type_amounts(dealer, "#count-form", amounts)
    dealer.click("#count-form button[type=submit]")
    sync_api.expect(dealer.locator("#pending-total")).to_have_text(total)
    pit_boss.goto(f"{url}/accounting/tables/BJ1/")
    pit_boss.click("#sign-form button[type=submit]")


def _slip(pit_boss: Any, cashier: Any, dealer: Any, url: str, kind: str, amounts: dict[str, str]) -> None:
    expect = sync_api.expect
    pit_boss.goto(f"{url}/accounting/slips/")
    pit_boss.select_option("#slip-request-form select[name=table]", "BJ1")
    pit_boss.select_option("#slip-request-form select[name=kind]", kind)
    _type_amounts(pit_boss, "#slip-request-form", amounts)
    pit_boss.click("#slip-request-form button[type=submit]")
    expect(pit_boss.locator("#accounting-done")).to_contain_text("requested")
    cashier.goto(f"{url}/accounting/slips/")
    cashier.locator("#open-slips button.issue").first.click()
    expect(cashier.locator("#accounting-done")).to_contain_text("issued")
    dealer.goto(f"{url}/accounting/slips/")
    dealer.locator("#open-slips button.receive").first.click()
    expect(dealer.locator("#no-open-slips")).to_be_visible()


def test_a_shift_from_opener_to_closer_and_its_end_of_shift_report(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("shift-flow")
    url = live_server.url
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    pit_boss = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    cashier = signed_in(browser, live_server, "cashier", "cashier-demo")

    # The opener: 20,000.00 counted by the dealer, signed by the pit boss
    _count(dealer, pit_boss, url, OPENER, "20,000.00")
    expect(pit_boss.locator("#table-state")).to_have_text("Open")
    screens.take(pit_boss, "opener-signed")

    # A player changes 3,000.00 cash for chips: the dealer records the buy-in
    dealer.goto(f"{url}/accounting/drop/")
    dealer.select_option("#buy-in-form select[name=table]", "BJ1")
    dealer.fill("#buy-in-form input[name=amount]", "3000")
    screens.take(dealer, "buy-in-typed-by-the-dealer")
    dealer.click("#buy-in-form button[type=submit]")
    expect(dealer.locator("#accounting-done")).to_contain_text("Buy-in recorded at BJ1")
    expect(dealer.locator(".buy-in")).to_have_count(1)
    assert TableBuyIn.objects.get().amount_minor == 300_000
    screens.take(dealer, "buy-in-recorded")

    # A fill of 1,000.00 and a credit of 500.00 through the desk
    _slip(pit_boss, cashier, dealer, url, "fill", {"100.00": "1000"})
    _slip(pit_boss, cashier, dealer, url, "credit", {"25.00": "500"})
    screens.take(dealer, "fill-and-credit-received")

    # The cashier counts the drop box: 3,000.00; signing twice is refused, the pit boss signs
    cashier.goto(f"{url}/accounting/drop/")
    cashier.select_option("#drop-count-form select[name=table]", "BJ1")
    cashier.fill("#drop-count-form input[name=total]", "3000")
    screens.take(cashier, "drop-count-typed-by-the-cashier")
    cashier.click("#drop-count-form button[type=submit]")
    expect(cashier.locator("#accounting-done")).to_contain_text("Drop count of BJ1 recorded")
    cashier.locator("button.drop-sign").first.click()
    expect(cashier.locator("#accounting-error")).to_contain_text("You signed this drop count already")
    screens.take(cashier, "the-cashier-may-not-sign-twice")
    pit_boss.goto(f"{url}/accounting/drop/")
    pit_boss.locator("button.drop-sign").first.click()
    expect(pit_boss.locator("#accounting-done")).to_contain_text("Drop count signed")
    expect(pit_boss.locator(".drop-count[data-signed=yes]")).to_have_count(1)
    assert DropCount.objects.get().signatures.count() == 2
    screens.take(pit_boss, "drop-count-signed")

    # The closer: 19,000.00
    _count(dealer, pit_boss, url, CLOSER, "19,000.00")
    expect(pit_boss.locator("#table-state")).to_have_text("Closed")
    screens.take(pit_boss, "closer-signed")

    # Win and hold: 1,500.00 on 3,000.00, 50.00 %, with the chart
    pit_boss.goto(f"{url}/accounting/win/")
    day_row = pit_boss.locator("tr.day-row[data-table=BJ1]")
    expect(day_row.locator("td.win")).to_have_text("1,500.00")
    expect(day_row.locator("td.hold")).to_have_text("50.00 %")
    # (the chart runs over the month's gaming days: earlier days may show a win bar of 0.00)
    wins = pit_boss.locator("#chart-bj1 svg rect.bar-win title")
    expect(wins.filter(has_text=": win 1,500.00")).to_have_count(1)
    screens.take(pit_boss, "win-and-hold")

    # The end-of-shift report: the page, its CSV and its PDF
    pit_boss.click("#reports a >> text=End-of-shift table report")
    expect(pit_boss.locator("h1")).to_have_text("End-of-shift table report")
    bj1 = pit_boss.locator(".report-row").filter(has_text="BJ1")
    expect(bj1).to_contain_text("1,500.00")
    expect(bj1).to_contain_text("50.00 %")
    screens.take(pit_boss, "end-of-shift-report")
    with pit_boss.expect_download() as csv_download:
        pit_boss.click("#download-csv")
    rows = list(csv.reader(io.StringIO(Path(csv_download.value.path()).read_text(encoding="utf-8"))))
    assert rows[0][:2] == ["Table", "Opener"]
    assert next(row for row in rows if row[0] == "BJ1")[1:] == [
        "20000.00",
        "1000.00",
        "500.00",
        "3000.00",
        "0.00",
        "19000.00",
        "0.00",
        "1500.00",
        "50.00",
    ]
    with pit_boss.expect_download() as pdf_download:
        pit_boss.click("#download-pdf")
    assert pdf_download.value.suggested_filename.endswith(".pdf")
    reader = PdfReader(pdf_download.value.path())
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert "End-of-shift table report" in text and "BJ1" in text
    assert "20,000.00" in text and "1,500.00" in text and "50.00 %" in text

    # The hold of 50 % is above the band: the check raises an alert, the pit boss resolves it
    pit_boss.goto(f"{url}/accounting/hold/alerts/")
    expect(pit_boss.locator("#no-open-alerts")).to_be_visible()
    pit_boss.click("#hold-check-now")
    expect(pit_boss.locator("#accounting-done")).to_contain_text("1 new alert")
    expect(pit_boss.locator(".hold-alert[data-kind=fixed_band]")).to_contain_text("5000 basis points")
    screens.take(pit_boss, "hold-alert-raised")
    pit_boss.goto(f"{url}/accounting/slips/")  # the menu of every accounting page counts it
    expect(pit_boss.locator("#nav-hold-alerts .alert-count")).to_have_text("1")
    pit_boss.goto(f"{url}/accounting/hold/alerts/")
    pit_boss.fill(
        ".hold-alert input[name=note]", "Drop box and tray recounted: a player's loss, seen on camera."
    )
    pit_boss.click(".hold-alert button[type=submit]")
    expect(pit_boss.locator("#accounting-done")).to_contain_text("Hold alert resolved")
    expect(pit_boss.locator(".resolved-alert")).to_contain_text("seen on camera")
    assert HoldAlert.objects.get().resolution.resolved_by.username == "pitboss"
    screens.take(pit_boss, "hold-alert-resolved")
