"""The streaming side of ``bench/live_updates.py``: uvicorn serving the streams (as production
does beside gunicorn), and many subscribers on one event loop of the bench's own, each reading
its server-sent events off a raw connection (HTTP/1.1, chunked), recording when each event
arrived."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def uvicorn_start(
    port: int, log: Any, *, workers: int = 1, environment: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """uvicorn with the calling bench's environment (settings module, database, hints URL), and
    ``environment`` over it."""
    command = [
        str(ROOT / ".venv/bin/python"),
        "-m",
        "uvicorn",
        "casino.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--no-access-log",
        "--lifespan",
        "off",
        "--backlog",
        "4096",
    ]
    return subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, **(environment or {})}, stdout=log, stderr=subprocess.STDOUT
    )


@dataclass
class Subscriber:
    """One stream: its path and headers, and every event it received (perf_counter, name, data)."""

    path: str
    headers: dict[str, str]
    events: list[tuple[float, str, str]] = field(default_factory=list)
    opened: float = 0.0
    status: int = 0
    error: str = ""
    on_event: Callable[[Subscriber, str, str], None] | None = None


async def _read_chunked(reader: asyncio.StreamReader, subscriber: Subscriber) -> None:
    buffer = b""
    while True:
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            return
        buffer += await reader.readexactly(size)
        await reader.readexactly(2)
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            name, data = "", ""
            for line in block.decode().split("\n"):
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
            if name:
                now = time.perf_counter()
                subscriber.events.append((now, name, data))
                if subscriber.on_event is not None:
                    subscriber.on_event(subscriber, name, data)


async def subscribe(port: int, subscriber: Subscriber) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 16)
        head = "".join(f"{name}: {value}\r\n" for name, value in subscriber.headers.items())
        writer.write(
            f"GET {subscriber.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{head}\r\n".encode()
        )
        status_line = await reader.readline()
        subscriber.status = int(status_line.split()[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        subscriber.opened = time.perf_counter()
        if subscriber.status != 200:
            subscriber.error = f"status {subscriber.status}"
            writer.close()
            return
        await _read_chunked(reader, subscriber)
    except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
        subscriber.error = repr(error)


class Loop:
    """An event loop on a thread of its own, holding the subscribers' streams."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bench-streams", daemon=True)
        self.thread.start()
        self.tasks: list[asyncio.Task[None]] = []

    def open(self, port: int, subscribers: list[Subscriber], *, at_once: int = 50) -> float:
        """Opens every stream, ``at_once`` connecting together; returns the seconds it took until
        each had its answer's headers."""
        started = time.perf_counter()

        async def opener() -> None:
            gate = asyncio.Semaphore(at_once)

            async def one(subscriber: Subscriber) -> None:
                async with gate:
                    task = asyncio.get_running_loop().create_task(subscribe(port, subscriber))
                    self.tasks.append(task)
                    while not subscriber.opened and not subscriber.error and not task.done():
                        await asyncio.sleep(0.002)

            await asyncio.gather(*(one(subscriber) for subscriber in subscribers))

        asyncio.run_coroutine_threadsafe(opener(), self.loop).result()
        return time.perf_counter() - started

    def close(self) -> None:
        async def cancel() -> None:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(timeout=300)
        self.tasks.clear()

    def stop(self) -> None:
        self.close()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
