"""Blackjack rule sets as data (rules/blackjack.md), and the shipped profiles (section 9).

Where the sources differ the difference is an option here, never a code fork: the engine,
the odds and the live table all read the same :class:`RuleSet`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from games.cards import MAX_DECKS, MIN_DECKS
from games.errors import InvalidRuleSetError


class HoleCard(Enum):
    """How the dealer's second card is handled (rules/blackjack.md 4.3)."""

    PEEK = "peek"  # hole card, peek on an ace or a ten-valued upcard (L)
    NO_PEEK = "no_peek"  # hole card shown only after the players have acted (H)


class NoPeekLoss(Enum):
    """What a no-peek dealer blackjack takes from a box that doubled or split (4.3).

    ``ALL_STAKES``: every stake on every hand, doubles and splits included. ``ORIGINAL_STAKE``:
    each bet on the box loses at most its original stake in total, busted hands included; every
    added stake comes back (as if the dealer had peeked). Settled by
    :func:`games.blackjack.settlement.no_peek_original_stake_loss`.
    """

    ALL_STAKES = "all_stakes"
    ORIGINAL_STAKE = "original_stake"


class InsuranceStake(Enum):
    """How much of the original stake an insurance may be (3.3).

    ``HALF``: exactly half, as both sources say. ``UP_TO_HALF``: any positive multiple of the
    table's smallest chip (``payout_rounding_unit_minor``) up to half, as many casinos allow.
    """

    HALF = "half"
    UP_TO_HALF = "up_to_half"


class DoubleOn(Enum):
    """Which first two cards may be doubled (5.3)."""

    ANY_TWO = "any_two"
    NINE_TO_ELEVEN = "9_to_11"
    TEN_OR_ELEVEN = "10_or_11"

    def allows(self, hard_or_soft_total: int) -> bool:
        if self is DoubleOn.ANY_TWO:
            return True
        if self is DoubleOn.NINE_TO_ELEVEN:
            return hard_or_soft_total in (9, 10, 11)
        return hard_or_soft_total in (10, 11)


class SplitBy(Enum):
    """Which pairs may be split (5.4): equal value (J,K) or equal rank only."""

    VALUE = "value"
    RANK = "rank"


class Surrender(Enum):
    OFF = "off"
    LATE = "late"


@dataclass(frozen=True, slots=True)
class PerfectPairsPaytable:
    """Perfect Pairs pays X:1 (rules/blackjack.md 8): the stake is returned with the win."""

    perfect: int = 25
    coloured: int = 12
    mixed: int = 6

    def payout(self, outcome: str) -> int:
        return {"perfect": self.perfect, "coloured": self.coloured, "mixed": self.mixed}.get(outcome, 0)


