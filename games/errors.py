"""Engine errors. Every error carries a stable machine code that interfaces return as is."""

from __future__ import annotations


class GameError(Exception):
    """Base of every error the engines raise on purpose."""

    code: str = "game_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code


class InvalidCardError(GameError):
    """A card code that is not a card of a standard 52-card deck."""

    code = "invalid_card"


class InvalidRuleSetError(GameError):
    """A rule set or paytable whose options are out of range or unknown."""

    code = "invalid_ruleset"


class IllegalActionError(GameError):
    """An action that the rules do not allow in the current state."""

    code = "illegal_action"


class ShoeExhaustedError(GameError):
    """The shoe has no card left to deal."""

    code = "shoe_exhausted"


class BetRefusedError(IllegalActionError):
    """A bet the rules or the box do not accept (the code says why, e.g. ``betting_closed``)."""

    code = "bet_refused"


class NotBoxOwnerError(IllegalActionError):
    """A decision for a box taken by someone who is not its owner (rules/blackjack.md 2.3)."""

    code = "not_box_owner"


class NotYourTurnError(IllegalActionError):
    """A decision for a box or hand that is not the one to act now (rules/blackjack.md 5)."""

    code = "not_your_turn"


class MisscanError(IllegalActionError):
    """A card that no target expects now, or that the remaining shoe cannot hold."""

    code = "card_not_expected"


class RoundNotSettledError(GameError):
    """Settlement asked for a round that has not reached its end."""

    code = "round_not_settled"


class InvalidSnapshotError(GameError):
    """A stored round snapshot or action that cannot be read back."""

    code = "invalid_snapshot"


class InvalidScriptError(GameError):
    """A round script that is not valid (shape, unknown keys, leftover decisions ...)."""

    code = "invalid_round_script"


class StakeOutOfLimitsError(BetRefusedError):
    """A stake below the table's minimum or above its maximum for the bet type (rules 2.8);
    ``details`` names the limit (``minimum_minor`` or ``maximum_minor``)."""

    def __init__(self, message: str, *, code: str, details: dict[str, int]) -> None:
        super().__init__(message, code=code)
        self.details = details
