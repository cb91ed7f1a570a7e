"""Observing hints (casino/hints.py) in a test: the ``hints_received`` fixture (what this
process's memory transport delivers while the test runs) and ``hinted_by``, the topics one
command published once committed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings

from casino import hints


def hints_quiet() -> None:
    """Nothing left to publish, and every topic's window closed: a hint marked next is published
    at once."""
    assert hints.publisher().flush()
    time.sleep(settings.HINTS_WINDOW_MS / 1000 + 0.05)


@pytest.fixture
def hints_received() -> Iterator[list[tuple[str, str]]]:
    """The hints (topic, version) this process's memory transport delivers while the test runs;
    what earlier tests left to publish is published first, unheard."""
    heard: list[tuple[str, str]] = []
    lock = threading.Lock()

    def receive(topic: str, version: str) -> None:
        with lock:
            heard.append((topic, version))

    hints.publisher().flush()
    hints.publisher_reset()
    hints.local_receivers.append(receive)
    yield heard
    hints.publisher().flush()
    hints.local_receivers.remove(receive)
    hints.publisher_reset()


def topics_of(heard: list[tuple[str, str]]) -> list[str]:
    return [topic for topic, _ in heard]


def hinted_by(heard: list[tuple[str, str]], command: Callable[[], Any]) -> set[str]:
    """The topics published while ``command()`` ran and once it committed (or rolled back): the
    hints of what came before are published and forgotten first."""
    hints_quiet()
    heard.clear()
    try:
        command()
    finally:
        time.sleep(0.05)
        assert hints.publisher().flush()
    return set(topics_of(heard))
