"""The venue's hand-written SQL: the statements measured to save more than a tenth of their path
against their plain ORM equivalent, and the advisory locks, which the ORM cannot say.

Figures of bench/raw_sql.py (``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino
.venv/bin/python bench/raw_sql.py bet console_poll``, 2026-12-04, the 2-core development machine
shared with other work, PostgreSQL 15 on it): the median over 7 interleaved blocks of each
block's median of 40 requests; wall milliseconds, these statements / their ORM shape, the ratio,
what the statements save of the ORM's path; CPU of the request's thread.

- ``credential_with_terminal`` and ``session_with_player``: every terminal request authenticates,
  its credential with the terminal and the terminal's table, and a player's session with the
  player and the player's casino, one statement each (ORM: ``select_related(...).first()``). A
  terminal's bet behind through the API: 17.80 / 23.19 ms, 1.30, saves 23%; CPU 5.61 / 7.70 ms.
  The rows become model instances through ``Model.from_db``, Django's own loading; none of these
  models has a field whose value needs a converter (a JSON field would).
- ``staff_member_read``: the signed-in member with their permission names and role names, in one
  statement (``casino.auth_backends``; ORM: ``ModelBackend.get_user``, then the permissions and
  the role queried when a page asks). The dealer console's live poll (204): 8.30 / 10.36 ms,
  1.25, saves 20%; CPU 3.96 / 4.82 ms.

Tables are named from their models (``_meta.db_table``), never by hand: the venue reads the
terminal's table through the terminal's foreign key. The request idempotency record is written
through the ORM (``casino.idempotency``): its hand-written insert and response update saved 6%
(10% in a second run) and 6% of a bet (docs/benchmarks.md); only the lock taken without waiting
for a request in flight stays here (``idempotency_key_lock_try``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection, models

from casino.models import Casino, Player, PlayerSession, Terminal, TerminalCredential

Part = tuple[type[models.Model], str, frozenset[str]]  # a model, its alias in the SQL, fields not read


@cache
def _fields(model: type[models.Model], skip: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """(attname, column) of the model's concrete fields but ``skip``, in the model's order."""
    return tuple(
        (field.attname, field.column) for field in model._meta.concrete_fields if field.attname not in skip
    )


def _columns(model: type[models.Model], skip: frozenset[str]) -> tuple[str, ...]:
    return tuple(name for name, _ in _fields(model, skip))


def _select(parts: tuple[Part, ...]) -> str:
    quote = connection.ops.quote_name
    return ", ".join(
        f"{alias}.{quote(column)}" for model, alias, skip in parts for _, column in _fields(model, skip)
    )


def _instances(row: tuple[Any, ...], parts: tuple[Part, ...]) -> list[Any]:
    """One instance per model of a joined row; a model whose primary key is NULL (an outer join
    that found nothing) is None."""
    instances: list[Any] = []
    start = 0
    for model, _alias, skip in parts:
        names = _columns(model, skip)
        values = row[start : start + len(names)]
        start += len(names)
        pk = values[names.index(model._meta.pk.attname)] if model._meta.pk is not None else None
        instances.append(None if pk is None else model.from_db(connection.alias, list(names), list(values)))
    return instances


def _fetch(sql: str, parts: tuple[Part, ...], digest: str) -> list[Any] | None:
    """The joined row of ``sql`` for ``digest``, as instances of ``parts``: ``{columns}`` in
    ``sql`` stands for their columns, and ``{<alias>}`` for the table of the part of that alias
    (each read from its model, so that no table is named by hand)."""
    tables = {alias: connection.ops.quote_name(model._meta.db_table) for model, alias, _ in parts}
    with connection.cursor() as cursor:
        cursor.execute(sql.format(columns=_select(parts), **tables), [digest])
        row = cursor.fetchone()
    return None if row is None else _instances(row, parts)


def credential_with_terminal(digest: str) -> TerminalCredential | None:
    """The credential of a token digest, with its terminal and the terminal's table (or None)."""
    # The terminal's table, by its foreign key, its database table read from the model.
    table_model = Terminal._meta.get_field("table").related_model
    assert isinstance(table_model, type) and issubclass(table_model, models.Model)
    parts: tuple[Part, ...] = (
        (TerminalCredential, "c", frozenset()),
        (Terminal, "t", frozenset()),
        (table_model, "tt", frozenset()),
    )
    found = _fetch(
        "SELECT {columns} FROM {c} c JOIN {t} t ON t.id = c.terminal_id "
        "LEFT JOIN {tt} tt ON tt.id = t.table_id WHERE c.token_digest = %s",
        parts,
        digest,
    )
    if found is None:
        return None
    credential, terminal, table = found
    terminal.table = table
    credential.terminal = terminal
    assert isinstance(credential, TerminalCredential)
    return credential


