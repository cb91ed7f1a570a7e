"""The pages whose styles left the templates for the stylesheets (the Content-Security-Policy
refuses inline styles) still look as they did, with nothing refused: the login and password
cards, the terminals' credential forms, the staff pages, the header's language switch; and the
icon the pages link to is ours, answered at /favicon.ico too.

Each page's screenshot is written to ``var/screens/page-styles/``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from playwright import sync_api

from casino.models import Casino
from tests.browser.conftest import VIEWPORT, Screens, signed_in
from tests.factories import TerminalFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def style(within: Any, selector: str, name: str) -> str:
    """The computed value of CSS property ``name`` of the first element ``selector`` finds in ``within``
    (a page or a part of one)."""
    return str(within.locator(selector).first.evaluate(f"(element) => getComputedStyle(element)['{name}']"))


def test_the_pages_keep_their_look_from_the_stylesheets(browser: Any, live_server: Any, seeded: Any) -> None:
    expect = sync_api.expect
    screens = Screens("page-styles")

    # The login card, alone in the middle; the header's language switch a finger's size
    visitor = browser.new_context(viewport=VIEWPORT).new_page()
    visitor.goto(f"{live_server.url}/login/")
    expect(visitor.locator("main .card")).to_be_visible()
    assert style(visitor, "main .card", "maxWidth") == "420px"
    assert style(visitor, "main .card", "marginTop") == "48px"
    assert style(visitor, "#language-switch select", "minHeight") == "44px"
    screens.take(visitor, "login")

    # The icon: linked from the page, and at /favicon.ico for the browsers that ask there
    icon = visitor.locator("link[rel=icon]").get_attribute("href")
    assert icon == "/static/casino/icon.svg"
    answer = visitor.request.get(f"{live_server.url}/favicon.ico")
    assert answer.status == 200
    assert answer.url == f"{live_server.url}{icon}"
    assert answer.headers["content-type"].startswith("image/svg+xml")

    # The terminals: the credential's checkbox and its label a finger's size, the revoke inline
    TerminalFactory(casino=Casino.objects.get(), name="Terminal 7")
    operator = signed_in(browser, live_server, "operator", "operator-demo")
    operator.goto(f"{live_server.url}/operator/terminals/")
    row = operator.locator("tr", has_text="Terminal 7")
    row.locator("button[type=submit]", has_text="Issue credential").click()
    operator.goto(f"{live_server.url}/operator/terminals/")
    row = operator.locator("tr", has_text="Terminal 7")
    expect(row.locator("form.inline-form button")).to_be_visible()
    assert style(row, "form.inline-form", "display") == "inline"
    assert style(row, "label.touch-check", "display") == "flex"
    assert style(row, "label.touch-check", "minHeight") == "44px"
    assert style(row, "label.touch-check input[type=checkbox]", "width") == "24px"
    assert style(row, "label.touch-check input[type=checkbox]", "height") == "24px"
    screens.take(operator, "terminals")

    # The staff pages: buttons a finger's size, an account's facts in two columns
    operator.goto(f"{live_server.url}/operator/staff/")
    expect(operator.locator(".staff-pages h1")).to_be_visible()
    assert style(operator, ".staff-pages button", "minHeight") == "44px"
    screens.take(operator, "staff")
    dealer = get_user_model().objects.get(username="dealer")
    operator.goto(f"{live_server.url}/operator/staff/{dealer.pk}/")
    assert style(operator, "#member-facts", "display") == "grid"
    assert style(operator, ".staff-pages .commands", "display") == "grid"
    assert style(operator, ".staff-pages .commands form", "borderTopStyle") == "solid"
    screens.take(operator, "staff-member")

    # The password change, a wider card alone in the middle
    operator.goto(f"{live_server.url}/account/password/")
    assert style(operator, "#password-change", "maxWidth") == "480px"
    assert style(operator, "#password-change", "marginTop") == "48px"
    screens.take(operator, "password-change")
