"""Refusals of the card room's services and pages. Each has a stable ``code`` (what the API and
the pages show); a refused command changed nothing. Engine refusals keep the engine's code
(``casino.errors.game``)."""

from __future__ import annotations

from casino.errors import ReasonRequiredError, ServiceError


class CanastaError(ServiceError):
    """A refusal of the card room (the code says why)."""

    code = "canasta_refused"
    status = 409


class NotSeatedError(CanastaError):
    code = "not_seated"


class CanastaReasonRequiredError(ReasonRequiredError):
    """A reason missing from a card-room command: 409, as the terminal API has always answered it."""

    status = 409
