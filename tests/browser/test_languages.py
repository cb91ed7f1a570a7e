"""The cage's player page, the operator's table page and the pit boss's round page in each of the
four languages, switched from the header as a person does (the choice is theirs: it follows them
to the next login).

Screenshots: ``var/screens/languages/`` and ``var/screens/languages-round/`` (``docs/screens.md``
shows the set)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from casino.models import Player, Table
from tables.models import PayoutLine
from tables.simulation import simulate_table
from tests.browser.conftest import Screens, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "hu", "pl", "ru")


def _switch(page: Any, language: str) -> None:
    page.select_option("#language-switch select[name=language]", language)
    page.click("#language-switch button[type=submit]")
    sync_api.expect(page.locator("html")).to_have_attribute("lang", language)


def test_the_cage_and_the_operators_table_page_in_four_languages(
    browser: Any, live_server: Any, seeded: Any
) -> None:
    screens = Screens("languages")
    agi = Player.objects.get(card_number="1000000001")
    cashier = signed_in(browser, live_server, "cashier", "cashier-demo")
    operator = signed_in(browser, live_server, "operator", "operator-demo")
    cashier.goto(f"{live_server.url}/cage/players/{agi.pk}/")
    operator.goto(f"{live_server.url}/operator/tables/BJ2/")
    headings = {}
    for language in LANGUAGES:
        _switch(cashier, language)
        screens.take(cashier, f"cage-player-{language}")
        _switch(operator, language)
        headings[language] = operator.locator("h1").inner_text()
        screens.take(operator, f"operator-table-{language}")
    # every language has its own words for the table page's heading
    assert len(set(headings.values())) == len(LANGUAGES), headings
    # and the choice stays with the person: a new login comes back in it
    again = signed_in(browser, live_server, "operator", "operator-demo")
    sync_api.expect(again.locator("html")).to_have_attribute("lang", "ru")
    for page in (cashier, operator, again):
        page.context.close()


def test_the_round_page_in_four_languages(browser: Any, live_server: Any, seeded: Any) -> None:
    # Given: a settled round of BJ3 on a virtual shoe, with the payout line of the most bets
    screens = Screens("languages-round")
    result = simulate_table(table=Table.objects.get(name="BJ3"), rounds=3, players=2, seed=11)
    round_id = max(result.round_ids, key=lambda pk: PayoutLine.objects.filter(round_id=pk).count())
    pit_boss = signed_in(browser, live_server, "pitboss", "pitboss-demo")
    pit_boss.goto(f"{live_server.url}/pit/rounds/{round_id}/")
    rules: dict[str, list[str]] = {}
    for language in LANGUAGES:
        _switch(pit_boss, language)
        sync_api.expect(pit_boss.locator("#replay-check")).to_be_visible()
        rules[language] = pit_boss.locator("td.rule").all_inner_texts()
        screens.take(pit_boss, f"round-{language}")
    # Then: each payout line's rule is in words, with its section, never the engine's text, and in
    # each language its own (the stored text stays the cell's title)
    engine = list(PayoutLine.objects.filter(round_id=round_id).order_by("pk").values_list("rule", flat=True))
    assert len(engine) >= 2 and rules["en"] != engine
    assert all("(§\u00a0" in label for labels in rules.values() for label in labels), rules
    assert len({tuple(labels) for labels in rules.values()}) == len(LANGUAGES), rules
    assert pit_boss.locator("td.rule").first.get_attribute("title") == engine[0]
    pit_boss.context.close()
