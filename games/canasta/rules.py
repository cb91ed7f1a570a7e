"""Canasta rule sets as data (rules/canasta.md sections 9 and 10).

A :class:`CanastaRules` holds every parameter of a preset. :func:`preset` builds one of the
thirteen presets by name with overrides: a parameter by its name in ``seeds/canasta_presets.json``
(``wildRule``, ``minPileSize`` ...) or an option of section 9.4 switched on (``gradedMixed``,
``target7500`` ...). Anything else is refused with ``unknown_option``. Where the sources differ
the difference is a parameter here (section 10), never a code fork.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from games.canasta.errors import CanastaRuleSetError, UnknownOptionError, UnknownPresetError
from games.canasta.presets import OPENING_TABLES, OPTIONS, PRESET_NAMES, preset_parameters


class Sides(Enum):
    """rules D2: partnerships opposite, everyone for himself, or six players in teams."""

    PARTNERS_2V2 = "PARTNERS_2V2"
    INDIVIDUAL = "INDIVIDUAL"
    TEAMS_2X3_OR_3X2 = "TEAMS_2X3_OR_3X2"


class UpcardReturn(Enum):
    """rules D5 / C12: which upcards are covered by the next stock card."""

    WILD_RED3 = "WILD_RED3"
    WILD_RED3_BLACK3 = "WILD_RED3_BLACK3"
    NONE = "NONE"


class WildRule(Enum):
    """rules M2 / C1: wild cards at most as many as naturals (LE) or fewer (LT)."""

    LE = "LE"
    LT = "LT"


class OpeningBasis(Enum):
    """rules O3 / C4."""

    CUMULATIVE = "CUMULATIVE"
    PREVIOUS_HAND = "PREVIOUS_HAND"


class OpeningPileCards(Enum):
    """rules O6 / C5."""

    TOP_ONLY = "TOP_ONLY"
    ANY = "ANY"


class WildOnTop(Enum):
    """rules P3 / C6."""

    FORBIDDEN = "FORBIDDEN"
    BENEATH_PAIR = "BENEATH_PAIR"


class FreezeUntil(Enum):
    """rules P5 / C7."""

    TAKEN = "TAKEN"
    COVERED = "COVERED"


class LastCardRule(Enum):
    """rules G4 / C20."""

    KEEP_ONE = "KEEP_ONE"
    SKIP_DISCARD = "SKIP_DISCARD"


class RedThreeRule(Enum):
    """rules S3 / C13, C14: the sign of the red threes."""

    MELD_NEG = "MELD_NEG"
    CANASTA_NEG = "CANASTA_NEG"
    CANASTA_ZERO = "CANASTA_ZERO"


class FullSetShortfall(Enum):
    """rules S3 / C28: six red threes without the canastas the set needs."""

    NEGATIVE = "NEGATIVE"
    PER_CARD = "PER_CARD"


@dataclass(frozen=True, slots=True)
class CanastaRules:
    """Every parameter of a canasta game. Field ``x_y`` is parameter ``xY`` of the seed file."""

    name: str
    players: int
    sides: Sides
    decks: int
    jokers: int
    cards: int
    hand_size: int
    house_deal: bool
    upcard_return: UpcardReturn
    upcard_freezes: bool
    draw_count: int
    red_three_replace: bool
    wild_rule: WildRule
    max_wild: int
    melds_per_rank: int
    sequences: bool
    samba_bonus: int | None
    add_requires_own_meld: bool
    opening_table: str
    opening_basis: OpeningBasis
    opening_min_naturals: int
    opening_pile_cards: OpeningPileCards
    wild_on_top: WildOnTop
    freeze_until: FreezeUntil
    take_natural_plus_wild: bool
    take_by_adding_top_card: bool
    no_take_on_canasta_rank: bool
    min_pile_size: int
    one_card_may_take_one_card_pile: bool
    canastas_to_go_out: int
    ask_partner: bool
    last_card_rule: LastCardRule
    black_three_final_discard: bool
    concealed_if_partner_melded: bool
    go_out_top_card_only: bool
    double_go_out: bool
    stock_exhausted: str
    natural_canasta_bonus: int
    mixed_canasta_bonus: int
    graded_mixed: bool
    graded_mixed_bonus: tuple[int, ...]
    joker_canasta: bool
    joker_canasta_bonus: int
    sevens_bonus: int
    red_three_value: int
    red_three_full_set_count: int
    red_three_full_set_bonus: int
    red_three_full_set_min_canastas: int | None
    red_three_full_set_shortfall: FullSetShortfall | None
    red_three_rule: RedThreeRule
    out_bonus: int
    concealed_bonus: int
    double_go_out_bonus: int
    black_three_in_hand: int
    red_three_in_hand: int
    no_canasta_negative: bool
    target: int

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4, 6):
            raise CanastaRuleSetError(f"players must be 2, 3, 4 or 6, not {self.players}")
        if self.decks not in (2, 3) or self.jokers != 2 * self.decks:
            raise CanastaRuleSetError("two packs with 4 jokers or three packs with 6 (rules 1.1)")
        if self.cards != 52 * self.decks + self.jokers:
            raise CanastaRuleSetError(
                f"{self.decks} packs and {self.jokers} jokers are not {self.cards} cards"
            )
        dealt = self.hand_size * self.players + (1 if self.house_deal else 0)
        if self.hand_size < 1 or dealt + 2 > self.cards:
            raise CanastaRuleSetError(f"hand size {self.hand_size} does not fit the packs")
        if self.draw_count not in (1, 2):
            raise CanastaRuleSetError("drawCount must be 1 or 2")
        if not 1 <= self.max_wild <= 6 or self.melds_per_rank not in (1, 2):
            raise CanastaRuleSetError("maxWild must be 1-6 and meldsPerRank 1 or 2")
        if self.min_pile_size not in (1, 2) or self.canastas_to_go_out < 0:
            raise CanastaRuleSetError("minPileSize must be 1 or 2, canastasToGoOut not negative")
        if self.opening_table not in OPENING_TABLES:
            raise CanastaRuleSetError(f"openingTable must be one of {sorted(OPENING_TABLES)}")
        if self.sides is Sides.PARTNERS_2V2 and self.players != 4:
            raise CanastaRuleSetError("partnerships of two need four players")
        if self.sides is Sides.TEAMS_2X3_OR_3X2 and self.players != 6:
            raise CanastaRuleSetError("teams of three or of two need six players")
        if len(self.graded_mixed_bonus) != 3:
            raise CanastaRuleSetError("gradedMixedBonus needs three values (1, 2, 3 wild cards)")
        if self.sequences and self.samba_bonus is None:
            raise CanastaRuleSetError("sequences need a sambaBonus")
        if self.stock_exhausted != "G9":
            raise CanastaRuleSetError("stockExhausted must be G9")

    @property
    def is_partnership(self) -> bool:
        return self.sides is not Sides.INDIVIDUAL

    def to_parameters(self) -> dict[str, Any]:
        """The parameters under their seed-file names, JSON-ready (without ``name``)."""
        out: dict[str, Any] = {}
        for item in fields(self):
            if item.name == "name":
                continue
            value = getattr(self, item.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[_camel(item.name)] = value
        return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


_FIELDS = {item.name: item for item in fields(CanastaRules)}
PARAMETER_NAMES: tuple[str, ...] = tuple(_camel(name) for name in _FIELDS if name != "name")
_ENUMS: dict[str, type[Enum]] = {
    "sides": Sides,
    "upcard_return": UpcardReturn,
    "wild_rule": WildRule,
    "opening_basis": OpeningBasis,
    "opening_pile_cards": OpeningPileCards,
    "wild_on_top": WildOnTop,
    "freeze_until": FreezeUntil,
    "last_card_rule": LastCardRule,
    "red_three_rule": RedThreeRule,
    "red_three_full_set_shortfall": FullSetShortfall,
}
_NULLABLE = frozenset({"samba_bonus", "red_three_full_set_min_canastas", "red_three_full_set_shortfall"})
_STRINGS = frozenset({"opening_table", "stock_exhausted"})


def _value(field_name: str, value: Any) -> Any:
    item = _FIELDS[field_name]
    label = _camel(field_name)
    if value is None:
        if field_name in _NULLABLE:
            return None
        raise CanastaRuleSetError(f"{label} may not be null")
    if field_name in _ENUMS:
        kind = _ENUMS[field_name]
        try:
            return kind(value)
        except ValueError as error:
            raise CanastaRuleSetError(f"{label} must be one of {[m.value for m in kind]}") from error
    if field_name == "graded_mixed_bonus":
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise CanastaRuleSetError(f"{label} must be a list of whole numbers")
        return tuple(value)
    if field_name in _STRINGS:
        if not isinstance(value, str):
            raise CanastaRuleSetError(f"{label} must be a string")
        return value
    if item.type in ("bool",):
        if not isinstance(value, bool):
            raise CanastaRuleSetError(f"{label} must be true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise CanastaRuleSetError(f"{label} must be a whole number")
    return value


def rules_from_parameters(parameters: Mapping[str, Any], *, name: str = "custom") -> CanastaRules:
    """A rule set from every parameter under its seed-file name; unknown names are refused."""
    values: dict[str, Any] = {"name": name}
    for key, value in parameters.items():
        field_name = _snake(key)
        if field_name not in _FIELDS or field_name == "name" or _camel(field_name) != key:
            raise UnknownOptionError(f"unknown canasta option {key!r}")
        values[field_name] = _value(field_name, value)
    missing = sorted(_camel(field) for field in _FIELDS if field not in values)
    if missing:
        raise CanastaRuleSetError(f"missing parameters: {missing}")
    return CanastaRules(**values)


def apply_overrides(parameters: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``parameters`` with ``overrides`` applied in order (a new dict).

    A key of section 9.4 given as ``true`` switches the option on (it sets every parameter it
    lists); ``target10000`` may also be ``"withAuthorsSet"`` (000 L128-139). An option given as
    ``false`` switches its parameter off where it has one. Any other key must be a parameter.
    """
    merged = dict(parameters)
    for key, value in overrides.items():
        if (key in OPTIONS and isinstance(value, bool)) or (
            key == "target10000" and value == "withAuthorsSet"
        ):
            option = OPTIONS[key]
            if value is False:
                if key == "sevensBonus":
                    merged["sevensBonus"] = 0
                elif key in merged:
                    merged[key] = False
                continue
            merged.update(option["sets"])
            if value == "withAuthorsSet":
                merged.update(option["withAuthorsSet"])
            continue
        if key not in merged:
            raise UnknownOptionError(f"unknown canasta option {key!r}")
        merged[key] = value
    return merged


