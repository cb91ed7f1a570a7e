"""Streams: server-sent events that pass the hints (``casino/hints.py``) on to the screens and
terminals, served by the ASGI server.

A stream view is an ordinary view with the same checks as the page or the API view it feeds
(the staff page's permission and casino, the terminal's credential and the player's token); it
names the topics the person may follow and returns ``hint_stream(...)``, whose body is an
asynchronous generator: under the ASGI server it holds no thread while it waits.

Each event is one hint::

    id: table:12=4182 queue:1=77
    event: table
    data: table:12 4182

``event`` is the kind of topic, so that a page's parts each re-read on their own kind
(``hx-trigger="sse:table"``); ``id`` holds the last version the stream passed on of each of its
topics, so that a browser that lost the stream and comes back with ``Last-Event-ID`` gets, at
once, one hint for each topic that moved meanwhile and none for the others. A stream opened without
it gets one hint for each topic at once: something may have moved between the page's drawing and
the stream's start. A version is passed on only when it differs from the last one passed for its
topic, so a doubled publication is dropped here; the re-read itself carries the version the screen
shows and is answered 204 when nothing changed.

A stream closes itself after ``HINTS_STREAM_SECONDS`` (the browser reconnects after ``retry`` with
``Last-Event-ID``, and the view's checks run again), and as soon as one of its control topics is
hinted (a credential revoked, a session ended) and its ``still_allowed`` check fails then: it sends
``event: closed`` with the refusal's code first. A comment line every ``HINTS_KEEPALIVE_SECONDS``
keeps proxies from closing an idle stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
from collections.abc import AsyncIterator, Callable

import psycopg
import redis.asyncio
from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse

from casino import hints

logger = logging.getLogger(__name__)


class Hub:
    """The hints received by this process, passed to the streams subscribed to their topics. One
    per event loop; it listens to the transport (Redis, PostgreSQL or this process) from a task
    of its own, started with the first stream."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queues: dict[str, set[asyncio.Queue[tuple[str, str]]]] = {}
        self.latest: dict[str, str] = {}
        self.listener: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        # The version a stream shows for a topic this hub has had no hint of since it started.
        self.unknown = f"open.{random.getrandbits(32):x}"

    def start(self) -> None:
        if self.listener is None:
            url = settings.HINTS_URL
            if url == "memory":
                hints.local_receivers.append(self.receive_threadsafe)
                self.connected.set()
                self.listener = self.loop.create_task(asyncio.sleep(0))
            else:
                self.listener = self.loop.create_task(self.listen(url))

    def receive_threadsafe(self, topic: str, version: str) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.receive, topic, version)

    def receive(self, topic: str, version: str) -> None:
        self.latest[topic] = version
        for queue in self.queues.get(topic, ()):
            queue.put_nowait((topic, version))

    def resync(self) -> None:
        """After the listener lost its connection: hints may have been lost meanwhile, so every
        stream gets one for each of its topics (each screen re-reads once)."""
        token = f"resync.{random.getrandbits(32):x}"
        for topic in list(self.queues):
            self.latest.pop(topic, None)
            self.receive(topic, token)

    async def listen(self, url: str) -> None:
        first = True
        while True:
            try:
                if url == "postgres":
                    await self.listen_postgres(first)
                else:
                    await self.listen_redis(url, first)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("hint listener lost its connection; reconnecting", exc_info=True)
            self.connected.clear()
            first = False
            await asyncio.sleep(1)

    def listening(self, first: bool) -> None:
        self.connected.set()
        if not first:
            self.resync()

    async def listen_redis(self, url: str, first: bool) -> None:
        client = redis.asyncio.Redis.from_url(url, socket_connect_timeout=2)
        try:
            pubsub = client.pubsub()
            await pubsub.subscribe(hints.REDIS_CHANNEL)
            self.listening(first)
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    self.receive(*message["data"].decode().split(" ", 1))
        finally:
            await client.aclose()

    async def listen_postgres(self, first: bool) -> None:
        connection = await psycopg.AsyncConnection.connect(**hints.postgres_parameters())
        async with connection:
            await connection.execute(f"LISTEN {hints.POSTGRES_CHANNEL}")
            self.listening(first)
            async for notice in connection.notifies():
                self.receive(*notice.payload.split(" ", 1))

    def subscribe(self, topics: list[str]) -> asyncio.Queue[tuple[str, str]]:
        self.start()
        queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        for topic in topics:
            self.queues.setdefault(topic, set()).add(queue)
        return queue

    def unsubscribe(self, topics: list[str], queue: asyncio.Queue[tuple[str, str]]) -> None:
        for topic in topics:
            subscribers = self.queues.get(topic)
            if subscribers is not None:
                subscribers.discard(queue)
                if not subscribers:
                    del self.queues[topic]

    @property
    def streams(self) -> int:
        return len({id(queue) for queues in self.queues.values() for queue in queues})


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}
_hubs_lock = threading.Lock()


