"""Canasta: rule sets for the thirteen presets, the deal as a state machine, scoring.

Public API (docstrings and docs/canasta-deal.md, docs/canasta-rules-map.md):

- ``preset(name, overrides=None) -> CanastaRules``; ``PRESETS``; ``opening_requirement``
- ``start_deal(rules, shuffle, *, dealer, scores, ...) -> (DealState, events)``; ``pack``
- ``legal_actions(state)``, ``apply(state, action) -> (DealState, events)``, ``replay``, ``run_deal``,
  ``rebuild(start, events)`` (the state from the events alone)
- ``state_to_dict`` / ``state_from_dict`` snapshots, ``action_from_dict``
- ``score_deal(state)``, ``score_finished(FinishedDeal)``, ``score_from_dict(data)``
"""

from games.canasta.actions import (
    Action,
    Addition,
    AnswerPartner,
    AskPartner,
    DeclineDoubleGoOut,
    DeclinePile,
    Discard,
    Draw,
    EndTurn,
    Meld,
    TakePile,
    action_from_dict,
)
from games.canasta.cards import Card, pack, parse_card
from games.canasta.deal_data import deal_from_dict, deal_to_dict, score_from_dict, score_report
from games.canasta.dealing import seating, start_deal
from games.canasta.engine import apply, legal_actions, replay, run_deal
from games.canasta.events import Event
from games.canasta.rebuild import rebuild
from games.canasta.rules import PRESETS, CanastaRules, OpeningRequirement, opening_requirement, preset
from games.canasta.scoring import (
    DealScore,
    FinishedDeal,
    SideDeal,
    SideScore,
    score_deal,
    score_finished,
)
from games.canasta.serialize import state_from_dict, state_to_dict
from games.canasta.state import DealState, Phase, Stage

__all__ = [
    "PRESETS",
    "Action",
    "Addition",
    "AnswerPartner",
    "AskPartner",
    "CanastaRules",
    "Card",
    "DealScore",
    "DealState",
    "DeclineDoubleGoOut",
    "DeclinePile",
    "Discard",
    "Draw",
    "EndTurn",
    "Event",
    "FinishedDeal",
    "Meld",
    "OpeningRequirement",
    "Phase",
    "SideDeal",
    "SideScore",
    "Stage",
    "TakePile",
    "action_from_dict",
    "apply",
    "deal_from_dict",
    "deal_to_dict",
    "legal_actions",
    "opening_requirement",
    "pack",
    "parse_card",
    "preset",
    "rebuild",
    "replay",
    "run_deal",
    "score_deal",
    "score_finished",
    "score_from_dict",
    "score_report",
    "seating",
    "start_deal",
    "state_from_dict",
    "state_to_dict",
]
