"""The blackjack round as a pure state machine (rules/blackjack.md), after python-chess.

- :func:`new_round` builds the betting state; :func:`validate_bet` checks one bet without
  placing it (the live table calls it before storing a bet).
- :func:`apply` takes a state and an action and returns the new state and the events; it never
  changes its input and raises a :class:`~tables.games.errors.GameError` subclass with a stable
  ``code`` when the action is refused (nothing happened then).
- :func:`next_card_target` says who receives the next card; ``DealCard`` feeds it.
- :func:`legal_actions` lists the decisions open now (bets and cards are open-ended and
  checked by :func:`validate_bet` and ``DealCard``).

No clock and no randomness: shoe order and choices are inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from tables.games.blackjack.actions import (
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
from tables.games.blackjack.events import (
    BetCancelled,
    BetPlaced,
    BetRefunded,
    BettingClosed,
    CardDealt,
    DealerDrawSkipped,
    DealerFinished,
    DealerPeeked,
    DecisionTaken,
    EvenMoneyTaken,
    Event,
    HandFinished,
    HoleCardRevealed,
    InsuranceDeclined,
    InsuranceOffered,
    InsuranceTaken,
    PlayerToAct,
    RoundSettled,
    StakeAdded,
)
from tables.games.blackjack.rules import RuleSet, SplitBy
from tables.games.blackjack.rules import Surrender as SurrenderRule
from tables.games.blackjack.settlement import settlement
from tables.games.blackjack.state import (
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
from tables.games.cards import RANKS, SUITS, Card, hand_value, is_blackjack
from tables.games.errors import (
    BetRefusedError,
    GameError,
    IllegalActionError,
    MisscanError,
    NotBoxOwnerError,
    NotYourTurnError,
    ShoeExhaustedError,
)


@dataclass(frozen=True, slots=True)
class CardTarget:
    """Who gets the next card: ``to`` is ``"box"`` (``box`` number and ``hand`` index) or
    ``"dealer"``; ``is_face_up`` is False only for the dealer's hole card (rules 4.1)."""

    to: str
    box: int | None = None
    hand: int | None = None
    is_face_up: bool = True


# ---------------------------------------------------------------------------------------------
# Round setup and bets


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
        if state.main_bet(bet.box) is not None:
            raise _refuse(f"box {bet.box} already has its main bet", "box_taken")
        if owner is not None and owner != bet.player:
            raise NotBoxOwnerError(f"box {bet.box} belongs to {owner}")
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


# ---------------------------------------------------------------------------------------------
# Queries


def next_card_target(state: RoundState) -> CardTarget | None:
    """Who receives the next card, or None when no card is expected (then a card is a misscan)."""
    phase = state.phase
    if phase is Phase.DEALING:
        boxes = state.boxes
        count = len(boxes)
        dealt = len(state.dealer_cards) + sum(len(box.first_cards) for box in boxes)
        if dealt < count:
            return CardTarget("box", boxes[dealt].number, 0)
        if dealt == count:
            return CardTarget("dealer")
        if dealt < 2 * count + 1:
            return CardTarget("box", boxes[dealt - count - 1].number, 0)
        if dealt == 2 * count + 1:
            return CardTarget("dealer", is_face_up=False)
        return None
    if phase is Phase.PLAYERS:
        box = state.boxes[state.turn_box]
        hand = box.hands[state.turn_hand]
        if state.card_due or len(hand.cards) < 2:
            return CardTarget("box", box.number, state.turn_hand)
        return None
    if phase is Phase.DEALER and _dealer_must_draw(state):
        return CardTarget("dealer")
    return None


def current_turn(state: RoundState) -> tuple[int, int] | None:
    """(box number, hand index) whose owner must decide now, or None."""
    if state.phase is not Phase.PLAYERS or next_card_target(state) is not None:
        return None
    return state.boxes[state.turn_box].number, state.turn_hand