def preset(name: str, overrides: Mapping[str, Any] | None = None) -> CanastaRules:
    """Preset ``name`` of rules/canasta.md section 9 with ``overrides`` (see :func:`apply_overrides`).

    Raises ``unknown_preset``, ``unknown_option`` or ``invalid_ruleset``.
    """
    if name not in PRESET_NAMES:
        raise UnknownPresetError(f"unknown canasta preset {name!r}; known: {list(PRESET_NAMES)}")
    parameters = preset_parameters(name)
    if overrides:
        parameters = apply_overrides(parameters, overrides)
    return rules_from_parameters(parameters, name=name)


@dataclass(frozen=True, slots=True)
class OpeningRequirement:
    """What a side's initial meld must hold (rules 4): card points, or a canasta laid at once
    (O8), and a number of natural cards (O9)."""

    minimum: int
    canasta_at_once: bool = False
    naturals: int = 0


def opening_requirement(rules: CanastaRules, score: int) -> OpeningRequirement:
    """The initial meld a side needs at ``score`` (rules O3, O5, O8, O9).

    Bands are ``[from, to)``. Above the table's last band (T1 and T2 stop at 5000, where those
    games end) the last band's minimum holds [rec].
    """
    table = OPENING_TABLES[rules.opening_table]
    bands: list[tuple[int | None, int | None, int]] = table["bands"]
    minimum = bands[-1][2]
    for low, high, value in bands:
        if (low is None or score >= low) and (high is None or score < high):
            minimum = value
            break
    at_once_from: int | None = table["canastaAtOnceFrom"]
    at_once = at_once_from is not None and score >= at_once_from
    return OpeningRequirement(minimum=minimum, canasta_at_once=at_once, naturals=rules.opening_min_naturals)


PRESETS: dict[str, CanastaRules] = {name: preset(name) for name in PRESET_NAMES}
OPTION_NAMES: tuple[str, ...] = tuple(OPTIONS)
