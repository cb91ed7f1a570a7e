"""The base of every refusal a service raises: a stable machine code plus a readable message."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A command was refused. ``code`` is stable and is what the API returns; nothing was changed."""

    code: str = "refused"
    status: int = 400

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
