"""The thirteen presets of rules/canasta.md section 9 and the options of 9.4, as data.

The same content as ``seeds/canasta_presets.json`` (the rule sets the database is seeded with);
``tests/games/canasta/test_presets.py`` checks that the two agree parameter by parameter.
Each preset other than ``classic4`` is written as its base and the parameters it changes.
"""

from __future__ import annotations

from typing import Any

# rules/canasta.md 9.1, column classic4 (the recommended defaults of section 10).
CLASSIC4: dict[str, Any] = {
    "players": 4,
    "sides": "PARTNERS_2V2",
    "decks": 2,
    "jokers": 4,
    "cards": 108,
    "handSize": 11,
    "houseDeal": False,
    "upcardReturn": "WILD_RED3",
    "upcardFreezes": True,
    "drawCount": 1,
    "redThreeReplace": True,
    "wildRule": "LE",
    "maxWild": 3,
    "meldsPerRank": 1,
    "sequences": False,
    "sambaBonus": None,
    "addRequiresOwnMeld": False,
    "openingTable": "T1",
    "openingBasis": "CUMULATIVE",
    "openingMinNaturals": 0,
    "openingPileCards": "TOP_ONLY",
    "wildOnTop": "FORBIDDEN",
    "freezeUntil": "TAKEN",
    "takeNaturalPlusWild": True,
    "takeByAddingTopCard": True,
    "noTakeOnCanastaRank": False,
    "minPileSize": 1,
    "oneCardMayTakeOneCardPile": False,
    "canastasToGoOut": 1,
    "askPartner": True,
    "lastCardRule": "KEEP_ONE",
    "blackThreeFinalDiscard": True,
    "concealedIfPartnerMelded": True,
    "goOutTopCardOnly": False,
    "doubleGoOut": False,
    "stockExhausted": "G9",
    "naturalCanastaBonus": 500,
    "mixedCanastaBonus": 300,
    "gradedMixed": False,
    "gradedMixedBonus": [400, 300, 200],
    "jokerCanasta": False,
    "jokerCanastaBonus": 1000,
    "sevensBonus": 0,
    "redThreeValue": 100,
    "redThreeFullSetCount": 4,
    "redThreeFullSetBonus": 800,
    "redThreeFullSetMinCanastas": None,
    "redThreeFullSetShortfall": None,
    "redThreeRule": "MELD_NEG",
    "outBonus": 100,
    "concealedBonus": 100,
    "doubleGoOutBonus": 0,
    "blackThreeInHand": -100,
    "redThreeInHand": -500,
    "noCanastaNegative": False,
    "target": 5000,
}

