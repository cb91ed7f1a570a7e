"""The streams of the live screens (casino/streams.py) under the ASGI server, fed by the hints
published after a commit (casino/hints.py)."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
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


def test_a_live_page_reloads_itself_without_javascript(seeded: None) -> None:
    client = Client()
    client.force_login(User.objects.get(username="dealer"))
    page = client.get("/dealer/tables/BJ1/").content.decode()
    assert 'sse-connect="/dealer/tables/BJ1/stream/"' in page
    assert '<noscript><meta http-equiv="refresh" content="15"></noscript>' in page


def test_an_open_stream_holds_no_thread_and_no_database_connection(
    seeded: None, asgi_server: AsgiServer
) -> None:
    """Thirty open streams: the threads of this process and the connections to the test database
    are as many as before (the view's thread and connection are let go once the stream starts)."""

    def held() -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
            return threading.active_count(), cursor.fetchone()[0]

    cookie = session_cookie("dealer", "dealer-demo")
    before = held()
    responses = [
        open_stream(asgi_server, "/dealer/tables/BJ1/stream/", {"Cookie": cookie}) for _ in range(30)
    ]
    for response in responses:
        assert events(response, 2)  # open: its first hints arrived
    time.sleep(0.5)
    threads, database = held()
    assert threads <= before[0] + 2, (before, threads)
    assert database <= before[1] + 2, (before, database)
    for response in responses:
        response.close()
