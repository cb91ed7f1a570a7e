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
