"""Refusals of the wallet services. Each has a stable ``code`` (what the API returns); a refused
command changed nothing."""

from __future__ import annotations

from casino.errors import (
    ConflictError,
    NotFoundError,
    PermissionRefusedError,
    ReasonRequiredError,
    ServiceError,
)

__all__ = [
    "AccountNotFoundError",
    "CashOutConfirmationRequiredError",
    "CasinoMismatchError",
    "CurrencyMismatchError",
    "HoldMismatchError",
    "HoldNotOpenError",
    "InsufficientFundsError",
    "InvalidAmountError",
    "PayoutNotPendingError",
    "PermissionRefusedError",
    "ReasonRequiredError",
    "RoundAlreadySettledError",
    "SameAccountError",
    "TransferAlreadyReversedError",
    "TransferNotReversibleError",
]


class InsufficientFundsError(ConflictError):
    """The move would take an account that may not go negative below its held amount."""

    code = "insufficient_funds"


class CashOutConfirmationRequiredError(ConflictError):
    """A cash-out above the casino's confirmation amount, sent without the cashier's confirmation."""

    code = "cash_out_confirmation_required"


class AccountNotFoundError(NotFoundError):
    code = "account_not_found"


class CurrencyMismatchError(ServiceError):
    code = "currency_mismatch"
    status = 422


class CasinoMismatchError(ServiceError):
    code = "casino_mismatch"
    status = 422


class InvalidAmountError(ServiceError):
    code = "invalid_amount"
    status = 422


class SameAccountError(ServiceError):
    code = "same_account"
    status = 422


class HoldNotOpenError(ConflictError):
    code = "hold_not_open"


class HoldMismatchError(ServiceError):
    """A settlement line names a hold of another account or table, or the same hold twice."""

    code = "hold_mismatch"
    status = 422


class RoundAlreadySettledError(ConflictError):
    """A settlement of a round whose money was settled already."""

    code = "round_already_settled"


class PayoutNotPendingError(ConflictError):
    code = "payout_not_pending"


class TransferAlreadyReversedError(ConflictError):
    code = "transfer_already_reversed"


class TransferNotReversibleError(ConflictError):
    code = "transfer_not_reversible"
