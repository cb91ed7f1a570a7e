"""The canasta deal as a pure state machine (rules/canasta.md sections 2-6), after python-chess.

- :func:`~games.canasta.dealing.start_deal` deals a given shuffle (D1-D8) and returns the first
  state and its events.
- :func:`apply` takes a state and an action and returns the new state and the events; it never
  changes its input and raises a :class:`~games.errors.GameError` subclass with a stable
  ``code`` when the action is refused (nothing happened then). Taking the pile is
  :mod:`games.canasta.pile`, laying cards :mod:`games.canasta.laying`, the steps every turn
  shares :mod:`games.canasta.turns`.
- :func:`legal_actions` lists the actions open now: every draw, discard, answer and decline,
  and for melds and pile takes a representative set (each rank's naturals, additions, the
  initial meld, a way to go out, :mod:`games.canasta.candidates`); any other meld is judged by
  :func:`apply`.
- :func:`run_deal` drives a deal with a chooser; scoring is :mod:`games.canasta.scoring`.

No clock and no randomness: the shuffle and the choices are inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from games.canasta.actions import (
    Action,
    AnswerPartner,
    AskPartner,
    DeclineDoubleGoOut,
    DeclinePile,
    Discard,
    Draw,
    EndTurn,
    Meld,
    TakePile,
)
from games.canasta.candidates import going_out_candidate, meld_candidates, pile_candidates
from games.canasta.cards import Card
from games.canasta.errors import (
    CanastaActionError,
    CanastaNotYourTurnError,
    CardNotHeldError,
    GoingOutRefusedError,
    OpeningRefusedError,
    WrongStageError,
)
from games.canasta.events import (
    CardDiscarded,
    CardsDrawn,
    DoubleWentOut,
    Event,
    PartnerAnswered,
    PartnerAsked,
    RedThreeLaidOut,
    SideOpened,
    TurnPassed,
)
from games.canasta.laying import action_cards, check_after_laying, check_opening, lay
from games.canasta.pile import take_pile
from games.canasta.state import Answer, DealState, EndReason, Phase, Stage, evolve
from games.canasta.turns import check_turn, end_deal, flagged, go_out, going_out_refusal, pass_turn, replaced
from games.errors import GameError


def apply(state: DealState, action: Action) -> tuple[DealState, tuple[Event, ...]]:
    """The state after ``action`` and the events it caused. ``state`` is left unchanged.

    Raises a GameError subclass with the refusing rule's code (see docs/canasta-deal.md).
    """
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise CanastaActionError(f"unknown action {type(action).__name__}")
    events: list[Event] = []
    new_state = handler(state, action, events)
    return new_state, tuple(events)


def replay(state: DealState, actions: Iterable[Action]) -> tuple[DealState, tuple[Event, ...]]:
    """Apply stored actions in order from ``state``; the events of all of them."""
    events: list[Event] = []
    for action in actions:
        state, new_events = apply(state, action)
        events.extend(new_events)
    return state, tuple(events)


def _draw(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T1 and D9: ``drawCount`` cards (the last one if fewer are left, G9); a red three is laid
    out and, under ``redThreeReplace``, replaced from the stock, again if the replacement is
    one. If the stock's last card is a red three the player may meld but not discard (G9)."""
    check_turn(state, action, Stage.DRAW)
    if not state.stock:
        raise WrongStageError("the stock is empty", code="stock_empty")
    rules = state.rules
    seat = action.seat
    side = state.seat_sides[seat]
    stock = list(state.stock)
    count = min(rules.draw_count, len(stock))
    drawn = stock[:count]
    del stock[:count]
    last_from_stock: Card | None = drawn[-1] if not stock else None
    events.append(CardsDrawn(seat, tuple(drawn)))
    hand = list(state.hands[seat])
    threes = list(state.red_threes[side])
    pending = list(drawn)
    while pending:
        card = pending.pop(0)
        if not card.is_red_three:
            hand.append(card)
            continue
        threes.append(card)
        replacement = None
        if rules.red_three_replace and stock:
            replacement = stock.pop(0)
            if not stock:
                last_from_stock = replacement
            pending.append(replacement)
        events.append(RedThreeLaidOut(seat, side, card, "stock", replacement))
    return evolve(
        state,
        stock=tuple(stock),
        hands=replaced(state.hands, seat, tuple(hand)),
        red_threes=replaced(state.red_threes, side, tuple(threes)),
        stage=Stage.MELD,
        turn_drew=True,
        no_discard=last_from_stock is not None and last_from_stock.is_red_three,
    )


