"""Refusals of the live table services. Each has a stable ``code`` (what the API returns); a
refused command changed nothing (no bet, no hold, no event, no audit record).

Engine refusals (``games.errors.GameError``) are translated by :func:`from_game_error`
keeping their code (``not_your_turn``, ``double_not_allowed``, ``card_not_in_shoe`` ...).
"""

from __future__ import annotations

from casino.errors import (
    ConflictError,
    PermissionRefusedError,
    ReasonRequiredError,
    ServiceError,
)


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


class ConfigChangePendingError(ConflictError):
    """A change of the table's configuration waits for a second person's approval."""

    code = "config_change_pending"


class HouseEdgeNotComputedError(ConflictError):
    """A rule-set version is approved with its main game's house edge in view: not before the
    edge is computed (``tables.odds_jobs``)."""

    code = "house_edge_not_computed"


class TableReasonRequiredError(ReasonRequiredError):
    """A reason missing from a table command: 409, as the terminal API has always answered it."""

    status = 409


class TableNameTakenError(ConflictError):
    code = "table_name_taken"


class ReplayError(Exception):
    """A recorded round that cannot be replayed or exported from its events (one that never
    closed betting): not a refusal of a command, nothing was asked to change."""


__all__ = [
    "AlreadySignedOnError",
    "AwaitingCorrectionError",
    "BetBehindOwnBoxError",
    "BetsBehindForbiddenError",
    "BettingClosedError",
    "BoxLimitReachedError",
    "BoxNotTakenError",
    "BoxTakenError",
    "DecisionDeadlinePassedError",
    "DecisionsFromTerminalsError",
    "InsuranceNotOfferedError",
    "InvalidBetKindError",
    "InvalidCutCardError",
    "InvalidRequestError",
    "MisscanError",
    "NoChangeError",
    "NoMisscanError",
    "NoSuchBetError",
    "NoSuchDecisionError",
    "NotBetOwnerError",
    "NotBoxOwnerError",
    "NotEditableError",
    "NotSeatedError",
    "NotSignedOnError",
    "ReplayError",
    "RoundInPlayElsewhereError",
    "RoundInProgressError",
    "RoundNotOpenError",
    "RoundNotPlayedError",
    "ShuffleDueError",
    "SideBetWithoutMainBetError",
    "SimulationStuckError",
    "StaffOnlyError",
    "StakeAboveTableMaxError",
    "StakeBelowTableMinError",
    "TableError",
    "TableHoldMismatchError",
    "TableIllegalActionError",
    "TableNotYourTurnError",
    "TableOpenError",
    "TablePayoutNotPendingError",
    "TableShoeExhaustedError",
    "VirtualShoeError",
]


class AlreadySignedOnError(TableError):
    code = "already_signed_on"


class BoxNotTakenError(TableError):
    code = "box_not_taken"


class DecisionsFromTerminalsError(PermissionRefusedError):
    code = "decisions_from_terminals"


class InsuranceNotOfferedError(TableError):
    code = "insurance_not_offered"


class InvalidBetKindError(TableError):
    code = "invalid_bet_kind"


class InvalidCutCardError(TableError):
    code = "invalid_cut_card"


class InvalidRequestError(TableError):
    code = "invalid_request"


class NoChangeError(TableError):
    code = "no_change"


class NoMisscanError(TableError):
    code = "no_misscan"


class NoSuchBetError(TableError):
    code = "no_such_bet"


class NoSuchDecisionError(TableError):
    code = "no_such_decision"


class NotBetOwnerError(TableError):
    code = "not_bet_owner"


class NotEditableError(TableError):
    code = "not_editable"


class NotSignedOnError(TableError):
    code = "not_signed_on"


class RoundInPlayElsewhereError(TableError):
    code = "round_in_play_elsewhere"


class RoundNotPlayedError(TableError):
    code = "round_not_played"


class SimulationStuckError(ServiceError):
    code = "simulation_stuck"


class StaffOnlyError(TableError):
    code = "staff_only"


class TableHoldMismatchError(TableError):
    code = "hold_mismatch"


class TableIllegalActionError(TableError):
    code = "illegal_action"


class TableNotYourTurnError(TableError):
    code = "not_your_turn"


class TableOpenError(TableError):
    code = "table_open"


class TablePayoutNotPendingError(TableError):
    code = "payout_not_pending"


class TableShoeExhaustedError(TableError):
    code = "shoe_exhausted"


class VirtualShoeError(TableError):
    code = "virtual_shoe"
