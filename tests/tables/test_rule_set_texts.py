"""What a person reads of a rule set (tables/rule_set_texts.py): every option any version may hold
has a label, every value of a choice has words, and every seeded description is in the catalogs."""

from __future__ import annotations

import json
from dataclasses import fields
from enum import Enum
from pathlib import Path

from django.utils import translation

from games.blackjack import rules as blackjack_rules
from tables.rule_set_texts import (
    BLACKJACK_OPTION_LABELS,
    CANASTA_OPTION_LABELS,
    OPTION_VALUE_LABELS,
    SEEDED_DESCRIPTIONS,
    option_label,
    option_lines,
    option_text,
    options_in_order,
)

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
CANASTA = json.loads((SEEDS / "canasta_presets.json").read_text(encoding="utf-8"))
BLACKJACK = json.loads((SEEDS / "blackjack_rulesets.json").read_text(encoding="utf-8"))
# The opening tables are named by the rules (T1 ... SAMBA): their names are shown as they are.
NAMED_CHOICES = {"openingTable"}


def test_every_option_of_the_blackjack_engine_has_a_label():
    assert set(BLACKJACK_OPTION_LABELS) == {item.name for item in fields(blackjack_rules.RuleSet)}


def test_every_parameter_of_the_canasta_presets_has_a_label():
    assert set(CANASTA_OPTION_LABELS) == set(CANASTA["parameters"])
    for name, preset in CANASTA["presets"].items():
        assert set(preset["parameters"]) <= set(CANASTA_OPTION_LABELS), name


def test_every_value_of_a_choice_has_words():
    blackjack = {
        member.value
        for value in vars(blackjack_rules).values()
        if isinstance(value, type)
        and issubclass(value, Enum)
        and value.__module__ == blackjack_rules.__name__
        for member in value
    }
    canasta = {
        choice
        for name, parameter in CANASTA["parameters"].items()
        if name not in NAMED_CHOICES
        for choice in parameter.get("choices", ())
    }
    assert blackjack | canasta <= set(OPTION_VALUE_LABELS)


def test_every_seeded_description_is_marked_for_the_catalogs():
    seeded = {item["description"] for item in BLACKJACK["rule_sets"]}
    seeded |= {preset["label"] for preset in CANASTA["presets"].values()}
    assert seeded == SEEDED_DESCRIPTIONS


def test_values_read_as_words_money_and_paytables_outcome_by_outcome():
    with translation.override("en"):
        assert option_label("blackjack", "bet_behind") == "Bets behind allowed"
        assert option_label("canasta", "handSize") == "Cards dealt to each player"
        assert option_label("blackjack", "no_such_option") == "no_such_option"
        assert option_text("hole_card", "peek") == "dealt, peeked under an ace or a ten"
        assert option_text("sides", "PARTNERS_2V2") == "two partnerships"
        assert option_text("payout_rounding_unit_minor", 100) == "1.00"
        assert option_text("bet_behind", False) == "no"
        assert option_text("perfect_pairs", None) == "not offered"
        assert option_text("gradedMixedBonus", [300, 400, 500]) == "300, 400, 500"
        # stored in any order, a paytable reads from its best outcome
        assert option_lines("perfect_pairs", {"mixed": 6, "perfect": 25, "coloured": 12}) == [
            "Perfect pair 25:1",
            "Coloured pair 12:1",
            "Mixed pair 6:1",
        ]
    assert options_in_order("blackjack", ["payout_rounding_unit_minor", "zzz", "decks", "name"]) == [
        "name",
        "decks",
        "payout_rounding_unit_minor",
        "zzz",
    ]