@dataclass(frozen=True, slots=True)
class TwentyOnePlusThreePaytable:
    """21+3 pays X:1 for the best combination only (rules/blackjack.md 8)."""

    suited_trips: int = 100
    straight_flush: int = 40
    three_of_a_kind: int = 25
    straight: int = 10
    flush: int = 5

    def payout(self, outcome: str) -> int:
        return {
            "suited_trips": self.suited_trips,
            "straight_flush": self.straight_flush,
            "three_of_a_kind": self.three_of_a_kind,
            "straight": self.straight,
            "flush": self.flush,
        }.get(outcome, 0)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every option of a blackjack table. Immutable; build variants with :func:`with_overrides`."""

    name: str = "custom"
    decks: int = 6
    dealer_hits_soft_17: bool = False
    hole_card: HoleCard = HoleCard.PEEK
    no_peek_loss: NoPeekLoss = NoPeekLoss.ALL_STAKES
    blackjack_pays: Fraction = Fraction(3, 2)
    double_on: DoubleOn = DoubleOn.ANY_TWO
    double_after_split: bool = True
    max_hands: int = 2
    resplit_aces: bool = False
    split_aces_one_card: bool = True
    split_by: SplitBy = SplitBy.VALUE
    insurance: bool = True
    insurance_pays: Fraction = Fraction(2, 1)
    insurance_stake: InsuranceStake = InsuranceStake.HALF
    even_money: bool = False
    surrender: Surrender = Surrender.OFF
    boxes: int = 7
    boxes_per_player: int = 2
    bet_behind: bool = True
    perfect_pairs: PerfectPairsPaytable | None = field(default_factory=PerfectPairsPaytable)
    twenty_one_plus_three: TwentyOnePlusThreePaytable | None = field(
        default_factory=TwentyOnePlusThreePaytable
    )
    # Fractional payouts (3:2 on an odd stake) are rounded down to a multiple of this
    # many minor units; the remainder stays with the house and is reported.
    payout_rounding_unit_minor: int = 1

    def __post_init__(self) -> None:
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise InvalidRuleSetError(f"decks must be {MIN_DECKS}-{MAX_DECKS}, not {self.decks}")
        if self.max_hands not in (2, 3, 4):
            raise InvalidRuleSetError(f"max_hands must be 2, 3 or 4, not {self.max_hands}")
        if not 1 <= self.boxes <= 7:
            raise InvalidRuleSetError(f"boxes must be 1-7, not {self.boxes}")
        if not 1 <= self.boxes_per_player <= self.boxes:
            raise InvalidRuleSetError("boxes_per_player must be between 1 and boxes")
        if self.blackjack_pays <= 0 or self.insurance_pays <= 0:
            raise InvalidRuleSetError("payouts must be positive")
        if self.payout_rounding_unit_minor < 1:
            raise InvalidRuleSetError("payout_rounding_unit_minor must be at least 1")

    @property
    def peeks(self) -> bool:
        return self.hole_card is HoleCard.PEEK

    @property
    def side_bets_enabled(self) -> bool:
        return self.perfect_pairs is not None or self.twenty_one_plus_three is not None

    def with_overrides(self, overrides: Mapping[str, Any]) -> RuleSet:
        """A copy with some options changed, given as JSON-style values (see :func:`ruleset_from_dict`)."""
        merged = self.to_dict()
        merged.update(overrides)
        return ruleset_from_dict(merged)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: enums by value, fractions as ``"3/2"``, paytables as dicts or null."""
        out: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, Enum):
                out[item.name] = value.value
            elif isinstance(value, Fraction):
                out[item.name] = f"{value.numerator}/{value.denominator}"
            elif isinstance(value, (PerfectPairsPaytable, TwentyOnePlusThreePaytable)):
                out[item.name] = asdict(value)
            else:
                out[item.name] = value
        return out


_ENUMS: dict[str, type[Enum]] = {
    "hole_card": HoleCard,
    "no_peek_loss": NoPeekLoss,
    "insurance_stake": InsuranceStake,
    "double_on": DoubleOn,
    "split_by": SplitBy,
    "surrender": Surrender,
}
_FRACTIONS = ("blackjack_pays", "insurance_pays")
_BOOLS = (
    "dealer_hits_soft_17",
    "double_after_split",
    "resplit_aces",
    "split_aces_one_card",
    "insurance",
    "even_money",
    "bet_behind",
)
_INTS = ("decks", "max_hands", "boxes", "boxes_per_player", "payout_rounding_unit_minor")


def _fraction(name: str, value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, str, Fraction)):
        raise InvalidRuleSetError(f'{name} must be a fraction such as "3/2"')
    try:
        text = value.replace(":", "/") if isinstance(value, str) else value
        return Fraction(text)
    except (ValueError, ZeroDivisionError) as error:
        raise InvalidRuleSetError(f"{name}: {value!r} is not a fraction") from error


def _paytable(name: str, value: Any, kind: type[Any]) -> Any:
    if value is None or value is False:
        return None
    if value is True:
        return kind()
    if not isinstance(value, Mapping):
        raise InvalidRuleSetError(f"{name} must be a paytable object or null")
    known = {item.name for item in fields(kind)}
    unknown = set(value) - known
    if unknown:
        raise InvalidRuleSetError(f"{name}: unknown outcomes {sorted(unknown)}")
    for key, pays in value.items():
        if isinstance(pays, bool) or not isinstance(pays, int) or pays < 0:
            raise InvalidRuleSetError(f"{name}.{key} must be a whole number X of X:1")
    return kind(**value)


