"""The blackjack round as a pure state machine (rules/blackjack.md), after python-chess.

- :func:`new_round` builds the betting state; :func:`validate_bet` checks one bet without
  placing it (the live table calls it before storing a bet).
- :func:`apply` takes a state and an action and returns the new state and the events; it never
  changes its input and raises a :class:`~games.errors.GameError` subclass with a stable
  ``code`` when the action is refused (nothing happened then). The steps that need no input
  between actions are :mod:`games.blackjack.flow`; the insurance stake is
  :mod:`games.blackjack.insurance`.
- :func:`~games.blackjack.flow.next_card_target` says who receives the next card; ``DealCard``
  feeds it.
- :func:`legal_actions` lists the decisions open now (bets and cards are open-ended and
  checked by :func:`validate_bet` and ``DealCard``).
- Drivers that play a whole round from a shoe order and choices are :mod:`games.blackjack.drivers`.

No clock and no randomness: shoe order and choices are inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from games.blackjack.actions import (
    DECISIONS,
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
)
from games.blackjack.events import (
    BetCancelled,
    BetPlaced,
    BetRefunded,
    BettingClosed,
    CardDealt,
    DecisionTaken,
    EvenMoneyTaken,
    Event,
    HandFinished,
    InsuranceDeclined,
    InsuranceTaken,
    StakeAdded,
)
from games.blackjack.flow import (
    advance,
    after_insurance,
    current_hand,
    legal_decisions,
    next_card_target,
    put_box,
    settle_round,
    with_hand,
)
from games.blackjack.insurance import insurance_offers, insurance_stake, insurance_stake_limits
from games.blackjack.rules import RuleSet
from games.blackjack.state import (
    SIDE_BET_KINDS,
    Bet,
    BetKind,
    Box,
    Hand,
    InsuranceChoice,
    InsuranceDecision,
    Phase,
    RoundState,
    Seat,
    Stake,
    card_index,
    evolve,
)
from games.cards import RANKS, SUITS, Card
from games.errors import (
    BetRefusedError,
    IllegalActionError,
    MisscanError,
    NotBoxOwnerError,
    NotYourTurnError,
)


def new_round(
    rules: RuleSet,
    bets: Iterable[Bet] = (),
    *,
    seats: Iterable[Seat] = (),
    shoe_remaining: Mapping[str, int] | None = None,
) -> RoundState:
    """A round in the betting phase, with ``bets`` placed in order.

    ``seats`` are the boxes already taken before the round (owner and "no bets behind me"
    setting); a box without a seat is owned by the player of its main bet. ``shoe_remaining``
    maps card codes (``"AS"``) to the copies still in the shoe (missing codes: none left); the
    engine refuses a card beyond it (``card_not_in_shoe``). Raises BetRefusedError for the
    first bet refused, IllegalActionError(``invalid_seat``) for a bad seat.
    """
    seat_list = sorted(seats, key=lambda seat: seat.box)
    numbers = [seat.box for seat in seat_list]
    if len(set(numbers)) != len(numbers):
        raise IllegalActionError("two seats on one box", code="invalid_seat")
    for seat in seat_list:
        if not 1 <= seat.box <= rules.boxes or not seat.owner:
            raise IllegalActionError(f"no box {seat.box} for {seat.owner!r}", code="invalid_seat")
    remaining: tuple[int, ...] | None = None
    if shoe_remaining is not None:
        counts = [0] * (len(RANKS) * len(SUITS))
        for code, count in shoe_remaining.items():
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= rules.decks:
                raise IllegalActionError(f"{code}: {count!r} copies left", code="invalid_shoe")
            counts[card_index(Card.parse(code))] = count
        remaining = tuple(counts)
    state = RoundState(rules=rules, seats=tuple(seat_list), shoe_remaining=remaining)
    for bet in bets:
        state, _ = apply(state, PlaceBet(bet))
    return state


def _refuse(message: str, code: str) -> BetRefusedError:
    return BetRefusedError(message, code=code)


def validate_bet(state: RoundState, bet: Bet) -> None:
    """Check that ``bet`` could be placed now; raise BetRefusedError (with its code) if not.

    Rules 2.1 (boxes), 2.2 (boxes per player), 2.3 (the box owner), 2.4 (bets behind), 3.1 (no
    more bets), 3.2 (side bets need the owner's main bet), 3.3 (insurance only when offered).

    Codes: ``betting_closed``, ``invalid_stake``, ``no_such_box``, ``duplicate_bet_id``,
    ``insurance_not_offered`` (insurance is taken later), ``box_taken``, ``not_box_owner``,
    ``box_limit_reached``, ``bet_behind_own_box``, ``bet_behind_not_offered``,
    ``bets_behind_forbidden``, ``side_bet_not_offered``, ``side_bet_without_main_bet``,
    ``duplicate_side_bet``. Table stake limits are the live table's (they are not rules).
    """
    rules = state.rules
    if state.phase is not Phase.BETTING:
        raise _refuse("no more bets", "betting_closed")
    if isinstance(bet.stake_minor, bool) or not isinstance(bet.stake_minor, int) or bet.stake_minor <= 0:
        raise _refuse("a stake is a positive whole number of minor units", "invalid_stake")
    if not 1 <= bet.box <= rules.boxes:
        raise _refuse(f"the table has boxes 1 to {rules.boxes}", "no_such_box")
    if not bet.bet_id or not bet.player:
        raise _refuse("a bet needs an id and a player", "invalid_bet")
    if state.bet(bet.bet_id) is not None:
        raise _refuse(f"bet {bet.bet_id!r} exists", "duplicate_bet_id")
    owner = state.box_owner(bet.box)
    if bet.kind is BetKind.INSURANCE:
        raise _refuse("insurance is taken when the dealer shows an ace", "insurance_not_offered")
    if bet.kind is BetKind.MAIN:
        if owner is not None and owner != bet.player:
            raise NotBoxOwnerError(f"box {bet.box} belongs to {owner}")
        if state.main_bet(bet.box) is not None:
            raise _refuse(f"box {bet.box} already has its main bet", "box_taken")
        boxes_played = {
            other.box for other in state.bets if other.kind is BetKind.MAIN and other.player == bet.player
        }
        if len(boxes_played) >= rules.boxes_per_player:
            raise _refuse(f"at most {rules.boxes_per_player} boxes per player", "box_limit_reached")
        if any(other.box == bet.box and other.player == bet.player for other in state.bets):
            raise _refuse("a player never bets behind their own box", "bet_behind_own_box")
        return
    if bet.kind is BetKind.BEHIND:
        if not rules.bet_behind:
            raise _refuse("this table has no bets behind", "bet_behind_not_offered")
        if owner == bet.player:
            raise _refuse("a player never bets behind their own box", "bet_behind_own_box")
        seat = state.seat(bet.box)
        if seat is not None and not seat.accepts_bets_behind:
            raise _refuse(f"the owner of box {bet.box} takes no bets behind", "bets_behind_forbidden")
        return
    paytable = rules.perfect_pairs if bet.kind is BetKind.PERFECT_PAIRS else rules.twenty_one_plus_three
    if paytable is None:
        raise _refuse(f"this table has no {bet.kind.value} bet", "side_bet_not_offered")
    main = state.main_bet(bet.box)
    if main is None or main.player != bet.player:
        raise _refuse("a side bet needs your main bet on the same box", "side_bet_without_main_bet")
    if any(other.box == bet.box and other.kind is bet.kind for other in state.bets):
        raise _refuse(f"box {bet.box} already has a {bet.kind.value} bet", "duplicate_side_bet")


def legal_actions(state: RoundState) -> tuple[Action, ...]:
    """The actions open now, except bets and cards.

    Betting: ``CloseBetting`` and a ``CancelBet`` per bet (new bets: :func:`validate_bet`).
    Insurance: take / decline / even money for each bet still undecided, and ``CloseInsurance``;
    the take listed is exactly half (``stake_minor=None``) or, under ``UP_TO_HALF`` when half is
    not a whole chip, the largest amount; every amount :func:`insurance_stake_limits` allows is
    legal too.
    Players: the decisions of the current hand, for its box owner. When a card is expected
    (:func:`next_card_target` is not None) or the round is settled: nothing.
    """
    phase = state.phase
    if phase is Phase.BETTING:
        return (CloseBetting(), *(CancelBet(bet.bet_id, bet.player) for bet in state.bets))
    if phase is Phase.INSURANCE:
        actions: list[Action] = []
        decided = {item.bet_id for item in state.insurance}
        for bet, even_money in insurance_offers(state):
            if bet.bet_id in decided:
                continue
            limits = insurance_stake_limits(state.rules, bet.stake_minor)
            if limits is not None:
                # The exact half when it is allowed, else the largest amount (UP_TO_HALF).
                exact = 2 * limits[1] == bet.stake_minor
                amount = None if exact else limits[1]
                actions.append(TakeInsurance(bet.player, bet.bet_id, stake_minor=amount))
            if even_money:
                actions.append(TakeEvenMoney(bet.player, bet.bet_id))
            actions.append(DeclineInsurance(bet.player, bet.bet_id))
        actions.append(CloseInsurance())
        return tuple(actions)
    if phase is Phase.PLAYERS and next_card_target(state) is None:
        box = state.boxes[state.turn_box]
        hand = box.hands[state.turn_hand]
        return tuple(DECISIONS[name](box.owner, box.number) for name in legal_decisions(state, box, hand))
    return ()


def apply(state: RoundState, action: Action) -> tuple[RoundState, tuple[Event, ...]]:
    """The state after ``action`` and the events it caused. ``state`` is left unchanged.

    Raises a GameError subclass (see the module's error codes) when the action is refused.
    """
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(f"unknown action {type(action).__name__}")
    events: list[Event] = []
    new_state = handler(state, action, events)
    return new_state, tuple(events)


def replay(state: RoundState, actions: Iterable[Action]) -> tuple[RoundState, tuple[Event, ...]]:
    """Apply stored actions in order from ``state``; the events of all of them."""
    events: list[Event] = []
    for action in actions:
        state, new_events = apply(state, action)
        events.extend(new_events)
    return state, tuple(events)


Handler = Callable[[RoundState, Action, list[Event]], RoundState]


def _place_bet(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, PlaceBet)
    validate_bet(state, action.bet)
    events.append(BetPlaced(action.bet))
    return evolve(state, bets=(*state.bets, action.bet))


def _cancel_bet(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, CancelBet)
    if state.phase is not Phase.BETTING:
        raise _refuse("no more bets", "betting_closed")
    bet = state.bet(action.bet_id)
    if bet is None:
        raise _refuse(f"no bet {action.bet_id!r}", "no_such_bet")
    if bet.player != action.player:
        raise _refuse("only the bettor cancels a bet", "not_bet_owner")
    gone = [bet]
    if bet.kind is BetKind.MAIN:
        gone.extend(
            other
            for other in state.bets
            if other.box == bet.box and other.player == bet.player and other.kind in SIDE_BET_KINDS
        )
    for item in gone:
        events.append(BetCancelled(item.bet_id, item.player, item.box, item.kind, item.stake_minor))
    ids = {item.bet_id for item in gone}
    return evolve(state, bets=tuple(other for other in state.bets if other.bet_id not in ids))


def _close_betting(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    """ "No more bets" (rules 3.1); bets behind a box whose owner does not play come back (2.4)."""
    assert isinstance(action, CloseBetting)
    if state.phase is not Phase.BETTING:
        raise _refuse("betting is already closed", "betting_closed")
    boxes: list[Box] = []
    refunds: list[Bet] = []
    for number in range(1, state.rules.boxes + 1):
        main = state.main_bet(number)
        behind = [bet for bet in state.bets if bet.box == number and bet.kind is BetKind.BEHIND]
        if main is None:
            refunds.extend(behind)
            continue
        stakes = (
            Stake(main.bet_id, main.stake_minor),
            *(Stake(bet.bet_id, bet.stake_minor) for bet in behind),
        )
        boxes.append(Box(number=number, owner=main.player, hands=(Hand(stakes=stakes),)))
    events.append(BettingClosed(tuple(box.number for box in boxes)))
    for bet in refunds:
        events.append(BetRefunded(bet.bet_id, bet.player, bet.box, bet.stake_minor, "owner_not_playing"))
    state = evolve(state, phase=Phase.DEALING, boxes=tuple(boxes))
    if not boxes:
        return settle_round(state, events)
    return state


def _deal_card(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    """A card to :func:`next_card_target` (rules 4.1); refused with ``card_not_expected``, or
    ``card_not_in_shoe`` beyond the shoe's copies (1.1)."""
    assert isinstance(action, DealCard)
    card = action.card
    target = next_card_target(state)
    if target is None:
        raise MisscanError(f"no card is expected now ({state.phase.value})", code="card_not_expected")
    limit = state.rules.decks if state.shoe_remaining is None else state.shoe_remaining[card_index(card)]
    if state.cards_on_table().count(card) >= limit:
        raise MisscanError(f"the shoe holds no other {card.code}", code="card_not_in_shoe")
    events.append(CardDealt(card, target.to, target.box, target.hand, target.is_face_up))
    if target.to == "dealer":
        state = evolve(state, dealer_cards=(*state.dealer_cards, card))
    elif state.phase is Phase.DEALING:
        position = next(index for index, box in enumerate(state.boxes) if box.number == target.box)
        box = state.boxes[position]
        hand = box.hands[0]
        box = evolve(
            box, hands=(evolve(hand, cards=(*hand.cards, card)),), first_cards=(*box.first_cards, card)
        )
        state = evolve(state, boxes=put_box(state.boxes, position, box))
    else:
        hand = current_hand(state)
        state = with_hand(state, evolve(hand, cards=(*hand.cards, card)))
        state = evolve(state, card_due=False)
    return advance(state, events)


def _insurance_target(state: RoundState, action: TakeInsurance | TakeEvenMoney | DeclineInsurance) -> Bet:
    """The bet an insurance decision is about, checked (rules 3.3, 2.4); raises
    IllegalActionError: ``insurance_not_offered``, ``not_bet_owner``,
    ``insurance_already_decided``, ``even_money_not_offered``, or for a take on a bet whose
    stake cannot be insured the code of :func:`insurance_stake`."""
    if state.phase is not Phase.INSURANCE:
        raise IllegalActionError("insurance is not on offer now", code="insurance_not_offered")
    bet_id = action.bet_id
    offered = {bet.bet_id: (bet, even_money) for bet, even_money in insurance_offers(state)}
    in_play = {stake.bet_id for box in state.boxes for stake in box.hands[0].stakes}
    known = state.bet(bet_id)
    if known is None or bet_id not in in_play:
        raise IllegalActionError(f"no insurance for bet {bet_id!r}", code="insurance_not_offered")
    if known.player != action.player:
        raise IllegalActionError("only the bettor insures a bet", code="not_bet_owner")
    if any(item.bet_id == bet_id for item in state.insurance):
        raise IllegalActionError("insurance already decided", code="insurance_already_decided")
    offer = offered.get(bet_id)
    if isinstance(action, TakeEvenMoney):
        if offer is None or not offer[1]:
            raise IllegalActionError("even money is only for a blackjack", code="even_money_not_offered")
        return known
    if isinstance(action, TakeInsurance):
        # Refused with the stake's own code, also on a bet that was not offered for its stake.
        insurance_stake(state.rules, known.stake_minor, action.stake_minor)
    if offer is None:
        raise IllegalActionError(f"no insurance for bet {bet_id!r}", code="insurance_not_offered")
    return known


def _take_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, TakeInsurance)
    bet = _insurance_target(state, action)
    stake = insurance_stake(state.rules, bet.stake_minor, action.stake_minor)
    insurance_bet_id = action.insurance_bet_id or f"{bet.bet_id}/insurance"
    taken = {item.insurance_bet_id for item in state.insurance}
    if state.bet(insurance_bet_id) is not None or insurance_bet_id in taken:
        raise IllegalActionError(f"bet {insurance_bet_id!r} exists", code="duplicate_bet_id")
    decision = InsuranceDecision(
        bet.bet_id, bet.player, bet.box, InsuranceChoice.TAKEN, insurance_bet_id, stake
    )
    events.append(InsuranceTaken(bet.bet_id, insurance_bet_id, bet.player, bet.box, stake))
    return advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _take_even_money(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, TakeEvenMoney)
    bet = _insurance_target(state, action)
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.EVEN_MONEY)
    events.append(EvenMoneyTaken(bet.bet_id, bet.player, bet.box))
    return advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _decline_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, DeclineInsurance)
    bet = _insurance_target(state, action)
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.DECLINED)
    events.append(InsuranceDeclined(bet.bet_id, bet.player, bet.box, False))
    return advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _close_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    """End of the insurance offer: every bet still undecided declines by default (rules 2.6)."""
    assert isinstance(action, CloseInsurance)
    if state.phase is not Phase.INSURANCE:
        raise IllegalActionError("insurance is not on offer now", code="insurance_not_offered")
    decided = {item.bet_id for item in state.insurance}
    added: list[InsuranceDecision] = []
    for bet, _ in insurance_offers(state):
        if bet.bet_id not in decided:
            added.append(
                InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.DECLINED, by_default=True)
            )
            events.append(InsuranceDeclined(bet.bet_id, bet.player, bet.box, True))
    state = evolve(state, insurance=(*state.insurance, *added))
    return after_insurance(state, events)