# name -> (base, parameters that differ from the base)
PRESET_CHANGES: dict[str, tuple[str, dict[str, Any]]] = {
    "pl4": (
        "classic4",
        {
            "upcardReturn": "WILD_RED3_BLACK3",
            "redThreeReplace": False,
            "noTakeOnCanastaRank": True,
            "blackThreeFinalDiscard": False,
            "goOutTopCardOnly": True,
            "doubleGoOut": True,
            "jokerCanastaBonus": 400,
            "redThreeRule": "CANASTA_NEG",
            "doubleGoOutBonus": 100,
        },
    ),
    "ru4": (
        "classic4",
        {
            "wildRule": "LT",
            "openingTable": "T2",
            "openingPileCards": "ANY",
            "wildOnTop": "BENEATH_PAIR",
            "freezeUntil": "COVERED",
            "takeNaturalPlusWild": False,
            "minPileSize": 2,
            "lastCardRule": "SKIP_DISCARD",
            "concealedIfPartnerMelded": False,
            "redThreeRule": "CANASTA_ZERO",
            "blackThreeInHand": -500,
            "noCanastaNegative": True,
        },
    ),
    "kurnik2": (
        "classic4",
        {
            "players": 2,
            "sides": "INDIVIDUAL",
            "handSize": 13,
            "upcardReturn": "NONE",
            "drawCount": 2,
            "canastasToGoOut": 2,
            "askPartner": False,
            "doubleGoOutBonus": 100,
        },
    ),
    "classic2": (
        "classic4",
        {
            "players": 2,
            "sides": "INDIVIDUAL",
            "handSize": 15,
            "drawCount": 2,
            "canastasToGoOut": 2,
            "askPartner": False,
        },
    ),
    "pl2": (
        "pl4",
        {
            "players": 2,
            "sides": "INDIVIDUAL",
            "handSize": 15,
            "canastasToGoOut": 2,
            "askPartner": False,
            "doubleGoOut": False,
        },
    ),
    "ru2": (
        "ru4",
        {
            "players": 2,
            "sides": "INDIVIDUAL",
            "handSize": 15,
            "drawCount": 2,
            "canastasToGoOut": 2,
            "askPartner": False,
            "target": 3000,
        },
    ),
    "classic3": ("classic4", {"players": 3, "sides": "INDIVIDUAL", "handSize": 13, "askPartner": False}),
    "pl3": (
        "pl4",
        {
            "players": 3,
            "sides": "INDIVIDUAL",
            "handSize": 13,
            "canastasToGoOut": 2,
            "askPartner": False,
            "doubleGoOut": False,
        },
    ),
    "ru3": (
        "ru4",
        {"players": 3, "sides": "INDIVIDUAL", "handSize": 13, "askPartner": False, "target": 3000},
    ),
    "ru6": (
        "ru4",
        {
            "players": 6,
            "sides": "TEAMS_2X3_OR_3X2",
            "decks": 3,
            "jokers": 6,
            "cards": 162,
            "handSize": 15,
            "redThreeFullSetCount": 6,
            "redThreeFullSetBonus": 1000,
        },
    ),
    "pl3deck": (
        "pl4",
        {
            "decks": 3,
            "jokers": 6,
            "cards": 162,
            "handSize": 15,
            "drawCount": 2,
            "maxWild": 2,
            "meldsPerRank": 2,
            "sequences": True,
            "sambaBonus": 1500,
            "takeNaturalPlusWild": False,
            "noTakeOnCanastaRank": False,
            "canastasToGoOut": 2,
            "redThreeFullSetCount": 6,
            "redThreeFullSetBonus": 1000,
            "redThreeFullSetMinCanastas": 2,
            "redThreeFullSetShortfall": "NEGATIVE",
        },
    ),
    "samba": (
        "ru4",
        {
            "decks": 3,
            "jokers": 6,
            "cards": 162,
            "handSize": 15,
            "drawCount": 2,
            "maxWild": 2,
            "meldsPerRank": 2,
            "sequences": True,
            "sambaBonus": 1500,
            "openingTable": "SAMBA",
            "openingMinNaturals": 3,
            "canastasToGoOut": 2,
            "redThreeFullSetCount": 6,
            "redThreeFullSetBonus": 1000,
            "redThreeFullSetMinCanastas": 2,
            "redThreeFullSetShortfall": "PER_CARD",
            "outBonus": 200,
            "concealedBonus": 0,
            "target": 10000,
        },
    ),
}

LABELS: dict[str, str] = {
    "classic4": "Classic canasta, 4 players in 2 partnerships (recommended default)",
    "pl4": "Polish rules of source 000, 4 players",
    "ru4": "Russian rules of source 002 (Gruznov), 4 players",
    "kurnik2": "Two-player rules of source 001 (Kurnik style)",
    "classic2": "Classic canasta, 2 players (recommended default)",
    "pl2": "Polish rules of source 000, 2 players",
    "ru2": "Russian rules of source 002, 2 players",
    "classic3": "Classic canasta, 3 players (recommended default)",
    "pl3": "Polish rules of source 000, 3 players",
    "ru3": "Russian rules of source 002, 3 players",
    "ru6": "Russian rules of source 002, 6 players, three decks",
    "pl3deck": "Polish three-deck variant of source 000, 4 players",
    "samba": "Samba of source 002 §14.4, 4 players, three decks",
}

