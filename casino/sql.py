"""The venue's hand-written SQL, where the ORM costs more than a tenth of the path.

Every terminal request authenticates: its credential with the terminal and the terminal's table,
and a player's session with the player and the player's casino, one statement each. Through the
ORM (``select_related(...).first()``), compiling those two queries cost as much CPU as the rest
of a request: the bench's bare endpoint (bench/api_bets.py: authentication, DRF, one insert)
took 2.27 ms of CPU per request in-process with them against 1.06 ms with these statements (400
requests each, one run on the 2-core development machine); a bet is about 5 ms. The rows become
model instances through ``Model.from_db``, Django's own loading; none of these models has a field
whose value needs a converter (a JSON field would).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db import connection, models
from django.utils import timezone

from casino.models import Casino, IdempotencyRecord, Player, PlayerSession, Terminal, TerminalCredential

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
    with connection.cursor() as cursor:
        cursor.execute(sql.format(columns=_select(parts)), [digest])
        row = cursor.fetchone()
    return None if row is None else _instances(row, parts)


def credential_with_terminal(digest: str) -> TerminalCredential | None:
    """The credential of a token digest, with its terminal and the terminal's table (or None)."""
    # The terminal's table, by its foreign key: the venue imports nothing of the tables app.
    table_model = Terminal._meta.get_field("table").related_model
    assert isinstance(table_model, type) and issubclass(table_model, models.Model)
    parts: tuple[Part, ...] = (
        (TerminalCredential, "c", frozenset()),
        (Terminal, "t", frozenset()),
        (table_model, "tt", frozenset()),
    )
    found = _fetch(
        "SELECT {columns} FROM casino_terminalcredential c JOIN casino_terminal t ON t.id = c.terminal_id "
        "LEFT JOIN tables_table tt ON tt.id = t.table_id WHERE c.token_digest = %s",
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
        "SELECT {columns} FROM casino_playersession s JOIN casino_player p ON p.id = s.player_id "
        "JOIN casino_casino c ON c.id = p.casino_id WHERE s.token_digest = %s",
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


# The request idempotency record (casino/idempotency.py), inserted unless (scope, key) has one;
# RETURNING id only when inserted.
_IDEMPOTENCY_INSERT_SQL = (
    "INSERT INTO {table} (scope, key, request_fingerprint, response, created_at) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)
# The same insert, made only when the (scope, key) advisory lock is free (taken without waiting).
_IDEMPOTENCY_INSERT_UNLESS_IN_FLIGHT_SQL = (
    "INSERT INTO {table} (scope, key, request_fingerprint, created_at) "
    "SELECT %s, %s, %s, %s WHERE pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s)) "
    "ON CONFLICT (scope, key) DO NOTHING RETURNING id"
)
_IDEMPOTENCY_RESPONSE_SQL = "UPDATE {table} SET response = %s WHERE id = %s"


def _response_encoded(response: dict[str, Any] | None) -> Any:
    """A response as the record's JSON column takes it in a hand-written statement."""
    return IdempotencyRecord._meta.get_field("response").get_db_prep_save(response, connection)


def idempotency_record_insert(
    *,
    scope: str,
    key: str,
    fingerprint: str,
    response: dict[str, Any] | None = None,
    unless_in_flight: bool = False,
) -> int | None:
    """Insert the idempotency record of (scope, key), with ``response`` when given, unless the
    key has one (waiting on the unique index for a transaction that is inserting it); with
    ``unless_in_flight`` only if the advisory lock on (scope, key) is free. The new record's id,
    None when nothing was inserted."""
    table = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
    if unless_in_flight:
        assert response is None, "a record inserted unless in flight has its response stored later"
        sql = _IDEMPOTENCY_INSERT_UNLESS_IN_FLIGHT_SQL
        params: list[Any] = [scope, key, fingerprint, timezone.now(), scope, key]
    else:
        sql = _IDEMPOTENCY_INSERT_SQL
        params = [scope, key, fingerprint, _response_encoded(response), timezone.now()]
    with connection.cursor() as cursor:
        cursor.execute(sql.format(table=table), params)
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def idempotency_response_store(record_id: int, response: dict[str, Any]) -> None:
    """Store the response on the idempotency record ``record_id``."""
    table = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            _IDEMPOTENCY_RESPONSE_SQL.format(table=table), [_response_encoded(response), record_id]
        )
