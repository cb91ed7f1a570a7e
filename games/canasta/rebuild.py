"""A deal rebuilt from its events alone: :func:`rebuild` folds the events that
:func:`~games.canasta.engine.apply` returned onto the state the deal started in.

The events say everything that moved (cards drawn, melds laid and extended, the pile taken,
discards, answers, the end), so the rebuilt state equals the state the engine reached; the
properties test that on random deals of every preset. The stock's order comes from the starting
state: drawn cards are always its first cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from games.canasta.cards import Card
from games.canasta.events import (
    CardDiscarded,
    CardsDrawn,
    DealEnded,
    DoubleGoOutOffered,
    DoubleWentOut,
    Event,
    MeldExtended,
    MeldLaid,
    PartnerAnswered,
    PartnerAsked,
    PileTaken,
    RedThreeLaidOut,
    SideOpened,
    TurnStarted,
    WentOut,
)
from games.canasta.melds import MeldKind, extend, new_meld
from games.canasta.state import Answer, DealState, EndReason, Phase, Stage, evolve
from games.canasta.turns import begin_turn
from games.errors import InvalidSnapshotError

_T = TypeVar("_T")


def _set(items: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _flag(flags: tuple[bool, ...], index: int) -> tuple[bool, ...]:
    return (*flags[:index], True, *flags[index + 1 :])


def _take_cards(state: DealState, seat: int, cards: Iterable[Card]) -> DealState:
    """Remove laid cards from the seat's hand, or from the pile for pile cards."""
    wanted = set(cards)
    hand = tuple(card for card in state.hands[seat] if card not in wanted)
    pile = tuple(card for card in state.pile if card not in wanted)
    if len(state.hands[seat]) - len(hand) + len(state.pile) - len(pile) != len(wanted):
        raise InvalidSnapshotError("an event lays a card that is neither in the hand nor on the pile")
    return evolve(state, hands=_set(state.hands, seat, hand), pile=pile)


def _fold(state: DealState, event: Event) -> DealState:
    """One event onto the state: the change :func:`~games.canasta.engine.apply` made when it
    returned the event (rules/canasta.md sections 4-6)."""
    if isinstance(event, TurnStarted):
        return _turn_started(state, event)
    if isinstance(event, CardsDrawn):
        return _cards_drawn(state, event)
    if isinstance(event, RedThreeLaidOut):
        return _red_three_laid_out(state, event)
    if isinstance(event, MeldLaid):
        return _meld_laid(state, event)
    if isinstance(event, MeldExtended):
        return _meld_extended(state, event)
    if isinstance(event, SideOpened):
        opened = (*state.opened[: event.side], True, *state.opened[event.side + 1 :])
        return evolve(state, opened=opened, must_go_out=state.must_go_out or event.without_minimum)
    if isinstance(event, PileTaken):
        return _pile_taken(state, event)
    if isinstance(event, CardDiscarded):
        return _card_discarded(state, event)
    return _fold_going_out(state, event)


def _turn_started(state: DealState, event: TurnStarted) -> DealState:
    """Rule T4: the turn passes (:func:`~games.canasta.turns.begin_turn`)."""
    return begin_turn(state, event.seat, event.turn_number)


def _cards_drawn(state: DealState, event: CardsDrawn) -> DealState:
    """Rules T1, D9 and G9: the drawn cards are the stock's first; its red threes are laid out by
    their own events; after the stock's last card, a red three, no discard."""
    count = len(event.cards)
    if state.stock[:count] != event.cards:
        raise InvalidSnapshotError("drawn cards are not the top of the stock")
    stock = state.stock[count:]
    hand = state.hands[event.seat] + tuple(card for card in event.cards if not card.is_red_three)
    return evolve(
        state,
        stock=stock,
        hands=_set(state.hands, event.seat, hand),
        stage=Stage.MELD,
        turn_drew=True,
        no_discard=not stock and event.cards[-1].is_red_three,
    )


def _red_three_laid_out(state: DealState, event: RedThreeLaidOut) -> DealState:
    """Rules D9, D10 and G9: the red three joins its side's; a replacement from the stock joins
    the hand (a red three replacing one is laid out by the next event)."""
    threes = _set(state.red_threes, event.side, state.red_threes[event.side] + (event.card,))
    if event.source != "stock" or event.replacement is None:
        return evolve(state, red_threes=threes)
    if not state.stock or state.stock[0] != event.replacement:
        raise InvalidSnapshotError("a replacement that is not the top of the stock")
    stock = state.stock[1:]
    hand = state.hands[event.seat]
    if not event.replacement.is_red_three:
        hand = (*hand, event.replacement)
    return evolve(
        state,
        red_threes=threes,
        stock=stock,
        hands=_set(state.hands, event.seat, hand),
        no_discard=event.replacement.is_red_three if not stock else state.no_discard,
    )