def hub() -> Hub:
    """The hub of the running event loop."""
    loop = asyncio.get_running_loop()
    with _hubs_lock:
        for other in [other for other in _hubs if other.is_closed()]:
            closed = _hubs.pop(other)
            if closed.receive_threadsafe in hints.local_receivers:
                hints.local_receivers.remove(closed.receive_threadsafe)
        if loop not in _hubs:
            _hubs[loop] = Hub(loop)
        return _hubs[loop]


def last_event_versions(header: str) -> dict[str, str]:
    """``Last-Event-ID`` back into the versions it holds (``table:12=4182 queue:1=77``)."""
    versions = {}
    for part in header.split():
        topic, _, version = part.partition("=")
        if topic and version:
            versions[topic] = version
    return versions


def event(name: str, topic: str, version: str, shown: dict[str, str]) -> str:
    ident = " ".join(f"{key}={value}" for key, value in sorted(shown.items()))
    return f"id: {ident}\nevent: {name}\ndata: {topic} {version}\n\n"


def streams_served(request: HttpRequest) -> bool:
    """Whether ``request`` came through the ASGI server, the only one that holds a stream without
    holding a thread. The terminal API asks first, to refuse as problem+json."""
    return isinstance(request, ASGIRequest)


def hint_stream(
    request: HttpRequest,
    topics: dict[str, str],
    *,
    controls: list[str] | None = None,
    still_allowed: Callable[[], str | None] | None = None,
) -> HttpResponseBase:
    """The stream of ``topics`` (``{topic: event name}``). ``controls`` are topics whose hints
    make the stream run ``still_allowed`` (in a thread), which returns a refusal's code when the
    stream must close, else None. Under WSGI (gunicorn, the test client) a stream cannot be held
    without holding a thread: it answers 503 with the code ``streams_not_served_here``, and the
    page polls."""
    if not streams_served(request):
        response = HttpResponse(
            "streams_not_served_here: the streams are served by the ASGI server\n",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = "15"
        return response
    resumed = last_event_versions(request.headers.get("Last-Event-ID", ""))
    stream = StreamingHttpResponse(
        stream_events(topics, controls or [], still_allowed, resumed),
        content_type="text/event-stream",
    )
    stream["Cache-Control"] = "no-cache, no-store"
    stream["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
    return stream


async def release_request_thread() -> None:
    """Let go of the thread and the database connection the stream's view used.

    Under ASGI, Django runs a request's synchronous code (its middleware, the view) in a thread of
    the request's own (asgiref's executor of the request's ``ThreadSensitiveContext``), kept until
    the request ends: for a stream, as long as it is open, idle, with the view's PostgreSQL
    connection open in it. Ten thousand streams would hold ten thousand threads and connections.
    Once the stream starts, the view and the middleware are done: the thread's connections are
    closed in it and the executor is shut down; what the request runs synchronously later (Django
    closing the response) gets a new one, which the request's end shuts down as usual."""
    await sync_to_async(connections.close_all)()
    context = SyncToAsync.thread_sensitive_context.get(None)
    executor = SyncToAsync.context_to_thread_executor.pop(context, None) if context is not None else None
    if executor is not None:
        executor.shutdown(wait=False)


def checked(still_allowed: Callable[[], str | None]) -> Callable[[], str | None]:
    """``still_allowed`` run in a thread of the shared pool, its database connection closed after."""

    def check() -> str | None:
        try:
            return still_allowed()
        finally:
            connections.close_all()

    return check


async def stream_events(
    topics: dict[str, str],
    controls: list[str],
    still_allowed: Callable[[], str | None] | None,
    resumed: dict[str, str],
) -> AsyncIterator[str]:
    the_hub = hub()
    watched = list(topics) + [topic for topic in controls if topic not in topics]
    queue = the_hub.subscribe(watched)
    lifetime = settings.HINTS_STREAM_SECONDS * random.uniform(0.8, 1.0)
    keepalive = settings.HINTS_KEEPALIVE_SECONDS
    check = (
        sync_to_async(checked(still_allowed), thread_sensitive=False) if still_allowed is not None else None
    )
    try:
        await release_request_thread()
        yield f"retry: {settings.HINTS_RETRY_MS}\n\n"
        # The listener away: the first hints below make the screen re-read anyway.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(the_hub.connected.wait(), timeout=2)
        shown: dict[str, str] = {}
        for topic in topics:
            latest = the_hub.latest.get(topic, the_hub.unknown)
            if resumed.get(topic) == latest:
                shown[topic] = latest
        for topic, name in topics.items():
            if topic not in shown:
                shown[topic] = the_hub.latest.get(topic, the_hub.unknown)
                yield event(name, topic, shown[topic], shown)
        deadline = asyncio.get_running_loop().time() + lifetime
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return
            try:
                topic, version = await asyncio.wait_for(queue.get(), timeout=min(keepalive, remaining))
            except TimeoutError:
                yield ":\n\n"
                continue
            if topic in controls and check is not None:
                refused = await check()
                if refused:
                    yield f"event: closed\ndata: {refused}\n\n"
                    return
            if topic in topics and shown.get(topic) != version:
                shown[topic] = version
                yield event(topics[topic], topic, version, shown)
    finally:
        the_hub.unsubscribe(watched, queue)
