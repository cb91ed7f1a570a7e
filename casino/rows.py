"""Single-row reads and inserts for the hottest commands, without the ORM's query compiler.

A bet is the most frequent write of a live table; compiling its few ORM queries costs more CPU than
running them. These helpers build their SQL once per model and column list, then only convert
values: ``row_insert`` inserts one row and returns the model instance (as ``Model.objects.create``
would, without signals: no model here listens to them), ``row_instance`` turns the columns of a
raw ``SELECT`` into a model instance whose other fields load lazily if ever read (as
``QuerySet.only`` does), and ``rows_joined`` reads one row of a join as one instance per
model (as ``select_related`` does). They work on PostgreSQL and SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any, TypeVar

from django.db import connection, connections, models

M = TypeVar("M", bound=models.Model)


@cache
def _fields(model: type[models.Model], attnames: tuple[str, ...]) -> tuple[models.Field[Any, Any], ...]:
    by_attname = {field.attname: field for field in model._meta.concrete_fields}
    return tuple(by_attname[name] for name in attnames)


@cache
def _insert_sql(model: type[models.Model], attnames: tuple[str, ...], vendor: str) -> str:
    quote = connection.ops.quote_name
    fields = _fields(model, attnames)
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    pk = quote(model._meta.pk.column)  # type: ignore[union-attr]
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders}) RETURNING {pk}"


def row_insert(model: type[M], **values: Any) -> M:
    """Insert one row with exactly these field values (attnames: ``player_id``, not ``player``)
    and return the instance with its primary key. Every column without a database default must
    be given: model defaults and ``auto_now_add`` are not applied here."""
    attnames = tuple(values)
    fields = _fields(model, attnames)
    params = [field.get_db_prep_save(values[field.attname], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, attnames, connection.vendor), params)
        (pk,) = cursor.fetchone()
    instance = model(pk=pk, **values)
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


@cache
def _in_model_order(
    model: type[models.Model], attnames: frozenset[str]
) -> tuple[models.Field[Any, Any], ...]:
    return tuple(field for field in model._meta.concrete_fields if field.attname in attnames)


def select_columns(model: type[models.Model], attnames: Sequence[str], alias: str) -> str:
    """``alias."col", ...`` (in the model's field order) for a raw SELECT whose part of the row
    goes to ``row_instance`` with the same ``attnames``."""
    quote = connection.ops.quote_name
    fields = _in_model_order(model, frozenset(attnames))
    return ", ".join(f"{alias}.{quote(field.column)}" for field in fields)


@lru_cache(maxsize=1024)
def _converters(
    model: type[models.Model], attnames: frozenset[str], wrapper: Any
) -> tuple[tuple[Any, ...], ...]:
    """Per field, the conversions the ORM applies to a database value: the backend's (SQLite
    datetimes and booleans) and the field's own (JSON). Per connection object, as the backend's
    are its methods."""
    result = []
    for field in _in_model_order(model, attnames):
        column = field.get_col(model._meta.db_table)
        result.append((column, *wrapper.ops.get_db_converters(column), *column.get_db_converters(wrapper)))
    return tuple(result)


def row_instance(model: type[M], attnames: Sequence[str], values: Sequence[Any]) -> M:
    """The instance of a row read by raw SQL (the columns ``select_columns`` listed), with the
    database values converted as the ORM converts them."""
    names = frozenset(attnames)
    wrapper = connections[connection.alias]
    converted = []
    for (column, *converters), value in zip(_converters(model, names, wrapper), values, strict=True):
        for converter in converters:
            value = converter(value, column, wrapper)
        converted.append(value)
    fields = _in_model_order(model, names)
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


Part = tuple[type[models.Model], str, frozenset[str]]


@cache
def _attnames(model: type[models.Model], skip: frozenset[str]) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields if field.attname not in skip)


@cache
def _chain_sql(sql: str, parts: tuple[Part, ...]) -> tuple[str, tuple[tuple[str, ...], ...]]:
    names = tuple(_attnames(model, skip) for model, _, skip in parts)
    columns = ", ".join(
        select_columns(model, attnames, alias)
        for (model, alias, _), attnames in zip(parts, names, strict=True)
    )
    return sql.replace("{columns}", columns), names


def part(model: type[models.Model], alias: str, *, skip: Sequence[str] = ()) -> Part:
    """A model of a ``rows_joined`` query: its alias in the SQL, and the fields not to read
    (loaded lazily if ever accessed)."""
    return (model, alias, frozenset(skip))


def rows_joined(sql: str, params: Sequence[Any], parts: Sequence[Part]) -> list[models.Model | None] | None:
    """One row of a raw join as one instance per joined model: ``sql`` is a SELECT whose column
    list is ``{columns}`` (the columns of each ``part``, in turn, from its alias), and the result
    is their instances, ``None`` for a model whose columns are all NULL (an outer join that found
    nothing), or ``None`` when there is no row. Callers link the instances."""
    text, names = _chain_sql(sql, tuple(parts))
    with connection.cursor() as cursor:
        cursor.execute(text, list(params))
        row = cursor.fetchone()
    if row is None:
        return None
    instances: list[models.Model | None] = []
    start = 0
    for (model, _, _), attnames in zip(parts, names, strict=True):
        values = row[start : start + len(attnames)]
        start += len(attnames)
        if all(value is None for value in values):
            instances.append(None)
        else:
            instances.append(row_instance(model, attnames, values))
    return instances
