"""``field__literal_in=[...]``: ``IN`` with the values written into the SQL text.

The ORM passes every value as a parameter, and PostgreSQL plans a prepared statement (the
connection prepares a statement after ``DATABASE_PREPARE_THRESHOLD`` runs) once for any
parameters after its first five runs: a generic plan. Such a plan cannot use a partial index
whose predicate names values it does not know. ``status__in=OPEN_ROUND_STATUSES`` on rounds
went that way: the generic plan read every round the table ever played (30,000 rows for one,
13 ms, growing every round) where the partial index ``round_one_open_per_table`` finds the one
open round at once. Use it for short constant lists of codes (statuses, kinds) that a partial
index is defined on; values must be plain codes (letters, digits, underscores), so that nothing
from outside can reach the SQL text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import models
from django.db.models.lookups import Lookup

_CODE = re.compile(r"[A-Za-z0-9_]+")


def literal_codes(values: Iterable[Any]) -> str:
    """The SQL list ``('a', 'b')`` of these codes, sorted (one statement text for any order)."""
    codes = sorted({str(getattr(value, "value", value)) for value in values})
    if not codes:
        raise ValueError("literal_in needs at least one value")
    for code in codes:
        if not _CODE.fullmatch(code):
            raise ValueError(f"literal_in takes plain codes only, not {code!r}")
    return "(" + ", ".join(f"'{code}'" for code in codes) + ")"


@models.CharField.register_lookup
class LiteralIn(Lookup):  # type: ignore[type-arg]
    lookup_name = "literal_in"
    prepare_rhs = False

    def get_prep_lookup(self) -> Any:
        return self.rhs

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, params = self.process_lhs(compiler, connection)
        return f"{lhs} IN {literal_codes(self.rhs)}", list(params)
