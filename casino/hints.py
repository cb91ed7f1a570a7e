"""Hints: after a commit, a short message that names what moved and its version
(``table:12 4182``), for the streams (``casino/streams.py``) to pass on to the screens and
terminals that show it. A hint carries no data: the screen re-reads its part, so a lost or a
doubled hint costs one request, never a wrong screen.

``hint(topic, ...)`` is called by the services that change what a screen shows, inside their
transaction; the topics are published once it commits (``transaction.on_commit``), never from
inside it, and never at all when it rolls back: a refusal publishes nothing.

Publishing happens on a thread of the process's own (the publisher), so that the request that
committed never waits for it, and it is coalesced: a topic is published at most once per
``HINTS_WINDOW_MS`` (250 ms: at most 4 hints a second per topic), the first change at once and
the changes that came during the window once, at its end. The window is one for all processes
on Redis (a key set with NX and an expiry, in the same script as the publication), one per process
otherwise.

The transport (``settings.HINTS_URL``):
- ``redis://...``: Redis pub/sub on the channel ``casino:hints``; the version of a topic is a
  Redis counter (``INCR``), so every process and stream agrees on it. Production: Redis runs
  already as Celery's broker.
- ``postgres``: PostgreSQL's NOTIFY on the channel ``casino_hints``, from a connection of the
  publisher's own in autocommit, one statement per coalesced hint and outside every money
  transaction (a notifying transaction takes an instance-wide lock at its commit: a bet's
  transaction never notifies). The embedded default of ``make run``: nothing else to run, and
  hints from every process (a management command, a worker) reach the streams.
- ``memory``: within this process only (the tests, and a single process serving everything).

Versions are compared for equality only (``casino/streams.py``): a stream passes a hint on when
its version differs from the last one it passed for that topic. On PostgreSQL and in memory the
version is this process's start token and a counter, unique without a shared store.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import redis
from django.conf import settings
from django.db import transaction

from casino.models import Table

logger = logging.getLogger(__name__)

REDIS_CHANNEL = "casino:hints"
POSTGRES_CHANNEL = "casino_hints"
REDIS_VERSION_KEY = "casino:hint-version:"
REDIS_GATE_KEY = "casino:hint-gate:"


# The topics. Each names one thing a screen shows; a stream (casino/streams.py) subscribes to the
# topics of the page it feeds, chosen on the server from what the person may see.
def table_topic(table_id: int) -> str:
    """A table's state: its round, bets, boxes, seats, shoe, dealer, configuration."""
    return f"table:{table_id}"


def floor_topic(casino_id: int) -> str:
    """The pit floor of a casino: any of its tables moved."""
    return f"floor:{casino_id}"


def table_topics(table: Table) -> tuple[str, str]:
    """What a change of a table moves: the table's screens and its casino's pit floor."""
    return table_topic(table.pk), floor_topic(table.casino_id)


def queue_topic(casino_id: int) -> str:
    """What waits for a decision or a signature in a casino (the pit's queue, the header's count)."""
    return f"queue:{casino_id}"


def desk_topic(casino_id: int) -> str:
    """The fills-and-credits desk of a casino: a slip requested, issued, received, or its void
    proposed or decided."""
    return f"desk:{casino_id}"


def player_topic(player_id: int) -> str:
    """A player's own bets, decisions due and balance."""
    return f"player:{player_id}"


def terminal_topic(terminal_id: int) -> str:
    """A terminal's credential: revoked, its streams close."""
    return f"terminal:{terminal_id}"


def session_topic(session_id: int) -> str:
    """A player's session at a terminal: ended, its streams close."""
    return f"session:{session_id}"


def job_topic(job_id: int) -> str:
    """A background job's progress."""
    return f"job:{job_id}"


class Pending:
    """The topics a transaction (at one savepoint level) hinted, marked for publication once at
    its commit: a command that takes several locks of one table publishes it once."""

    def __init__(self) -> None:
        self.topics: set[str] = set()

    def __call__(self) -> None:
        publisher().mark(sorted(self.topics))


