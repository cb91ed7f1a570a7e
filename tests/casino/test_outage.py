"""A database outage answers 503 with Retry-After (problem+json under /api/, a short page
elsewhere) and logs one line per request, no traceback (casino/outage.py).

The outage is real: the connection points at a port where nothing listens, so every statement
fails as it does while PostgreSQL is down or restarting (psycopg's "connection refused")."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError, connection, transaction
from django.test import Client

from casino.outage import is_database_outage

PAGE_503 = "The back office cannot reach its database just now."


def _port_nobody_listens_on() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def database_down(django_db_blocker: Any) -> Iterator[None]:
    """The default connection pointed at a closed port for the test, then back."""
    with django_db_blocker.unblock():
        connection.close()
        saved = dict(connection.settings_dict)
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(_port_nobody_listens_on()))
        try:
            yield
        finally:
            connection.close()
            connection.settings_dict.clear()
            connection.settings_dict.update(saved)


def _logged(caplog: Any) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_an_api_request_answers_503_problem_with_retry_after_and_one_log_line(database_down, caplog):
    # Given: the database refuses connections; when: a terminal asks who it is
    with caplog.at_level(logging.INFO):
        response = Client().get("/api/v1/terminal/", headers={"Authorization": "Terminal " + "x" * 43})

    # Then: 503, a problem saying so, when to try again; one line logged, no traceback
    assert response.status_code == 503
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "5"
    assert response.json() == {
        "type": "about:blank#database_unavailable",
        "title": "Service unavailable",
        "status": 503,
        "code": "database_unavailable",
        "detail": "The database is not answering; send the request again in a few seconds.",
    }
    [line] = _logged(caplog)
    assert (line.name, line.levelname, line.exc_info) == ("django.request", "ERROR", None)
    assert line.getMessage().startswith("Service Unavailable (database: connection failed: ")
    assert line.getMessage().endswith(": /api/v1/terminal/")


def test_a_page_whose_session_cannot_be_read_answers_the_503_page(database_down, caplog):
    # Given: a signed-in member's session cookie; the session is read by a middleware, before any
    # view, so the answer comes from the 500 handler (which the test client would re-raise)
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "a" * 32

    with caplog.at_level(logging.INFO):
        response = client.get("/pit/?day=2026-12-04")

    page = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"].startswith("text/html")
    assert PAGE_503 in page
    assert '<meta http-equiv="refresh" content="5">' in page
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert 'href="/pit/?day=2026-12-04">Try again</a>' in page
    [line] = _logged(caplog)
    assert line.exc_info is None
    assert line.getMessage().endswith(": /pit/")


def test_a_form_sent_during_an_outage_answers_the_503_page_without_sending_it_again(database_down, caplog):
    # Given: the login form, whose view asks the database for the member
    with caplog.at_level(logging.INFO):
        response = Client().post("/login/", {"username": "pitboss", "password": "pitboss-demo"})

    page = response.content.decode()
    assert response.status_code == 503
    assert PAGE_503 in page
    assert "http-equiv" not in page
    assert 'href="/">Back to your pages</a>' in page
    [line] = _logged(caplog)
    assert (line.exc_info, line.getMessage().endswith(": /login/")) == (None, True)


def test_a_statement_the_database_refuses_is_no_outage(db):
    # Given: a statement cancelled by its timeout, a real driver error of a database that answers
    with pytest.raises(OperationalError) as cancelled, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 1")
        cursor.execute("SELECT pg_sleep(1)")

    assert cancelled.value.__cause__.sqlstate == "57014"
    assert not is_database_outage(cancelled.value)


def test_a_refused_connection_is_an_outage(database_down):
    with pytest.raises(OperationalError) as refused:
        connection.ensure_connection()

    assert refused.value.__cause__.sqlstate is None
    assert is_database_outage(refused.value)


def test_the_api_schema_documents_the_outage_answer_of_every_operation(db):
    schema = Client().get("/api/schema/", {"format": "json"}).json()

    operations = [operation for path in schema["paths"].values() for operation in path.values()]
    assert operations
    for operation in operations:
        answer = operation["responses"]["503"]
        assert "database_unavailable" in answer["description"]
        assert "Retry-After" in answer["headers"]
        assert list(answer["content"]) == ["application/problem+json"]
