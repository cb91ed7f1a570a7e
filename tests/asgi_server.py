"""The site served by uvicorn in a thread of the test process, as production serves the streams
(``casino/asgi.py``): the browser lane's ``live_server`` and the streams' tests use it. It reads the
test database (its name is set in the settings before the first request connects), and the hints
of this process (``HINTS_URL = "memory"``) reach its streams. With it, how a test opens a stream
and reads its events (``session_cookie``, ``open_stream``, ``events``, ``stream_status``)."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application
from django.test import Client
from django.test.utils import modify_settings


class AsgiServer:
    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(
            ASGIStaticFilesHandler(get_asgi_application()),
            host="127.0.0.1",
            port=self.port,
            # Streams still open at the end are cancelled: not worth a traceback.
            log_level="critical",
            lifespan="off",
            loop="asyncio",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="asgi-live-server", daemon=True)
        # What pytest-django's live_server helper enables for each test that uses it.
        self._live_server_modified_settings = modify_settings(ALLOWED_HOSTS={"append": "127.0.0.1"})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __str__(self) -> str:
        return self.url

    def start(self) -> None:
        self.thread.start()
        until = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > until or not self.thread.is_alive():
                raise RuntimeError("the ASGI test server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)


@pytest.fixture(scope="session")
def asgi_server() -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    server.stop()


def stream_lines(response: Any, *, until: float) -> Iterator[str]:
    """The lines of an event stream read from ``http.client``'s response, until ``until``
    (monotonic seconds); the socket's timeout bounds each read."""
    while time.monotonic() < until:
        try:
            line = response.readline()
        except TimeoutError:
            return
        if not line:
            return
        yield line.decode().rstrip("\n")


def session_cookie(username: str, password: str) -> str:
    client = Client()
    assert client.login(username=username, password=password)
    return f"sessionid={client.cookies['sessionid'].value}"


def session_cookie_of(user: Any) -> str:
    """The cookie of a session signed in as ``user`` (without its password)."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def open_stream(server: AsgiServer, path: str, headers: dict[str, str]) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3)
    connection.request("GET", path, headers={"Accept": "text/event-stream", **headers})
    return connection.getresponse()


def events(response: Any, count: int, seconds: float = 3.0) -> list[dict[str, str]]:
    """The next ``count`` events of the stream (comments and the retry line skipped)."""
    found: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in stream_lines(response, until=time.monotonic() + seconds):
        if line == "":
            if "event" in current:
                found.append(current)
                if len(found) == count:
                    return found
            current = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            current[name] = value
    return found


def stream_status(server: AsgiServer, path: str, cookie: str = "") -> int:
    """The status ``path``'s stream answers (the stream closed at once): 200, or the page's 302,
    403 or 404."""
    response = open_stream(server, path, {"Cookie": cookie} if cookie else {})
    response.close()
    return int(response.status)
