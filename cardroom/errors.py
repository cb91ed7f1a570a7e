"""Refusals of the card room's services and pages. Each has a stable ``code`` (what the API and
the pages show); a refused command changed nothing. Engine refusals keep the engine's code
(``casino.errors.game``)."""

from __future__ import annotations

from casino.errors import NotFoundError, ReasonRequiredError, ServiceError


class CanastaError(ServiceError):
    """A refusal of the card room (the code says why)."""

    code = "canasta_refused"
    status = 409


class CanastaNotSeatedError(CanastaError):
    code = "not_seated"


class CanastaReasonRequiredError(ReasonRequiredError):
    """A reason missing from a card-room command: 409, as the terminal API has always answered it."""

    status = 409


class AlreadySeatedError(CanastaError):
    code = "already_seated"


class CanastaGameInProgressError(CanastaError):
    code = "canasta_game_in_progress"


class CanastaNoCanastaGameError(CanastaError):
    code = "no_canasta_game"


class CanastaNoChangeError(CanastaError):
    code = "no_change"


class CanastaNoSuchSeatError(CanastaError):
    code = "no_such_seat"


class CannotGoOutError(CanastaError):
    code = "cannot_go_out"


class DealInProgressError(CanastaError):
    code = "deal_in_progress"


class GameNotOpenError(CanastaError):
    code = "game_not_open"


class InvalidDealDataError(CanastaError):
    code = "invalid_deal_data"


class InvalidMoveError(CanastaError):
    code = "invalid_move"


class NoCanastaGameError(NotFoundError):
    code = "no_canasta_game"


class NoDealInProgressError(CanastaError):
    code = "no_deal_in_progress"


class NoSuchSeatError(NotFoundError):
    code = "no_such_seat"


class NotACanastaTableError(CanastaError):
    code = "not_a_canasta_table"


class SeatTakenError(CanastaError):
    code = "seat_taken"


class SeatsNotFilledError(CanastaError):
    code = "seats_not_filled"


class StakeOutOfRangeError(CanastaError):
    code = "stake_out_of_range"


class StaleMoveError(CanastaError):
    code = "stale_move"


class WrongDealKindError(CanastaError):
    code = "wrong_deal_kind"
