"""The web process of the benches that go through a real server (``api_bets.py``,
``live_updates.py``): gunicorn from the venv with ``deploy/gunicorn.conf.py`` on a free local
port, with the environment of the calling bench (its settings module and scratch database)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def gunicorn_start(port: int, log: Any, *, workers: int, threads: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_THREADS": str(threads),
    }
    command = [str(ROOT / ".venv/bin/gunicorn"), "-c", "deploy/gunicorn.conf.py", "casino.wsgi:application"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
