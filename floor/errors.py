"""Refusals of the floor app: each with its stable ``code``."""

from __future__ import annotations

from tables.errors import TableError


class FloorNoSuchRecordError(TableError):
    code = "not_found"


class InvalidInputError(TableError):
    code = "invalid_input"


class NoSuchActionError(TableError):
    code = "no_such_action"


class NotABlackjackTableError(TableError):
    code = "not_a_blackjack_table"


class StaleScreenError(TableError):
    code = "stale_screen"