# rules/canasta.md 4 O5: (from, to, minimum) bands on the side's score, [from, to), None = unbounded.
OPENING_TABLES: dict[str, dict[str, Any]] = {
    "T1": {
        "canastaAtOnceFrom": None,
        "bands": [
            (None, 0, 15),
            (0, 1000, 50),
            (1000, 1500, 50),
            (1500, 2000, 90),
            (2000, 3000, 90),
            (3000, 4000, 120),
            (4000, 5000, 120),
        ],
    },
    "T2": {
        "canastaAtOnceFrom": None,
        "bands": [
            (None, 0, 15),
            (0, 1000, 30),
            (1000, 1500, 60),
            (1500, 2000, 60),
            (2000, 3000, 90),
            (3000, 4000, 120),
            (4000, 5000, 150),
        ],
    },
    "T3": {
        "canastaAtOnceFrom": None,
        "bands": [
            (None, 0, 15),
            (0, 1000, 30),
            (1000, 1500, 60),
            (1500, 2000, 60),
            (2000, 3000, 90),
            (3000, 4000, 120),
            (4000, 5000, 120),
            (5000, 6000, 150),
            (6000, 7000, 150),
            (7000, None, 180),
        ],
    },
    "T4": {
        "canastaAtOnceFrom": 5000,
        "bands": [
            (None, 0, 15),
            (0, 1000, 50),
            (1000, 1500, 50),
            (1500, 2000, 90),
            (2000, 3000, 90),
            (3000, 4000, 120),
            (4000, 5000, 120),
        ],
    },
    "SAMBA": {
        "canastaAtOnceFrom": None,
        "bands": [
            (None, 0, 15),
            (0, 1000, 30),
            (1000, 1500, 60),
            (1500, 2000, 60),
            (2000, 3000, 90),
            (3000, 4000, 120),
            (4000, 5000, 150),
            (5000, 6000, 150),
            (6000, 7000, 200),
            (7000, None, 200),
        ],
    },
}

# rules/canasta.md 9.4: option name -> the parameters it sets when switched on.
OPTIONS: dict[str, dict[str, Any]] = {
    "jokerCanasta": {"sets": {"jokerCanasta": True}},
    "gradedMixed": {"sets": {"gradedMixed": True}},
    "sevensBonus": {"sets": {"sevensBonus": 100}},
    "target7500": {"sets": {"target": 7500, "openingTable": "T4"}},
    "target10000": {
        "sets": {"target": 10000, "openingTable": "T3"},
        "withAuthorsSet": {
            "jokerCanasta": True,
            "sevensBonus": 100,
            "redThreeReplace": True,
            "redThreeRule": "CANASTA_NEG",
            "blackThreeInHand": -100,
        },
    },
    "twoCanastasToGoOut": {"sets": {"canastasToGoOut": 2}},
    "addRequiresOwnMeld": {"sets": {"addRequiresOwnMeld": True}},
    "houseDeal": {"sets": {"houseDeal": True, "handSize": 13}},
    "noTakeOnCanastaRank": {"sets": {"noTakeOnCanastaRank": True}},
    "goOutTopCardOnly": {"sets": {"goOutTopCardOnly": True}},
    "doubleGoOut": {"sets": {"doubleGoOut": True, "doubleGoOutBonus": 100}},
}

CARD_VALUES: dict[str, int] = {
    "Jkr": 50,
    "2": 20,
    "A": 20,
    "K": 10,
    "Q": 10,
    "J": 10,
    "10": 10,
    "9": 10,
    "8": 10,
    "7": 5,
    "6": 5,
    "5": 5,
    "4": 5,
    "blackThreeMelded": 5,
}


def preset_parameters(name: str) -> dict[str, Any]:
    """Every parameter of preset ``name`` (a new dict); KeyError for an unknown name."""
    if name == "classic4":
        return dict(CLASSIC4)
    base, changes = PRESET_CHANGES[name]
    merged = preset_parameters(base)
    merged.update(changes)
    return merged


PRESET_NAMES: tuple[str, ...] = ("classic4", *PRESET_CHANGES)