def _meld(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T2: new melds and additions from the hand (sections 3 and 4); during G7 the partner's
    whole hand at once."""
    assert isinstance(action, Meld)
    double = state.phase is Phase.DOUBLE_OUT
    if double:
        if action.seat != state.turn:
            raise CanastaNotYourTurnError(
                f"seat {state.turn + 1} may lay out his hand, not seat {action.seat + 1}"
            )
    else:
        check_turn(state, action, Stage.MELD)
    seat = action.seat
    side = state.seat_sides[seat]
    hand = state.hands[seat]
    cards = action_cards(action.melds, action.additions)
    held = set(hand)
    for card in cards:
        if card not in held:
            raise CardNotHeldError(f"{card.key} is not in the hand")
    laid = lay(state, seat, action.melds, action.additions, events)
    used = set(cards)
    remaining = tuple(card for card in hand if card not in used)
    if double and remaining:
        raise GoingOutRefusedError("all the hand or nothing (G7)", code="double_out_all_or_nothing")
    waiver = False
    opening = not state.opened[side]
    if opening:
        try:
            check_opening(state, side, laid)
        except OpeningRefusedError as error:
            concealed_turn = (
                state.turn_drew
                and not state.turn_took_pile
                and not state.turn_laid
                and not state.has_laid[seat]
                and error.code == "opening_minimum_not_met"
            )
            if not concealed_turn or len(remaining) > 1:
                raise
            waiver = True
    new_state = evolve(
        state,
        hands=replaced(state.hands, seat, remaining),
        melds=(*state.melds[:side], laid.melds, *state.melds[side + 1 :]),
        opened=(*state.opened[:side], True, *state.opened[side + 1 :]),
        has_own_meld=flagged(state.has_own_meld, seat, laid.started_meld),
        next_meld_id=laid.next_meld_id,
        turn_laid=True,
        turn_new_melds=state.turn_new_melds + laid.new_ids,
        must_go_out=state.must_go_out or laid.black_threes or waiver,
    )
    if opening:
        events.append(SideOpened(seat, side, laid.counted_points, state.requirements[side].minimum, waiver))
    if double:
        new_state = evolve(new_state, double_out=True)
        events.append(DoubleWentOut(seat))
        return end_deal(new_state, EndReason.WENT_OUT, events)
    check_after_laying(new_state, seat, len(remaining), black_threes=laid.black_threes, waiver=waiver)
    if not remaining:
        return go_out(new_state, seat, events)
    return new_state


def _discard(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T3: one card onto the pile (a wild card freezes it, P5); the last card only when going out
    (G1, G2, G4); none after the stock's last card was a red three (G9)."""
    assert isinstance(action, Discard)
    check_turn(state, action, Stage.MELD)
    if state.no_discard:
        raise GoingOutRefusedError(
            "no discard after the stock's last card, a red three (G9)", code="no_discard_after_last_red_three"
        )
    seat = action.seat
    hand = state.hands[seat]
    if action.card not in hand:
        raise CardNotHeldError(f"{action.card.key} is not in the hand")
    remaining = tuple(card for card in hand if card != action.card)
    if not remaining:
        refusal = going_out_refusal(state, seat)
        if refusal is not None:
            raise GoingOutRefusedError(f"the last card goes only when going out: {refusal}", code=refusal)
    elif state.must_go_out:
        raise GoingOutRefusedError("this turn must end by going out (G3, G5, O7)", code="must_go_out")
    events.append(CardDiscarded(seat, action.card, action.card.is_wild))
    new_state = evolve(state, hands=replaced(state.hands, seat, remaining), pile=(*state.pile, action.card))
    if not remaining:
        return go_out(evolve(new_state, out_by_discard=True), seat, events)
    return pass_turn(new_state, events)


def _end_turn(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G4 ``SKIP_DISCARD`` ("I cannot discard": one card, the side cannot go out; also the only
    way on with one card after an unreplaced red three [rec]); G9 (after the stock's last card,
    a red three, the deal ends)."""
    check_turn(state, action, Stage.MELD)
    seat = action.seat
    if state.no_discard:
        events.append(TurnPassed(seat, "last_stock_card_red_three"))
        return end_deal(state, EndReason.STOCK_EXHAUSTED, events)
    if len(state.hands[seat]) == 1 and not state.must_go_out and going_out_refusal(state, seat) is not None:
        events.append(TurnPassed(seat, "cannot_discard"))
        return pass_turn(state, events)
    raise GoingOutRefusedError("a turn ends with a discard (T3)", code="discard_required")


def _decline_pile(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G9: with the stock empty a player who does not take the pile ends the deal."""
    check_turn(state, action, Stage.DRAW)
    if state.stock:
        raise WrongStageError("draw from the stock", code="stock_not_empty")
    events.append(TurnPassed(action.seat, "pile_declined"))
    return end_deal(state, EndReason.STOCK_EXHAUSTED, events)


def _ask_partner(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G3: once per turn, before melding in it [rec], in a partnership game with ``askPartner``."""
    check_turn(state, action, Stage.MELD)
    partner = state.partner_of(action.seat)
    if not state.rules.ask_partner or partner is None:
        raise CanastaActionError("there is no partner to ask", code="no_partner_to_ask")
    if state.asked:
        raise CanastaActionError("the partner was asked this turn", code="already_asked")
    if state.turn_laid:
        raise CanastaActionError("ask before melding (G3)", code="ask_before_melding")
    if not _can_go_out(state, action.seat):
        raise CanastaActionError("only a player able to go out asks (G3)", code="cannot_go_out_now")
    events.append(PartnerAsked(action.seat, partner))
    return evolve(state, phase=Phase.ASKED, asked=True)


def _answer_partner(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G3: yes binds the player to go out this turn, no forbids it."""
    assert isinstance(action, AnswerPartner)
    if state.phase is not Phase.ASKED:
        raise WrongStageError("nobody asked", code="nobody_asked")
    if action.seat != state.partner_of(state.turn):
        raise CanastaNotYourTurnError("only the partner who was asked answers")
    events.append(PartnerAnswered(action.seat, action.yes))
    return evolve(
        state,
        phase=Phase.PLAYING,
        answer=Answer.YES if action.yes else Answer.NO,
        must_go_out=state.must_go_out or action.yes,
    )


def _decline_double(state: DealState, action: Action, events: list[Event]) -> DealState:
    if state.phase is not Phase.DOUBLE_OUT:
        raise WrongStageError("nobody may lay out a hand now", code="no_double_go_out")
    if action.seat != state.turn:
        raise CanastaNotYourTurnError(f"seat {state.turn + 1} decides, not seat {action.seat + 1}")
    return end_deal(state, EndReason.WENT_OUT, events)


Handler = Callable[[DealState, Action, list[Event]], DealState]


_HANDLERS: Mapping[type[Action], Handler] = {
    Draw: _draw,
    TakePile: take_pile,
    Meld: _meld,
    Discard: _discard,
    EndTurn: _end_turn,
    DeclinePile: _decline_pile,
    AskPartner: _ask_partner,
    AnswerPartner: _answer_partner,
    DeclineDoubleGoOut: _decline_double,
}


def _can_go_out(state: DealState, seat: int) -> bool:
    """Whether the engine's going-out plan empties the seat's hand this turn (G3: only a player
    able to go out asks his partner)."""
    plan = going_out_candidate(state, seat, discard=True)
    if plan is None:
        return False
    try:
        after, _ = apply(state, plan)
    except GameError:
        return False
    if after.phase is not Phase.PLAYING or after.went_out is not None:
        return True
    return len(after.hands[seat]) == 1 and going_out_refusal(after, seat) is None


def _is_legal(state: DealState, action: Action) -> bool:
    try:
        apply(state, action)
    except GameError:
        return False
    return True


def legal_actions(state: DealState) -> tuple[Action, ...]:
    """The actions the engine offers now, each one checked by :func:`apply`.

    Complete for draws, discards (one per card code), ending a turn, asking and answering the
    partner and declining; for melds and pile takes a representative set: each rank's
    naturals as a meld or an addition, a pair with a wild card, a wild card added to a meld,
    sequences, the initial meld, the takes of section 5, and a way to go out when the hand
    allows one. Empty once the deal is finished.
    """
    if state.phase is Phase.FINISHED:
        return ()
    if state.phase is Phase.ASKED:
        partner = state.partner_of(state.turn)
        assert partner is not None
        return (AnswerPartner(partner, True), AnswerPartner(partner, False))
    seat = state.turn
    candidates: list[Action] = []
    if state.phase is Phase.DOUBLE_OUT:
        plan = going_out_candidate(state, seat, discard=False)
        if plan is not None:
            candidates.append(plan)
        candidates.append(DeclineDoubleGoOut(seat))
    elif state.stage is Stage.DRAW:
        candidates.append(Draw(seat) if state.stock else DeclinePile(seat))
        candidates.extend(pile_candidates(state, seat))
    else:
        plan = going_out_candidate(state, seat, discard=True)
        if plan is not None:
            candidates.append(plan)
            if (
                not state.asked
                and not state.turn_laid
                and state.rules.ask_partner
                and _can_go_out(state, seat)
            ):
                candidates.append(AskPartner(seat))
        candidates.extend(meld_candidates(state, seat))
        seen: set[str] = set()
        for card in state.hands[seat]:
            if card.code not in seen:
                seen.add(card.code)
                candidates.append(Discard(seat, card))
        candidates.append(EndTurn(seat))
    out: list[Action] = []
    for action in candidates:
        if action not in out and _is_legal(state, action):
            out.append(action)
    return tuple(out)


Chooser = Callable[[DealState, Sequence[Action]], Action]


def run_deal(
    state: DealState, chooser: Chooser, *, max_actions: int = 20_000
) -> tuple[DealState, tuple[Event, ...], tuple[Action, ...]]:
    """Play a deal to its end with ``chooser`` picking among :func:`legal_actions`.

    Returns the final state, the events and the actions (for :func:`replay`). Raises
    CanastaActionError(``no_legal_action``) if a position offers nothing (a bug, never a rule).
    """
    events: list[Event] = []
    actions: list[Action] = []
    while state.phase is not Phase.FINISHED:
        if len(actions) >= max_actions:
            raise CanastaActionError("the deal does not end", code="deal_too_long")
        legal = legal_actions(state)
        if not legal:
            raise CanastaActionError("no legal action", code="no_legal_action")
        action = chooser(state, legal)
        state, new_events = apply(state, action)
        events.extend(new_events)
        actions.append(action)
    return state, tuple(events), tuple(actions)
