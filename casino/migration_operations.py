"""Migration operations that keep a live floor running while the schema changes."""

from __future__ import annotations

from typing import Any

from django.db import migrations


class DropIndexQuietly(migrations.operations.base.Operation):
    """Drop an index the models no longer declare (a foreign key's own index, once a composite
    index leads with its column), without touching the foreign key itself: Django's
    ``AlterField(db_index=False)`` drops the constraint and adds it back, which re-checks every
    row under a lock. ``DROP INDEX CONCURRENTLY`` (the migration must be ``atomic = False``), so
    writes to the table go on. Backwards, the index is built again the same way, concurrently. Use with ``SeparateDatabaseAndState`` and the field's
    ``AlterField`` as its state operation."""

    reduces_to_sql = True
    reversible = True

    def __init__(self, table: str, column: str, name: str) -> None:
        self.table, self.column, self.name = table, column, name

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (
            self.__class__.__qualname__,
            [],
            {"table": self.table, "column": self.column, "name": self.name},
        )

    def state_forwards(self, app_label: str, state: Any) -> None:
        pass

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        quote = schema_editor.quote_name
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {quote(self.name)}")

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        quote = schema_editor.quote_name
        schema_editor.execute(
            f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {quote(self.name)} "
            f"ON {quote(self.table)} ({quote(self.column)})"
        )

    def describe(self) -> str:
        return f"Drop index {self.name} of {self.table}.{self.column}"
