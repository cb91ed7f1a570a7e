"""Single-row reads and inserts for the hottest commands, without the ORM's query compiler.

A bet is the most frequent write of a live table, and every terminal request authenticates;
compiling their ORM queries costs more CPU than running them. These helpers build their SQL once
per model and column list, then only convert values:

- ``row_insert`` inserts one row and returns the model instance (as ``Model.objects.create``
  would, without signals: no model here listens to them);
- ``row_loaded`` is the instance of a row the caller has just written with its own SQL;
- ``rows_joined`` reads one row of a join as one instance per model (as ``select_related``
  does), the fields a ``part`` skips loading lazily if ever read (as ``QuerySet.only`` does);
- ``next_id_sql`` allocates a row's id ahead of its insert, inside another statement, so that
  rows referring to each other can be written by one statement;
- a ``LinkedRow`` is a row inserted by the statement that inserts another row, only if that row
  is inserted, one of its fields taking that row's id (``linked_insert_sql`` on PostgreSQL, a
  data-modifying CTE; ``linked_insert`` after the other row on SQLite).

They work on PostgreSQL and SQLite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, TypeVar

from django.db import connection, connections, models

M = TypeVar("M", bound=models.Model)
# A model of a ``rows_joined`` query: the model, its alias in the SQL, the fields not read.
Part = tuple[type[models.Model], str, frozenset[str]]


def row_loaded(model: type[M], **values: Any) -> M:
    """The instance of a row already in the database, with these field values (attnames)."""
    instance = model(**values)
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


@cache
def _fields(model: type[models.Model], attnames: tuple[str, ...]) -> tuple[models.Field[Any, Any], ...]:
    by_attname = {field.attname: field for field in model._meta.concrete_fields}
    return tuple(by_attname[name] for name in attnames)


def _prepared(fields: Sequence[models.Field[Any, Any]], values: Mapping[str, Any]) -> list[Any]:
    """The values of ``fields`` as the database takes them (as ``Model.save`` prepares them)."""
    return [field.get_db_prep_save(values[field.attname], connection) for field in fields]


@cache
def _insert(
    model: type[models.Model], attnames: tuple[str, ...]
) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    fields = _fields(model, attnames)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    pk = quote(model._meta.pk.column)  # type: ignore[union-attr]
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders}) RETURNING {pk}"
    return sql, fields


def row_insert(model: type[M], **values: Any) -> M:
    """Insert one row with exactly these field values (attnames: ``player_id``, not ``player``)
    and return the instance with its primary key. Every column without a database default must
    be given: model defaults and ``auto_now_add`` are not applied here."""
    sql, fields = _insert(model, tuple(values))
    with connection.cursor() as cursor:
        cursor.execute(sql, _prepared(fields, values))
        (pk,) = cursor.fetchone()
    return row_loaded(model, pk=pk, **values)


def part(model: type[models.Model], alias: str, *, skip: Sequence[str] = ()) -> Part:
    """A model of a ``rows_joined`` query: its alias in the SQL, and the fields not to read."""
    return (model, alias, frozenset(skip))


@cache
def _read_fields(model: type[models.Model], skip: frozenset[str]) -> tuple[models.Field[Any, Any], ...]:
    return tuple(field for field in model._meta.concrete_fields if field.attname not in skip)


@cache
def _joined_sql(sql: str, parts: tuple[Part, ...]) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(
        f"{alias}.{quote(field.column)}"
        for model, alias, skip in parts
        for field in _read_fields(model, skip)
    )
    return sql.replace("{columns}", columns)


@lru_cache(maxsize=1024)
def _converters(model: type[models.Model], skip: frozenset[str], wrapper: Any) -> tuple[tuple[Any, ...], ...]:
    """Per field read, its column and the conversions the ORM applies to a database value: the
    backend's (SQLite datetimes and booleans) and the field's own (JSON). Per connection object,
    as the backend's are its methods."""
    result = []
    for field in _read_fields(model, skip):
        column = field.get_col(model._meta.db_table)
        result.append((column, *wrapper.ops.get_db_converters(column), *column.get_db_converters(wrapper)))
    return tuple(result)


