"""rules/canasta.md sections 9 and 10: the thirteen presets (checked against
seeds/canasta_presets.json parameter by parameter), the options of 9.4, every contradiction
C1-C32 as a parameter with its recommended default, overrides by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.canasta import PRESETS, opening_requirement, preset
from games.canasta.cards import RANK_POINTS
from games.canasta.presets import CARD_VALUES, OPENING_TABLES, OPTIONS, PRESET_NAMES
from games.canasta.rules import PARAMETER_NAMES
from games.errors import GameError

SEED = json.loads((Path(__file__).resolve().parents[3] / "seeds" / "canasta_presets.json").read_text("utf-8"))


@pytest.mark.parametrize("name", list(SEED["presets"]))
def test_section_9_preset_agrees_with_the_seed_file(name: str) -> None:
    assert preset(name).to_parameters() == SEED["presets"][name]["parameters"]


def test_section_9_thirteen_presets_by_name() -> None:
    assert list(PRESET_NAMES) == list(SEED["presets"]) and len(PRESETS) == 13
    assert set(PARAMETER_NAMES) == set(SEED["parameters"])


def test_section_9_opening_tables_options_and_card_values_agree_with_the_seed_file() -> None:
    for name, table in SEED["opening_tables"].items():
        assert OPENING_TABLES[name]["canastaAtOnceFrom"] == table["canastaAtOnceFrom"]
        assert OPENING_TABLES[name]["bands"] == [(b["from"], b["to"], b["minimum"]) for b in table["bands"]]
    for name, option in SEED["options"].items():
        assert OPTIONS[name]["sets"] == option["sets"]
        assert OPTIONS[name].get("withAuthorsSet") == option.get("withAuthorsSet")
    assert SEED["card_values"] == CARD_VALUES
    engine_values = {
        ("T" if rank == "10" else "JK" if rank == "Jkr" else rank): v for rank, v in CARD_VALUES.items()
    }
    del engine_values["blackThreeMelded"]
    assert {rank: RANK_POINTS[rank] for rank in engine_values} == engine_values
    assert RANK_POINTS["3"] == CARD_VALUES["blackThreeMelded"]


@pytest.mark.parametrize("option", list(SEED["options"]))
def test_section_9_4_every_option_switches_on_over_any_preset(option: str) -> None:
    for name in ("classic4", "ru4", "samba"):
        rules = preset(name, {option: True})
        parameters = rules.to_parameters()
        for key, value in SEED["options"][option]["sets"].items():
            assert parameters[key] == value, (name, option, key)


def test_section_9_4_target10000_with_the_authors_set() -> None:
    rules = preset("pl4", {"target10000": "withAuthorsSet"})
    assert rules.target == 10000 and rules.joker_canasta and rules.sevens_bonus == 100
    assert rules.red_three_replace and rules.red_three_rule.value == "CANASTA_NEG"


def test_section_10_every_parameter_is_overridable_by_name_and_unknown_ones_are_refused() -> None:
    base = preset("classic4").to_parameters()
    assert preset("classic4", {"wildRule": "LT", "minPileSize": 2}).to_parameters() == {
        **base,
        "wildRule": "LT",
        "minPileSize": 2,
    }
    for key, value in base.items():
        assert preset("classic4", {key: value}).to_parameters() == base, key
    with pytest.raises(GameError) as caught:
        preset("classic4", {"wildrule": "LT"})
    assert caught.value.code == "unknown_option"
    with pytest.raises(GameError) as caught:
        preset("classic4", {"wildRule": "SOMETIMES"})
    assert caught.value.code == "invalid_ruleset"
    with pytest.raises(GameError) as caught:
        preset("canasta9")
    assert caught.value.code == "unknown_preset"


# C#: (preset with the default, expected, preset or overrides with the alternative, expected)
Alternative = tuple[str, dict[str, Any]]
CONTRADICTIONS: dict[str, tuple[dict[str, Any], Alternative]] = {
    "C1": ({"wildRule": "LE", "maxWild": 3}, ("ru4", {"wildRule": "LT"})),
    "C2": ({"maxWild": 3}, ("ru4", {"maxWild": 3})),
    "C3": ({"openingTable": "T1"}, ("ru4", {"openingTable": "T2"})),
    "C4": (
        {"openingBasis": "CUMULATIVE"},
        ("classic4+openingBasis=PREVIOUS_HAND", {"openingBasis": "PREVIOUS_HAND"}),
    ),
    "C5": ({"openingPileCards": "TOP_ONLY"}, ("ru4", {"openingPileCards": "ANY"})),
    "C6": ({"wildOnTop": "FORBIDDEN"}, ("ru4", {"wildOnTop": "BENEATH_PAIR"})),
    "C7": ({"freezeUntil": "TAKEN"}, ("ru4", {"freezeUntil": "COVERED"})),
    "C8": ({"takeNaturalPlusWild": True}, ("pl3deck", {"takeNaturalPlusWild": False})),
    "C9": ({"minPileSize": 1, "oneCardMayTakeOneCardPile": False}, ("ru4", {"minPileSize": 2})),
    "C10": ({"noTakeOnCanastaRank": False}, ("pl4", {"noTakeOnCanastaRank": True})),
    "C11": ({"redThreeReplace": True}, ("pl4", {"redThreeReplace": False})),
    "C12": ({"upcardReturn": "WILD_RED3", "upcardFreezes": True}, ("kurnik2", {"upcardReturn": "NONE"})),
    "C13": ({"redThreeRule": "MELD_NEG"}, ("pl4", {"redThreeRule": "CANASTA_NEG"})),
    "C14": ({"redThreeRule": "MELD_NEG"}, ("ru4", {"redThreeRule": "CANASTA_ZERO"})),
    "C15": ({"redThreeFullSetBonus": 800}, ("kurnik2", {"redThreeFullSetBonus": 800})),
    "C16": ({"blackThreeInHand": -100}, ("ru4", {"blackThreeInHand": -500})),
    "C17": ({"noCanastaNegative": False}, ("ru4", {"noCanastaNegative": True})),
    "C18": ({"concealedIfPartnerMelded": True}, ("ru4", {"concealedIfPartnerMelded": False})),
    "C19": ({"blackThreeFinalDiscard": True}, ("pl4", {"blackThreeFinalDiscard": False})),
    "C20": ({"lastCardRule": "KEEP_ONE"}, ("ru4", {"lastCardRule": "SKIP_DISCARD"})),
    "C21": ({"goOutTopCardOnly": False}, ("pl4", {"goOutTopCardOnly": True})),
    "C22": ({"doubleGoOut": False}, ("pl4", {"doubleGoOut": True, "doubleGoOutBonus": 100})),
    "C23": ({"canastasToGoOut": 1}, ("classic2", {"canastasToGoOut": 2})),
    "C24": ({"players": 4}, ("classic2", {"handSize": 15, "drawCount": 2, "canastasToGoOut": 2})),
    "C25": ({"players": 4}, ("classic3", {"canastasToGoOut": 1})),
    "C26": ({"target": 5000}, ("classic2", {"target": 5000})),
    "C27": ({"jokerCanastaBonus": 1000}, ("pl4", {"jokerCanastaBonus": 400})),
    "C28": ({"redThreeFullSetShortfall": None}, ("samba", {"redThreeFullSetShortfall": "PER_CARD"})),
    "C29": ({"outBonus": 100, "concealedBonus": 100}, ("samba", {"outBonus": 200, "concealedBonus": 0})),
    "C30": ({"openingTable": "T1"}, ("samba", {"openingTable": "SAMBA"})),
    "C31": ({"sequences": False}, ("pl3deck", {"sequences": True, "sambaBonus": 1500})),
    "C32": ({}, ("classic4", {})),
}

OTHER_SIDE: dict[str, Alternative] = {
    "C12": ("pl4", {"upcardReturn": "WILD_RED3_BLACK3"}),
    "C24": ("pl2", {"handSize": 15, "drawCount": 1}),
    "C25": ("pl3", {"canastasToGoOut": 2}),
    "C26": ("ru2", {"target": 3000}),
    "C28": ("pl3deck", {"redThreeFullSetShortfall": "NEGATIVE"}),
    "C29": ("pl3deck", {"outBonus": 100, "concealedBonus": 100}),
}


def _rules(spec: str) -> dict[str, Any]:
    name, _, override = spec.partition("+")
    overrides = dict([override.split("=")]) if override else {}
    return preset(name, overrides).to_parameters()


@pytest.mark.parametrize("number", list(CONTRADICTIONS))
def test_section_10_contradiction_default_and_alternative(number: str) -> None:
    default, (alternative, expected) = CONTRADICTIONS[number]
    classic = preset("classic4").to_parameters()
    assert {key: classic[key] for key in default} == default
    chosen = _rules(alternative)
    assert {key: chosen[key] for key in expected} == expected
    if number in OTHER_SIDE:
        other, values = OTHER_SIDE[number]
        parameters = _rules(other)
        assert {key: parameters[key] for key in values} == values


def test_section_10_C30_high_score_openings_per_preset() -> None:
    assert opening_requirement(preset("pl4", {"target10000": True}), 7000).minimum == 180
    assert opening_requirement(preset("samba"), 6000).minimum == 200


def test_section_10_C32_seven_is_five_joker_is_fifty() -> None:
    assert RANK_POINTS["7"] == 5 and RANK_POINTS["JK"] == 50
