"""The pit floor and the header's count following their streams in a real browser (Debian's
chromium, driven by Playwright through ``executable_path``), the 15-second poll being only the
fallback.

A player bets on BJ1 through the terminal API while the pit boss's floor is open: the floor shows
the stake in play within two seconds, and the browser's network log shows one re-read of the floor
in that time, the one the bet's hint asked for. A dealer who also holds the pit boss's permissions
has a console open when a busy round on another table holds three payouts: the header's count
shows them without a reload.

Screenshots: ``var/screens/pit-live/`` (``docs/screens.md`` shows the set).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright import sync_api

from casino.models import Table, Terminal
from tests.api.conftest import ApiClient, make_device, open_round, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from tests.tables.payouts_support import boss_dealer, busy_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A hint reaches the screen well within this; the fallback poll comes every 15 s.
SHOWN_WITHIN_MS = 2_000


class NetworkLog:
    """The requests a page sent (``page.on("request")``), each with when the browser sent it
    (``request.timing``'s start, milliseconds since the epoch: Playwright's sync API hands the
    events over only while the test calls it, so the time they arrive says nothing)."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page = page
        self.origin = origin
        self.sent: list[Any] = []
        page.on("request", lambda request: self.sent.append(request))

    def to(self, path: str, since_ms: float = 0.0) -> list[float]:
        """When the page asked for ``path`` (any query), since ``since_ms``."""
        return [
            request.timing["startTime"]
            for request in self.sent
            if request.timing["startTime"] >= since_ms
            and request.url.removeprefix(self.origin).split("?")[0] == path
        ]

    def wait(self, seconds: float) -> None:
        """``seconds`` of the page's life, its requests collected meanwhile."""
        self.page.wait_for_timeout(seconds * 1000)

    def quiet(self, seconds: float = 1.0, timeout: float = 10.0) -> None:
        """Wait until the page has sent nothing for ``seconds`` (its first re-reads done)."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            self.wait(0.2)
            last = max((request.timing["startTime"] for request in self.sent), default=0.0)
            if now_ms() - last >= seconds * 1000:
                return
        raise AssertionError("the page kept sending requests")


def now_ms() -> float:
    return time.time() * 1000


def test_a_bet_shows_on_the_pit_floor_by_its_hint_not_by_polling(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("pit-live")
    # Given: BJ1 betting, Ági signed in at its terminal on box 1, the pit floor open
    table = Table.objects.get(name="BJ1")
    round_ = open_round("BJ1", betting_seconds=600)
    device = make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    agi = ApiClient(device, sign_in(device, "1000000001", "1111"))
    assert agi.post(f"/api/v1/tables/{table.pk}/boxes/1/take/").status_code == 200
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    network = NetworkLog(pit, live_server.url)
    pit.goto(f"{live_server.url}/pit/")
    row = pit.locator("#floor-BJ1")
    expect(row).to_have_attribute("data-state", "betting")
    in_play = row.locator("td.num").nth(1)
    expect(in_play).to_have_text("0.00")
    # the stream is open, and the floor's first re-reads (one per topic at the stream's start) done
    assert network.to("/pit/stream/")
    network.quiet()
    pit.evaluate("window.notReloaded = true")
    screens.take(pit, "floor-before-the-bet")

    # When: Ági bets 10.00 through the terminal API
    placed_at = now_ms()
    response = agi.post(
        f"/api/v1/tables/{table.pk}/rounds/{round_.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "agi-1-main"},
    )
    assert response.status_code == 201, response.content

    # Then: the floor shows it within two seconds, without a reload
    expect(in_play).to_have_text("10.00", timeout=SHOWN_WITHIN_MS)
    shown_at = now_ms()
    assert pit.evaluate("window.notReloaded") is True
    screens.take(pit, "floor-bet-shown-live")
    # and between the bet and its showing the floor was read once: the re-read its hint asked for
    re_reads = network.to("/pit/live/", since_ms=placed_at)
    assert len(re_reads) == 1, [request.url for request in network.sent]
    assert placed_at <= re_reads[0] <= shown_at
    assert re_reads[0] - placed_at < SHOWN_WITHIN_MS
    # nothing more came (the bet moved no queue), and no poll: it comes every 15 s
    network.wait(2)
    assert network.to("/pit/live/", since_ms=placed_at) == re_reads
    assert network.to("/pit/queue/live/", since_ms=placed_at) == []
    assert network.to("/waiting/", since_ms=placed_at) == []
    print("DEBUG", placed_at, network.sent)
    pit.context.close()


def test_the_header_count_follows_the_queue_on_a_dealer_console(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("pit-live-header")
    # Given: a dealer who also holds the pit boss's permissions, at BJ2's console
    dealer = boss_dealer(staff_user("pit_boss", "pitboss-live"))
    dealer.set_password("boss-dealer-live")
    dealer.save(update_fields=["password"])
    console = signed_in(browser, live_server, dealer.username, "boss-dealer-live")
    network = NetworkLog(console, live_server.url)
    console.goto(f"{live_server.url}/dealer/tables/BJ2/")
    count = console.locator("#waiting-for-you .pill")
    expect(count).to_have_text("0")
    expect(console.locator("#waiting-for-you")).to_have_attribute("hx-trigger", "sse:queue")
    assert network.to("/dealer/tables/BJ2/stream/")
    network.quiet()
    console.evaluate("window.notReloaded = true")
    screens.take(console, "console-nothing-waiting")

    # When: another dealer's busy round on BJ1 holds three payouts for a pit boss
    held_at = now_ms()
    busy_round(
        Table.objects.get(name="BJ1"), staff_user("dealer", "dealer-live"), staff_user("operator", "op-live")
    )

    # Then: the console's header counts them, without a reload, read again on the queue's hint
    expect(count).to_have_text("3", timeout=SHOWN_WITHIN_MS)
    assert console.evaluate("window.notReloaded") is True
    assert network.to("/waiting/", since_ms=held_at)
    screens.take(console, "console-three-payouts-waiting")
    console.context.close()
