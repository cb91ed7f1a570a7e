"""The dealer console pushed, in chromium: a bet placed through the terminal API appears on the
open console because its stream said so (one re-read after the hint, no poll), and a stream that
the server closed mid-round comes back with ``Last-Event-ID`` and shows what a fresh load shows.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.test import override_settings
from playwright import sync_api

from casino import streams
from casino.models import Table, Terminal
from casino.streams import last_event_versions
from tables.models import Round
from tables.services import Actor, dealer_sign_on, round_open, shoe_shuffle, table_open_for_play
from tests.api.conftest import ApiClient, make_device, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user, table_settings_applied

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Far below the 15 s fallback poll: what arrives this fast came by the stream.
PUSHED_WITHIN_MS = 2_000


def betting_round(table: Table, betting_seconds: int = 600) -> Round:
    table_settings_applied(
        table=table,
        operator=staff_user("operator", "operator-push"),
        settings={"betting_seconds": betting_seconds},
    )
    dealer = staff_user("dealer", "dealer-push")
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    if not table.is_open:
        table_open_for_play(table=table, actor=Actor.staff(dealer))
    return round_open(table=table, actor=Actor.staff(dealer))


def player(name: str, card: str, pin: str) -> ApiClient:
    device = make_device(name, Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    return ApiClient(device, sign_in(device, card, pin))


def bet(client: ApiClient, table: Table, round_: Round, box: int, key: str) -> int:
    client.post(f"/api/v1/tables/{table.pk}/boxes/{box}/take/")
    response = client.post(
        f"/api/v1/tables/{table.pk}/rounds/{round_.pk}/bets/",
        {"box": box, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": key},
    )
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def watch(page: Any) -> tuple[list[tuple[float, str]], list[dict[str, str]]]:
    """The console's re-reads (when Playwright handed the request over, URL) and its stream's
    requests (their headers), from now on."""
    rereads: list[tuple[float, str]] = []
    streams: list[dict[str, str]] = []

    def seen(request: Any) -> None:
        if "/live/" in request.url:
            rereads.append((time.monotonic(), request.url))
        elif request.url.endswith("/stream/"):
            streams.append(request.headers)

    page.on("request", seen)
    return rereads, streams


def test_a_bet_through_the_api_reaches_the_open_console_by_its_stream(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("live-push")
    table = Table.objects.get(name="BJ1")
    round_ = betting_round(table)
    agi = player("T-PUSH-1", "1000000001", "1111")
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    rereads, streams = watch(dealer)
    dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
    expect(dealer.locator("#round-status")).to_have_attribute("data-status", "betting")
    assert dealer.locator("body").get_attribute("sse-connect") == "/dealer/tables/BJ1/stream/"
    agi.post(f"/api/v1/tables/{table.pk}/boxes/1/take/")
    # The hints of the stream's opening and of the box, and their re-reads, are over (Playwright
    # hands its events over while the test waits in one of its calls).
    dealer.wait_for_timeout(1_000)
    assert len(streams) == 1
    before = len(rereads)

    placed = time.monotonic()
    bet_id = bet(agi, table, round_, 1, "push-1")
    expect(dealer.locator(f'[data-bet="{bet_id}"]')).to_be_visible(timeout=PUSHED_WITHIN_MS)
    shown = time.monotonic()
    screens.take(dealer, "console-bet-pushed")

    assert len(rereads[before:]) == 1, rereads[before:]  # the one re-read the hint asked for: no poll
    assert shown - placed < PUSHED_WITHIN_MS / 1000
    assert len(streams) == 1  # the same stream throughout


def test_a_stream_closed_mid_round_resumes_with_last_event_id_and_shows_what_a_fresh_load_shows(
    browser: Any, live_server: Any, seeded: Any, monkeypatch: Any
) -> None:
    expect = sync_api.expect
    table = Table.objects.get(name="BJ1")
    round_ = betting_round(table)
    agi, bartek = player("T-PUSH-1", "1000000001", "1111"), player("T-PUSH-2", "1000000002", "2222")
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    # Bartek bets while the console's stream is away: as the browser comes back with
    # Last-Event-ID, before the stream starts again.
    resumed: list[str] = []
    away: dict[str, int] = {}

    def reading(header: str) -> dict[str, str]:
        if header and not resumed:
            away["bet"] = bet(bartek, table, round_, 2, "resume-2")
        if header:
            resumed.append(header)
        return last_event_versions(header)

    monkeypatch.setattr(streams, "last_event_versions", reading)
    # The server closes each stream after about two seconds; the browser opens it again after
    # the retry (one second), with the versions it had in Last-Event-ID.
    with override_settings(HINTS_STREAM_SECONDS=2, HINTS_RETRY_MS=1000):
        dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
        first = bet(agi, table, round_, 1, "resume-1")
        expect(dealer.locator(f'[data-bet="{first}"]')).to_be_visible(timeout=PUSHED_WITHIN_MS)
        until = time.monotonic() + 10
        while "bet" not in away and time.monotonic() < until:
            dealer.wait_for_timeout(50)
        assert "bet" in away
        second = away["bet"]
        expect(dealer.locator(f'[data-bet="{second}"]')).to_be_visible(timeout=PUSHED_WITHIN_MS)
    assert f"table:{table.pk}=" in resumed[0]

    fresh = signed_in(browser, live_server, "dealer", "dealer-demo")
    fresh.goto(f"{live_server.url}/dealer/tables/BJ1/")
    for page in (dealer, fresh):
        expect(page.locator(f'[data-bet="{first}"]')).to_be_visible()
        expect(page.locator(f'[data-bet="{second}"]')).to_be_visible()
    assert dealer.locator("#console").get_attribute("data-version") == fresh.locator(
        "#console"
    ).get_attribute("data-version")
    assert dealer.locator("#boxes").inner_text() == fresh.locator("#boxes").inner_text()


def test_an_open_console_drives_its_rounds_countdown_without_a_worker(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    """No worker runs here and nothing else happens at the table: at the end of the betting
    countdown the console reads itself again, and that read closes the betting (the overdue
    default), as the second-by-second poll did."""
    expect = sync_api.expect
    table = Table.objects.get(name="BJ1")
    round_ = betting_round(table, betting_seconds=3)
    bet(player("T-PUSH-1", "1000000001", "1111"), table, round_, 1, "countdown-1")
    dealer = signed_in(browser, live_server, "dealer", "dealer-demo")
    dealer.goto(f"{live_server.url}/dealer/tables/BJ1/")
    expect(dealer.locator("#round-status")).to_have_attribute("data-status", "betting")
    expect(dealer.locator("#round-status")).not_to_have_attribute("data-status", "betting", timeout=6_000)
    round_.refresh_from_db()
    assert round_.status != "betting"