def legal_actions(state: RoundState) -> tuple[Action, ...]:
    """The actions open now, except bets and cards.

    Betting: ``CloseBetting`` and a ``CancelBet`` per bet (new bets: :func:`validate_bet`).
    Insurance: take / decline / even money for each bet still undecided, and ``CloseInsurance``.
    Players: the decisions of the current hand, for its box owner. When a card is expected
    (:func:`next_card_target` is not None) or the round is settled: nothing.
    """
    phase = state.phase
    if phase is Phase.BETTING:
        return (CloseBetting(), *(CancelBet(bet.bet_id, bet.player) for bet in state.bets))
    if phase is Phase.INSURANCE:
        actions: list[Action] = []
        decided = {item.bet_id for item in state.insurance}
        for bet, even_money in _insurance_offers(state):
            if bet.bet_id in decided:
                continue
            if bet.stake_minor % 2 == 0:
                actions.append(TakeInsurance(bet.player, bet.bet_id))
            if even_money:
                actions.append(TakeEvenMoney(bet.player, bet.bet_id))
            actions.append(DeclineInsurance(bet.player, bet.bet_id))
        actions.append(CloseInsurance())
        return tuple(actions)
    if phase is Phase.PLAYERS and next_card_target(state) is None:
        box = state.boxes[state.turn_box]
        hand = box.hands[state.turn_hand]
        return tuple(
            _DECISION_CLASSES[name](box.owner, box.number) for name in _legal_decisions(state, box, hand)
        )
    return ()


# ---------------------------------------------------------------------------------------------
# apply


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
        return _settle(state, events)
    return state


def _deal_card(state: RoundState, action: Action, events: list[Event]) -> RoundState:
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
        state = evolve(state, boxes=_put(state.boxes, position, box))
    else:
        hand = _current_hand(state)
        state = _with_hand(state, evolve(hand, cards=(*hand.cards, card)))
        state = evolve(state, card_due=False)
    return _advance(state, events)


def _insurance_target(state: RoundState, player: str, bet_id: str) -> tuple[Bet, bool]:
    if state.phase is not Phase.INSURANCE:
        raise IllegalActionError("insurance is not on offer now", code="insurance_not_offered")
    for bet, even_money in _insurance_offers(state):
        if bet.bet_id == bet_id:
            if bet.player != player:
                raise IllegalActionError("only the bettor insures a bet", code="not_bet_owner")
            if any(item.bet_id == bet_id for item in state.insurance):
                raise IllegalActionError("insurance already decided", code="insurance_already_decided")
            return bet, even_money
    known = state.bet(bet_id)
    if known is not None and known.kind in (BetKind.MAIN, BetKind.BEHIND) and known.stake_minor % 2:
        # Insurance is exactly half the stake (rules 3.3); an odd stake has no exact half.
        raise IllegalActionError(
            f"{known.stake_minor} minor units have no exact half", code="insurance_stake_not_exact"
        )
    raise IllegalActionError(f"no insurance for bet {bet_id!r}", code="insurance_not_offered")


def _take_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, TakeInsurance)
    bet, _ = _insurance_target(state, action.player, action.bet_id)
    if bet.stake_minor % 2:
        # Insurance is exactly half the stake (rules 3.3); an odd stake has no exact half.
        raise IllegalActionError(
            f"{bet.stake_minor} minor units have no exact half", code="insurance_stake_not_exact"
        )
    insurance_bet_id = action.insurance_bet_id or f"{bet.bet_id}/insurance"
    taken = {item.insurance_bet_id for item in state.insurance}
    if state.bet(insurance_bet_id) is not None or insurance_bet_id in taken:
        raise IllegalActionError(f"bet {insurance_bet_id!r} exists", code="duplicate_bet_id")
    stake = bet.stake_minor // 2
    decision = InsuranceDecision(
        bet.bet_id, bet.player, bet.box, InsuranceChoice.TAKEN, insurance_bet_id, stake
    )
    events.append(InsuranceTaken(bet.bet_id, insurance_bet_id, bet.player, bet.box, stake))
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _take_even_money(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, TakeEvenMoney)
    bet, even_money = _insurance_target(state, action.player, action.bet_id)
    if not even_money:
        raise IllegalActionError("even money is only for a blackjack", code="even_money_not_offered")
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.EVEN_MONEY)
    events.append(EvenMoneyTaken(bet.bet_id, bet.player, bet.box))
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _decline_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, DeclineInsurance)
    bet, _ = _insurance_target(state, action.player, action.bet_id)
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.DECLINED)
    events.append(InsuranceDeclined(bet.bet_id, bet.player, bet.box, False))
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _close_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, CloseInsurance)
    if state.phase is not Phase.INSURANCE:
        raise IllegalActionError("insurance is not on offer now", code="insurance_not_offered")
    decided = {item.bet_id for item in state.insurance}
    added: list[InsuranceDecision] = []
    for bet, _ in _insurance_offers(state):
        if bet.bet_id not in decided:
            added.append(
                InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.DECLINED, by_default=True)
            )
            events.append(InsuranceDeclined(bet.bet_id, bet.player, bet.box, True))
    state = evolve(state, insurance=(*state.insurance, *added))
    return _after_insurance(state, events)


