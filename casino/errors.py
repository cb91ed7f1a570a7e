"""The base of every refusal a service raises: a stable machine code plus a readable message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from games.errors import GameError


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


class InvalidConfigurationError(ServiceError):
    """A configuration (a rule set version, a table's settings) the games cannot run with."""

    code = "invalid_configuration"
    status = 422


# ---------------------------------------------------------------------------------------------
# The venue's refusals (casino.services): staff login, players' cards, terminals' credentials,
# staff accounts.


class LoginRefusedError(ServiceError):
    code = "login_failed"
    status = 401


class AccountLockedError(ServiceError):
    code = "account_locked"
    status = 423


class AccountDisabledError(LoginRefusedError):
    code = "account_disabled"
    status = 403


class TerminalCredentialError(ServiceError):
    code = "credential_invalid"
    status = 401


class PlayerSignInError(ServiceError):
    code = "player_sign_in_failed"
    status = 401


class PlayerCardAlreadyLockedError(ConflictError):
    code = "card_already_locked"


class PlayerCardNotLockedError(ConflictError):
    code = "card_not_locked"


class UsernameTakenError(ConflictError):
    code = "username_taken"


class InvalidUsernameError(ServiceError):
    code = "invalid_username"


class InvalidPasswordError(ServiceError):
    code = "invalid_password"


class UnknownRoleError(ServiceError):
    code = "unknown_role"


class SelfDisableRefusedError(PermissionRefusedError):
    code = "self_disable_refused"


class SelfRoleGrantRefusedError(PermissionRefusedError):
    code = "self_role_grant_refused"


class SelfPasswordResetRefusedError(PermissionRefusedError):
    code = "self_password_reset_refused"


class SuperuserNotManagedError(PermissionRefusedError):
    code = "superuser_not_managed"


class AccountAlreadyDisabledError(ConflictError):
    code = "account_already_disabled"


class AccountAlreadyEnabledError(ConflictError):
    code = "account_already_enabled"


class WrongPasswordError(PermissionRefusedError):
    code = "wrong_password"


class PasswordsDifferError(ServiceError):
    code = "passwords_differ"
    status = 400


class PasswordUnchangedError(ServiceError):
    code = "password_unchanged"
    status = 400


class UnknownLanguageError(ServiceError):
    code = "unknown_language"
    status = 400


# ---------------------------------------------------------------------------------------------
# Engine refusals (``games.errors.GameError``) become service errors with the engine's code, for
# every game the venue offers (the live tables, the card room) and for the terminal API.


class GameRefusedError(ServiceError):
    """An engine refusal, with the engine's code."""

    status = 409


# The status of an engine refusal where it is not 409 (the state does not allow the command now):
# a card code that is no card is bad input, a rule set out of range unprocessable, and a code a
# table also has a service error for keeps that error's status (a box the table lacks is not
# found, someone else's box forbidden, a stake out of the table's limits unprocessable:
# tests/tables/test_services.py checks these against tables.errors). One status per code, whether
# the engine's error reaches the API raw or through a service.
GAME_ERROR_STATUS = {
    "invalid_card": 400,
    "invalid_ruleset": 422,
    "no_such_box": 404,
    "not_box_owner": 403,
    "stake_below_table_min": 422,
    "stake_above_table_max": 422,
}


def from_game_error(error: GameError) -> ServiceError:
    """The service error for an engine refusal, keeping its code, its status and its details
    (a stake limit names the limit)."""
    refused = GameRefusedError(error.message, code=error.code, **getattr(error, "details", {}))
    refused.status = GAME_ERROR_STATUS.get(error.code, GameRefusedError.status)
    return refused


T = TypeVar("T")


def game(call: Callable[[], T]) -> T:
    """Run an engine call; its refusal becomes the service error with the same code."""
    try:
        return call()
    except GameError as error:
        raise from_game_error(error) from error


class AuditKeyMissingError(ServiceError):
    code = "audit_key_missing"


class AuditChainBrokenError(ServiceError):
    code = "audit_chain_broken"


class FourEyesRequiredError(PermissionRefusedError):
    """The person deciding asked for it, or is excluded from deciding it (the round's dealer)."""

    code = "four_eyes_required"


class IndependentRoleError(PermissionRefusedError):
    """The decider's role never decides an approval (``[independence]`` of the policy)."""

    code = "independent_role"


class ApprovalDecidedError(ConflictError):
    code = "approval_decided"


class ApprovalNotFoundError(NotFoundError):
    code = "approval_not_found"


class ApprovalPendingError(ConflictError):
    """The same thing already waits for a second person."""

    code = "approval_pending"


class GamingDayClosedError(ConflictError):
    """A write for a gaming day that is closed: the day of the moment it is made, or the day of
    the record it writes about."""

    code = "gaming_day_closed"


class GamingDayAlreadyClosedError(ConflictError):
    code = "gaming_day_already_closed"


class GamingDayNotEndedError(ConflictError):
    """A closing of a day whose last shift has not ended (the day ends at the next day's start)."""

    code = "gaming_day_not_ended"


class GamingDayEarlierOpenError(ConflictError):
    """A closing of a day while an earlier day is open: days close in order."""

    code = "gaming_day_earlier_open"


class GamingDayNotClosedError(ConflictError):
    """A reopening of a day that is open."""

    code = "gaming_day_not_closed"


class GamingDayLaterClosedError(ConflictError):
    """A reopening of a day while a later day is closed: the latest closed day reopens first."""

    code = "gaming_day_later_closed"


class UnknownJobKindError(ServiceError):
    code = "unknown_job_kind"


class PlayerTokenError(ServiceError):
    code = "player_token_invalid"
    status = 401


class WrongTableError(PermissionRefusedError):
    code = "wrong_table"


class CardNumberTakenError(ServiceError):
    code = "card_number_taken"


class CredentialAlreadyRevokedError(ServiceError):
    code = "credential_already_revoked"


class CredentialExpiredError(TerminalCredentialError):
    code = "credential_expired"


class CredentialRevokedError(TerminalCredentialError):
    code = "credential_revoked"


class InvalidIdempotencyKeyError(ServiceError):
    code = "invalid_idempotency_key"


class InvalidLifetimeError(ServiceError):
    code = "invalid_lifetime"


class InvalidPinError(ServiceError):
    code = "invalid_pin"


class InvalidTerminalKindError(ServiceError):
    code = "invalid_terminal_kind"


class NotAPlayerTerminalError(PermissionRefusedError):
    code = "not_a_player_terminal"


class PlayerInactiveError(PlayerTokenError):
    code = "player_inactive"


class PlayerLockedError(PlayerSignInError):
    code = "player_locked"


class PlayerSessionEndedError(PlayerTokenError):
    code = "player_session_ended"


class PlayerSessionExpiredError(PlayerTokenError):
    code = "player_session_expired"


class StreamsNotServedError(ServiceError):
    """A stream asked of a server that does not hold streams (WSGI: ``casino/streams.py``)."""

    code = "streams_not_served_here"
    status = 503


class TableNotInCasinoError(ServiceError):
    code = "table_not_in_casino"


class TerminalInactiveError(ServiceError):
    code = "terminal_inactive"


class TerminalNameTakenError(ServiceError):
    code = "terminal_name_taken"


class TerminalWithoutTableError(ConflictError):
    code = "terminal_without_table"


class VenueInvalidIdempotencyKeyError(IdempotencyKeyMissingError):
    code = "invalid_idempotency_key"


class TableNotFoundError(NotFoundError):
    code = "table_not_found"


class VenueTerminalInactiveError(TerminalCredentialError):
    code = "terminal_inactive"
