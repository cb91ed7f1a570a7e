"""The floor's desks run on the live tables' fixtures: the seeded demo casino's BJ1 and its staff."""

from tests.tables.conftest import dealer, operator, pit_boss, table

__all__ = ["dealer", "operator", "pit_boss", "table"]
