"""The round's flow (rules/blackjack.md 4-6): who receives the next card, whose turn it is, and
every step that needs no input (the insurance offer, the peek, hands finished without a
decision, the dealer's play, the settlement). :func:`advance` runs them after each action of
:mod:`games.blackjack.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.blackjack.events import (
    DealerDrawSkipped,
    DealerFinished,
    DealerPeeked,
    Event,
    HandFinished,
    HoleCardRevealed,
    InsuranceOffered,
    PlayerToAct,
    RoundSettled,
)
from games.blackjack.insurance import insurance_offers
from games.blackjack.rules import RuleSet, SplitBy
from games.blackjack.rules import Surrender as SurrenderRule
from games.blackjack.settlement import settlement
from games.blackjack.state import Box, Hand, Phase, RoundState, evolve
from games.cards import hand_value, is_blackjack


@dataclass(frozen=True, slots=True)
class CardTarget:
    """Who gets the next card: ``to`` is ``"box"`` (``box`` number and ``hand`` index) or
    ``"dealer"``; ``is_face_up`` is False only for the dealer's hole card (rules 4.1)."""

    to: str
    box: int | None = None
    hand: int | None = None
    is_face_up: bool = True


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


def put_box(boxes: tuple[Box, ...], position: int, box: Box) -> tuple[Box, ...]:
    """``boxes`` with the one at ``position`` replaced by ``box``."""
    return (*boxes[:position], box, *boxes[position + 1 :])


def current_hand(state: RoundState) -> Hand:
    """The hand whose turn it is (rules 5)."""
    return state.boxes[state.turn_box].hands[state.turn_hand]


def with_hand(state: RoundState, hand: Hand) -> RoundState:
    """``state`` with the hand whose turn it is replaced by ``hand``."""
    box = state.boxes[state.turn_box]
    index = state.turn_hand
    box = evolve(box, hands=(*box.hands[:index], hand, *box.hands[index + 1 :]))
    return evolve(state, boxes=put_box(state.boxes, state.turn_box, box))


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


def legal_decisions(state: RoundState, box: Box, hand: Hand) -> list[str]:
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


def advance(state: RoundState, events: list[Event]) -> RoundState:
    """Run every step that needs no input, up to the next card or decision."""
    phase = state.phase
    if phase is Phase.DEALING:
        if next_card_target(state) is not None:
            return state
        return _after_deal(state, events)
    if phase is Phase.INSURANCE:
        decided = {item.bet_id for item in state.insurance}
        if any(bet.bet_id not in decided for bet, _ in insurance_offers(state)):
            return state
        return after_insurance(state, events)
    if phase is Phase.PLAYERS:
        return _next_turn(state, events)
    if phase is Phase.DEALER:
        if _dealer_must_draw(state):
            return state
        return _dealer_done(state, events)
    return state


def _after_deal(state: RoundState, events: list[Event]) -> RoundState:
    """The first cards are out (rules 4.1): insurance is offered on an ace (3.3), else the
    dealer peeks or the players act (4.3)."""
    upcard = state.dealer_cards[0]
    if upcard.is_ace and state.rules.insurance:
        offers = insurance_offers(state)
        if offers:
            events.append(
                InsuranceOffered(
                    tuple(bet.bet_id for bet, _ in offers),
                    tuple(bet.bet_id for bet, even_money in offers if even_money),
                )
            )
            return evolve(state, phase=Phase.INSURANCE)
    return _peek_or_play(state, events)


def after_insurance(state: RoundState, events: list[Event]) -> RoundState:
    """Every insurance decision is in (rules 3.3): the dealer peeks or the players act (4.3)."""
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
            return settle_round(evolve(state, is_hole_card_revealed=True), events)
    state = evolve(state, phase=Phase.PLAYERS, turn_box=0, turn_hand=0, card_due=False)
    return _next_turn(state, events)


def _next_turn(state: RoundState, events: list[Event]) -> RoundState:
    """The next hand that must decide (rules 5), box by box from the first; hands over without
    a decision (:func:`_finish_reason`) are finished on the way; then the dealer plays (6)."""
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
            events.append(PlayerToAct(box.number, index, box.owner, tuple(legal_decisions(state, box, hand))))
            return state
        events.append(HandFinished(box.number, index, hand.value.total, reason))
        state = with_hand(state, evolve(hand, is_finished=True))
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
    return advance(state, events)


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
    """The dealer's hand is final (rules 6): the round settles."""
    value = hand_value(state.dealer_cards)
    events.append(DealerFinished(value.total, is_blackjack(state.dealer_cards), value.total > 21))
    return settle_round(state, events)


def settle_round(state: RoundState, events: list[Event]) -> RoundState:
    """The round is over: every bet is settled (rules 7, :func:`~games.blackjack.settlement.settlement`)."""
    state = evolve(state, phase=Phase.SETTLED, card_due=False)
    events.append(RoundSettled(settlement(state)))
    return state
