"""Blackjack: rule sets, the round state machine, settlement and round scripts.

Public API (see docs/round-script.md and the docstrings):

- ``new_round(rules, bets=(), *, seats=(), shoe_remaining=None) -> RoundState``
- ``validate_bet(state, bet) -> None`` (raises BetRefusedError)
- ``insurance_stake(rules, bet_stake_minor, requested_minor=None) -> int`` (the insurance stake,
  or IllegalActionError), ``insurance_stake_limits(rules, bet_stake_minor)``
- ``legal_actions(state) -> tuple[Action, ...]``, ``next_card_target(state) -> CardTarget | None``
- ``apply(state, action) -> (RoundState, tuple[Event, ...])``, ``replay(state, actions)``
- ``settlement(state) -> tuple[PayoutLine, ...]``
- ``state_to_dict`` / ``state_from_dict``, ``action_from_dict``
- ``run_round`` / ``play_round`` drivers (:mod:`games.blackjack.drivers`); ``script.play_script``
  for round scripts.
"""

from games.blackjack.actions import (
    Action,
    CancelBet,
    CloseBetting,
    CloseInsurance,
    DealCard,
    Decision,
    DeclineInsurance,
    Double,
    Hit,
    PlaceBet,
    Split,
    Stand,
    Surrender,
    TakeEvenMoney,
    TakeInsurance,
    action_from_dict,
)
from games.blackjack.drivers import check_insurance_choices, play_round, run_round, scripted_chooser
from games.blackjack.engine import apply, legal_actions, new_round, replay, validate_bet
from games.blackjack.events import Event
from games.blackjack.flow import CardTarget, current_turn, next_card_target
from games.blackjack.insurance import insurance_stake, insurance_stake_limits
from games.blackjack.rules import HOME_POLISH, LIVE_AMERICAN, InsuranceStake, RuleSet, profile
from games.blackjack.serialize import state_from_dict, state_to_dict
from games.blackjack.settlement import PayoutLine, settlement, totals
from games.blackjack.state import Bet, BetKind, Box, Hand, Phase, RoundState, Seat

__all__ = [
    "HOME_POLISH",
    "LIVE_AMERICAN",
    "Action",
    "Bet",
    "BetKind",
    "Box",
    "CancelBet",
    "CardTarget",
    "CloseBetting",
    "CloseInsurance",
    "DealCard",
    "Decision",
    "DeclineInsurance",
    "Double",
    "Event",
    "Hand",
    "Hit",
    "InsuranceStake",
    "PayoutLine",
    "Phase",
    "PlaceBet",
    "RoundState",
    "RuleSet",
    "Seat",
    "Split",
    "Stand",
    "Surrender",
    "TakeEvenMoney",
    "TakeInsurance",
    "action_from_dict",
    "apply",
    "check_insurance_choices",
    "current_turn",
    "insurance_stake",
    "insurance_stake_limits",
    "legal_actions",
    "new_round",
    "next_card_target",
    "play_round",
    "profile",
    "replay",
    "run_round",
    "scripted_chooser",
    "settlement",
    "state_from_dict",
    "state_to_dict",
    "totals",
    "validate_bet",
]
