"""The API's documentation renders in a browser that can reach nothing but the back office (a
casino floor is a closed network): Swagger UI and ReDoc from the project's own static files."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest
from playwright import sync_api

from tests.browser.conftest import VIEWPORT, Screens

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RENDERED_WITHIN_MS = 30_000


@pytest.fixture
def page(browser: Any, live_server: Any) -> Any:
    """A page that reaches the live server and nothing else (what it asked elsewhere: ``outside``)."""
    ours = urlparse(live_server.url).netloc
    context = browser.new_context(viewport=VIEWPORT)
    outside: list[str] = []

    def closed_network(route: Any) -> None:
        if urlparse(route.request.url).netloc == ours:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", closed_network)
    page = context.new_page()
    page.outside = outside
    yield page
    context.close()


def test_swagger_ui_and_redoc_render_on_a_closed_network(page: Any, browser: Any, live_server: Any) -> None:
    expect = sync_api.expect
    screens = Screens("api-docs")
    page.goto(f"{live_server.url}/api/docs/")
    # Both renderers build the page from the whole schema in the browser; on a loaded machine
    # that takes longer than expect's five seconds (seen: ReDoc's title after more than five).
    expect(page.locator(".swagger-ui .info .title")).to_contain_text(
        "Casino back office: terminal API", timeout=RENDERED_WITHIN_MS
    )
    expect(page.locator(".opblock").first).to_be_visible()
    screens.take(page, "swagger-ui")
    assert page.outside == []
    page.goto(f"{live_server.url}/api/redoc/")
    expect(page.locator("h1")).to_contain_text("Casino back office: terminal API", timeout=RENDERED_WITHIN_MS)
    screens.take(page, "redoc")
    # ReDoc's bundle asks for one image of its own, the "API docs by Redocly" logo in the side
    # bar (no setting turns it off); refused (by the Content-Security-Policy, before the browser
    # asks the network), it leaves the page whole.
    assert page.outside == []
    [logo] = browser.policy_refusals
    assert "'https://cdn.redoc.ly/redoc/logo-mini.svg'" in logo
    assert "img-src 'self' data:" in logo
    browser.policy_refusals.clear()
