"""Refusals of the live table services. Each has a stable ``code`` (what the API returns); a
refused command changed nothing (no bet, no hold, no event, no audit record).

Engine refusals (``games.errors.GameError``) are translated by :func:`from_game_error`
keeping their code (``not_your_turn``, ``double_not_allowed``, ``card_not_in_shoe`` ...).
"""

from __future__ import annotations

from casino.errors import (
    ConflictError,
    NotFoundError,
    PermissionRefusedError,
    ReasonRequiredError,
    ServiceError,
)
from games.errors import GameError


class TableError(ServiceError):
    code = "table_refused"
    status = 409


class NoSuchBoxError(TableError):
    """A box number the table does not have (or its configuration does not use): 404, as a
    missing resource, wherever it is named (a path, a bet's body)."""

    code = "no_such_box"
    status = 404


class BettingClosedError(TableError):
    code = "betting_closed"


class StakeBelowTableMinError(TableError):
    code = "stake_below_table_min"
    status = 422


class StakeAboveTableMaxError(TableError):
    code = "stake_above_table_max"
    status = 422


class BoxLimitReachedError(TableError):
    code = "box_limit_reached"


class BoxTakenError(TableError):
    code = "box_taken"


class NotBoxOwnerError(TableError):
    code = "not_box_owner"
    status = 403


class NotSeatedError(TableError):
    code = "not_seated"


class BetsBehindForbiddenError(TableError):
    code = "bets_behind_forbidden"


class BetBehindOwnBoxError(TableError):
    code = "bet_behind_own_box"


class SideBetWithoutMainBetError(TableError):
    code = "side_bet_without_main_bet"


class MisscanError(TableError):
    code = "misscan"


class AwaitingCorrectionError(TableError):
    code = "awaiting_correction"


class ShuffleDueError(TableError):
    code = "shuffle_due"


class RoundInProgressError(TableError):
    code = "round_in_progress"


class RoundNotOpenError(TableError):
    code = "round_not_open"


class TableClosedError(TableError):
    code = "table_closed"


class NotTableDealerError(PermissionRefusedError):
    """A dealer acting at a table another dealer is signed on to (one dealer at a time)."""

    code = "not_table_dealer"


class DecisionDeadlinePassedError(TableError):
    code = "decision_deadline_passed"


class InvalidConfigurationError(ServiceError):
    code = "invalid_configuration"
    status = 422


class ConfigChangePendingError(ConflictError):
    """A change of the table's configuration waits for a second person's approval."""

    code = "config_change_pending"


class HouseEdgeNotComputedError(ConflictError):
    """A rule-set version is approved with its main game's house edge in view: not before the
    edge is computed (``tables.odds_jobs``)."""

    code = "house_edge_not_computed"


class CanastaError(TableError):
    """A refusal of the card room's canasta services (the code says why)."""

    code = "canasta_refused"


class TableNotFoundError(NotFoundError):
    code = "table_not_found"


class TableReasonRequiredError(ReasonRequiredError):
    """A reason missing from a table command: 409, as the terminal API has always answered it."""

    status = 409


class TableNameTakenError(ConflictError):
    code = "table_name_taken"


class GameRefusedError(TableError):
    """An engine refusal, with the engine's code."""

    status = 409


# The status of an engine refusal where it is not 409 (the round's state does not allow the
# command now): a card code that is no card is bad input, a ruleset out of range unprocessable, and
# a code the table also has a service error for keeps that error's status (a box the table lacks is
# not found, someone else's box forbidden, a stake out of the table's limits unprocessable). One
# status per code, whether the engine's error reaches the API raw or through a service.
GAME_ERROR_STATUS = {
    "invalid_card": 400,
    "invalid_ruleset": 422,
    **{
        error.code: error.status
        for error in (NoSuchBoxError, NotBoxOwnerError, StakeBelowTableMinError, StakeAboveTableMaxError)
    },
}


def from_game_error(error: GameError) -> ServiceError:
    """The service error for an engine refusal, keeping its code, its status and its details
    (a stake limit names the limit)."""
    refused = GameRefusedError(error.message, code=error.code, **getattr(error, "details", {}))
    refused.status = GAME_ERROR_STATUS.get(error.code, GameRefusedError.status)
    return refused


__all__ = [
    "AwaitingCorrectionError",
    "BetBehindOwnBoxError",
    "BetsBehindForbiddenError",
    "BettingClosedError",
    "BoxLimitReachedError",
    "BoxTakenError",
    "CanastaError",
    "DecisionDeadlinePassedError",
    "GameRefusedError",
    "InvalidConfigurationError",
    "MisscanError",
    "NotBoxOwnerError",
    "NotSeatedError",
    "RoundInProgressError",
    "RoundNotOpenError",
    "ShuffleDueError",
    "SideBetWithoutMainBetError",
    "StakeAboveTableMaxError",
    "StakeBelowTableMinError",
    "TableError",
    "TableNotFoundError",
    "from_game_error",
]