def ruleset_from_dict(data: Mapping[str, Any]) -> RuleSet:
    """Build a rule set from its JSON form (the inverse of :meth:`RuleSet.to_dict`).

    Missing options take the :class:`RuleSet` defaults; unknown options are refused.
    """
    known = {item.name for item in fields(RuleSet)}
    unknown = set(data) - known
    if unknown:
        raise InvalidRuleSetError(f"unknown rule options: {sorted(unknown)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name in _ENUMS:
            try:
                values[name] = _ENUMS[name](value)
            except ValueError as error:
                choices = [member.value for member in _ENUMS[name]]
                raise InvalidRuleSetError(f"{name} must be one of {choices}") from error
        elif name in _FRACTIONS:
            values[name] = _fraction(name, value)
        elif name in _BOOLS:
            if not isinstance(value, bool):
                raise InvalidRuleSetError(f"{name} must be true or false")
            values[name] = value
        elif name in _INTS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidRuleSetError(f"{name} must be a whole number")
            values[name] = value
        elif name == "perfect_pairs":
            values[name] = _paytable(name, value, PerfectPairsPaytable)
        elif name == "twenty_one_plus_three":
            values[name] = _paytable(name, value, TwentyOnePlusThreePaytable)
        elif name == "name":
            values[name] = str(value)
    return RuleSet(**values)


# rules/blackjack.md section 9, column L.
LIVE_AMERICAN = RuleSet(
    name="live-american",
    decks=6,
    dealer_hits_soft_17=False,
    hole_card=HoleCard.PEEK,
    blackjack_pays=Fraction(3, 2),
    double_on=DoubleOn.ANY_TWO,
    double_after_split=True,
    max_hands=2,
    resplit_aces=False,
    split_aces_one_card=True,
    insurance=True,
    insurance_stake=InsuranceStake.HALF,
    boxes=7,
    boxes_per_player=2,
    bet_behind=True,
    perfect_pairs=PerfectPairsPaytable(),
    twenty_one_plus_three=TwentyOnePlusThreePaytable(),
)

# rules/blackjack.md section 9, column H: no peek, a dealer blackjack takes all stakes.
HOME_POLISH = RuleSet(
    name="home-polish",
    decks=6,
    dealer_hits_soft_17=False,
    hole_card=HoleCard.NO_PEEK,
    no_peek_loss=NoPeekLoss.ALL_STAKES,
    blackjack_pays=Fraction(3, 2),
    double_on=DoubleOn.NINE_TO_ELEVEN,
    double_after_split=True,
    max_hands=4,
    resplit_aces=False,
    split_aces_one_card=True,
    insurance=True,
    insurance_stake=InsuranceStake.HALF,
    boxes=7,
    boxes_per_player=2,
    bet_behind=False,
    perfect_pairs=None,
    twenty_one_plus_three=None,
)

PROFILES: dict[str, RuleSet] = {LIVE_AMERICAN.name: LIVE_AMERICAN, HOME_POLISH.name: HOME_POLISH}


def profile(name: str, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """A shipped profile by name, optionally with options overridden."""
    try:
        base = PROFILES[name]
    except KeyError as error:
        raise InvalidRuleSetError(f"unknown rule profile {name!r}; known: {sorted(PROFILES)}") from error
    if not overrides:
        return base
    merged = dict(overrides)
    merged.setdefault("name", name)
    return base.with_overrides(merged)


__all__ = [
    "HOME_POLISH",
    "LIVE_AMERICAN",
    "PROFILES",
    "DoubleOn",
    "HoleCard",
    "InsuranceStake",
    "NoPeekLoss",
    "PerfectPairsPaytable",
    "RuleSet",
    "SplitBy",
    "Surrender",
    "TwentyOnePlusThreePaytable",
    "profile",
    "replace",
    "ruleset_from_dict",
]