def _decide(state: RoundState, action: Action, events: list[Event]) -> RoundState:
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
    if name not in _legal_decisions(state, box, hand):
        raise IllegalActionError(f"{name} is not allowed on this hand", code=f"{name}_not_allowed")
    events.append(DecisionTaken(action.player, box.number, index, name))
    if isinstance(action, Hit):
        return evolve(state, card_due=True)
    if isinstance(action, Stand):
        events.append(HandFinished(box.number, index, hand.value.total, "stand"))
        return _advance(_with_hand(state, evolve(hand, is_finished=True)), events)
    if isinstance(action, Surrender):
        events.append(HandFinished(box.number, index, hand.value.total, "surrender"))
        return _advance(_with_hand(state, evolve(hand, is_finished=True, is_surrendered=True)), events)
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
        return evolve(_with_hand(state, doubled), card_due=True)
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
    state = evolve(state, boxes=_put(state.boxes, state.turn_box, evolve(box, hands=hands)))
    return _advance(state, events)


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

_DECISION_CLASSES: dict[str, type[Decision]] = {
    "hit": Hit,
    "stand": Stand,
    "double": Double,
    "split": Split,
    "surrender": Surrender,
}


# ---------------------------------------------------------------------------------------------
# Flow


def _put(boxes: tuple[Box, ...], position: int, box: Box) -> tuple[Box, ...]:
    return (*boxes[:position], box, *boxes[position + 1 :])


def _current_hand(state: RoundState) -> Hand:
    return state.boxes[state.turn_box].hands[state.turn_hand]


def _with_hand(state: RoundState, hand: Hand) -> RoundState:
    box = state.boxes[state.turn_box]
    index = state.turn_hand
    box = evolve(box, hands=(*box.hands[:index], hand, *box.hands[index + 1 :]))
    return evolve(state, boxes=_put(state.boxes, state.turn_box, box))


def _insurance_offers(state: RoundState) -> list[tuple[Bet, bool]]:
    """Main bets and bets behind that may insure (rules 3.3, 2.4), with even money eligibility."""
    bets = {bet.bet_id: bet for bet in state.bets}
    offers: list[tuple[Bet, bool]] = []
    even_money_on = state.rules.even_money
    for box in state.boxes:
        hand = box.hands[0]
        even_money = even_money_on and hand.is_blackjack
        for stake in hand.stakes:
            bet = bets[stake.bet_id]
            if bet.stake_minor % 2 == 0 or even_money:
                offers.append((bet, even_money))
    return offers


def _can_split(rules: RuleSet, box: Box, hand: Hand) -> bool:
    if len(hand.cards) != 2 or len(box.hands) >= rules.max_hands:
        return False
    first, second = hand.cards
    if rules.split_by is SplitBy.RANK:
        if first.rank != second.rank:
            return False
    elif first.value != second.value:
        return False
    return not (first.is_ace and hand.is_split_aces and not rules.resplit_aces)


def _legal_decisions(state: RoundState, box: Box, hand: Hand) -> list[str]:
    rules = state.rules
    one_card = hand.is_split_aces and rules.split_aces_one_card
    names: list[str] = []
    if not one_card:
        names.append("hit")
    names.append("stand")
    two_cards = len(hand.cards) == 2
    if (
        two_cards
        and not one_card
        and (not hand.is_split or rules.double_after_split)
        and rules.double_on.allows(hand.value.total)
    ):
        names.append("double")
    if _can_split(rules, box, hand):
        names.append("split")
    if rules.surrender is SurrenderRule.LATE and two_cards and not hand.is_split and len(box.hands) == 1:
        names.append("surrender")
    return names


def _finish_reason(state: RoundState, box: Box, hand: Hand) -> str | None:
    """Why a hand with its cards is over without a decision (rules 5.1, 5.3, 5.5, 7)."""
    value = hand.value
    if value.total > 21:
        return "bust"
    if hand.is_doubled:
        return "double"
    if hand.is_blackjack:
        return "blackjack"
    if value.total == 21:
        return "twenty_one"
    if hand.is_split_aces and state.rules.split_aces_one_card and not _can_split(state.rules, box, hand):
        return "split_aces"
    return None


