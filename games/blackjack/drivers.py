"""Drivers: a whole blackjack round from a shoe order and choices, for round scripts
(:mod:`games.blackjack.script`), simulations and tests. Cards come from the shoe whenever
:func:`~games.blackjack.flow.next_card_target` expects one; the choices are a chooser's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from games.blackjack.actions import (
    DECISIONS,
    Action,
    CloseBetting,
    CloseInsurance,
    DealCard,
    DeclineInsurance,
    PlaceBet,
    TakeEvenMoney,
    TakeInsurance,
)
from games.blackjack.engine import apply, legal_actions, new_round
from games.blackjack.events import Event
from games.blackjack.flow import next_card_target
from games.blackjack.insurance import insurance_stake
from games.blackjack.rules import RuleSet
from games.blackjack.state import Bet, BetKind, Phase, RoundState, Seat
from games.cards import Card
from games.errors import IllegalActionError, ShoeExhaustedError

Chooser = Callable[[RoundState, tuple[Action, ...]], Action]


def run_round(
    state: RoundState, shoe: Iterable[Card], choose: Chooser
) -> tuple[RoundState, tuple[Event, ...], tuple[Action, ...]]:
    """Play from ``state`` (usually with bets placed) to the end.

    Cards come from ``shoe`` in order whenever one is expected; otherwise ``choose`` picks one
    of :func:`legal_actions`. While betting is open the round is closed first. Returns the
    settled state, every event and every action applied (for replay). Raises
    ShoeExhaustedError when the shoe runs out, or whatever ``apply`` raises.
    """
    cards: Iterator[Card] = iter(shoe)
    events: list[Event] = []
    actions: list[Action] = []
    while state.phase is not Phase.SETTLED:
        action: Action
        if state.phase is Phase.BETTING:
            action = CloseBetting()
        elif next_card_target(state) is not None:
            card = next(cards, None)
            if card is None:
                raise ShoeExhaustedError("the shoe ran out of cards")
            action = DealCard(card)
        else:
            action = choose(state, legal_actions(state))
        state, new_events = apply(state, action)
        events.extend(new_events)
        actions.append(action)
    return state, tuple(events), tuple(actions)


INSURANCE_CHOICES = ("take", "decline", "even_money")


def scripted_chooser(
    decisions: Mapping[int, Sequence[str]],
    insurance: Mapping[str, str] | None = None,
    insurance_stakes: Mapping[str, int] | None = None,
) -> tuple[Chooser, Callable[[RoundState], None]]:
    """A chooser that plays listed decisions per box, and a check of the settled round.

    ``decisions`` maps a box number to its decision names in order (``hit``, ``stand``,
    ``double``, ``split``, ``surrender``); ``insurance`` maps bet ids to ``take``,
    ``decline`` or ``even_money`` (a bet not listed declines), ``insurance_stakes`` bet ids to
    the amount of their ``take`` (not listed: exactly half; an amount alone means a take). A
    choice is played whenever the dealer shows an ace and the bet plays, even when its bet is
    not on offer, so that the engine refuses what it cannot honour with its own code
    (``insurance_stake_not_exact``, ``even_money_not_offered`` ...) instead of skipping it. A box that must
    decide after its list is used up raises IllegalActionError(``decision_missing``). The check,
    given the settled state, raises IllegalActionError: for a take or even money that the round
    never asked for although the dealer showed an ace (no bet could insure, so there was no
    insurance phase), the code the engine refuses it with; ``decision_unused`` for decisions
    left over.
    """
    script = _ScriptedRound(decisions, insurance, insurance_stakes)
    return script.choose, script.check


class _ScriptedRound:
    """The choices of a round script while it plays (see :func:`scripted_chooser`): the decisions
    left per box, the insurance choices and their amounts, the bets whose choice was played."""

    def __init__(
        self,
        decisions: Mapping[int, Sequence[str]],
        insurance: Mapping[str, str] | None,
        insurance_stakes: Mapping[str, int] | None,
    ) -> None:
        self.queues = {box: list(names) for box, names in decisions.items()}
        self.insurance_choices = dict(insurance or {})
        self.stakes = dict(insurance_stakes or {})
        self.played: set[str] = set()

    def wanted_for(self, bet_id: str) -> str:
        """The script's insurance choice for a bet (rules 3.3): as listed, else a take when an
        amount is listed, else a decline."""
        # An amount alone means a take of that amount.
        return self.insurance_choices.get(bet_id, "take" if bet_id in self.stakes else "decline")

    def insurance_action(self, bet: Bet, wanted: str) -> Action:
        """The action of a choice on ``bet`` (rules 3.3): a take of the listed amount (none:
        exactly half), even money or a decline; any other choice is ``illegal_action``."""
        self.played.add(bet.bet_id)
        if wanted == "take":
            return TakeInsurance(bet.player, bet.bet_id, stake_minor=self.stakes.get(bet.bet_id))
        if wanted == "even_money":
            return TakeEvenMoney(bet.player, bet.bet_id)
        if wanted == "decline":
            return DeclineInsurance(bet.player, bet.bet_id)
        raise IllegalActionError(f"insurance choice {wanted!r}", code="illegal_action")

    def choose(self, state: RoundState, legal: tuple[Action, ...]) -> Action:
        """The script's next action: an insurance choice while insurance is offered (rules 3.3),
        else the next decision listed for the box on turn (rules 5)."""
        if state.phase is Phase.INSURANCE:
            return self.choose_insurance(state, legal)
        return self.next_decision(state)

    def choose_insurance(self, state: RoundState, legal: tuple[Action, ...]) -> Action:
        """Rules 3.3 and 2.6: the choice of the first bet in play still undecided, played when
        its bet is on offer or the script asks for more than a decline (so that the engine
        refuses what it cannot honour with its own code); then the offer closes."""
        offered = {
            candidate.bet_id
            for candidate in legal
            if isinstance(candidate, (TakeInsurance, TakeEvenMoney, DeclineInsurance))
        }
        decided = {item.bet_id for item in state.insurance}
        for bet in _bets_in_play(state):
            if bet.bet_id in decided:
                continue
            wanted = self.wanted_for(bet.bet_id)
            if bet.bet_id in offered or wanted != "decline":
                return self.insurance_action(bet, wanted)
        return CloseInsurance()

    def next_decision(self, state: RoundState) -> Action:
        """Rules 5: the box on turn's next listed decision (``decision_missing`` when none is
        left, ``illegal_action`` for an unknown name)."""
        box = state.boxes[state.turn_box]
        queue = self.queues.get(box.number)
        if not queue:
            raise IllegalActionError(f"box {box.number} has no decision left", code="decision_missing")
        name = queue.pop(0)
        decision_class = DECISIONS.get(name)
        if decision_class is None:
            raise IllegalActionError(f"unknown decision {name!r}", code="illegal_action")
        return decision_class(box.owner, box.number)

    def check(self, state: RoundState) -> None:
        """The settled round used the script whole (rules 3.3): a take or even money the round
        never asked for although the dealer showed an ace is refused with the engine's code;
        decisions left over are ``decision_unused``."""
        upcard = state.dealer_upcard
        if upcard is not None and upcard.is_ace and state.rules.insurance:
            for bet in _bets_in_play(state):
                wanted = self.wanted_for(bet.bet_id)
                if wanted == "decline" or bet.bet_id in self.played:
                    continue
                if wanted == "take":
                    insurance_stake(state.rules, bet.stake_minor, self.stakes.get(bet.bet_id))
                    raise IllegalActionError(
                        f"no insurance for bet {bet.bet_id!r}", code="insurance_not_offered"
                    )
                raise IllegalActionError("even money is only for a blackjack", code="even_money_not_offered")
        left = {box: names for box, names in self.queues.items() if names}
        if left:
            raise IllegalActionError(f"decisions never used: {left}", code="decision_unused")


def _bets_in_play(state: RoundState) -> list[Bet]:
    """Main bets and bets behind of the boxes that play, box by box (the bets insurance is for)."""
    bets = {bet.bet_id: bet for bet in state.bets}
    return [bets[stake.bet_id] for box in state.boxes for stake in box.hands[0].stakes]


def check_insurance_choices(
    rules: RuleSet,
    bets: Iterable[Bet],
    insurance: Mapping[str, str],
    insurance_stakes: Mapping[str, int] | None = None,
) -> None:
    """Refuse, before any card, insurance choices that no deal could honour (rules 3.3).

    Raises IllegalActionError: ``no_such_bet`` (a choice for a bet not placed),
    ``insurance_not_offered`` (a side bet, or a take on a table without insurance),
    ``even_money_not_offered`` (even money on a table without it), ``illegal_action`` (an
    unknown choice, or an amount for a choice that is not ``take``), or a take's stake code
    from :func:`insurance_stake`. Choices that depend on the cards (even money on a hand that
    is no blackjack) are refused when the round reaches them.
    """
    by_id = {bet.bet_id: bet for bet in bets}
    stakes = dict(insurance_stakes or {})
    for bet_id in dict.fromkeys((*insurance, *stakes)):
        wanted = insurance.get(bet_id, "take")  # an amount alone means a take
        bet = by_id.get(bet_id)
        if bet is None:
            raise IllegalActionError(f"no bet {bet_id!r} to insure", code="no_such_bet")
        if wanted not in INSURANCE_CHOICES:
            raise IllegalActionError(f"insurance choice {wanted!r}", code="illegal_action")
        if bet_id in stakes and wanted != "take":
            raise IllegalActionError(
                f"an insurance amount needs a take, not {wanted!r}", code="illegal_action"
            )
        if wanted == "decline":
            continue
        if bet.kind not in (BetKind.MAIN, BetKind.BEHIND):
            raise IllegalActionError(f"a {bet.kind.value} bet is never insured", code="insurance_not_offered")
        if wanted == "even_money":
            if not (rules.insurance and rules.even_money):
                raise IllegalActionError("this table offers no even money", code="even_money_not_offered")
            continue
        if not rules.insurance:
            raise IllegalActionError("this table offers no insurance", code="insurance_not_offered")
        insurance_stake(rules, bet.stake_minor, stakes.get(bet_id))


def play_round(
    rules: RuleSet,
    bets: Iterable[Bet],
    shoe: Iterable[Card],
    decisions: Mapping[int, Sequence[str]],
    *,
    insurance: Mapping[str, str] | None = None,
    insurance_stakes: Mapping[str, int] | None = None,
    seats: Iterable[Seat] = (),
) -> tuple[RoundState, tuple[Event, ...], tuple[Action, ...]]:
    """A whole round from bets, a shoe order and per-box decisions (see :func:`scripted_chooser`).

    Insurance choices are checked first (:func:`check_insurance_choices`): one that cannot be
    honoured is refused with its code, never skipped. The returned actions start with the bets,
    so ``replay(new_round(rules, seats=seats), actions)`` rebuilds the same state.
    """
    bets = tuple(bets)
    check_insurance_choices(rules, bets, insurance or {}, insurance_stakes)
    state = new_round(rules, seats=seats)
    events: list[Event] = []
    actions: list[Action] = []
    for bet in bets:
        action = PlaceBet(bet)
        state, new_events = apply(state, action)
        events.extend(new_events)
        actions.append(action)
    choose, check = scripted_chooser(decisions, insurance, insurance_stakes)
    state, round_events, round_actions = run_round(state, shoe, choose)
    check(state)
    return state, (*events, *round_events), (*actions, *round_actions)
