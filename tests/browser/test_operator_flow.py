"""The operator's and the pit boss's configuration flow in a real browser (Debian's chromium,
driven by Playwright through ``executable_path``; never a downloaded browser).

The operator raises BJ2's main maximum from 5,000.00 to 10,000.00: above the casino's step, the
change waits for a second person. They edit the Perfect Pairs paytable and watch its house edge
follow what they type, then propose the new version. The pit boss approves both. The operator
puts BJ2 on the new paytable and sees the table's edge change where it is chosen. BJ2's next round
runs with the new version: a bet at the new maximum passes through the terminal API, one above it
is refused.

Each step's screenshot is written to ``var/screens/operator-flow/`` (``SCREENS_DIR`` overrides the
folder); ``docs/screens.md`` shows the set.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright import sync_api

from casino.models import Player, Table, Terminal
from tables.models import SideBetPaytableVersion
from tables.odds_jobs import percent, side_bet_edge
from tables.services import Actor, round_open, shoe_shuffle, table_config_current
from tests.api.conftest import ApiClient, make_device, sign_in
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from wallet.services import system_buy_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
EDGE = re.compile(r"(-?[0-9]+\.[0-9]{3}) %")


def _edge(page: Any, selector: str) -> float:
    match = EDGE.search(page.locator(selector).inner_text())
    assert match is not None, page.locator(selector).inner_text()
    return float(match.group(1))


def test_the_operator_changes_bj2_and_the_pit_boss_approves(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("operator-flow")
    table = Table.objects.get(name="BJ2")
    before = table_config_current(table)
    assert before.main_max_minor == 500_000

    operator = signed_in(browser, live_server, "operator", "operator-demo")
    expect(operator.locator("h1")).to_have_text("Configuration")
    screens.take(operator, "configuration-home")

    # The operator raises BJ2's main maximum to 10,000.00: it waits for a second person
    operator.click("#operator-tables a:text-is('BJ2')")
    expect(operator.locator("h1")).to_contain_text("Table BJ2")
    operator.fill("input[name=main_max_minor]", "10000")
    screens.take(operator, "bj2-main-maximum-typed")
    operator.click("#config-form button[type=submit]")
    expect(operator.locator("#pending-proposal")).to_be_visible()
    expect(operator.locator(".messages")).to_contain_text("waits for a pit boss or another operator")
    screens.take(operator, "bj2-change-waiting")
    assert table_config_current(table).pk == before.pk

    # The Perfect Pairs paytable: the edge follows what the operator types
    paytable_id = before.perfect_pairs_version.paytable_id
    operator.goto(f"{live_server.url}/operator/paytables/{paytable_id}/")
    edge_before = _edge(operator, "#paytable-preview .edge-line")
    assert edge_before == pytest.approx(6.109, abs=0.001)
    operator.fill("input[name=perfect]", "30")
    operator.fill("input[name=coloured]", "15")
    operator.fill("input[name=mixed]", "8")
    # the odds follow the last figure typed
    expect(operator.locator("#paytable-preview")).to_contain_text("8:1")
    expect(operator.locator("#paytable-preview")).to_contain_text("15:1")
    edge_typed = _edge(operator, "#paytable-preview .edge-line")
    assert edge_typed < edge_before
    screens.take(operator, "paytable-edge-as-typed")
    operator.click("#paytable-form button[type=submit]")
    expect(operator.locator(".messages")).to_contain_text("waits for a second person")
    draft = SideBetPaytableVersion.objects.get(paytable_id=paytable_id, approved_at__isnull=True)
    screens.take(operator, "paytable-version-proposed")

    # The operator cannot approve their own change: no button, and a word why
    operator.goto(f"{live_server.url}/operator/approvals/")
    own = operator.locator(f"#paytable-version-{draft.pk}")
    expect(own.locator("button.approve")).to_have_count(0)
    expect(own).to_contain_text("You asked for this: a second person decides it.")
    screens.take(operator, "own-approval-refused")

    # The pit boss approves both
    pit = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit.goto(f"{live_server.url}/operator/approvals/")
    expect(pit.locator("article.approval")).to_have_count(2)
    screens.take(pit, "pit-boss-approvals")
    pit.locator(f"#paytable-version-{draft.pk} button.approve").click()
    expect(pit.locator("#approvals .ok")).to_contain_text("Approved")
    pit.locator("article.approval button.approve").first.click()
    expect(pit.locator("#approvals")).to_contain_text("No table change waits.")
    screens.take(pit, "pit-boss-approved")
    raised = table_config_current(table)
    assert raised.main_max_minor == 1_000_000 and raised.approved_by.username == "pitboss"

    # The operator puts BJ2 on the new paytable; the table's edge changes where it is chosen
    operator.goto(f"{live_server.url}/operator/tables/BJ2/")
    table_edge_before = _edge(operator, "#edges dd:has(#edge-perfect-pairs)")
    operator.select_option("select[name=perfect_pairs_version]", str(draft.pk))
    # exact for BJ2's own deck count (the paytable page showed it for six decks)
    decks = int(before.rule_set_version.options["decks"])
    expected = percent(
        side_bet_edge("perfect_pairs", decks, {"perfect": 30, "coloured": 15, "mixed": 8}).house_edge
    )
    expect(operator.locator("#edge-perfect-pairs")).to_have_text(f"{expected} %")
    assert float(expected) < table_edge_before
    screens.take(operator, "bj2-new-paytable-edge")
    operator.click("#config-form button[type=submit]")
    expect(operator.locator(".messages")).to_contain_text("used from the next round")
    screens.take(operator, "bj2-new-version-history")
    current = table_config_current(table)
    assert (current.main_max_minor, current.perfect_pairs_version_id) == (1_000_000, draft.pk)

    # BJ2's next round uses it: a bet at the new maximum passes through the API, above is refused
    dealer = staff_user("dealer", "dealer-bj2")
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    assert round_.config_id == current.pk
    player = Player.objects.get(card_number="1000000001")
    system_buy_in(player=player, amount_minor=2_000_000, actor=Actor.automatic("test"))
    device = make_device("T-BJ2-1", Terminal.Kind.PLAYER_TERMINAL, "BJ2")
    agi = ApiClient(device, sign_in(device, "1000000001", "1111"))
    api = f"/api/v1/tables/{table.pk}"
    assert agi.post(f"{api}/boxes/1/take/").status_code == 200
    above = agi.post(
        f"{api}/rounds/{round_.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1_000_001},
        headers={"Idempotency-Key": "above"},
    )
    assert above.status_code == 422 and above.json()["code"] == "stake_above_table_max"
    at_max = agi.post(
        f"{api}/rounds/{round_.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1_000_000},
        headers={"Idempotency-Key": "at-max"},
    )
    assert at_max.status_code == 201, at_max.content
    operator.context.close()
    pit.context.close()
