"""Two commands made to meet at their locks: real transactions on PostgreSQL, one thread and one
connection each, the first held at a chosen point until the second waits on a lock (or has
ended). A deadlock between them surfaces as psycopg's ``DeadlockDetected`` in one result."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connections, transaction

from tests.wallet.conftest import waiting_on_locks


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)


class Worker(threading.Thread):
    """A thread with its own database connection; ``result`` is the return value or the error."""

    def __init__(self, call: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.call = call
        self.result: Any = None

    def run(self) -> None:
        try:
            self.result = self.call()
        except BaseException as error:  # reported by the test
            self.result = error
        finally:
            connections.close_all()

    def finished(self) -> bool:
        return not self.is_alive()


def _meet(one: Worker, start_second: Callable[[], Worker], release: threading.Event) -> tuple[Any, Any]:
    two = start_second()
    _until(lambda: waiting_on_locks() >= 1 or two.finished())
    release.set()
    one.join(60)
    two.join(60)
    assert one.finished() and two.finished(), "a command still waits after 60 s"
    return one.result, two.result


def _started(call: Callable[[], Any]) -> Worker:
    worker = Worker(call)
    worker.start()
    return worker


def committing_while(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
    """Run ``first`` in a transaction whose commit waits until ``second``, started meanwhile,
    waits on a lock (or has ended). ``first`` holds the audit chain until then, and its commit
    makes the foreign-key checks of the rows it wrote (Django's are deferred to the commit).
    Returns both results (a value or the error)."""
    written, release = threading.Event(), threading.Event()

    def first_then_commit() -> Any:
        with transaction.atomic():
            result = first()
            written.set()
            assert release.wait(30)
        return result

    one = _started(first_then_commit)
    assert written.wait(30)
    return _meet(one, lambda: _started(second), release)


def paused_before(
    monkeypatch: Any, module: Any, name: str, first: Callable[[], Any], second: Callable[[], Any]
) -> tuple[Any, Any]:
    """Run ``first`` until it calls ``module.name`` (what it locked before held), then ``second``
    until it waits on a lock (or has ended), then let ``first`` go on. Only the first call of
    ``module.name`` pauses: ``second`` may call it too. Returns both results."""
    real = getattr(module, name)
    reached, release = threading.Event(), threading.Event()

    def paused(*args: Any, **kwargs: Any) -> Any:
        if not reached.is_set():
            reached.set()
            assert release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, paused)
    one = _started(first)
    assert reached.wait(30)
    return _meet(one, lambda: _started(second), release)


def no_error(*results: Any) -> None:
    errors = [result for result in results if isinstance(result, BaseException)]
    assert errors == [], errors
