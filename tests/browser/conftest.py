"""What every browser test shares: Debian's chromium driven by Playwright through
``executable_path`` (never a downloaded browser), the screenshots of a flow, and signing in.

Without chromium at ``CHROMIUM`` (``/usr/bin/chromium``) a browser test is skipped on a
workstation and fails in CI (``CI`` set), where ``.ci/run`` installs it. Screenshots go to
``var/screens/<flow>/`` (``SCREENS_DIR`` moves them); ``docs/screens.md`` shows the sets.

Every page the test opens is watched for what the Content-Security-Policy refused (chromium says
so on the console): a test whose pages had anything refused fails, unless it takes the refusals
it expects out of ``browser.policy_refusals`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from playwright import sync_api

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
VIEWPORT = {"width": 1280, "height": 900}
# How chromium's console words what the Content-Security-Policy refused.
POLICY_REFUSAL = ("Content Security Policy", "Refused to")


@pytest.fixture(scope="session")
def live_server(asgi_server: Any) -> Any:
    """The site as uvicorn serves it (tests/asgi_server.py), streams included, in place of
    pytest-django's threaded WSGI server, which cannot hold a stream."""
    return asgi_server


def screens_root() -> Path:
    return Path(os.environ.get("SCREENS_DIR", Path(settings.BASE_DIR) / "var" / "screens"))


@pytest.fixture
def browser(request: Any) -> Iterator[Any]:
    # The browser lane (make test-browser) selects its tests by their marker; the default lane
    # leaves them out, so that it runs whole, with no skip, on a machine without chromium.
    if request.node.get_closest_marker("browser") is None:
        raise RuntimeError(f"{request.node.nodeid} drives a browser: mark it pytest.mark.browser")
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"the browser tests need chromium at {CHROMIUM} (.ci/run installs it)")
        pytest.skip(f"no chromium at {CHROMIUM}: apt-get install chromium")
    # Playwright's sync API runs an event loop in this thread; the test's own database calls
    # are plain synchronous ones.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        watch_policy_refusals(launched)
        yield launched
        launched.close()
        # The test's database connection was opened while Playwright's loop ran, and Django
        # keeps it for that context only: closed here, or it would still hold the test database
        # when the session drops it ("database ... is being accessed by other users").
        connections.close_all()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    assert launched.policy_refusals == [], "the Content-Security-Policy refused what a page asked"


def watch_policy_refusals(browser: Any) -> None:
    """Every context the test opens on ``browser`` records, in ``browser.policy_refusals``, each
    console message of its pages that tells of a Content-Security-Policy refusal."""
    browser.policy_refusals = []
    new_context = browser.new_context

    def watched_context(*args: Any, **kwargs: Any) -> Any:
        context = new_context(*args, **kwargs)

        def heard(message: Any) -> None:
            if any(words in message.text for words in POLICY_REFUSAL):
                browser.policy_refusals.append(f"{message.page.url if message.page else '?'}: {message.text}")

        context.on("console", heard)
        return context

    browser.new_context = watched_context


class Screens:
    """The numbered screenshots of one flow, in ``var/screens/<flow>/`` (emptied first)."""

    def __init__(self, flow: str) -> None:
        self.folder = screens_root() / flow
        self.folder.mkdir(parents=True, exist_ok=True)
        for old in self.folder.glob("*.png"):
            old.unlink()
        self.count = 0

    def take(self, page: Any, name: str) -> None:
        self.count += 1
        page.screenshot(path=str(self.folder / f"{self.count:02d}-{name}.png"), full_page=True)


def signed_in(browser: Any, live_server: Any, username: str, password: str) -> Any:
    """A page of a new browser context, signed in as ``username`` through the login form."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    return page