def _decide(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    """A box owner's decision (rules 2.3, 5): refused with ``not_box_owner``, ``not_your_turn``,
    ``box_not_playing``, ``card_expected`` or ``<decision>_not_allowed`` (see
    :func:`legal_decisions`); a double or split adds the stakes of rules 2.4 and 5.3-5.4."""
    assert isinstance(action, Decision)
    if state.phase is not Phase.PLAYERS:
        raise IllegalActionError(f"no player decision in phase {state.phase.value}", code="illegal_action")
    box = state.boxes[state.turn_box]
    if action.box != box.number:
        if all(other.number != action.box for other in state.boxes):
            raise IllegalActionError(f"box {action.box} does not play this round", code="box_not_playing")
        raise NotYourTurnError(f"box {box.number} is to act, not box {action.box}")
    if action.player != box.owner:
        raise NotBoxOwnerError(f"box {box.number} belongs to {box.owner}")
    if next_card_target(state) is not None:
        raise IllegalActionError("a card is expected first", code="card_expected")
    index = state.turn_hand
    hand = box.hands[index]
    name = action.type
    if name not in legal_decisions(state, box, hand):
        raise IllegalActionError(f"{name} is not allowed on this hand", code=f"{name}_not_allowed")
    events.append(DecisionTaken(action.player, box.number, index, name))
    if isinstance(action, Hit):
        return evolve(state, card_due=True)
    if isinstance(action, Stand):
        events.append(HandFinished(box.number, index, hand.value.total, "stand"))
        return advance(with_hand(state, evolve(hand, is_finished=True)), events)
    if isinstance(action, Surrender):
        events.append(HandFinished(box.number, index, hand.value.total, "surrender"))
        return advance(with_hand(state, evolve(hand, is_finished=True, is_surrendered=True)), events)
    bets = {bet.bet_id: bet for bet in state.bets}
    if isinstance(action, Double):
        stakes: list[Stake] = []
        for stake in hand.stakes:
            bet = bets[stake.bet_id]
            if bet.kind is BetKind.MAIN or bet.follow_double:
                events.append(
                    StakeAdded(bet.bet_id, bet.player, box.number, index, stake.stake_minor, "double")
                )
                stake = Stake(stake.bet_id, stake.stake_minor * 2)
            stakes.append(stake)
        doubled = evolve(hand, stakes=tuple(stakes), is_doubled=True)
        return evolve(with_hand(state, doubled), card_due=True)
    assert isinstance(action, Split)
    first_card, second_card = hand.cards
    is_aces = first_card.is_ace
    new_stakes: list[Stake] = []
    for stake in hand.stakes:
        bet = bets[stake.bet_id]
        if bet.kind is BetKind.MAIN or bet.follow_split:
            events.append(
                StakeAdded(bet.bet_id, bet.player, box.number, index + 1, stake.stake_minor, "split")
            )
            new_stakes.append(stake)
    first = evolve(hand, cards=(first_card,), is_split=True, is_split_aces=is_aces)
    second = Hand(cards=(second_card,), stakes=tuple(new_stakes), is_split=True, is_split_aces=is_aces)
    hands = (*box.hands[:index], first, second, *box.hands[index + 1 :])
    state = evolve(state, boxes=put_box(state.boxes, state.turn_box, evolve(box, hands=hands)))
    return advance(state, events)


_HANDLERS: dict[type[Action], Handler] = {
    PlaceBet: _place_bet,
    CancelBet: _cancel_bet,
    CloseBetting: _close_betting,
    DealCard: _deal_card,
    TakeInsurance: _take_insurance,
    TakeEvenMoney: _take_even_money,
    DeclineInsurance: _decline_insurance,
    CloseInsurance: _close_insurance,
    Hit: _decide,
    Stand: _decide,
    Double: _decide,
    Split: _decide,
    Surrender: _decide,
}


__all__ = [
    "apply",
    "legal_actions",
    "new_round",
    "replay",
    "validate_bet",
]