def _instance(
    model: type[models.Model], skip: frozenset[str], values: Sequence[Any], wrapper: Any
) -> models.Model:
    converted = []
    for (column, *converters), value in zip(_converters(model, skip, wrapper), values, strict=True):
        for converter in converters:
            value = converter(value, column, wrapper)
        converted.append(value)
    attnames = [field.attname for field in _read_fields(model, skip)]
    return model.from_db(connection.alias, attnames, converted)


def rows_joined(sql: str, params: Sequence[Any], parts: Sequence[Part]) -> list[Any] | None:
    """One row of a raw join as one instance per joined model: ``sql`` is a SELECT whose column
    list is ``{columns}`` (the columns of each ``part``, in turn, from its alias), and the result
    is their instances, ``None`` for a model whose columns are all NULL (an outer join that found
    nothing), or ``None`` when there is no row. Columns the select list has after ``{columns}``
    (a ``next_id_sql``, say) follow the instances as read. Callers link the instances."""
    with connection.cursor() as cursor:
        cursor.execute(_joined_sql(sql, tuple(parts)), list(params))
        row = cursor.fetchone()
    if row is None:
        return None
    wrapper = connections[connection.alias]
    instances: list[Any] = []
    start = 0
    for model, _, skip in parts:
        width = len(_read_fields(model, skip))
        values = row[start : start + width]
        start += width
        instances.append(
            None if all(value is None for value in values) else _instance(model, skip, values, wrapper)
        )
    return [*instances, *row[start:]]


def next_id_sql(model: type[models.Model]) -> str:
    """An SQL expression allocating the next id of ``model`` (its auto-increment primary key), to
    insert the row later with that id. PostgreSQL: the identity column's sequence. SQLite: the
    table's AUTOINCREMENT counter plus one, which is safe because SQLite write transactions run
    one at a time (``transaction_mode`` IMMEDIATE: the lock is taken at BEGIN) and the row is
    inserted in the same transaction."""
    table = model._meta.db_table
    column = model._meta.pk.column  # type: ignore[union-attr]
    if connection.vendor == "postgresql":
        return f"nextval(pg_get_serial_sequence('{table}', '{column}'))"
    return f"(SELECT COALESCE(MAX(seq), 0) + 1 FROM sqlite_sequence WHERE name = '{table}')"


@dataclass(frozen=True)
class LinkedRow:
    """A row to insert with another one, only if that one is inserted: ``values`` by attname
    (every column without a database default), and ``linked_field``, the attname that takes the
    other row's id ("" for none)."""

    model: type[models.Model]
    values: Mapping[str, Any]
    linked_field: str = ""


@cache
def _linked_insert(
    model: type[models.Model], attnames: tuple[str, ...], linked_field: str, source: str
) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    fields = _fields(model, attnames)
    quote = connection.ops.quote_name
    columns = [quote(field.column) for field in fields]
    values = ["%s"] * len(fields)
    if linked_field:
        columns.append(quote(_fields(model, (linked_field,))[0].column))
        values.append(f"{source}.id")
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(columns)}) SELECT {', '.join(values)} FROM {source}"
    return sql, fields


def linked_insert_sql(row: LinkedRow, source: str) -> tuple[str, list[Any]]:
    """PostgreSQL: the INSERT of ``row`` for each row of ``source`` (a CTE of the same statement
    returning ``id``), and its parameters: the body of a data-modifying CTE."""
    sql, fields = _linked_insert(row.model, tuple(row.values), row.linked_field, source)
    return sql, _prepared(fields, row.values)


def linked_insert(row: LinkedRow, linked_id: int) -> models.Model:
    """Insert ``row`` with ``linked_id`` in its linked field (the statement-by-statement way)."""
    values = dict(row.values)
    if row.linked_field:
        values[row.linked_field] = linked_id
    return row_insert(row.model, **values)
