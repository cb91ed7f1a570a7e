"""``__literal_in``: constant codes written into the SQL, so that generic plans use partial indexes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection, transaction
from psycopg import sql as pgsql

from casino.lookups import literal_codes
from tables.models import OPEN_ROUND_STATUSES, Bet, BetKind, Round, RoundStatus, Table


def test_the_codes_are_literals_of_the_sql_and_only_the_table_a_parameter() -> None:
    sql, params = Round.objects.filter(table_id=7).open().query.sql_with_params()
    assert params == (7,)
    codes = sorted(status.value for status in OPEN_ROUND_STATUSES)
    assert "IN (" + ", ".join(f"'{code}'" for code in codes) + ")" in sql
    assert f"'{RoundStatus.SETTLED.value}'" not in sql and f"'{RoundStatus.VOIDED.value}'" not in sql


def test_one_statement_text_whatever_the_order() -> None:
    assert literal_codes(["b", "a", "a"]) == literal_codes(("a", "b")) == "('a', 'b')"
    assert literal_codes([BetKind.MAIN]) == "('main')"


@pytest.mark.parametrize("bad", ["x'); DROP TABLE tables_round; --", "", "a b", "é"])
def test_anything_but_a_plain_code_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="plain codes"):
        literal_codes(["betting", bad])


def test_an_empty_list_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        str(Bet.objects.filter(kind__literal_in=[]).query)


@pytest.fixture
def bj1(seeded: Any) -> Table:
    return Table.objects.get(name="BJ1")


@pytest.mark.django_db
def test_it_filters_like_in(bj1: Any) -> None:
    assert list(Round.objects.filter(table=bj1).open()) == list(
        Round.objects.filter(table=bj1, status__in=OPEN_ROUND_STATUSES)
    )


def _plan(sql: str, params: tuple[Any, ...]) -> str:
    """The generic plan PostgreSQL makes for ``sql`` as a prepared statement (what it settles on
    after five runs when the generic plan looks no worse), as JSON text."""
    placeholders = sql
    for number in range(1, len(params) + 1):
        placeholders = placeholders.replace("%s", f"${number}", 1)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(f"PREPARE literal_in_plan AS {placeholders}")
        try:
            raw = connection.connection
            arguments = ", ".join(pgsql.Literal(value).as_string(raw) for value in params)
            cursor.execute(f"EXPLAIN (FORMAT JSON) EXECUTE literal_in_plan({arguments})")
            return json.dumps(cursor.fetchone()[0])
        finally:
            cursor.execute("DEALLOCATE literal_in_plan")


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_generic_plan_finds_the_open_round_by_its_partial_index(bj1: Any) -> None:
    literal = Round.objects.filter(table_id=bj1.pk).open().query.sql_with_params()
    assert "round_one_open_per_table" in _plan(*literal)
    # The same filter with the statuses as parameters cannot use it: the reason for literal_in.
    parameters = Round.objects.filter(table_id=bj1.pk, status__in=OPEN_ROUND_STATUSES).query.sql_with_params()
    assert "round_one_open_per_table" not in _plan(*parameters)
