"""The base of every refusal a service raises: a stable machine code plus a readable message."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A command was refused. ``code`` is stable and is what the API returns; nothing was changed,
    unless ``effects_stand``: the service committed what the refusal itself records (a misscan
    waiting for its correction, overdue defaults applied before the command was refused), and a
    caller that rolls back refused requests (the terminal API) must keep it."""

    code: str = "refused"
    status: int = 400
    effects_stand: bool = False

    def __init__(self, message: str, *, code: str | None = None, **details: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.details = details

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code


class PermissionRefusedError(ServiceError):
    code = "permission_denied"
    status = 403


class NotFoundError(ServiceError):
    code = "not_found"
    status = 404


class ConflictError(ServiceError):
    code = "conflict"
    status = 409


class ReasonRequiredError(ServiceError):
    """A command that must say why (a lock, a void, a rejection, an adjustment) was given none."""

    code = "reason_required"
    status = 422


class IdempotencyKeyMissingError(ServiceError):
    """A money request over HTTP without a valid ``Idempotency-Key`` header (casino.idempotency)."""

    code = "idempotency_key_required"
    status = 400


class IdempotencyKeyReusedError(ServiceError):
    """An idempotency key sent again with another payload (casino.idempotency)."""

    code = "idempotency_key_reused"
    status = 422


class IdempotencyInProgressError(ConflictError):
    """A duplicate of a request that is still running (casino.idempotency)."""

    code = "idempotency_in_progress"


# Reasons are kept to this length in the records they go into.
REASON_MAX_LENGTH = 300


def reason_required(
    reason: str | None, message: str, *, error: type[ReasonRequiredError] = ReasonRequiredError
) -> str:
    """``reason`` stripped and cut to ``REASON_MAX_LENGTH``; ``error(message)`` when it is blank."""
    cleaned = (reason or "").strip()
    if not cleaned:
        raise error(message)
    return cleaned[:REASON_MAX_LENGTH]