def hint(*topics: str) -> None:
    """Publish ``topics`` once the current transaction commits (at once outside a transaction);
    nothing when it rolls back. The topics of one transaction go together: they join the
    callback it registered already at the same savepoint level (Django's ``run_on_commit``
    list, whose entries a rolled-back savepoint drops), else register one."""
    if not topics:
        return
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        level = set(connection.savepoint_ids)
        for savepoints, callback, _ in connection.run_on_commit:
            if isinstance(callback, Pending) and savepoints == level:
                callback.topics.update(topics)
                return
    pending = Pending()
    pending.topics.update(topics)
    transaction.on_commit(pending)


class Transport:
    """Where hints go: ``publish`` returns the version published, or None while the topic's
    window is still closed (``wait_ms`` then says for how long)."""

    def publish(self, topic: str) -> str | None:
        raise NotImplementedError

    def wait_ms(self, topic: str) -> int:
        raise NotImplementedError


class LocalWindow:
    """The coalescing window of one process: a topic opens again ``window_ms`` after it was last
    published."""

    def __init__(self, window_ms: int) -> None:
        self.window_ms = window_ms
        self.opens_at: dict[str, float] = {}
        self.boot = secrets.token_hex(3)
        self.counter = itertools.count(1)

    def take(self, topic: str) -> str | None:
        now = time.monotonic()
        if self.opens_at.get(topic, 0.0) > now:
            return None
        self.opens_at[topic] = now + self.window_ms / 1000
        if len(self.opens_at) > 10_000:  # forget windows long closed
            self.opens_at = {key: at for key, at in self.opens_at.items() if at > now}
        return f"{self.boot}.{next(self.counter)}"

    def wait_ms(self, topic: str) -> int:
        return max(1, int((self.opens_at.get(topic, 0.0) - time.monotonic()) * 1000) + 1)


# Receivers of hints within this process (the streams' hubs), for the memory transport.
local_receivers: list[Callable[[str, str], None]] = []


class MemoryTransport(Transport):
    def __init__(self, window_ms: int) -> None:
        self.window = LocalWindow(window_ms)

    def publish(self, topic: str) -> str | None:
        version = self.window.take(topic)
        if version is not None:
            for receive in list(local_receivers):
                receive(topic, version)
        return version

    def wait_ms(self, topic: str) -> int:
        return self.window.wait_ms(topic)


class PostgresTransport(Transport):
    """NOTIFY from a connection of the publisher's own (autocommit), one statement a hint. The
    statement is SQL because NOTIFY has no ORM form; it is not a shortcut of a path the ORM could
    take, so no bench stands behind it."""

    def __init__(self, window_ms: int) -> None:
        self.window = LocalWindow(window_ms)
        self.connection: psycopg.Connection[Any] | None = None

    def publish(self, topic: str) -> str | None:
        version = self.window.take(topic)
        if version is None:
            return None
        try:
            if self.connection is None or self.connection.closed:
                self.connection = postgres_connect()
            self.connection.execute("SELECT pg_notify(%s, %s)", (POSTGRES_CHANNEL, f"{topic} {version}"))
        except Exception:
            self.connection = None
            raise
        return version

    def wait_ms(self, topic: str) -> int:
        return self.window.wait_ms(topic)


# Sets the topic's window (NX, with its expiry) and, when it was open, counts the topic's version
# up and publishes it, in one round trip: the window is one for every process.
REDIS_PUBLISH = """
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  local version = redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], 86400)
  redis.call('PUBLISH', ARGV[2], ARGV[3] .. ' ' .. version)
  return version
end
return -math.max(redis.call('PTTL', KEYS[1]), 1)
"""


