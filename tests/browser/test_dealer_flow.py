"""The dealer's and the pit boss's main flow in a real browser (Debian's chromium, driven by
Playwright through ``executable_path``; never a downloaded browser).

The dealer signs on to BJ1 and counts its tray, which the pit boss signs: the table is open.
Three players bet through the terminal API and the console shows each bet without a reload; no
more bets; the dealer types the cards; the card
reader misreads one, the dealer asks for its correction and the pit boss approves it; the players
decide through the API while the countdown runs; the dealer settles; the main bet's payout, above
the table's threshold, waits for the pit boss, who approves it from the queue; the player's
balance through the API shows it paid; the round page's replay check says equal.

Each step's screenshot is written to ``var/screens/dealer-flow/`` (``SCREENS_DIR`` overrides the
folder); ``docs/screens.md`` shows the set.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from casino.models import Table, Terminal
from tables.models import Bet, PayoutLine, Round
from tests.api.conftest import ApiClient, make_device, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user, table_settings_applied

# What the console must show in time: the live update polls every second; two seconds leave room
# for a loaded machine (the delay itself is measured in bench/live_updates.py).
SHOWN_WITHIN_MS = 2_000


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_round_from_the_console_to_the_pit_bosss_approval(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("dealer-flow")
    # Given: BJ1 closed, on a physical shoe, winnings above 7.00 held for the pit boss
    table = Table.objects.get(name="BJ1")
    Table.objects.filter(pk=table.pk).update(is_open=False)
    table_settings_applied(
        table=table,
        operator=staff_user("operator", "operator-flow"),
        settings={
            "shoe_kind": "physical",
            "payout_approval_threshold_minor": 700,
            "betting_seconds": 600,
            "decision_seconds": 600,
        },
    )
    players = {
        name: ApiClient(device, sign_in(device, card, pin))
        for name, card, pin, device in (
            ("agi", "1000000001", "1111", make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")),
            ("bartek", "1000000002", "2222", make_device("T-BJ1-2", Terminal.Kind.PLAYER_TERMINAL, "BJ1")),
            ("clara", "1000000003", "3333", make_device("T-BJ1-3", Terminal.Kind.PLAYER_TERMINAL, "BJ1")),
        )
    }
    reader = ApiClient(make_device("R-BJ1", Terminal.Kind.CARD_READER, "BJ1"))
    api = f"/api/v1/tables/{table.pk}"
    before = players["agi"].get("/api/v1/player/balance/").json()["balance_minor"]

    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit.goto(f"{live_server.url}/pit/")
    expect(pit.locator("#queue-empty")).to_be_visible()

    # When: the dealer signs on, counts the tray to open the table, records the shuffle and opens
    # betting, by keys
    dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
    screens.take(dealer, "console-before-sign-on")
    dealer.keyboard.press("j")
    expect(dealer.locator("#dealer-on")).to_contain_text("Dealer Dana Dealer since")
    # T: the tray's opening count opens the table, the dealer's and the pit boss's signatures
    dealer.keyboard.press("t")
    dealer.fill("#count-form input[name=amount-10000]", "20000")
    dealer.click("#count-form button[type=submit]")
    expect(dealer.locator("#accounting-done")).to_contain_text("Count recorded")
    pit.goto(f"{live_server.url}/accounting/tables/BJ1/")
    pit.click("#sign-form button[type=submit]")
    expect(pit.locator("#table-state")).to_have_text("Open")
    pit.goto(f"{live_server.url}/pit/")
    dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
    expect(dealer.locator("#table-open")).to_have_text("Open for play")
    dealer.fill("input[name=cut_card]", "70")
    dealer.press("input[name=cut_card]", "Enter")
    expect(dealer.locator("#shuffle-due")).to_have_count(0)
    dealer.keyboard.press("b")
    expect(dealer.locator("#round-status")).to_have_attribute("data-status", "betting")
    expect(dealer.locator("#countdown")).to_contain_text("then no more bets")
    screens.take(dealer, "betting-open")
    round_ = Round.objects.get(table=table, status="betting")
    rounds = f"{api}/rounds/{round_.pk}"
    dealer.evaluate("window.notReloaded = true")

    # Three players bet through the API; the console shows each bet without a reload
    def bet(player: str, box: int, kind: str, stake: int) -> None:
        response = players[player].post(
            f"{rounds}/bets/",
            {"box": box, "kind": kind, "stake_minor": stake},
            headers={"Idempotency-Key": f"{player}-{box}-{kind}"},
        )
        assert response.status_code == 201, response.content
        bet_id = response.json()["id"]
        expect(dealer.locator(f'[data-bet="{bet_id}"]')).to_be_visible(timeout=SHOWN_WITHIN_MS)

    for player, box in (("agi", 1), ("bartek", 2), ("clara", 3)):
        assert players[player].post(f"{api}/boxes/{box}/take/").status_code == 200
    bet("agi", 1, "main", 1000)
    bet("agi", 1, "perfect_pairs", 200)
    bet("agi", 1, "twenty_one_plus_three", 200)
    bet("bartek", 2, "main", 1000)
    bet("bartek", 1, "behind", 500)
    bet("clara", 3, "main", 2000)
    assert dealer.evaluate("window.notReloaded") is True
    screens.take(dealer, "bets-shown-live")

    # No more bets; the dealer types the cards (codes as dealers type them: 9h, 10h)
    dealer.keyboard.press("n")
    expect(dealer.locator("#card-entry")).to_be_visible()
    cards = {
        ("box", 1): ["TS", "9h"],
        ("box", 2): ["10h", "8D"],
        ("box", 3): ["9C", "7S"],
        ("dealer", None): ["7D", "TC"],
    }

    def expected_target() -> tuple[str, int | None] | None:
        wanted = reader.get(f"{api}/state/").json()["round"]["card_expected"]
        return (wanted["to"], wanted["box"]) if wanted else None

    def type_card(code: str) -> None:
        dealer.locator("#card-code").fill(code)
        dealer.locator("#card-code").press("Enter")
        # the console redrawn: a fresh, empty card field, or none when no card is expected now
        dealer.wait_for_function(
            "() => !document.getElementById('card-code') || document.getElementById('card-code').value === ''"
        )

    # the first one as the hint says: C (the cursor is in the field already: C types nothing),
    # then the code, key by key, and Enter
    dealer.keyboard.press("c")
    dealer.keyboard.type(cards[expected_target()].pop(0))  # box 1
    expect(dealer.locator("#card-code")).to_have_value("TS")
    dealer.keyboard.press("Enter")
    dealer.wait_for_function("() => document.getElementById('card-code').value === ''")
    screens.take(dealer, "first-card-typed")
    while (target := expected_target()) is not None:
        type_card(cards[target].pop(0))
    expect(dealer.locator("#round-status")).to_have_attribute("data-status", "players")

    # The card reader sends a card nobody asked for: a misscan; the dealer asks for its
    # correction (no card left the shoe), the pit boss approves it from the queue
    misread = reader.post(f"{rounds}/cards/", {"card": "5D"}, headers={"Idempotency-Key": "read-1"})
    assert misread.status_code == 409 and misread.json()["code"] == "misscan"
    expect(dealer.locator("#misscan")).to_be_visible(timeout=SHOWN_WITHIN_MS)
    dealer.check(".action-correction input[name=no_card]")
    dealer.fill(".action-correction input[name=reason]", "the reader read the same card twice")
    dealer.keyboard.press("Escape")
    dealer.keyboard.press("m")
    expect(dealer.locator(".pending-request")).to_be_visible()
    screens.take(dealer, "misscan-correction-asked")
    expect(pit.locator(".round-request")).to_be_visible(timeout=SHOWN_WITHIN_MS)
    screens.take(pit, "pit-correction-request")
    pit.click(".round-request form:first-child button")
    expect(pit.locator("#queue-done")).to_have_text("Request approved.")
    expect(dealer.locator("#misscan")).to_have_count(0, timeout=SHOWN_WITHIN_MS)

    # The players decide through the API while the countdown runs
    expect(dealer.locator("#countdown")).to_contain_text("then stand")
    expect(dealer.locator("#box-1.turn")).to_be_visible()
    screens.take(dealer, "decision-countdown")
    for player, box in (("agi", 1), ("bartek", 2), ("clara", 3)):
        response = players[player].post(
            f"{rounds}/decisions/",
            {"box": box, "decision": "stand"},
            headers={"Idempotency-Key": f"{player}-s"},
        )
        assert response.status_code == 200, response.content
    # the dealer's 17 (7D and the hole card TC) stands
    expect(dealer.locator("#round-status")).to_have_attribute("data-status", "settling")

    # The dealer settles: box 1's main bet wins 10.00, above the threshold, and waits
    dealer.keyboard.press("e")
    expect(dealer.locator("#payout-summary")).to_be_visible()
    expect(dealer.locator("#payout-summary")).to_contain_text("Awaiting approval")
    screens.take(dealer, "settled-payout-held")
    assert sorted(
        PayoutLine.objects.filter(round=round_, needs_approval=True).values_list("paid_minor", flat=True)
    ) == [
        2000,
        2000,
    ]  # Ági's main and Bartek's, both 20.00 (winnings 10.00); the bet behind's 10.00 (winnings
    # 5.00) was paid at once
    held = PayoutLine.objects.get(round=round_, needs_approval=True, bet__player__card_number="1000000001")
    assert players["agi"].get("/api/v1/player/balance/").json()["balance_minor"] == before - 1400

    # The pit boss sees the round's held lines arrive in the queue and approves them in one action
    row = pit.locator(f'.held-payout[data-line="{held.pk}"]')
    expect(row).to_be_visible(timeout=SHOWN_WITHIN_MS)
    screens.take(pit, "pit-payout-held")
    pit.locator(f"#held-round-{round_.pk} button.approve").click()
    expect(pit.locator("#queue-done")).to_have_text("Payouts decided: 2 approved and paid, 0 rejected.")
    screens.take(pit, "pit-payout-approved")
    assert players["agi"].get("/api/v1/player/balance/").json()["balance_minor"] == before - 1400 + 2000
    expect(dealer.locator("#payout-summary")).to_contain_text("Approved", timeout=SHOWN_WITHIN_MS)

    # The round page's replay check says equal
    pit.goto(f"{live_server.url}/pit/rounds/{round_.pk}/")
    expect(pit.locator("body")).to_contain_text("Replay equal")
    screens.take(pit, "round-replay-equal")
    assert Bet.objects.filter(round=round_).count() == 6
    # The pages stop polling before the live server stops.
    dealer.context.close()
    pit.context.close()
