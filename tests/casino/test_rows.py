"""The raw single-row helpers behave as the ORM does: same values, same types, lazy fields."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.models.query_utils import DeferredAttribute

from casino.models import Casino, Pit, Player, Terminal
from casino.rows import next_id_sql, part, row_insert, rows_joined
from tests.factories import CasinoFactory, PlayerFactory, TerminalFactory


@pytest.mark.django_db
def test_row_insert_returns_the_saved_instance_as_create_would():
    casino = CasinoFactory()

    pit = row_insert(Pit, casino_id=casino.pk, name="Main floor")

    assert pit.pk is not None
    assert not pit._state.adding
    stored = Pit.objects.get(pk=pit.pk)
    assert (stored.casino_id, stored.name) == (casino.pk, "Main floor")


@pytest.mark.django_db
def test_rows_joined_reads_every_model_of_the_row_with_orm_types():
    player = PlayerFactory()
    player.is_active = False
    player.save(update_fields=["is_active"])

    found = rows_joined(
        "SELECT {columns} FROM casino_player p JOIN casino_casino c ON c.id = p.casino_id WHERE p.id = %s",
        [player.pk],
        [part(Player, "p"), part(Casino, "c")],
    )

    assert found is not None
    read_player, read_casino = found
    expected = Player.objects.select_related("casino").get(pk=player.pk)
    assert isinstance(read_player, Player) and isinstance(read_casino, Casino)
    assert read_player.is_active is False  # a boolean, not 0 (SQLite)
    assert isinstance(read_casino.created_at, dt.datetime)  # a datetime, not a string (SQLite)
    assert read_casino.created_at == expected.casino.created_at
    assert read_casino.gaming_day_starts_at == expected.casino.gaming_day_starts_at
    assert {f.attname: getattr(read_player, f.attname) for f in Player._meta.concrete_fields} == {
        f.attname: getattr(expected, f.attname) for f in Player._meta.concrete_fields
    }


@pytest.mark.django_db
def test_a_skipped_field_is_loaded_only_when_read():
    player = PlayerFactory()

    found = rows_joined(
        "SELECT {columns} FROM casino_player p WHERE p.id = %s",
        [player.pk],
        [part(Player, "p", skip=["pin_hash"])],
    )

    assert found is not None
    (read,) = found
    assert "pin_hash" in read.get_deferred_fields()
    assert isinstance(Player.pin_hash, DeferredAttribute)
    assert read.pin_hash == Player.objects.get(pk=player.pk).pin_hash


@pytest.mark.django_db
def test_an_outer_join_that_finds_nothing_gives_none_and_no_row_gives_none():
    terminal = TerminalFactory(table=None)
    sql = "SELECT {columns} FROM casino_terminal t LEFT JOIN tables_table tt ON tt.id = t.table_id WHERE t.id = %s"
    table_model = Terminal._meta.get_field("table").related_model

    found = rows_joined(sql, [terminal.pk], [part(Terminal, "t"), part(table_model, "tt")])
    missing = rows_joined(sql, [terminal.pk + 1000], [part(Terminal, "t"), part(table_model, "tt")])

    assert found is not None and found[0].pk == terminal.pk and found[1] is None
    assert missing is None


@pytest.mark.django_db
def test_an_id_allocated_ahead_is_the_one_the_row_gets_and_never_given_again():
    casino = CasinoFactory()
    first = row_insert(Pit, casino_id=casino.pk, name="Main floor")

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {next_id_sql(Pit)}")
        (allocated,) = cursor.fetchone()
    pit = row_insert(Pit, id=allocated, casino_id=casino.pk, name="High limit")
    later = Pit.objects.create(casino=casino, name="Salon")

    assert allocated > first.pk
    assert Pit.objects.get(pk=allocated).name == "High limit" and pit.pk == allocated
    assert later.pk > allocated
