"""The steps every turn shares (rules/canasta.md sections 2 and 6): whose turn it is and at which
stage (T1), the turn passing on (T4), why a seat may not go out (G2, G3), going out (G1, G6, G7)
and the deal's end. The actions of :mod:`games.canasta.engine` and :mod:`games.canasta.pile`
are built from these.
"""

from __future__ import annotations

from games.canasta.actions import Action
from games.canasta.cards import Card
from games.canasta.errors import CanastaNotYourTurnError, WrongStageError
from games.canasta.events import DealEnded, DoubleGoOutOffered, Event, StockExhausted, TurnStarted, WentOut
from games.canasta.state import Answer, DealState, EndReason, Phase, Stage, evolve


def check_turn(state: DealState, action: Action, stage: Stage) -> None:
    """The common checks: the deal goes on, nobody waits for an answer, the seat is on turn
    (T1: the player on turn only) and the turn is at ``stage``."""
    if state.phase is Phase.FINISHED:
        raise WrongStageError("the deal is over", code="deal_finished")
    if state.phase is Phase.ASKED:
        raise WrongStageError("the partner has not answered yet", code="answer_pending")
    if state.phase is Phase.DOUBLE_OUT:
        raise WrongStageError("the partner may lay out his hand first", code="double_go_out_pending")
    if action.seat != state.turn:
        raise CanastaNotYourTurnError(f"seat {state.turn + 1} is on turn, not seat {action.seat + 1}")
    if state.stage is not stage:
        if stage is Stage.DRAW:
            raise WrongStageError("already drawn this turn", code="already_drawn")
        raise WrongStageError("draw or take the pile first", code="draw_first")


def replaced(
    items: tuple[tuple[Card, ...], ...], index: int, value: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``items`` (the hands, or the sides' red threes) with the one at ``index`` replaced."""
    return (*items[:index], value, *items[index + 1 :])


def flagged(flags: tuple[bool, ...], index: int, value: bool) -> tuple[bool, ...]:
    """``flags`` with the one at ``index`` set when ``value`` is true (a flag is never cleared)."""
    if not value or flags[index]:
        return flags
    return (*flags[:index], True, *flags[index + 1 :])


def going_out_refusal(state: DealState, seat: int) -> str | None:
    """Why the seat may not go out now (G2, G3), or None."""
    if state.answer is Answer.NO:
        return "partner_said_no"
    if state.canasta_count(state.seat_sides[seat]) < state.rules.canastas_to_go_out:
        return "not_enough_canastas"
    return None


def pass_turn(state: DealState, events: list[Event]) -> DealState:
    """T4: the turn passes to the left. An empty stock starts G9."""
    following = (state.turn + 1) % len(state.seat_sides)
    if not state.stock and not state.stock_exhausted:
        events.append(StockExhausted())
    number = state.turn_number + 1
    events.append(TurnStarted(following, number))
    return begin_turn(state, following, number)


def begin_turn(state: DealState, seat: int, number: int) -> DealState:
    """T4: ``seat`` starts turn ``number`` at the draw; the turn that ends leaves only whether
    its player has laid cards (G6), and G9 notes a stock found empty."""
    return evolve(
        state,
        turn=seat,
        stage=Stage.DRAW,
        has_laid=flagged(state.has_laid, state.turn, state.turn_laid),
        turn_laid=False,
        turn_drew=False,
        turn_took_pile=False,
        turn_new_melds=(),
        asked=False,
        answer=Answer.NONE,
        must_go_out=False,
        no_discard=False,
        stock_exhausted=not state.stock,
        turn_number=number,
    )


def go_out(state: DealState, seat: int, events: list[Event]) -> DealState:
    """G1, G6: the player emptied his hand. Concealed when he laid no card in an earlier turn
    and started a canasta this turn himself; if his partner had melded, only under
    ``concealedIfPartnerMelded`` (C18). Under ``doubleGoOut`` the partner may lay out next (G7)."""
    side = state.seat_sides[seat]
    own = set(state.turn_new_melds)
    partner_melded = any(meld.meld_id not in own for meld in state.melds[side])
    own_canasta = any(meld.is_canasta for meld in state.melds[side] if meld.meld_id in own)
    concealed = (
        not state.has_laid[seat]
        and own_canasta
        and (not partner_melded or state.rules.concealed_if_partner_melded)
    )
    events.append(WentOut(seat, side, concealed, partner_melded))
    state = evolve(state, went_out=seat, concealed=concealed, partner_had_melded=partner_melded)
    partner = state.partner_of(seat)
    if state.rules.double_go_out and partner is not None and state.hands[partner]:
        events.append(DoubleGoOutOffered(partner))
        return evolve(state, phase=Phase.DOUBLE_OUT, turn=partner, stage=Stage.MELD)
    return end_deal(state, EndReason.WENT_OUT, events)


def end_deal(state: DealState, reason: EndReason, events: list[Event]) -> DealState:
    """The deal is over (G1 going out, G9 the stock exhausted): no action is open any more."""
    events.append(DealEnded(reason.value, state.went_out))
    return evolve(state, phase=Phase.FINISHED, end_reason=reason)