def session_with_player(digest: str) -> PlayerSession | None:
    """The player session of a token digest, with its player (PIN hash not loaded) and casino."""
    parts: tuple[Part, ...] = (
        (PlayerSession, "s", frozenset()),
        (Player, "p", frozenset({"pin_hash"})),
        (Casino, "c", frozenset()),
    )
    found = _fetch(
        "SELECT {columns} FROM {s} s JOIN {p} p ON p.id = s.player_id "
        "JOIN {c} c ON c.id = p.casino_id WHERE s.token_digest = %s",
        parts,
        digest,
    )
    if found is None:
        return None
    session, player, casino = found
    player.casino = casino
    session.player = player
    assert isinstance(session, PlayerSession)
    return session


def idempotency_key_lock_try(scope: str, key: str) -> bool:
    """Take the transaction-scoped advisory lock of an idempotency key (scope, key) if it is free,
    without waiting: False when a request of that key still holds it (``casino.idempotency``)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s))", [scope, key])
        row = cursor.fetchone()
    return bool(row[0])


_STAFF_MEMBER_SQL = """
SELECT u.*,
  ARRAY(SELECT ct.app_label || '.' || p.codename
    FROM {permission} p JOIN {content_type} ct ON ct.id = p.content_type_id
    WHERE p.id IN (SELECT up.permission_id FROM {user_permissions} up WHERE up.user_id = u.id)
       OR p.id IN (SELECT gp.permission_id FROM {group_permissions} gp
                   JOIN {user_groups} ug ON ug.group_id = gp.group_id WHERE ug.user_id = u.id)
  ) AS permission_names,
  ARRAY(SELECT g.name FROM {group} g JOIN {user_groups} ug ON ug.group_id = g.id
    WHERE ug.user_id = u.id) AS role_names
FROM {user} u
WHERE u.id = %s
"""


@cache
def _staff_member_sql() -> str:
    quote = connection.ops.quote_name
    tables: dict[str, type[models.Model]] = {
        "user": User,
        "permission": Permission,
        "content_type": ContentType,
        "group": Group,
        "user_permissions": User.user_permissions.through,
        "group_permissions": Group.permissions.through,
        "user_groups": User.groups.through,
    }
    return _STAFF_MEMBER_SQL.format(**{name: quote(model._meta.db_table) for name, model in tables.items()})


def staff_member_read(member_id: int) -> User | None:
    """The staff member ``member_id`` (None if there is none), with ``permission_names`` (their
    own permissions and their roles', as ``app_label.codename``) and ``role_names`` (their
    groups) set on the instance."""
    return next(iter(User._default_manager.raw(_staff_member_sql(), [member_id])), None)


def advisory_xact_lock(key: int, *, shared: bool = False) -> None:
    """Take the transaction-scoped advisory lock ``key`` (exclusive, or shared with ``shared``),
    waiting for it; held until the transaction ends. ``casino.locking.advisory_lock`` gives each
    kind of row its namespace of keys; the audit chain has its own key."""
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [key])
