"""Refusals of the accounting services. Each has a stable ``code``; a refused command changed
nothing. The messages are marked for translation where they are raised. A closed gaming day and
the rule of its closing are the venue's (``casino.gaming_day_state``: ``gaming_day_closed``,
``gaming_day_already_closed``, ``gaming_day_not_ended``, ``gaming_day_earlier_open``)."""

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
    "CountAwaitingSignaturesError",
    "CountNotFoundError",
    "GamingDayHasOpenWorkError",
    "InvalidCountError",
    "InvestigationAlreadyResolvedError",
    "InvestigationUnresolvedError",
    "PermissionRefusedError",
    "ReasonRequiredError",
    "SamePersonSignedTwiceError",
    "SignatureNotNeededError",
    "SlipInFlightError",
    "SlipNotFoundError",
    "SlipStepRefusedError",
    "SlipTableClosedError",
    "TableAlreadyOpenError",
    "TableNotOpenError",
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
