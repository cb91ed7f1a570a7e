"""The cage's player page and the operator's table page in each of the four languages, switched
from the header as a person does (the choice is theirs: it follows them to the next login).

Screenshots: ``var/screens/languages/`` (``docs/screens.md`` shows the set)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright import sync_api

from casino.models import Player
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
