"""The pit's and the fills-and-credits desk's streams (casino/streams.py) under the ASGI server, the
header's count re-read on its own, and the pages wired to them: each stream checks what its page
checks (the login, the permission, the staff member's casino) and passes on the hints of that
casino's topics only."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client

from casino.hints import desk_topic, floor_topic, hint, publisher, queue_topic
from casino.models import Casino
from casino.selectors import casino_for_user
from tests.asgi_server import AsgiServer
from tests.casino.test_streams import events, open_stream, session_cookie
from tests.factories import CasinoFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PIT_STREAM = "/pit/stream/"
DESK_STREAM = "/accounting/slips/stream/"


def staff_casino(username: str) -> Casino:
    """The casino of the staff member, as the pages read it (``casino_for_user``)."""
    casino = casino_for_user(User.objects.get(username=username))
    assert casino is not None
    return casino


def hinted(*topics: str) -> None:
    with transaction.atomic():
        hint(*topics)
    assert publisher().flush()


@pytest.mark.parametrize(
    ("path", "login", "kinds"),
    [
        (PIT_STREAM, ("pitboss", "pitboss-demo"), {"floor": floor_topic, "queue": queue_topic}),
        (DESK_STREAM, ("cashier", "cashier-demo"), {"desk": desk_topic, "queue": queue_topic}),
    ],
)
def test_a_stream_names_its_page_casinos_topics_and_passes_on_their_hints_only(
    seeded: None, asgi_server: AsgiServer, path: str, login: tuple[str, str], kinds: dict[str, Any]
) -> None:
    casino = staff_casino(login[0])
    other = CasinoFactory(code="other", name="Other Casino")
    response = open_stream(asgi_server, path, {"Cookie": session_cookie(*login)})
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    # One hint of each of its topics at once, each of the staff member's casino
    first = events(response, 2)
    assert {each["event"]: each["data"].split(" ")[0] for each in first} == {
        name: topic(casino.pk) for name, topic in kinds.items()
    }
    # Its own casino's hints reach it, each under its kind; the other casino's, hinted first, do
    # not (events come in order: the next one is its own)
    for name, topic in kinds.items():
        hinted(*(each(other.pk) for each in kinds.values()))
        hinted(topic(casino.pk))
        (moved,) = events(response, 1)
        assert moved["event"] == name
        assert moved["data"].startswith(f"{topic(casino.pk)} ")
    response.close()


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        (PIT_STREAM, ("dealer", "dealer-demo")),  # the floor needs supervise_pit
        (PIT_STREAM, ("cashier", "cashier-demo")),
        (DESK_STREAM, ("no-role", "x")),  # the desk: any of four permissions, which every role holds one of
    ],
)
def test_a_stream_is_refused_as_its_page_is(
    seeded: None, asgi_server: AsgiServer, path: str, refused: tuple[str, str]
) -> None:
    UserFactory(username="no-role")
    anonymous = open_stream(asgi_server, path, {})
    assert anonymous.status == 302  # to the login page, as the page itself
    assert anonymous.getheader("Location").startswith("/login/")
    anonymous.close()
    cookie = session_cookie(*refused)
    page = path.removesuffix("stream/")
    client = Client(headers={"Cookie": cookie})
    assert client.get(page).status_code == 403
    stream = open_stream(asgi_server, path, {"Cookie": cookie})
    assert stream.status == 403
    stream.close()


@pytest.mark.parametrize(
    ("page", "stream", "parts"),
    [
        (
            "/pit/",
            PIT_STREAM,
            {
                "floor": ("/pit/live/", "sse:floor, sse:queue, every 15s"),
                "queue": ("/pit/queue/live/", "sse:queue, every 15s"),
            },
        ),
        ("/pit/queue/", PIT_STREAM, {"queue": ("/pit/queue/live/", "sse:queue, every 15s")}),
        (
            "/accounting/slips/",
            DESK_STREAM,
            {"open-slips": ("/accounting/slips/live/", "sse:desk, every 15s")},
        ),
    ],
)
def test_a_live_page_follows_its_stream_and_its_parts_re_read_on_their_hints(
    seeded: None, page: str, stream: str, parts: dict[str, tuple[str, str]]
) -> None:
    client = Client()
    assert client.login(username="pitboss", password="pitboss-demo")
    html = client.get(page).content.decode()
    assert f'hx-ext="sse" sse-connect="{stream}"' in html
    assert '<noscript><meta http-equiv="refresh" content="15"></noscript>' in html
    for part, (live, trigger) in parts.items():
        found = re.search(
            rf'id="{part}" hx-get="{re.escape(live)}\?version=(\w+)" hx-trigger="([^"]+)"', html
        )
        assert found is not None, part
        assert found.group(2) == trigger
        # the re-read answers 204 while nothing changed
        assert client.get(live, {"version": found.group(1)}).status_code == 204
    # and the header's count re-reads itself on the queue's hints
    assert (
        '<a class="waiting" id="waiting-for-you" href="/pit/" hx-get="/waiting/" hx-trigger="sse:queue" '
        'hx-sync="this:replace" hx-disinherit="hx-sync" hx-swap="outerHTML">Waiting for you <span class="pill">0</span></a>'
    ) in html


def test_the_header_count_is_read_alone_and_is_live_only_on_a_page_with_a_stream(seeded: None) -> None:
    client = Client()
    assert client.get("/waiting/").status_code == 302
    assert client.login(username="pitboss", password="pitboss-demo")
    fragment = client.get("/waiting/", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert fragment.content.decode().strip() == (
        '<a class="waiting" id="waiting-for-you" href="/pit/" hx-get="/waiting/" hx-trigger="sse:queue" '
        'hx-sync="this:replace" hx-disinherit="hx-sync" hx-swap="outerHTML">Waiting for you <span class="pill">0</span></a>'
    )
    # a page without a stream shows the count as it is, with nothing to re-read it
    audit = client.get("/audit/").content.decode()
    assert "sse-connect" not in audit
    assert '<a class="waiting" id="waiting-for-you" href="/pit/">Waiting for you' in audit
    # the dealer console's stream carries its casino's queue: its header re-reads on it
    dealer = Client()
    assert dealer.login(username="dealer", password="dealer-demo")
    console = dealer.get("/dealer/tables/BJ1/").content.decode()
    assert (
        'id="waiting-for-you" href="/accounting/slips/" hx-get="/waiting/" hx-trigger="sse:queue"' in console
    )
