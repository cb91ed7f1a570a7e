"""The scratch database of a bench script: on the PostgreSQL server ``DATABASE_URL`` names, a
database of the script's own (``BENCH_DATABASE`` names another), so that a bench never touches the
database in the URL. Imported by the scripts (``make bench`` does not run it)."""

from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit, urlunsplit


def scratch_database_url(script: str, default_name: str, *, fresh: bool = False) -> str:
    """The URL of the script's scratch database, created when missing (dropped first when
    ``fresh``). Exits with a message naming the script when ``DATABASE_URL`` is not PostgreSQL."""
    server = os.environ.get("DATABASE_URL", "")
    if not server.startswith(("postgres://", "postgresql://")):
        sys.exit(
            f"bench/{script} needs DATABASE_URL=postgres://... (it uses its own database on that server)"
        )
    import psycopg

    name = os.environ.get("BENCH_DATABASE", default_name)
    parts = urlsplit(server)
    admin = urlunsplit(parts._replace(path="/postgres")).replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as connection:
        if fresh:
            connection.execute(f"DROP DATABASE IF EXISTS {name}")
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            connection.execute(f"CREATE DATABASE {name}")
    return urlunsplit(parts._replace(path=f"/{name}"))
