"""The streams of the live screens (casino/streams.py) under the ASGI server, fed by the hints
published after a commit (casino/hints.py)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client

from casino.hints import hint, publisher, table_topic
from casino.models import Table
from tests.asgi_server import AsgiServer, events, open_stream, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def test_console_stream_sends_a_hint_at_once_then_each_committed_change(
    seeded: None, asgi_server: AsgiServer
) -> None:
    table = Table.objects.get(name="BJ1")
    cookie = session_cookie("dealer", "dealer-demo")
    response = open_stream(asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie})
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    first = events(response, 2)
    assert {each["event"] for each in first} == {"table", "queue"}
    with transaction.atomic():
        hint(table_topic(table.pk))
    assert publisher().flush()
    (moved,) = events(response, 1)
    assert moved["event"] == "table"
    assert moved["data"].startswith(f"table:{table.pk} ")
    assert f"table:{table.pk}=" in moved["id"]
    response.close()


def test_a_rolled_back_transaction_hints_nothing(seeded: None, asgi_server: AsgiServer) -> None:
    table = Table.objects.get(name="BJ1")
    cookie = session_cookie("dealer", "dealer-demo")
    response = open_stream(asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie})
    events(response, 2)
    with pytest.raises(RuntimeError), transaction.atomic():
        hint(table_topic(table.pk))
        raise RuntimeError("refused")
    assert events(response, 1, seconds=1.0) == []
    response.close()


def test_a_resumed_stream_sends_only_what_moved_meanwhile(seeded: None, asgi_server: AsgiServer) -> None:
    table = Table.objects.get(name="BJ1")
    cookie = session_cookie("dealer", "dealer-demo")
    with transaction.atomic():
        hint(table_topic(table.pk))
    assert publisher().flush()
    response = open_stream(asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie})
    last = events(response, 2)[-1]["id"]
    response.close()
    # Back with what it had seen: nothing moved, nothing sent.
    response = open_stream(
        asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie, "Last-Event-ID": last}
    )
    assert events(response, 1, seconds=1.0) == []
    response.close()
    # The table moved while the stream was away: one hint for it, none for the queue.
    time.sleep(0.3)  # past the coalescing window
    with transaction.atomic():
        hint(table_topic(table.pk))
    assert publisher().flush()
    response = open_stream(
        asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie, "Last-Event-ID": last}
    )
    (moved,) = events(response, 2, seconds=1.0)
    assert moved["event"] == "table"
    response.close()


def test_a_stream_checks_the_page_permission_and_the_casino(seeded: None, asgi_server: AsgiServer) -> None:
    anonymous = open_stream(asgi_server, "/dealer/tables/BJ1/stream/", {})
    assert anonymous.status == 302  # to the login page, as the console itself
    anonymous.close()
    auditor = open_stream(
        asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": session_cookie("auditor", "auditor-demo")}
    )
    assert auditor.status == 403
    auditor.close()
    elsewhere = open_stream(
        asgi_server, "/dealer/tables/NO-SUCH/stream/", {"Cookie": session_cookie("dealer", "dealer-demo")}
    )
    assert elsewhere.status == 404
    elsewhere.close()


def test_under_wsgi_a_stream_is_refused_and_the_page_polls(seeded: None) -> None:
    client = Client()
    client.force_login(User.objects.get(username="dealer"))
    response = client.get("/dealer/tables/BJ1/stream/")
    assert response.status_code == 503
    assert b"streams_not_served_here" in response.content
