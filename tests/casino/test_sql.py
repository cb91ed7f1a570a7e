"""The authentication reads of ``casino/sql.py`` load what the ORM would."""

from __future__ import annotations

import hashlib

import pytest

from casino.actors import Actor
from casino.models import Casino, Player, PlayerSession, Table, Terminal, TerminalCredential
from casino.player_sessions import player_session_start
from casino.services import terminal_credential_issue, terminal_register
from casino.sql import credential_with_terminal, session_with_player


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@pytest.mark.django_db
def test_a_credential_comes_with_its_terminal_and_table_as_the_orm_loads_them(seeded):
    casino = Casino.objects.get()
    table = Table.objects.get(name="BJ1")
    placed = terminal_register(
        casino=casino,
        name="T-SQL-1",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    loose = terminal_register(
        casino=casino, name="T-SQL-2", kind=Terminal.Kind.CARD_READER, actor=Actor.automatic("system")
    )
    credential, token = terminal_credential_issue(terminal=placed, actor=Actor.automatic("system"))
    _, loose_token = terminal_credential_issue(terminal=loose, actor=Actor.automatic("system"))

    found = credential_with_terminal(_digest(token))
    orm = TerminalCredential.objects.select_related("terminal__table").get(pk=credential.pk)
    assert found is not None and found._state.adding is False
    assert [getattr(found, f.attname) for f in TerminalCredential._meta.concrete_fields] == [
        getattr(orm, f.attname) for f in TerminalCredential._meta.concrete_fields
    ]
    assert found.terminal == orm.terminal and found.terminal.table == table
    assert found.terminal.table.name == "BJ1" and found.terminal.kind == Terminal.Kind.PLAYER_TERMINAL
    # a terminal placed at no table comes without one; an unknown digest finds nothing
    assert credential_with_terminal(_digest(loose_token)).terminal.table is None
    assert credential_with_terminal(_digest("no such token")) is None


@pytest.mark.django_db
def test_a_session_comes_with_its_player_and_casino_and_not_the_pin_hash(seeded):
    table = Table.objects.get(name="BJ1")
    terminal = terminal_register(
        casino=table.casino,
        name="T-SQL-3",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    session, token = player_session_start(terminal=terminal, card_number="1000000001", pin="1111")

    found = session_with_player(_digest(token))
    assert found is not None and found.pk == session.pk and found.terminal_id == terminal.pk
    assert found.player == Player.objects.get(card_number="1000000001")
    assert found.player.casino == table.casino and found.player.casino.code == table.casino.code
    assert "pin_hash" in found.player.get_deferred_fields()
    assert session_with_player(_digest("no such token")) is None
    assert isinstance(found, PlayerSession)
