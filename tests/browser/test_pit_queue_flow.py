"""The pit boss's busy round and waiting signatures in a real browser (Debian's chromium, driven by
Playwright through ``executable_path``), in English, Hungarian and Polish.

A player's three winning hands on BJ1 (a split box and another box) wait for the pit boss: the
queue shows them by box and hand under one form; the pit boss ticks one, gives a reason and
approves the rest in one action. An opener of BJ2 waits for a pit boss's signature: the header
counts it and the floor lists it with its table.

Screenshots: ``var/screens/pit-queue/`` (``docs/screens.md`` shows the set).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from accounting.models import CountKind
from accounting.services import tray_count_record
from casino.actors import Actor
from casino.models import Approval, Table
from tables.models import PayoutDecision
from tests.accounting.conftest import TRAY
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from tests.tables.payouts_support import busy_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _switch(page: Any, language: str) -> None:
    page.select_option("#language-switch select[name=language]", language)
    page.click("#language-switch button[type=submit]")
    sync_api.expect(page.locator("html")).to_have_attribute("lang", language)


def test_a_busy_round_decided_in_one_action_and_a_signature_on_the_floor(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("pit-queue")
    # Given: the busy round's three held lines on BJ1, and a dealer's opener of BJ2 waiting
    dealer = staff_user("dealer", "dealer-queue")
    _alice, round_, (first, second, third) = busy_round(
        Table.objects.get(name="BJ1"), dealer, staff_user("operator", "operator-queue")
    )
    tray_count_record(
        table=Table.objects.get(name="BJ2"), kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer)
    )
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")

    # The floor lists the signature with its table; the header counts it and the three payouts
    pit.goto(f"{live_server.url}/pit/")
    expect(pit.locator("#waiting-for-you .pill")).to_have_text("4")
    row = pit.locator('#signatures-waiting tr.signature-waiting[data-kind="opener"][data-table="BJ2"]')
    expect(row).to_be_visible()
    expect(row).to_contain_text("a pit boss")
    screens.take(pit, "floor-signature-waiting-en")

    # The queue: one form for the round, the lines by box and hand, Approve and Reject apart
    pit.goto(f"{live_server.url}/pit/queue/")
    form = pit.locator(f"#held-round-{round_.pk}")
    expect(form.locator("tr.held-payout")).to_have_count(3)
    expect(form.locator("tbody.held-box")).to_have_count(2)
    approve, reject = form.locator("button.approve"), form.locator("button.reject")
    assert approve.evaluate("b => getComputedStyle(b).backgroundColor") != reject.evaluate(
        "b => getComputedStyle(b).backgroundColor"
    )
    screens.take(pit, "busy-round-en")

    # The same in Hungarian
    _switch(pit, "hu")
    expect(pit.locator(f"#held-round-{round_.pk} tr.held-payout")).to_have_count(3)
    screens.take(pit, "busy-round-hu")
    pit.goto(f"{live_server.url}/pit/")
    expect(pit.locator('#signatures-waiting tr.signature-waiting[data-table="BJ2"]')).to_be_visible()
    screens.take(pit, "floor-signature-waiting-hu")
    _switch(pit, "en")

    # The pit boss ticks box 1's second hand, gives the reason and approves the rest: one action
    pit.goto(f"{live_server.url}/pit/queue/")
    form = pit.locator(f"#held-round-{round_.pk}")
    form.locator(f'input[name="except"][value="{second.pk}"]').check()
    form.locator('input[name="reason"]').fill("hand exposed")
    screens.take(pit, "busy-round-ticked-en")
    form.locator("button.approve").click()
    expect(pit.locator("#queue-done")).to_have_text("Payouts decided: 2 approved and paid, 1 rejected.")
    screens.take(pit, "busy-round-decided-en")
    assert dict(PayoutDecision.objects.values_list("line_id", "status")) == {
        first.pk: "approved",
        second.pk: "rejected",
        third.pk: "approved",
    }
    assert not Approval.objects.filter(kind="payout", status="pending").exists()

    # The round page after the rejection: paid is what the player received, and each held line
    # says who decided it, when and why
    pit.goto(f"{live_server.url}/pit/rounds/{round_.pk}/")
    expect(pit.locator("main")).to_contain_text("hand exposed")
    expect(pit.locator("main")).to_contain_text("pitboss")
    screens.take(pit, "round-page-after-rejection-en")
    _switch(pit, "pl")
    expect(pit.locator("main")).to_contain_text("hand exposed")
    screens.take(pit, "round-page-after-rejection-pl")
    _switch(pit, "en")
    pit.context.close()
