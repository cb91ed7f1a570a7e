"""Refusals of the drop, win and hold services (``accounting/services_drop.py``). Each has a
stable ``code``; a refused command changed nothing. Their sentences in every language are in
``casino/refusals.py``; the messages are marked for translation where they are raised."""

from __future__ import annotations

from accounting.errors import AccountingError
from casino.errors import ConflictError, NotFoundError

__all__ = [
    "BuyInNotFoundError",
    "DropAlreadyCountedError",
    "DropCountNotFoundError",
    "HoldAlertAlreadyResolvedError",
    "HoldAlertNotFoundError",
    "InvalidBuyInError",
    "InvalidShiftError",
]


class InvalidBuyInError(AccountingError):
    """A buy-in that is not a whole number of minor units above zero (a correction may be 0)."""

    code = "invalid_buy_in"


class InvalidShiftError(AccountingError):
    """A drop count entered for a shift the gaming day does not have, or that has not begun."""

    code = "invalid_shift"


class DropAlreadyCountedError(ConflictError):
    """A second drop count of one table and shift: the first is corrected instead."""

    code = "drop_already_counted"


class DropCountNotFoundError(NotFoundError):
    code = "drop_count_not_found"


class BuyInNotFoundError(NotFoundError):
    code = "buy_in_not_found"


class HoldAlertNotFoundError(NotFoundError):
    code = "hold_alert_not_found"


class HoldAlertAlreadyResolvedError(ConflictError):
    code = "hold_alert_already_resolved"
