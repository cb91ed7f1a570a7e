"""No link leads a role to a page it cannot open: each role of the demo casino, signed in, follows
the links of its pages (the header's navigation and the pages' bodies, and the redirects they
answer) two levels deep from its home page, by GET only, and none answers 403, 404 or a server
error. Forms are not sent.

The permission of a page is its route's, whatever the id in its path: the default lane follows
``PER_ROUTE`` links of each route and query (three audit records, three rule sets...), the soak
lane every link."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urldefrag, urljoin, urlsplit

import pytest
from django.test import Client
from django.urls import Resolver404, resolve

from casino.seeding import load_seed
from tests.lanes import sized

STAFF = load_seed("demo_casino.json")["staff"]
# Not followed: the end of the session, the Django admin (a superuser's), the static files.
NOT_FOLLOWED = ("/logout/", "/admin/", "/static/")
DEPTH = 2
PER_ROUTE = sized(3, 10**6)
# What a role's work needs and its navigation must lead to.
REACHED = {
    "cashier": {"/cage/", "/accounting/slips/", "/accounting/drop/"},
    "accountant": {"/accounting/", "/accounting/win/", "/accounting/cash-log/", "/audit/"},
    "auditor": {"/audit/", "/accounting/", "/accounting/slips/report/"},
    "pit_boss": {"/pit/", "/accounting/slips/", "/accounting/tables/BJ1/", "/cage/adjustments/"},
    "operator": {"/operator/", "/operator/terminals/", "/operator/staff/"},
    "dealer": {"/dealer/", "/dealer/tables/BJ1/"},
}


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def _same_site(page_url: str, hrefs: list[str]) -> list[str]:
    """The links of ``page_url`` to this site, as paths with their query strings."""
    links = []
    for href in hrefs:
        url, _ = urldefrag(urljoin(f"http://testserver{page_url}", href))
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if parts.scheme == "http" and parts.netloc == "testserver" and not path.startswith(NOT_FOLLOWED):
            links.append(path)
    return links


def _route(url: str) -> tuple[str, tuple[str, ...]]:
    """The route a link leads to and the names of its query's parameters: links of one route
    differ only by the ids they name."""
    parts = urlsplit(url)
    try:
        route = resolve(parts.path).route
    except Resolver404:
        route = parts.path  # followed, to be answered 404
    return route, tuple(sorted(name for name, _ in parse_qsl(parts.query)))


def crawl(client: Client, home: str) -> dict[str, tuple[int, str]]:
    """Every page reached from ``home`` by following links ``DEPTH`` times: its status and the
    page that led to it."""
    seen: dict[str, tuple[int, str]] = {}
    per_route: Counter[tuple[str, tuple[str, ...]]] = Counter()
    frontier = [(home, "(home)")]
    for depth in range(DEPTH + 1):
        following: list[tuple[str, str]] = []
        for url, linked_from in frontier:
            if url in seen or per_route[_route(url)] >= PER_ROUTE:
                continue
            per_route[_route(url)] += 1
            response = client.get(url)
            seen[url] = (response.status_code, linked_from)
            # A download streams: read to its end, where a failure would show.
            body = b"".join(response.streaming_content) if response.streaming else response.content
            if depth == DEPTH:
                continue
            if response.status_code in (301, 302):
                following.append((response["Location"], url))
            elif "text/html" in response.get("Content-Type", ""):
                parser = _Links()
                parser.feed(body.decode(errors="replace"))
                following.extend((link, url) for link in _same_site(url, parser.hrefs))
        frontier = following
    return seen


@pytest.mark.soak
@pytest.mark.parametrize("staff", STAFF, ids=[staff["role"] for staff in STAFF])
def test_every_link_of_a_role_opens_two_levels_deep(client: Client, seeded, staff):
    # Given: a member of each role, signed in
    client.post("/login/", {"username": staff["username"], "password": staff["password"]})
    home = client.get("/")
    assert home.status_code == 302

    # When: they follow their pages' links from their home page
    pages = crawl(client, home.url)

    # Then: every page opens (or sends them on), and their work's pages are among them
    refused = {url: found for url, found in pages.items() if found[0] in (403, 404) or found[0] >= 500}
    assert refused == {}
    assert {status for status, _ in pages.values()} <= {200, 302}
    assert REACHED[staff["role"]] <= set(pages)