def _advance(state: RoundState, events: list[Event]) -> RoundState:
    """Run every step that needs no input, up to the next card or decision."""
    phase = state.phase
    if phase is Phase.DEALING:
        if next_card_target(state) is not None:
            return state
        return _after_deal(state, events)
    if phase is Phase.INSURANCE:
        decided = {item.bet_id for item in state.insurance}
        if any(bet.bet_id not in decided for bet, _ in _insurance_offers(state)):
            return state
        return _after_insurance(state, events)
    if phase is Phase.PLAYERS:
        return _next_turn(state, events)
    if phase is Phase.DEALER:
        if _dealer_must_draw(state):
            return state
        return _dealer_done(state, events)
    return state


def _after_deal(state: RoundState, events: list[Event]) -> RoundState:
    upcard = state.dealer_cards[0]
    if upcard.is_ace and state.rules.insurance:
        offers = _insurance_offers(state)
        if offers:
            events.append(
                InsuranceOffered(
                    tuple(bet.bet_id for bet, _ in offers),
                    tuple(bet.bet_id for bet, even_money in offers if even_money),
                )
            )
            return evolve(state, phase=Phase.INSURANCE)
    return _peek_or_play(state, events)


def _after_insurance(state: RoundState, events: list[Event]) -> RoundState:
    return _peek_or_play(state, events)


def _peek_or_play(state: RoundState, events: list[Event]) -> RoundState:
    upcard = state.dealer_cards[0]
    if state.rules.peeks and (upcard.is_ace or upcard.is_ten_valued):
        has_blackjack = is_blackjack(state.dealer_cards)
        events.append(DealerPeeked(has_blackjack))
        if has_blackjack:
            events.append(HoleCardRevealed(state.dealer_cards[1]))
            events.append(DealerFinished(21, True, False))
            return _settle(evolve(state, is_hole_card_revealed=True), events)
    state = evolve(state, phase=Phase.PLAYERS, turn_box=0, turn_hand=0, card_due=False)
    return _next_turn(state, events)


def _next_turn(state: RoundState, events: list[Event]) -> RoundState:
    position, index = state.turn_box, state.turn_hand
    while position < len(state.boxes):
        box = state.boxes[position]
        if index >= len(box.hands):
            position, index = position + 1, 0
            continue
        hand = box.hands[index]
        if hand.is_finished:
            index += 1
            continue
        if (position, index) != (state.turn_box, state.turn_hand):
            state = evolve(state, turn_box=position, turn_hand=index, card_due=False)
        if state.card_due or len(hand.cards) < 2:
            return state
        reason = _finish_reason(state, box, hand)
        if reason is None:
            events.append(
                PlayerToAct(box.number, index, box.owner, tuple(_legal_decisions(state, box, hand)))
            )
            return state
        events.append(HandFinished(box.number, index, hand.value.total, reason))
        state = _with_hand(state, evolve(hand, is_finished=True))
        index += 1
    return _enter_dealer(state, events)


def _enter_dealer(state: RoundState, events: list[Event]) -> RoundState:
    state = evolve(state, phase=Phase.DEALER, is_hole_card_revealed=True, card_due=False)
    events.append(HoleCardRevealed(state.dealer_cards[1]))
    if not is_blackjack(state.dealer_cards):
        hands = [hand for box in state.boxes for hand in box.hands]
        if all(hand.is_bust or hand.is_surrendered or hand.is_blackjack for hand in hands):
            if all(hand.is_blackjack for hand in hands):
                reason = "all_blackjack"
            elif not any(hand.is_blackjack for hand in hands):
                reason = "all_boxes_lost"
            else:
                reason = "no_hand_in_play"
            events.append(DealerDrawSkipped(reason))
            return _dealer_done(state, events)
    return _advance(state, events)


def _hands_in_play(state: RoundState) -> bool:
    return any(
        not (hand.is_bust or hand.is_surrendered or hand.is_blackjack)
        for box in state.boxes
        for hand in box.hands
    )


