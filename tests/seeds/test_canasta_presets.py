"""Checks of the canasta rule-profile data file seeds/canasta_presets.json.

Expected values are taken straight from /work/shared/rules/canasta.md (sections 4, 9, 10, 11).
"""

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

DATA_PATH = Path(__file__).resolve().parents[2] / "seeds" / "canasta_presets.json"

PRESET_NAMES = [
    "classic4",
    "pl4",
    "ru4",
    "kurnik2",
    "classic2",
    "pl2",
    "ru2",
    "classic3",
    "pl3",
    "ru3",
    "ru6",
    "pl3deck",
    "samba",
]

OPTION_NAMES = [
    "jokerCanasta",
    "gradedMixed",
    "sevensBonus",
    "target7500",
    "target10000",
    "twoCanastasToGoOut",
    "addRequiresOwnMeld",
    "houseDeal",
    "noTakeOnCanastaRank",
    "goOutTopCardOnly",
    "doubleGoOut",
]


def load() -> dict[str, Any]:
    with DATA_PATH.open(encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def value_is_valid(declaration: dict[str, Any], value: Any) -> bool:
    if value is None:
        return bool(declaration.get("nullable", False))
    kind = declaration["type"]
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "enum":
        return value in declaration["choices"]
    if kind == "int_list":
        return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return False


def opening_minimum(data: dict[str, Any], table: str, score: int) -> int:
    for band in data["opening_tables"][table]["bands"]:
        low, high = band["from"], band["to"]
        if (low is None or score >= low) and (high is None or score < high):
            minimum: int = band["minimum"]
            return minimum
    raise LookupError(f"{table} has no band for {score}")


def test_format_and_top_level_keys() -> None:
    # given / when
    data = load()
    # then
    assert data["format"] == 1
    assert {"parameters", "presets", "options", "opening_tables", "card_values"} <= set(data)


def test_all_thirteen_presets_present() -> None:
    # given / when
    presets = load()["presets"]
    # then
    assert sorted(presets) == sorted(PRESET_NAMES)
    assert len(presets) == 13


def test_every_preset_has_the_same_keys_as_classic4_and_all_are_declared() -> None:
    # given
    data = load()
    declared = set(data["parameters"])
    reference = set(data["presets"]["classic4"]["parameters"])
    # then
    assert reference == declared
    for name, preset in data["presets"].items():
        assert set(preset["parameters"]) == reference, name
        assert set(preset["notes"]) <= declared, name
        assert preset["base"] is None or preset["base"] in data["presets"], name
        assert preset["label"] and preset["sources"], name


def test_parameter_declarations_are_well_formed() -> None:
    # given
    parameters = load()["parameters"]
    # then
    for name, declaration in parameters.items():
        assert declaration["type"] in {"int", "bool", "enum", "int_list"}, name
        assert declaration["description"], name
        if declaration["type"] == "enum":
            assert declaration["choices"], name
            assert len(set(declaration["choices"])) == len(declaration["choices"]), name


def test_every_value_matches_its_declared_type_and_choices() -> None:
    # given
    data = load()
    # then
    for name, preset in data["presets"].items():
        for key, value in preset["parameters"].items():
            assert value_is_valid(data["parameters"][key], value), (name, key, value)


def test_options_set_only_declared_parameters_with_valid_values() -> None:
    # given
    data = load()
    # then
    assert sorted(data["options"]) == sorted(OPTION_NAMES)
    for name, option in data["options"].items():
        assert option["description"] and option["source"], name
        changes = dict(option["sets"])
        changes.update(option.get("withAuthorsSet", {}))
        assert changes, name
        for key, value in changes.items():
            assert key in data["parameters"], (name, key)
            assert value_is_valid(data["parameters"][key], value), (name, key, value)


def test_opening_tables_referenced_by_presets_and_options_exist() -> None:
    # given
    data = load()
    tables = set(data["opening_tables"])
    # then
    assert tables == set(data["parameters"]["openingTable"]["choices"])
    for preset in data["presets"].values():
        assert preset["parameters"]["openingTable"] in tables


@pytest.mark.parametrize("table", ["T1", "T2", "T3", "T4", "SAMBA"])
def test_opening_table_bands_are_contiguous_and_monotone(table: str) -> None:
    # given
    bands = load()["opening_tables"][table]["bands"]
    # then
    assert bands[0]["from"] is None
    for previous, current in itertools.pairwise(bands):
        assert previous["to"] == current["from"]
        assert previous["minimum"] <= current["minimum"]
    for band in bands:
        assert band["status"] in {"source", "inf", "rec"}
        assert band["from"] is None or band["to"] is None or band["from"] < band["to"]


def test_opening_minimums_from_the_digest() -> None:
    # given
    data = load()
    # then: O5 table and worked examples E41, O-i
    assert opening_minimum(data, "T1", -190) == 15
    assert opening_minimum(data, "T1", 0) == 50
    assert opening_minimum(data, "T1", 2995) == 90
    assert opening_minimum(data, "T1", 3000) == 120
    assert opening_minimum(data, "T2", 990) == 30
    assert opening_minimum(data, "T2", 1010) == 60
    assert opening_minimum(data, "T2", 2000) == 90
    assert opening_minimum(data, "T2", 4000) == 150
    assert opening_minimum(data, "T3", 995) == 30
    assert opening_minimum(data, "T3", 1000) == 60
    assert opening_minimum(data, "T3", 6995) == 150
    assert opening_minimum(data, "T3", 7000) == 180
    assert opening_minimum(data, "T4", 4995) == 120
    assert data["opening_tables"]["T4"]["canastaAtOnceFrom"] == 5000
    assert opening_minimum(data, "SAMBA", 6000) == 200
    assert opening_minimum(data, "SAMBA", 9995) == 200


def test_spot_checks_from_the_preset_tables() -> None:
    # given
    presets = {name: p["parameters"] for name, p in load()["presets"].items()}
    # then
    assert presets["ru4"]["wildRule"] == "LT"
    assert presets["classic4"]["wildRule"] == "LE"
    assert presets["ru4"]["openingTable"] == "T2"
    assert presets["classic4"]["openingTable"] == "T1"
    assert presets["ru4"]["openingPileCards"] == "ANY"
    assert presets["ru4"]["minPileSize"] == 2
    assert presets["ru4"]["blackThreeInHand"] == -500
    assert presets["pl4"]["redThreeReplace"] is False
    assert presets["pl4"]["redThreeRule"] == "CANASTA_NEG"
    assert presets["pl4"]["noTakeOnCanastaRank"] is True
    assert presets["kurnik2"]["drawCount"] == 2
    assert presets["kurnik2"]["handSize"] == 13
    assert presets["kurnik2"]["upcardReturn"] == "NONE"
    assert presets["ru2"]["target"] == 3000
    assert presets["ru2"]["handSize"] == 15
    assert presets["samba"]["target"] == 10000
    assert presets["samba"]["outBonus"] == 200
    assert presets["samba"]["concealedBonus"] == 0
    assert presets["samba"]["openingTable"] == "SAMBA"
    assert presets["samba"]["openingMinNaturals"] == 3
    assert presets["samba"]["sambaBonus"] == 1500
    assert presets["pl3deck"]["maxWild"] == 2
    assert presets["pl3deck"]["redThreeFullSetShortfall"] == "NEGATIVE"
    assert presets["classic3"]["canastasToGoOut"] == 1
    assert presets["pl3"]["canastasToGoOut"] == 2
    assert presets["classic2"]["drawCount"] == 2
    assert presets["pl2"]["drawCount"] == 1
    assert presets["ru6"]["cards"] == 162
    assert presets["ru6"]["players"] == 6
    assert presets["ru6"]["sides"] == "TEAMS_2X3_OR_3X2"


def test_cards_match_decks_and_jokers() -> None:
    # given
    presets = load()["presets"]
    # then
    for name, preset in presets.items():
        p = preset["parameters"]
        assert p["cards"] == 52 * p["decks"] + p["jokers"], name
        assert p["redThreeFullSetCount"] == 2 * p["decks"], name


def test_inheritance_only_changes_what_the_digest_lists() -> None:
    # given: section 9.2 lists players, sides, hand size, drawCount, canastasToGoOut, target
    # (askPartner / doubleGoOut are n/a without partners)
    presets = load()["presets"]
    allowed = {
        "players",
        "sides",
        "handSize",
        "drawCount",
        "canastasToGoOut",
        "target",
        "askPartner",
        "doubleGoOut",
    }
    # then
    for name in ["classic2", "pl2", "ru2", "classic3", "pl3", "ru3"]:
        child = presets[name]["parameters"]
        parent = presets[presets[name]["base"]]["parameters"]
        changed = {k for k in child if child[k] != parent[k]}
        assert changed <= allowed, (name, changed - allowed)


def test_card_values() -> None:
    # given
    values = load()["card_values"]
    # then
    assert values["Jkr"] == 50
    assert values["2"] == 20
    assert values["A"] == 20
    assert values["8"] == 10
    assert values["7"] == 5
    assert values["blackThreeMelded"] == 5