def _meld_laid(state: DealState, event: MeldLaid) -> DealState:
    """Rules T2 and M4: a new meld of the side, from the hand or the pile; black threes are laid
    only to go out."""
    state = _take_cards(state, event.seat, event.cards)
    meld = new_meld(state.rules, event.meld_id, event.cards)
    melds = _set(state.melds, event.side, state.melds[event.side] + (meld,))
    return evolve(
        state,
        melds=melds,
        next_meld_id=event.meld_id + 1,
        turn_new_melds=(*state.turn_new_melds, event.meld_id),
        has_own_meld=_flag(state.has_own_meld, event.seat),
        turn_laid=True,
        must_go_out=state.must_go_out or meld.kind is MeldKind.BLACK_THREES,
    )


def _meld_extended(state: DealState, event: MeldExtended) -> DealState:
    """Rules T2 and M6-M7: cards added to one of the side's melds."""
    state = _take_cards(state, event.seat, event.cards)
    side_melds = tuple(
        extend(state.rules, meld, event.cards) if meld.meld_id == event.meld_id else meld
        for meld in state.melds[event.side]
    )
    return evolve(state, melds=_set(state.melds, event.side, side_melds), turn_laid=True)


def _pile_taken(state: DealState, event: PileTaken) -> DealState:
    """Rules P11 and G8: the pile's rest joins the hand (its red threes by their own events), or
    stays under ``top_card_only``; the side is open and the turn at its melds."""
    seat = event.seat
    if event.top_card_only:
        pile = state.pile
        hand = state.hands[seat]
    else:
        pile = ()
        hand = state.hands[seat] + tuple(card for card in event.to_hand if not card.is_red_three)
    return evolve(
        state,
        pile=pile,
        hands=_set(state.hands, seat, hand),
        pile_deal_cards=min(state.pile_deal_cards, len(pile)),
        opened=(
            *state.opened[: state.seat_sides[seat]],
            True,
            *state.opened[state.seat_sides[seat] + 1 :],
        ),
        stage=Stage.MELD,
        turn_took_pile=True,
        turn_laid=True,
        must_go_out=state.must_go_out or event.top_card_only,
    )


def _card_discarded(state: DealState, event: CardDiscarded) -> DealState:
    """Rule T3: the card goes onto the pile; the last card of a hand goes out by discard (G1)."""
    hand = tuple(card for card in state.hands[event.seat] if card != event.card)
    return evolve(
        state,
        hands=_set(state.hands, event.seat, hand),
        pile=(*state.pile, event.card),
        out_by_discard=not hand,
    )


def _fold_going_out(state: DealState, event: Event) -> DealState:
    """Section 6: asking the partner and his answer (G3), going out (G1, G6), the partner's
    double go-out (G7) and the deal's end. Any other event changes nothing."""
    if isinstance(event, PartnerAsked):
        return evolve(state, phase=Phase.ASKED, asked=True)
    if isinstance(event, PartnerAnswered):
        return evolve(
            state,
            phase=Phase.PLAYING,
            answer=Answer.YES if event.yes else Answer.NO,
            must_go_out=state.must_go_out or event.yes,
        )
    if isinstance(event, WentOut):
        return evolve(
            state, went_out=event.seat, concealed=event.concealed, partner_had_melded=event.partner_had_melded
        )
    if isinstance(event, DoubleGoOutOffered):
        return evolve(state, phase=Phase.DOUBLE_OUT, turn=event.seat, stage=Stage.MELD)
    if isinstance(event, DoubleWentOut):
        return evolve(state, double_out=True)
    if isinstance(event, DealEnded):
        return evolve(state, phase=Phase.FINISHED, end_reason=EndReason(event.reason))
    return state


def rebuild(start: DealState, events: Iterable[Event]) -> DealState:
    """The state reached from ``start`` through ``events`` (the events of the actions applied
    to it, in order). Raises InvalidSnapshotError when an event does not fit the state."""
    state = start
    for event in events:
        state = _fold(state, event)
    return state
