"""Hints (casino/hints.py): published after the commit and never on a rollback, coalesced to at
most one per topic and window, through each transport (in memory, PostgreSQL's NOTIFY, Redis)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import transaction

from casino import hints
from casino.hints import (
    POSTGRES_CHANNEL,
    REDIS_CHANNEL,
    MemoryTransport,
    PostgresTransport,
    Publisher,
    RedisTransport,
    hint,
    postgres_connect,
    table_topic,
)
from casino.models import Table
from tables.services import bet_place
from tests.factories import staff_user
from tests.hints import topics_of
from tests.tables.conftest import alice_betting, at_terminal, funded_player, refused

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_hint_is_published_after_the_commit_and_not_before(hints_received: list[tuple[str, str]]) -> None:
    with transaction.atomic():
        hint("table:1")
        time.sleep(0.05)
        assert hints_received == []
    assert hints.publisher().flush()
    assert topics_of(hints_received) == ["table:1"]


def test_the_topics_of_one_transaction_are_published_once_and_a_rolled_back_savepoint_drops_its_own(
    hints_received: list[tuple[str, str]],
) -> None:
    with transaction.atomic():
        hint("table:1", "floor:1")
        hint("table:1")
        with pytest.raises(RuntimeError), transaction.atomic():
            hint("table:2")
            raise RuntimeError("refused")
        hint("floor:1", "player:3")
    assert hints.publisher().flush()
    assert sorted(topics_of(hints_received)) == ["floor:1", "player:3", "table:1"]


def test_a_rolled_back_transaction_publishes_nothing(hints_received: list[tuple[str, str]]) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        hint("table:1")
        raise RuntimeError("refused")
    time.sleep(0.05)
    assert hints.publisher().flush()
    assert hints_received == []


def test_a_burst_is_coalesced_to_one_hint_per_window_with_the_last_change_published() -> None:
    heard: list[float] = []

    class Counting(MemoryTransport):
        def publish(self, topic: str) -> str | None:
            version = super().publish(topic)
            if version is not None:
                heard.append(time.monotonic())
            return version

    publisher = Publisher(Counting(250))
    started = time.monotonic()
    marks = 0
    while time.monotonic() - started < 1.0:  # about a thousand changes in one second
        publisher.mark(["table:1"])
        marks += 1
        time.sleep(0.001)
    assert publisher.flush(timeout=2)
    assert marks > 500
    # The first at once, then one per 250 ms window: at most 4 in a second, plus the trailing one.
    assert 4 <= len(heard) <= 6
    assert heard[0] - started < 0.05
    gaps = [later - earlier for earlier, later in itertools.pairwise(heard)]
    assert min(gaps) >= 0.24
    assert heard[-1] >= started + 1.0  # the changes of the last window were published too


def test_a_bet_and_a_refused_bet(hints_received: list[tuple[str, str]], seeded: None) -> None:
    """A bet hints its table, the pit floor and its player once committed; a refused one hints
    nothing."""
    table = Table.objects.get(name="BJ1")
    dealer = staff_user("dealer", "dealer-hints")
    alice, round_ = alice_betting(table, dealer)
    assert hints.publisher().flush()
    time.sleep(0.3)  # past the window
    hints_received.clear()
    bob = funded_player(table, 10_000)
    as_bob = at_terminal(table, bob)
    bet_place(
        round_id=round_.pk, actor=as_bob, box_number=1, kind="behind", stake_minor=500, idempotency_key="b"
    )
    assert hints.publisher().flush()
    assert set(topics_of(hints_received)) == {
        table_topic(table.pk),
        f"floor:{table.casino_id}",
        f"player:{bob.pk}",
    }
    time.sleep(0.3)
    hints_received.clear()
    refused(
        "stake_above_table_max",
        bet_place,
        round_id=round_.pk,
        actor=as_bob,
        box_number=1,
        kind="behind",
        stake_minor=10**9,
        idempotency_key="c",
    )
    time.sleep(0.05)
    assert hints.publisher().flush()
    assert hints_received == []
    del alice


def test_postgres_notify_after_the_commit(transactional_db: Any) -> None:
    listener = postgres_connect()
    listener.execute(f"LISTEN {POSTGRES_CHANNEL}")
    transport = PostgresTransport(250)
    version = transport.publish("table:7")
    assert version is not None
    assert transport.publish("table:7") is None  # within its window
    assert transport.wait_ms("table:7") > 0
    notices = list(listener.notifies(timeout=2, stop_after=1))
    assert [notice.payload for notice in notices] == [f"table:7 {version}"]
    listener.close()
    assert isinstance(transport.connection, psycopg.Connection)
    assert transport.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


REDIS_URL = os.environ.get("HINTS_TEST_REDIS_URL") or os.environ.get("CELERY_BROKER_URL", "")


@pytest.mark.skipif(not REDIS_URL.startswith("redis://"), reason="no Redis (CELERY_BROKER_URL) to publish on")
def test_redis_one_window_for_every_process_and_one_counter(transactional_db: Any) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    topic = f"table:test-{os.getpid()}-{time.monotonic_ns()}"
    pubsub = client.pubsub()
    pubsub.subscribe(REDIS_CHANNEL)
    pubsub.get_message(timeout=1)  # the subscription's confirmation
    one, other = RedisTransport(REDIS_URL, 250), RedisTransport(REDIS_URL, 250)  # two processes
    first = one.publish(topic)
    assert first is not None
    assert other.publish(topic) is None  # the window is shared
    assert 0 < other.wait_ms(topic) <= 250
    time.sleep(0.3)
    second = other.publish(topic)
    assert second is not None and int(second) == int(first) + 1
    payloads = []
    until = time.monotonic() + 2
    while len(payloads) < 2 and time.monotonic() < until:
        message = pubsub.get_message(timeout=0.5)
        if message and message["type"] == "message" and message["data"].decode().startswith(topic):
            payloads.append(message["data"].decode())
    assert payloads == [f"{topic} {first}", f"{topic} {second}"]
    pubsub.close()


def test_a_process_that_ends_after_its_commit_publishes_its_hints_first(transactional_db: Any) -> None:
    """A management command that ends right after its last commit: its hints are published
    before the process exits (PostgreSQL's NOTIFY, heard here)."""
    listener = postgres_connect()
    listener.execute(f"LISTEN {POSTGRES_CHANNEL}")
    database = settings.DATABASES["default"]
    url = (
        f"postgres://{database['USER'] or ''}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
        f"/{database['NAME']}"
    )
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.development",
        "DATABASE_URL": url,
        "HINTS_URL": "postgres",
    }
    script = "import django; django.setup(); from casino.hints import hint; hint('table:4242')"
    subprocess.run([sys.executable, "-c", script], env=environment, check=True, timeout=60)
    notices = list(listener.notifies(timeout=2, stop_after=1))
    assert [notice.payload.split(" ")[0] for notice in notices] == ["table:4242"]
    listener.close()
