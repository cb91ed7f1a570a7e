"""Canasta refusals. Each is a :class:`~games.errors.GameError` with a stable ``code``.

The class says what kind of thing was refused; the code says exactly why. Interfaces return
the code as is (``docs/canasta-deal.md`` lists them).
"""

from __future__ import annotations

from games.errors import GameError, IllegalActionError, InvalidRuleSetError


class CanastaRuleSetError(InvalidRuleSetError):
    """A preset name, an option name or an option value the engine does not know."""

    code = "invalid_ruleset"


class UnknownPresetError(CanastaRuleSetError):
    code = "unknown_preset"


class UnknownOptionError(CanastaRuleSetError):
    """An override whose name is neither a parameter nor an option of section 9.4."""

    code = "unknown_option"


class InvalidCardCodeError(GameError):
    """A card code that is not a canasta card (``KS``, ``TH``, ``3C``, ``JK``)."""

    code = "invalid_card"


class InvalidShuffleError(GameError):
    """A shuffle that is not exactly the cards of the packs, each instance once."""

    code = "invalid_shuffle"


class CanastaActionError(IllegalActionError):
    """An action the rules do not allow now (the code says which rule)."""

    code = "illegal_action"


class CanastaNotYourTurnError(CanastaActionError):
    code = "not_your_turn"


class WrongStageError(CanastaActionError):
    """Drawing twice, discarding before drawing, melding while the partner is asked ..."""

    code = "wrong_stage"


class CardNotHeldError(CanastaActionError):
    """A card that is not in the player's hand (or not in the pile, for a pile card)."""

    code = "card_not_held"


class InvalidMeldError(CanastaActionError):
    """A meld or an addition that breaks section 3 (wild-card limits, ranks, threes ...)."""

    code = "invalid_meld"


class OpeningRefusedError(CanastaActionError):
    """An initial meld that does not meet section 4 (minimum, canasta at once, naturals)."""

    code = "opening_minimum_not_met"


class PileRefusedError(CanastaActionError):
    """Taking the discard pile against section 5."""

    code = "pile_refused"


class GoingOutRefusedError(CanastaActionError):
    """Going out, or keeping too few cards, against section 6."""

    code = "cannot_go_out"


class InvalidDealError(GameError):
    """A finished deal given as data that cannot have happened (section 7 scoring input)."""

    code = "invalid_deal"