class RedisTransport(Transport):
    def __init__(self, url: str, window_ms: int) -> None:
        self.window_ms = window_ms
        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.script = self.client.register_script(REDIS_PUBLISH)
        self.waits: dict[str, int] = {}

    def publish(self, topic: str) -> str | None:
        keys = [REDIS_GATE_KEY + topic, REDIS_VERSION_KEY + topic]
        result = int(self.script(keys=keys, args=[self.window_ms, REDIS_CHANNEL, topic]))
        if result > 0:
            return str(result)
        self.waits[topic] = -result
        return None

    def wait_ms(self, topic: str) -> int:
        return self.waits.pop(topic, self.window_ms)


def postgres_parameters() -> dict[str, Any]:
    """How to open a connection of one's own to the application's database, in autocommit (the
    publisher's NOTIFY, the streams' LISTEN)."""
    database = settings.DATABASES["default"]
    return {
        "dbname": database["NAME"],
        "user": database.get("USER") or None,
        "password": database.get("PASSWORD") or None,
        "host": database.get("HOST") or None,
        "port": database.get("PORT") or None,
        "connect_timeout": 3,
        "autocommit": True,
    }


def postgres_connect() -> psycopg.Connection[Any]:
    """A connection of its own to the application's database, in autocommit."""
    return psycopg.connect(**postgres_parameters())


def transport_for(url: str, window_ms: int) -> Transport:
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisTransport(url, window_ms)
    if url == "postgres":
        return PostgresTransport(window_ms)
    if url == "memory":
        return MemoryTransport(window_ms)
    raise ValueError(f"HINTS_URL must be redis://..., postgres or memory, not {url!r}")


class Publisher:
    """The process's publishing thread: topics marked dirty by commits are published as soon as
    their window is open, each once however often it was marked meanwhile."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.dirty: set[str] = set()
        self.condition = threading.Condition()
        self.thread: threading.Thread | None = None
        self.published = 0

    def mark(self, topics: tuple[str, ...] | list[str]) -> None:
        with self.condition:
            self.dirty.update(topics)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self.run, name="hint-publisher", daemon=True)
                self.thread.start()
            self.condition.notify()

    def run(self) -> None:
        wait: float | None = None
        while True:
            with self.condition:
                if not self.dirty or wait is not None:
                    self.condition.wait(timeout=wait)
                topics = sorted(self.dirty)
            wait = self.publish(topics)

    def publish(self, topics: list[str]) -> float | None:
        """Publishes what it can; returns the seconds until the first closed window opens."""
        waits: list[int] = []
        for topic in topics:
            try:
                version = self.transport.publish(topic)
            except Exception:
                # Redis or PostgreSQL away: the screens' slow poll carries on; try again in a second.
                logger.warning("hint for %s not published", topic, exc_info=True)
                waits.append(1000)
                continue
            if version is None:
                waits.append(self.transport.wait_ms(topic))
                continue
            with self.condition:
                self.dirty.discard(topic)
            self.published += 1
        return min(waits) / 1000 if waits else None

    def flush(self, timeout: float = 5.0) -> bool:
        """Waits until nothing is left to publish (the tests); False on timeout."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            with self.condition:
                if not self.dirty:
                    return True
            time.sleep(0.005)
        return False


_publisher: Publisher | None = None
_publisher_lock = threading.Lock()


def publisher() -> Publisher:
    """This process's publisher, made on first use (after a fork: gunicorn's and Celery's workers
    each start their own thread)."""
    global _publisher
    with _publisher_lock:
        if _publisher is None:
            _publisher = Publisher(transport_for(settings.HINTS_URL, settings.HINTS_WINDOW_MS))
            # A process that ends soon after its last commit (a management command) publishes
            # what it hinted before it exits: the thread is a daemon, stopped at exit.
            atexit.register(_publisher.flush, 2.0)
        return _publisher


def publisher_reset() -> None:
    """Forget the publisher, so that the next hint makes one from the settings (the tests)."""
    global _publisher
    with _publisher_lock:
        _publisher = None
