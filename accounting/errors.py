"""Refusals of the accounting services: counts and slips, drop, win and hold, tips. Each has a
stable ``code``; a refused command changed nothing. The messages are marked for translation where
they are raised. A closed gaming day and the rule of its closing are the venue's
(``casino.gaming_day_state``: ``gaming_day_closed``, ``gaming_day_already_closed``,
``gaming_day_not_ended``, ``gaming_day_earlier_open``)."""

from __future__ import annotations

from casino.errors import (
    ConflictError,
    NotFoundError,
    PermissionRefusedError,
    ReasonRequiredError,
    ServiceError,
)

__all__ = [
    "AccountingError",
    "BuyInNotFoundError",
    "CountAwaitingSignaturesError",
    "CountNotFoundError",
    "DropAlreadyCountedError",
    "DropCountNotFoundError",
    "GamingDayHasOpenWorkError",
    "HoldAlertAlreadyResolvedError",
    "HoldAlertNotFoundError",
    "InvalidBuyInError",
    "InvalidCountError",
    "InvalidSettingsError",
    "InvalidShiftError",
    "InvalidTipAmountError",
    "InvestigationAlreadyResolvedError",
    "InvestigationUnresolvedError",
    "NoRoundToTipError",
    "NotTheTablesDealerError",
    "PermissionRefusedError",
    "ReasonRequiredError",
    "RoundNotSettledError",
    "SamePersonSignedTwiceError",
    "SignatureNotNeededError",
    "SlipInFlightError",
    "SlipNotFoundError",
    "SlipStepRefusedError",
    "SlipTableClosedError",
    "TableAlreadyOpenError",
    "TableNotOpenError",
    "TipsAlreadyRecordedError",
    "TipsRoundClosedError",
    "WrongRoleError",
]


class AccountingError(ServiceError):
    code = "accounting_refused"
    status = 422


class GamingDayHasOpenWorkError(ConflictError):
    """A day is closed only when its slips are received or voided and its counts signed."""

    code = "gaming_day_has_open_work"


class SamePersonSignedTwiceError(PermissionRefusedError):
    """Two signatures of one count or slip step by one person, where two people must sign."""

    code = "same_person_signed_twice"


class WrongRoleError(PermissionRefusedError):
    """The signer does not hold the role this signature needs (a dealer, a pit boss, a cashier)."""

    code = "wrong_role"


class SignatureNotNeededError(ConflictError):
    code = "signature_not_needed"


class InvalidCountError(AccountingError):
    """Amounts that are not whole multiples of their chip, of a chip not in the set, or none."""

    code = "invalid_count"


class CountAwaitingSignaturesError(ConflictError):
    code = "count_awaiting_signatures"


class CountNotFoundError(NotFoundError):
    code = "count_not_found"


class TableAlreadyOpenError(ConflictError):
    code = "table_already_open"


class TableNotOpenError(ConflictError):
    code = "table_not_open"


class SlipInFlightError(ConflictError):
    """A fill or credit of the table is requested or issued and not yet received: the table's
    closer would count a tray the slip is still to change."""

    code = "slip_in_flight"


class InvestigationUnresolvedError(ConflictError):
    """The table's last opener opened an investigation that has no resolution yet."""

    code = "investigation_unresolved"


class InvestigationAlreadyResolvedError(ConflictError):
    code = "investigation_already_resolved"


class SlipNotFoundError(NotFoundError):
    code = "slip_not_found"


class SlipStepRefusedError(ConflictError):
    """The slip is not at the step the command needs (issue a received slip, void an issued one)."""

    code = "slip_step_refused"


class SlipTableClosedError(ConflictError):
    """A fill or credit would move chips to or from a table that is closed, or whose closing
    count is taken (waiting for its second signature): the chips would miss the counts that
    frame the table's win."""

    code = "slip_table_closed"


# ---------------------------------------------------------------- drop, win and hold
# (accounting/services_drop.py; their sentences in every language are in casino/refusals.py)


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


# ---------------------------------------------------------------- tips (accounting/tips.py)


class InvalidTipAmountError(ServiceError):
    code = "invalid_tip_amount"
    status = 422


class NotTheTablesDealerError(PermissionRefusedError):
    """The tips of a table's round are recorded by the dealer signed on at the table."""

    code = "not_the_tables_dealer"


class RoundNotSettledError(ConflictError):
    code = "round_not_settled"


class TipsRoundClosedError(ConflictError):
    """The table's next round has opened: the settled round before it takes no more tips."""

    code = "tips_round_closed"


class TipsAlreadyRecordedError(ConflictError):
    code = "tips_already_recorded"


class NoRoundToTipError(ConflictError):
    """No round at the table (or its last was voided, or has no dealer) whose dealer a player could tip."""

    code = "no_round_to_tip"


class InvalidSettingsError(ServiceError):
    code = "invalid_settings"
