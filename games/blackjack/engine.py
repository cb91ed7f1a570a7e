"""The blackjack round as a pure state machine (rules/blackjack.md), after python-chess.

- :func:`new_round` builds the betting state; :func:`validate_bet` checks one bet without
  placing it (the live table calls it before storing a bet).
- :func:`apply` takes a state and an action and returns the new state and the events; it never
  changes its input and raises a :class:`~games.errors.GameError` subclass with a stable
  ``code`` when the action is refused (nothing happened then).
- :func:`next_card_target` says who receives the next card; ``DealCard`` feeds it.
- :func:`legal_actions` lists the decisions open now (bets and cards are open-ended and
  checked by :func:`validate_bet` and ``DealCard``).

No clock and no randomness: shoe order and choices are inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

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
)
from games.blackjack.events import (
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
from games.blackjack.rules import InsuranceStake, RuleSet, SplitBy
from games.blackjack.rules import Surrender as SurrenderRule
from games.blackjack.settlement import settlement
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
from games.cards import RANKS, SUITS, Card, hand_value, is_blackjack
from games.errors import (
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


# ---------------------------------------------------------------------------------------------
# Insurance stake (rules 3.3)


def insurance_stake_limits(rules: RuleSet, bet_stake_minor: int) -> tuple[int, int] | None:
    """Smallest and largest insurance stake a bet of ``bet_stake_minor`` may take (rules 3.3),
    or None when it cannot be insured at all.

    Every amount is a whole number of the table's smallest chip (``payout_rounding_unit_minor``).
    ``InsuranceStake.HALF``: exactly half, so ``(half, half)``, or None when half is not a whole
    number of chips (1001 cents with a 1-cent chip; 150 with a 50 chip: 75). ``UP_TO_HALF``:
    ``(unit, largest multiple of the unit not above half)``, or None below two chips.
    """
    unit = rules.payout_rounding_unit_minor
    if rules.insurance_stake is InsuranceStake.HALF:
        if bet_stake_minor % (2 * unit):
            return None
        return bet_stake_minor // 2, bet_stake_minor // 2
    largest = bet_stake_minor // (2 * unit) * unit
    if largest < unit:
        return None
    return unit, largest


def insurance_stake(rules: RuleSet, bet_stake_minor: int, requested_minor: int | None = None) -> int:
    """The insurance stake of a bet of ``bet_stake_minor`` when its bettor asks for
    ``requested_minor`` (None: exactly half) (rules 3.3). The one place that decides it: the
    ``InsuranceTaken`` event carries the result, and the live table holds exactly that.

    Raises IllegalActionError with the code:

    - ``insurance_stake_not_exact``: exactly half is asked (None, or the half under ``HALF``) and
      half the stake is not a whole number of the table's smallest chip;
    - ``invalid_stake``: an amount that is not a positive whole number of minor units;
    - ``insurance_stake_not_allowed``: under ``InsuranceStake.HALF``, any amount but the half;
    - ``insurance_stake_above_half``: under ``UP_TO_HALF``, more than half the stake;
    - ``insurance_stake_not_unit_multiple``: under ``UP_TO_HALF``, not a multiple of the chip.
    """
    unit = rules.payout_rounding_unit_minor
    if requested_minor is not None:
        if isinstance(requested_minor, bool) or not isinstance(requested_minor, int) or requested_minor <= 0:
            raise IllegalActionError(
                "an insurance stake is a positive whole number of minor units", code="invalid_stake"
            )
        if rules.insurance_stake is InsuranceStake.UP_TO_HALF:
            if 2 * requested_minor > bet_stake_minor:
                raise IllegalActionError(
                    f"{requested_minor} is more than half of {bet_stake_minor}",
                    code="insurance_stake_above_half",
                )
            if requested_minor % unit:
                raise IllegalActionError(
                    f"{requested_minor} is not a multiple of the table's {unit}-unit chip",
                    code="insurance_stake_not_unit_multiple",
                )
            return requested_minor
    if bet_stake_minor % (2 * unit):
        # Half the stake is not a whole number of chips; we refuse rather than round, so that
        # insurance never pays on another amount than the one the rule names.
        raise IllegalActionError(
            f"half of {bet_stake_minor} is not a whole number of the table's {unit}-unit chip",
            code="insurance_stake_not_exact",
        )
    half = bet_stake_minor // 2
    if requested_minor is not None and requested_minor != half:
        raise IllegalActionError(
            f"insurance is exactly half the stake ({half}), not {requested_minor}",
            code="insurance_stake_not_allowed",
        )
    return half


# ---------------------------------------------------------------------------------------------
# Queries


def next_card_target(state: RoundState) -> CardTarget | None:
    """Who receives the next card (rules 4.1, then 5 and 6), or None when no card is expected
    (then a card is a misscan)."""
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
        for bet, even_money in _insurance_offers(state):
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
        return _settle(state, events)
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
        state = evolve(state, boxes=_put(state.boxes, position, box))
    else:
        hand = _current_hand(state)
        state = _with_hand(state, evolve(hand, cards=(*hand.cards, card)))
        state = evolve(state, card_due=False)
    return _advance(state, events)


def _insurance_target(state: RoundState, action: TakeInsurance | TakeEvenMoney | DeclineInsurance) -> Bet:
    """The bet an insurance decision is about, checked (rules 3.3, 2.4); raises
    IllegalActionError: ``insurance_not_offered``, ``not_bet_owner``,
    ``insurance_already_decided``, ``even_money_not_offered``, or for a take on a bet whose
    stake cannot be insured the code of :func:`insurance_stake`."""
    if state.phase is not Phase.INSURANCE:
        raise IllegalActionError("insurance is not on offer now", code="insurance_not_offered")
    bet_id = action.bet_id
    offered = {bet.bet_id: (bet, even_money) for bet, even_money in _insurance_offers(state)}
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
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _take_even_money(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, TakeEvenMoney)
    bet = _insurance_target(state, action)
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.EVEN_MONEY)
    events.append(EvenMoneyTaken(bet.bet_id, bet.player, bet.box))
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _decline_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    assert isinstance(action, DeclineInsurance)
    bet = _insurance_target(state, action)
    decision = InsuranceDecision(bet.bet_id, bet.player, bet.box, InsuranceChoice.DECLINED)
    events.append(InsuranceDeclined(bet.bet_id, bet.player, bet.box, False))
    return _advance(evolve(state, insurance=(*state.insurance, decision)), events)


def _close_insurance(state: RoundState, action: Action, events: list[Event]) -> RoundState:
    """End of the insurance offer: every bet still undecided declines by default (rules 2.6)."""
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
    """A box owner's decision (rules 2.3, 5): refused with ``not_box_owner``, ``not_your_turn``,
    ``box_not_playing``, ``card_expected`` or ``<decision>_not_allowed`` (see
    :func:`_legal_decisions`); a double or split adds the stakes of rules 2.4 and 5.3-5.4."""
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
    """Main bets and bets behind that may insure (rules 3.3, 2.4), with even money eligibility.

    A bet that cannot be insured (:func:`insurance_stake_limits` is None) and may not take even
    money is not offered: it asks for no decision, and a take on it is refused with its code.
    """
    bets = {bet.bet_id: bet for bet in state.bets}
    offers: list[tuple[Bet, bool]] = []
    even_money_on = state.rules.even_money
    for box in state.boxes:
        hand = box.hands[0]
        even_money = even_money_on and hand.is_blackjack
        for stake in hand.stakes:
            bet = bets[stake.bet_id]
            if even_money or insurance_stake_limits(state.rules, bet.stake_minor) is not None:
                offers.append((bet, even_money))
    return offers


def _can_split(rules: RuleSet, box: Box, hand: Hand) -> bool:
    """Rules 5.4 and 5.5: two first cards of equal value (or rank), up to ``max_hands`` hands;
    split aces again only with ``resplit_aces``."""
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
    """The decisions open on a hand (rules 5.1-5.7): hit and stand (5.1, 5.2; split aces take
    one card, 5.5), double on the first two cards per ``double_on`` (5.3) and after a split per
    ``double_after_split`` (5.6), split (:func:`_can_split`), late surrender (5.7)."""
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
    """Rules 4.3: with a peek, an ace or ten upcard over a blackjack ends the round at once;
    otherwise (and always without a peek) the players act."""
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
    """The hole card shows (rules 6.1); no dealer card when no box is left in play (6.2)."""
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
    queues = {box: list(names) for box, names in decisions.items()}
    insurance_choices = dict(insurance or {})
    stakes = dict(insurance_stakes or {})
    played: set[str] = set()

    def wanted_for(bet_id: str) -> str:
        # An amount alone means a take of that amount.
        return insurance_choices.get(bet_id, "take" if bet_id in stakes else "decline")

    def insurance_action(bet: Bet, wanted: str) -> Action:
        played.add(bet.bet_id)
        if wanted == "take":
            return TakeInsurance(bet.player, bet.bet_id, stake_minor=stakes.get(bet.bet_id))
        if wanted == "even_money":
            return TakeEvenMoney(bet.player, bet.bet_id)
        if wanted == "decline":
            return DeclineInsurance(bet.player, bet.bet_id)
        raise IllegalActionError(f"insurance choice {wanted!r}", code="illegal_action")

    def choose(state: RoundState, legal: tuple[Action, ...]) -> Action:
        if state.phase is Phase.INSURANCE:
            offered = {
                candidate.bet_id
                for candidate in legal
                if isinstance(candidate, (TakeInsurance, TakeEvenMoney, DeclineInsurance))
            }
            decided = {item.bet_id for item in state.insurance}
            for bet in _bets_in_play(state):
                if bet.bet_id in decided:
                    continue
                wanted = wanted_for(bet.bet_id)
                if bet.bet_id in offered or wanted != "decline":
                    return insurance_action(bet, wanted)
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

    def check(state: RoundState) -> None:
        upcard = state.dealer_upcard
        if upcard is not None and upcard.is_ace and state.rules.insurance:
            for bet in _bets_in_play(state):
                wanted = wanted_for(bet.bet_id)
                if wanted == "decline" or bet.bet_id in played:
                    continue
                if wanted == "take":
                    insurance_stake(state.rules, bet.stake_minor, stakes.get(bet.bet_id))
                    raise IllegalActionError(
                        f"no insurance for bet {bet.bet_id!r}", code="insurance_not_offered"
                    )
                raise IllegalActionError("even money is only for a blackjack", code="even_money_not_offered")
        left = {box: names for box, names in queues.items() if names}
        if left:
            raise IllegalActionError(f"decisions never used: {left}", code="decision_unused")

    return choose, check


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


__all__ = [
    "CardTarget",
    "Chooser",
    "GameError",
    "apply",
    "check_insurance_choices",
    "current_turn",
    "insurance_stake",
    "insurance_stake_limits",
    "legal_actions",
    "new_round",
    "next_card_target",
    "play_round",
    "replay",
    "run_round",
    "scripted_chooser",
    "validate_bet",
]
