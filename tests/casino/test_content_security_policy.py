"""The Content-Security-Policy: every answer carries it, it allows nothing inline and no eval, and
the templates hold nothing it would refuse (no inline script or style, no event attribute). The
icon is one of our static files, linked from the pages and answered at /favicon.ico."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from casino.seeding import load_seed
from tests.casino.test_navigation import crawl

HEADER = "Content-Security-Policy"
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
STAFF = load_seed("demo_casino.json")["staff"]
TEMPLATES = Path(settings.BASE_DIR) / "templates"
# What the policy refuses in a page, by what a template would write for it.
REFUSED = {
    "inline script": re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I),
    "style element": re.compile(r"<style\b", re.I),
    "style attribute": re.compile(r"\sstyle\s*=", re.I),
    "event attribute": re.compile(r"\son[a-z]+\s*=", re.I),
    "htmx inline handler": re.compile(r"\shx-on", re.I),
    "javascript: URL": re.compile(r"javascript:", re.I),
}


def directives(header: str) -> dict[str, list[str]]:
    """The policy's directives, each with its sources."""
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {name: sources for name, *sources in parts}


def assert_strict(response: Any, url: str) -> None:
    assert HEADER in response, f"{url} answers without {HEADER}"
    policy = response[HEADER]
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy, f"{url}: {policy}"
    assert directives(policy) == POLICY, url


def refused_in(text: str) -> list[str]:
    """What the policy would refuse in ``text`` (a template's source)."""
    return [name for name, pattern in REFUSED.items() if pattern.search(text)]


class RecordingClient(Client):
    """A test client that keeps every answer it gets."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers: list[tuple[str, Any]] = []

    def request(self, **request: Any) -> Any:
        response = super().request(**request)
        self.answers.append((request["PATH_INFO"], response))
        return response


def test_directives_reads_a_policy_header():
    assert (
        directives(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
            "form-action 'self'; frame-ancestors 'none'"
        )
        == POLICY
    )


@pytest.mark.parametrize("staff", STAFF, ids=[staff["role"] for staff in STAFF])
def test_every_page_of_a_role_carries_the_policy(seeded, staff):
    # Given: a member of each role, signed in; when: they open every page their links lead to
    client = RecordingClient()
    client.post("/login/", {"username": staff["username"], "password": staff["password"]})
    home = client.get("/")
    crawl(client, home.url)

    # Then: every answer (pages, partials, downloads, redirects) carries the strict policy
    pages = [url for url, response in client.answers if "text/html" in response.get("Content-Type", "")]
    assert len(pages) > 3
    for url, response in client.answers:
        assert_strict(response, url)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/login/", "/no-such-page/", "/api/docs/", "/api/docs/?script", "/favicon.ico"]
)
def test_the_pages_without_sign_in_carry_the_policy(url):
    response = Client().get(url)

    assert response.status_code in (200, 302, 404)
    assert_strict(response, url)


@pytest.mark.django_db
def test_redoc_alone_may_write_styles_and_start_its_search_worker():
    # ReDoc's styled-components write style elements as it renders (casino/api_urls.py)
    response = Client().get("/api/redoc/")

    assert directives(response[HEADER]) == {
        **POLICY,
        "style-src": ["'self'", "'unsafe-inline'"],
        "worker-src": ["'self'", "blob:"],
    }
    # and the page itself holds none: the styles are ReDoc's, written at run time
    assert refused_in(response.content.decode()) == []


@pytest.mark.django_db
def test_swagger_ui_starts_from_a_script_file_not_an_inline_script():
    page = Client().get("/api/docs/").content.decode()
    script = Client().get("/api/docs/?script=")

    assert refused_in(page) == []
    assert '<script src="/api/docs/?script="></script>' in page
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()


@pytest.mark.parametrize(
    "template", sorted(TEMPLATES.rglob("*.html")), ids=lambda path: str(path.relative_to(TEMPLATES))
)
def test_no_template_holds_what_the_policy_refuses(template):
    assert refused_in(template.read_text()) == []


@pytest.mark.parametrize(
    ("sample", "refused"),
    [
        ("<script>go()</script>", ["inline script"]),
        ('<script type="module">go()</script>', ["inline script"]),
        ("<style>p { color: red }</style>", ["style element"]),
        ('<p style="color:red">', ["style attribute"]),
        ('<button onclick="go()">', ["event attribute"]),
        ('<form hx-on::after-request="go()">', ["htmx inline handler"]),
        ('<a href="javascript:go()">', ["javascript: URL"]),
        ('<script src="/static/casino/app.js" defer></script>', []),
        ('<link rel="stylesheet" href="/static/casino/app.css"><p class="nowrap" data-on="1">', []),
    ],
)
def test_the_scan_sees_what_the_policy_refuses(sample, refused):
    assert refused_in(sample) == refused


@pytest.mark.django_db
@override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True)
def test_the_icon_is_linked_and_answers_at_favicon_ico():
    # The static files as the development server serves them (production serves the collected ones)
    client = Client()

    login = client.get("/login/").content.decode()
    favicon = client.get("/favicon.ico")
    icon = client.get(favicon["Location"])

    assert '<link rel="icon" href="/static/casino/icon.svg" type="image/svg+xml">' in login
    assert favicon.status_code == 302
    assert favicon["Location"] == "/static/casino/icon.svg"
    assert icon.status_code == 200
    assert icon["Content-Type"] == "image/svg+xml"
    assert b"".join(icon.streaming_content).startswith(b"<svg")