def _dealer_must_draw(state: RoundState) -> bool:
    """Rules 6.1 and 6.2: draw to 16, stand on 17 (soft 17 per rule set), and only for a box in play."""
    cards = state.dealer_cards
    if is_blackjack(cards) or not _hands_in_play(state):
        return False
    value = hand_value(cards)
    if value.total < 17:
        return True
    return value.total == 17 and value.is_soft and state.rules.dealer_hits_soft_17


def _dealer_done(state: RoundState, events: list[Event]) -> RoundState:
    value = hand_value(state.dealer_cards)
    events.append(DealerFinished(value.total, is_blackjack(state.dealer_cards), value.total > 21))
    return _settle(state, events)


def _settle(state: RoundState, events: list[Event]) -> RoundState:
    state = evolve(state, phase=Phase.SETTLED, card_due=False)
    events.append(RoundSettled(settlement(state)))
    return state


# ---------------------------------------------------------------------------------------------
# Drivers: a round from a shoe order and choices (round scripts, simulations, tests)

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


def scripted_chooser(
    decisions: Mapping[int, Sequence[str]], insurance: Mapping[str, str] | None = None
) -> tuple[Chooser, Callable[[], None]]:
    """A chooser that plays listed decisions per box, and a check that all were used.

    ``decisions`` maps a box number to its decision names in order (``hit``, ``stand``,
    ``double``, ``split``, ``surrender``); ``insurance`` maps bet ids to ``take``,
    ``decline`` or ``even_money`` (a bet not listed declines). A box that must decide after its
    list is used up raises IllegalActionError(``decision_missing``); the check raises
    IllegalActionError(``decision_unused``) for decisions left over.
    """
    queues = {box: list(names) for box, names in decisions.items()}
    insurance_choices = dict(insurance or {})

    def choose(state: RoundState, legal: tuple[Action, ...]) -> Action:
        if state.phase is Phase.INSURANCE:
            for candidate in legal:
                if isinstance(candidate, (TakeInsurance, TakeEvenMoney, DeclineInsurance)):
                    wanted = insurance_choices.get(candidate.bet_id, "decline")
                    if wanted == "take":
                        return TakeInsurance(candidate.player, candidate.bet_id)
                    if wanted == "even_money":
                        return TakeEvenMoney(candidate.player, candidate.bet_id)
                    if wanted != "decline":
                        raise IllegalActionError(f"insurance choice {wanted!r}", code="illegal_action")
                    return DeclineInsurance(candidate.player, candidate.bet_id)
            return CloseInsurance()
        box = state.boxes[state.turn_box]
        queue = queues.get(box.number)
        if not queue:
            raise IllegalActionError(f"box {box.number} has no decision left", code="decision_missing")
        name = queue.pop(0)
        decision_class = _DECISION_CLASSES.get(name)
        if decision_class is None:
            raise IllegalActionError(f"unknown decision {name!r}", code="illegal_action")
        return decision_class(box.owner, box.number)

    def check() -> None:
        left = {box: names for box, names in queues.items() if names}
        if left:
            raise IllegalActionError(f"decisions never used: {left}", code="decision_unused")

    return choose, check


def play_round(
    rules: RuleSet,
    bets: Iterable[Bet],
    shoe: Iterable[Card],
    decisions: Mapping[int, Sequence[str]],
    *,
    insurance: Mapping[str, str] | None = None,
    seats: Iterable[Seat] = (),
) -> tuple[RoundState, tuple[Event, ...], tuple[Action, ...]]:
    """A whole round from bets, a shoe order and per-box decisions (see :func:`scripted_chooser`).

    The returned actions start with the bets, so ``replay(new_round(rules, seats=seats),
    actions)`` rebuilds the same state.
    """
    bets = tuple(bets)
    state = new_round(rules, seats=seats)
    events: list[Event] = []
    actions: list[Action] = []
    for bet in bets:
        action = PlaceBet(bet)
        state, new_events = apply(state, action)
        events.extend(new_events)
        actions.append(action)
    choose, check = scripted_chooser(decisions, insurance)
    state, round_events, round_actions = run_round(state, shoe, choose)
    check()
    return state, (*events, *round_events), (*actions, *round_actions)


__all__ = [
    "CardTarget",
    "Chooser",
    "GameError",
    "apply",
    "current_turn",
    "legal_actions",
    "new_round",
    "next_card_target",
    "play_round",
    "replay",
    "run_round",
    "scripted_chooser",
    "validate_bet",
]
