"""The canasta deal as a pure state machine (rules/canasta.md sections 2-6), after python-chess.

- :func:`start_deal` deals a given shuffle (D1-D8) and returns the first state and its events.
- :func:`apply` takes a state and an action and returns the new state and the events; it never
  changes its input and raises a :class:`~games.errors.GameError` subclass with a stable
  ``code`` when the action is refused (nothing happened then).
- :func:`legal_actions` lists the actions open now: every draw, discard, answer and decline,
  and for melds and pile takes a representative set (each rank's naturals, additions, the
  initial meld, a way to go out); any other meld is judged by :func:`apply`.
- :func:`run_deal` drives a deal with a chooser; scoring is :mod:`games.canasta.scoring`.

No clock and no randomness: the shuffle and the choices are inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

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
    Group,
    Meld,
    TakePile,
)
from games.canasta.cards import NATURAL_RANKS, Card, pack
from games.canasta.errors import (
    CanastaActionError,
    CanastaRuleSetError,
    CardNotHeldError,
    GoingOutRefusedError,
    InvalidMeldError,
    InvalidShuffleError,
    NotYourTurnError,
    OpeningRefusedError,
    PileRefusedError,
    WrongStageError,
)
from games.canasta.events import (
    CanastaCompleted,
    CardDiscarded,
    CardsDealt,
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
    StockExhausted,
    TurnPassed,
    TurnStarted,
    UpcardTurned,
    WentOut,
)
from games.canasta.melds import Meld as TableMeld
from games.canasta.melds import MeldKind, check_rank_limit, extend, new_meld
from games.canasta.rules import (
    CanastaRules,
    LastCardRule,
    OpeningBasis,
    OpeningPileCards,
    Sides,
    UpcardReturn,
    WildOnTop,
    WildRule,
    opening_requirement,
)
from games.canasta.state import Answer, DealState, EndReason, Phase, Stage, evolve
from games.errors import GameError

# ---------------------------------------------------------------------------------------------
# The deal


def seating(rules: CanastaRules, teams: int | None = None) -> tuple[int, ...]:
    """The side of each seat (rules D2): partners opposite, everyone for himself, or six players
    as 2 teams of 3 (``teams=2``, the default) or 3 teams of 2 (``teams=3``), neighbours always
    opponents."""
    if rules.sides is Sides.INDIVIDUAL:
        if teams not in (None, rules.players):
            raise CanastaRuleSetError("everyone plays for himself in this game")
        return tuple(range(rules.players))
    if rules.sides is Sides.PARTNERS_2V2:
        if teams not in (None, 2):
            raise CanastaRuleSetError("two partnerships of two in this game")
        return (0, 1, 0, 1)
    count = 2 if teams is None else teams
    if count not in (2, 3):
        raise CanastaRuleSetError("six players play as 2 teams of 3 or 3 teams of 2")
    return tuple(seat % count for seat in range(rules.players))


def next_dealer(rules: CanastaRules, dealer: int) -> int:
    """rules D1: the deal passes to the left (clockwise) after each deal."""
    return (dealer + 1) % rules.players


def pile_view(state: DealState) -> dict[str, object]:
    """rules T5: what every player sees of the pile - its top card, its size, whether it is
    frozen; the cards below the top are hidden."""
    top = state.top_card
    return {
        "top": None if top is None else top.key,
        "size": len(state.pile),
        "is_frozen": state.is_pile_frozen,
    }


@cache
def _pack_set(decks: int, jokers: int) -> frozenset[Card]:
    return frozenset(pack(decks, jokers))


def _upcard_returns(rules: CanastaRules, card: Card) -> bool:
    """rules D5 (``upcardReturn``): the upcard is covered by the next card."""
    if rules.upcard_return is UpcardReturn.NONE:
        return False
    if card.is_wild or card.is_red_three:
        return True
    return rules.upcard_return is UpcardReturn.WILD_RED3_BLACK3 and card.is_black_three


def start_deal(
    rules: CanastaRules,
    shuffle: Sequence[Card],
    *,
    dealer: int = 0,
    scores: Sequence[int] | None = None,
    previous_hand_scores: Sequence[int] | None = None,
    teams: int | None = None,
) -> tuple[DealState, tuple[Event, ...]]:
    """Deal ``shuffle`` (first card first) and start the first turn.

    Rules D1-D3 (one card at a time from the dealer's left, ``handSize`` each; ``houseDeal``:
    the dealer one more and no upcard, his first discard starts the pile), D4-D6 (the upcard and
    its re-turn), D7 (the player left of the dealer starts), D8 (red threes in the dealt hands
    laid out and replaced, in turn order from the first player). ``scores`` are the sides'
    cumulative scores before the deal (O3); ``previous_hand_scores`` the last deal's, used
    under ``openingBasis`` PREVIOUS_HAND. Raises ``invalid_shuffle``.
    """
    players = rules.players
    seat_sides = seating(rules, teams)
    side_count = max(seat_sides) + 1
    if len(shuffle) != rules.cards or set(shuffle) != _pack_set(rules.decks, rules.jokers):
        raise InvalidShuffleError(f"a shuffle is the {rules.cards} cards of the packs, each once")
    if not 0 <= dealer < players:
        raise InvalidShuffleError(f"no seat {dealer + 1} to deal", code="invalid_dealer")
    totals = tuple(scores) if scores is not None else (0,) * side_count
    last = tuple(previous_hand_scores) if previous_hand_scores is not None else (0,) * side_count
    if len(totals) != side_count or len(last) != side_count:
        raise InvalidShuffleError(f"{side_count} sides need {side_count} scores", code="invalid_scores")
    basis = totals if rules.opening_basis is OpeningBasis.CUMULATIVE else last
    cards = list(shuffle)
    hands: list[list[Card]] = [[] for _ in range(players)]
    position = 0
    for index in range(rules.hand_size * players):
        hands[(dealer + 1 + index) % players].append(cards[index])
    position = rules.hand_size * players
    if rules.house_deal:
        hands[dealer].append(cards[position])
        position += 1
    events: list[Event] = [
        CardsDealt((dealer + 1 + step) % players, tuple(hands[(dealer + 1 + step) % players]))
        for step in range(players)
    ]
    stock = cards[position:]
    pile: list[Card] = []
    if not rules.house_deal:
        while stock:
            card = stock.pop(0)
            pile.append(card)
            if not _upcard_returns(rules, card):
                break
        events.append(UpcardTurned(tuple(pile)))
    red_threes: list[list[Card]] = [[] for _ in range(side_count)]
    for step in range(players):
        seat = (dealer + 1 + step) % players
        while any(card.is_red_three for card in hands[seat]):
            card = next(card for card in hands[seat] if card.is_red_three)
            hands[seat].remove(card)
            red_threes[seat_sides[seat]].append(card)
            replacement = stock.pop(0) if stock else None
            if replacement is not None:
                hands[seat].append(replacement)
            events.append(RedThreeLaidOut(seat, seat_sides[seat], card, "deal", replacement))
    first = dealer if rules.house_deal else (dealer + 1) % players
    state = DealState(
        rules=rules,
        seat_sides=seat_sides,
        dealer=dealer,
        scores=totals,
        requirements=tuple(opening_requirement(rules, score) for score in basis),
        stock=tuple(stock),
        pile=tuple(pile),
        hands=tuple(tuple(hand) for hand in hands),
        melds=((),) * side_count,
        red_threes=tuple(tuple(threes) for threes in red_threes),
        opened=(False,) * side_count,
        has_laid=(False,) * players,
        has_own_meld=(False,) * players,
        turn=first,
        stage=Stage.MELD if rules.house_deal else Stage.DRAW,
        pile_deal_cards=len(pile),
    )
    events.append(TurnStarted(first, 1))
    return state, tuple(events)


# ---------------------------------------------------------------------------------------------
# Applying actions


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


def _expect(state: DealState, action: Action, stage: Stage) -> None:
    """The common checks: the deal goes on, nobody waits for an answer, the seat is on turn
    (T1: the player on turn only) and the turn is at ``stage``."""
    if state.phase is Phase.FINISHED:
        raise WrongStageError("the deal is over", code="deal_finished")
    if state.phase is Phase.ASKED:
        raise WrongStageError("the partner has not answered yet", code="answer_pending")
    if state.phase is Phase.DOUBLE_OUT:
        raise WrongStageError("the partner may lay out his hand first", code="double_go_out_pending")
    if action.seat != state.turn:
        raise NotYourTurnError(f"seat {state.turn + 1} is on turn, not seat {action.seat + 1}")
    if state.stage is not stage:
        if stage is Stage.DRAW:
            raise WrongStageError("already drawn this turn", code="already_drawn")
        raise WrongStageError("draw or take the pile first", code="draw_first")


def _replace(
    items: tuple[tuple[Card, ...], ...], index: int, value: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])


def _draw(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T1 and D9: ``drawCount`` cards (the last one if fewer are left, G9); a red three is laid
    out and, under ``redThreeReplace``, replaced from the stock, again if the replacement is
    one. If the stock's last card is a red three the player may meld but not discard (G9)."""
    _expect(state, action, Stage.DRAW)
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
        hands=_replace(state.hands, seat, tuple(hand)),
        red_threes=_replace(state.red_threes, side, tuple(threes)),
        stage=Stage.MELD,
        turn_drew=True,
        no_discard=last_from_stock is not None and last_from_stock.is_red_three,
    )


@dataclass(frozen=True, slots=True)
class _Laid:
    melds: tuple[TableMeld, ...]
    new_ids: tuple[int, ...]
    next_meld_id: int
    counted_points: int
    naturals: int
    canasta_at_once: bool
    black_threes: bool
    started_meld: bool


def _lay(
    state: DealState,
    seat: int,
    groups: Sequence[Group],
    additions: Sequence[Addition],
    events: list[Event],
    *,
    not_counted: frozenset[Card] = frozenset(),
    not_from_hand: frozenset[Card] = frozenset(),
) -> _Laid:
    """New melds and additions for the seat's side, checked in order (M1-M12).

    M5 (one meld per rank), M8 (only the side's own melds), M9 (``addRequiresOwnMeld``), M11
    (a joker canasta is laid at once from the hand). ``not_counted`` cards do not count toward
    the opening (O6); ``not_from_hand`` are pile cards (a canasta laid at once for O8 may hold
    the pile's top card only).
    """
    rules = state.rules
    side = state.seat_sides[seat]
    melds = list(state.melds[side])
    next_id = state.next_meld_id
    new_ids: list[int] = []
    black = False
    at_once = False
    for group in groups:
        meld = new_meld(rules, next_id, group)
        check_rank_limit(rules, melds, meld.kind, meld.rank)
        if meld.kind is MeldKind.JOKER and any(card in not_from_hand for card in group):
            raise InvalidMeldError(
                "a joker canasta is laid from the hand (M11)", code="joker_canasta_from_hand"
            )
        black = black or meld.kind is MeldKind.BLACK_THREES
        at_once = at_once or (meld.is_canasta and not any(card in not_from_hand for card in group))
        melds.append(meld)
        new_ids.append(next_id)
        next_id += 1
        events.append(MeldLaid(seat, side, meld.meld_id, meld.kind.value, meld.cards))
        if meld.is_canasta:
            kind = meld.canasta_kind
            assert kind is not None
            events.append(CanastaCompleted(side, meld.meld_id, kind.value))
    for addition in additions:
        index = next((i for i, meld in enumerate(melds) if meld.meld_id == addition.meld_id), None)
        if index is None:
            owned = any(meld.meld_id == addition.meld_id for other in state.melds for meld in other)
            if owned:
                raise InvalidMeldError("never add to an opponent's meld (M8)", code="not_your_meld")
            raise InvalidMeldError(f"no meld {addition.meld_id}", code="no_such_meld")
        if rules.add_requires_own_meld and not state.has_own_meld[seat] and not groups:
            raise InvalidMeldError("lay a meld of your own before adding (M9)", code="own_meld_required")
        before = melds[index]
        after = extend(rules, before, addition.cards)
        melds[index] = after
        events.append(MeldExtended(seat, side, after.meld_id, tuple(addition.cards)))
        if after.is_canasta and not before.is_canasta:
            kind = after.canasta_kind
            assert kind is not None
            events.append(CanastaCompleted(side, after.meld_id, kind.value))
    laid = [card for group in groups for card in group] + [card for item in additions for card in item.cards]
    return _Laid(
        melds=tuple(melds),
        new_ids=tuple(new_ids),
        next_meld_id=next_id,
        counted_points=sum(card.points for card in laid if card not in not_counted),
        naturals=sum(1 for card in laid if card.is_natural),
        canasta_at_once=at_once,
        black_threes=black,
        started_meld=bool(groups),
    )


def _action_cards(groups: Sequence[Group], additions: Sequence[Addition]) -> list[Card]:
    cards = [card for group in groups for card in group] + [card for item in additions for card in item.cards]
    if not cards:
        raise InvalidMeldError("nothing to meld", code="empty_meld")
    if len(set(cards)) != len(cards):
        raise CardNotHeldError("a card is named twice", code="duplicate_card")
    return cards


def _check_opening(state: DealState, side: int, laid: _Laid) -> None:
    """rules O2, O4-O6, O8, O9: the initial meld's card points (red threes and bonuses never
    count) reach the side's minimum, or it holds a canasta laid at once; it holds enough
    naturals."""
    requirement = state.requirements[side]
    if requirement.canasta_at_once:
        if not laid.canasta_at_once:
            raise OpeningRefusedError(
                "the initial meld must hold a canasta laid at once (O8)", code="opening_needs_canasta"
            )
    elif laid.counted_points < requirement.minimum:
        raise OpeningRefusedError(
            f"the initial meld counts {laid.counted_points}, the side needs {requirement.minimum} (O5)"
        )
    if laid.naturals < requirement.naturals:
        raise OpeningRefusedError(
            f"the initial meld needs {requirement.naturals} natural cards (O9)", code="opening_needs_naturals"
        )


def _going_out_refusal(state: DealState, seat: int) -> str | None:
    """Why the seat may not go out now (G2, G3), or None."""
    if state.answer is Answer.NO:
        return "partner_said_no"
    if state.canasta_count(state.seat_sides[seat]) < state.rules.canastas_to_go_out:
        return "not_enough_canastas"
    return None


def _check_after_laying(
    state: DealState, seat: int, remaining: int, *, black_threes: bool, waiver: bool
) -> None:
    """What a player may keep after laying cards: none only when going out (G1, G2); a black-
    three meld (M4, G5) or an opening without minimum (O7) only in a going-out turn; under
    ``KEEP_ONE`` never a single card he could not throw (G4)."""
    refusal = _going_out_refusal(state, seat)
    if remaining == 0:
        if refusal is not None:
            raise GoingOutRefusedError(f"cannot go out: {refusal}", code=refusal)
        return
    if state.answer is Answer.YES and (remaining > 1 or refusal is not None):
        raise GoingOutRefusedError("the partner said yes: this meld goes out (G3)", code="must_go_out")
    if black_threes or waiver:
        if remaining > 1:
            if black_threes:
                raise GoingOutRefusedError(
                    "black threes are melded only when going out (M4)", code="black_threes_only_going_out"
                )
            raise OpeningRefusedError("below the minimum only when going out concealed (O7)")
        if black_threes and not state.rules.black_three_final_discard:
            raise GoingOutRefusedError(
                "after black threes every card must be melded (G5)", code="black_threes_final_discard"
            )
        if refusal is not None:
            raise GoingOutRefusedError(f"cannot go out: {refusal}", code=refusal)
        return
    if (
        remaining == 1
        and refusal is not None
        and state.rules.last_card_rule is LastCardRule.KEEP_ONE
        and not state.no_discard
    ):
        raise GoingOutRefusedError("a player keeps a card after his discard (G4)", code="must_keep_a_card")


def _meld(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T2: new melds and additions from the hand (sections 3 and 4); during G7 the partner's
    whole hand at once."""
    assert isinstance(action, Meld)
    double = state.phase is Phase.DOUBLE_OUT
    if double:
        if action.seat != state.turn:
            raise NotYourTurnError(f"seat {state.turn + 1} may lay out his hand, not seat {action.seat + 1}")
    else:
        _expect(state, action, Stage.MELD)
    seat = action.seat
    side = state.seat_sides[seat]
    hand = state.hands[seat]
    cards = _action_cards(action.melds, action.additions)
    held = set(hand)
    for card in cards:
        if card not in held:
            raise CardNotHeldError(f"{card.key} is not in the hand")
    laid = _lay(state, seat, action.melds, action.additions, events)
    used = set(cards)
    remaining = tuple(card for card in hand if card not in used)
    if double and remaining:
        raise GoingOutRefusedError("all the hand or nothing (G7)", code="double_out_all_or_nothing")
    waiver = False
    opening = not state.opened[side]
    if opening:
        try:
            _check_opening(state, side, laid)
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
        hands=_replace(state.hands, seat, remaining),
        melds=(*state.melds[:side], laid.melds, *state.melds[side + 1 :]),
        opened=(*state.opened[:side], True, *state.opened[side + 1 :]),
        has_own_meld=_flag(state.has_own_meld, seat, laid.started_meld),
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
        return _finish(new_state, EndReason.WENT_OUT, events)
    _check_after_laying(new_state, seat, len(remaining), black_threes=laid.black_threes, waiver=waiver)
    if not remaining:
        return _go_out(new_state, seat, events)
    return new_state


def _flag(flags: tuple[bool, ...], index: int, value: bool) -> tuple[bool, ...]:
    if not value or flags[index]:
        return flags
    return (*flags[:index], True, *flags[index + 1 :])


def _pile_take_rank(pile: Sequence[Card]) -> str | None:
    """The rank a take of ``pile`` melds, the rank P9 (``noTakeOnCanastaRank``) asks about: the
    top card's, or, with a wild card on top (P3 ``BENEATH_PAIR``, the only way a wild top is
    taken), the rank of the natural card directly under it. None when no natural rank is taken
    (a wild over a wild or a three, a three on top: refused by P2-P4 anyway)."""
    if not pile:
        return None
    top = pile[-1]
    if top.is_natural:
        return top.rank
    if top.is_wild and len(pile) >= 2 and pile[-2].is_natural:
        return pile[-2].rank
    return None


def _take_pile(state: DealState, action: Action, events: list[Event]) -> DealState:
    """Section 5: take the discard pile by melding its top card.

    Checks in order: P1 (``minPileSize``), P10 (one card against a one-card pile), P2 (a black
    three on top), P4 (a red three on top), P3 (``wildOnTop``), P9 (``noTakeOnCanastaRank``, on the
    rank the take melds: the card under a wild top, ``_pile_take_rank``),
    then the justification: P6 (frozen pile or side not open: two naturals of the top's rank
    from the hand), P8 (open side, pile not frozen: two naturals, a natural and a wild under
    ``takeNaturalPlusWild``, or the top added to a meld), P7 (the initial meld with the top card,
    ``openingPileCards``: O6), P11-P13 (the rest joins the hand, red threes in it laid out
    without replacement), G8 (``top_card_only``: the rest stays, every card melded).
    Codes: ``pile_empty``, ``pile_too_small``, ``one_card_one_card_pile``,
    ``pile_blocked_black_three``, ``pile_blocked_red_three``, ``pile_blocked_wild``,
    ``pile_rank_has_canasta``, ``top_card_not_melded``, ``pile_cards_not_allowed``,
    ``wild_on_top_needs_beneath_pair``, ``pile_frozen_needs_pair``, ``side_not_open_needs_pair``,
    ``pile_take_not_justified``, ``top_card_only_not_allowed``, ``top_card_only_must_go_out``.
    """
    assert isinstance(action, TakePile)
    _expect(state, action, Stage.DRAW)
    rules = state.rules
    seat = action.seat
    side = state.seat_sides[seat]
    hand = state.hands[seat]
    pile = state.pile
    if not pile:
        raise PileRefusedError("the pile is empty", code="pile_empty")
    top = pile[-1]
    if action.top_card_only:
        if not rules.go_out_top_card_only:
            raise PileRefusedError(
                "the top card alone is never taken here (G8)", code="top_card_only_not_allowed"
            )
    elif len(pile) < rules.min_pile_size:
        raise PileRefusedError(f"a pile of {len(pile)} card is not taken (P1)", code="pile_too_small")
    if len(hand) == 1 and len(pile) == 1 and not rules.one_card_may_take_one_card_pile:
        raise PileRefusedError(
            "one card in hand never takes a one-card pile (P10)", code="one_card_one_card_pile"
        )
    if top.is_black_three:
        raise PileRefusedError("a black three on top blocks the pile (P2)", code="pile_blocked_black_three")
    if top.is_red_three:
        raise PileRefusedError("a red three on top cannot be melded (P4)", code="pile_blocked_red_three")
    if top.is_wild and rules.wild_on_top is WildOnTop.FORBIDDEN:
        raise PileRefusedError("a wild card on top blocks the pile (P3)", code="pile_blocked_wild")
    taken_rank = _pile_take_rank(pile)
    if (
        rules.no_take_on_canasta_rank
        and taken_rank is not None
        and any(
            meld.kind is MeldKind.RANK and meld.rank == taken_rank and meld.is_canasta
            for meld in state.melds[side]
        )
    ):
        raise PileRefusedError("the side has a canasta of this rank (P9)", code="pile_rank_has_canasta")
    cards = _action_cards(action.melds, action.additions)
    if top not in cards:
        raise PileRefusedError("the top card must be melded (P12)", code="top_card_not_melded")
    held = set(hand)
    rest = pile[:-1]
    beneath = pile[-2] if top.is_wild and len(pile) >= 2 else None
    usable: set[Card] = set()
    if rules.opening_pile_cards is OpeningPileCards.ANY and not action.top_card_only:
        usable.update(rest)
    if beneath is not None:
        usable.add(beneath)
    rest_set = set(rest)
    for card in cards:
        if card == top or card in held or card in usable:
            continue
        if card in rest_set:
            raise PileRefusedError(
                "only the top card of the pile is melded now (O6)", code="pile_cards_not_allowed"
            )
        raise CardNotHeldError(f"{card.key} is neither in the hand nor on the pile")
    justifying: Sequence[Card] = ()
    by_addition = False
    for group in action.melds:
        if top in group:
            justifying = group
    for addition in action.additions:
        if top in addition.cards:
            justifying, by_addition = addition.cards, True
    from_hand = [card for card in justifying if card in held]
    frozen = state.is_pile_frozen
    is_open = state.opened[side]
    if top.is_wild:
        if (
            beneath is None
            or not beneath.is_natural
            or beneath not in justifying
            or not any(card.is_natural and card.rank == beneath.rank for card in from_hand)
        ):
            raise PileRefusedError(
                "a wild on top is taken with the card beneath and a natural of its rank (P3)",
                code="wild_on_top_needs_beneath_pair",
            )
    else:
        naturals = sum(1 for card in from_hand if card.is_natural and card.rank == top.rank)
        wilds = sum(1 for card in from_hand if card.is_wild)
        if frozen or not is_open:
            if naturals < 2:
                code = "pile_frozen_needs_pair" if frozen else "side_not_open_needs_pair"
                raise PileRefusedError("two naturals of the top card's rank from the hand (P6)", code=code)
        elif not (
            naturals >= 2
            or (rules.take_natural_plus_wild and naturals >= 1 and wilds >= 1)
            or (by_addition and rules.take_by_adding_top_card)
        ):
            raise PileRefusedError(
                "nothing in the hand justifies the take (P8)", code="pile_take_not_justified"
            )
    pile_used = frozenset(card for card in cards if card in rest_set)
    not_counted = pile_used if rules.opening_pile_cards is OpeningPileCards.TOP_ONLY else frozenset()
    laid_events: list[Event] = []
    laid = _lay(
        state,
        seat,
        action.melds,
        action.additions,
        laid_events,
        not_counted=not_counted,
        not_from_hand=pile_used,
    )
    if not is_open:
        _check_opening(state, side, laid)
    used = set(cards)
    remaining = [card for card in hand if card not in used]
    threes = list(state.red_threes[side])
    if action.top_card_only:
        to_hand: tuple[Card, ...] = ()
        new_pile = rest
    else:
        to_hand = tuple(card for card in rest if card not in used)
        new_pile = ()
    events.extend(laid_events)
    events.append(PileTaken(seat, top, to_hand, frozen, action.top_card_only))
    for card in to_hand:
        if card.is_red_three:
            threes.append(card)
            events.append(RedThreeLaidOut(seat, side, card, "pile", None))
        else:
            remaining.append(card)
    if not is_open:
        events.append(SideOpened(seat, side, laid.counted_points, state.requirements[side].minimum, False))
    new_state = evolve(
        state,
        hands=_replace(state.hands, seat, tuple(remaining)),
        pile=new_pile,
        pile_deal_cards=min(state.pile_deal_cards, len(new_pile)),
        melds=(*state.melds[:side], laid.melds, *state.melds[side + 1 :]),
        red_threes=_replace(state.red_threes, side, tuple(threes)),
        opened=(*state.opened[:side], True, *state.opened[side + 1 :]),
        has_own_meld=_flag(state.has_own_meld, seat, laid.started_meld),
        next_meld_id=laid.next_meld_id,
        stage=Stage.MELD,
        turn_took_pile=True,
        turn_laid=True,
        turn_new_melds=state.turn_new_melds + laid.new_ids,
        must_go_out=laid.black_threes or action.top_card_only,
    )
    if action.top_card_only and remaining:
        raise GoingOutRefusedError(
            "with the top card alone every card is melded (G8)", code="top_card_only_must_go_out"
        )
    _check_after_laying(new_state, seat, len(remaining), black_threes=laid.black_threes, waiver=False)
    if not remaining:
        return _go_out(new_state, seat, events)
    return new_state


def _discard(state: DealState, action: Action, events: list[Event]) -> DealState:
    """T3: one card onto the pile (a wild card freezes it, P5); the last card only when going out
    (G1, G2, G4); none after the stock's last card was a red three (G9)."""
    assert isinstance(action, Discard)
    _expect(state, action, Stage.MELD)
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
        refusal = _going_out_refusal(state, seat)
        if refusal is not None:
            raise GoingOutRefusedError(f"the last card goes only when going out: {refusal}", code=refusal)
    elif state.must_go_out:
        raise GoingOutRefusedError("this turn must end by going out (G3, G5, O7)", code="must_go_out")
    events.append(CardDiscarded(seat, action.card, action.card.is_wild))
    new_state = evolve(state, hands=_replace(state.hands, seat, remaining), pile=(*state.pile, action.card))
    if not remaining:
        return _go_out(evolve(new_state, out_by_discard=True), seat, events)
    return _next_turn(new_state, events)


def _end_turn(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G4 ``SKIP_DISCARD`` ("I cannot discard": one card, the side cannot go out; also the only
    way on with one card after an unreplaced red three [rec]); G9 (after the stock's last card,
    a red three, the deal ends)."""
    _expect(state, action, Stage.MELD)
    seat = action.seat
    if state.no_discard:
        events.append(TurnPassed(seat, "last_stock_card_red_three"))
        return _finish(state, EndReason.STOCK_EXHAUSTED, events)
    if len(state.hands[seat]) == 1 and not state.must_go_out and _going_out_refusal(state, seat) is not None:
        events.append(TurnPassed(seat, "cannot_discard"))
        return _next_turn(state, events)
    raise GoingOutRefusedError("a turn ends with a discard (T3)", code="discard_required")


def _decline_pile(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G9: with the stock empty a player who does not take the pile ends the deal."""
    _expect(state, action, Stage.DRAW)
    if state.stock:
        raise WrongStageError("draw from the stock", code="stock_not_empty")
    events.append(TurnPassed(action.seat, "pile_declined"))
    return _finish(state, EndReason.STOCK_EXHAUSTED, events)


def _ask_partner(state: DealState, action: Action, events: list[Event]) -> DealState:
    """G3: once per turn, before melding in it [rec], in a partnership game with ``askPartner``."""
    _expect(state, action, Stage.MELD)
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
        raise NotYourTurnError("only the partner who was asked answers")
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
        raise NotYourTurnError(f"seat {state.turn + 1} decides, not seat {action.seat + 1}")
    return _finish(state, EndReason.WENT_OUT, events)


def _next_turn(state: DealState, events: list[Event]) -> DealState:
    """T4: the turn passes to the left. An empty stock starts G9."""
    seat = state.turn
    following = (seat + 1) % len(state.seat_sides)
    if not state.stock and not state.stock_exhausted:
        events.append(StockExhausted())
    number = state.turn_number + 1
    events.append(TurnStarted(following, number))
    return evolve(
        state,
        turn=following,
        stage=Stage.DRAW,
        has_laid=_flag(state.has_laid, seat, state.turn_laid),
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


def _go_out(state: DealState, seat: int, events: list[Event]) -> DealState:
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
    return _finish(state, EndReason.WENT_OUT, events)


def _finish(state: DealState, reason: EndReason, events: list[Event]) -> DealState:
    events.append(DealEnded(reason.value, state.went_out))
    return evolve(state, phase=Phase.FINISHED, end_reason=reason)


Handler = Callable[[DealState, Action, list[Event]], DealState]

_HANDLERS: Mapping[type[Action], Handler] = {
    Draw: _draw,
    TakePile: _take_pile,
    Meld: _meld,
    Discard: _discard,
    EndTurn: _end_turn,
    DeclinePile: _decline_pile,
    AskPartner: _ask_partner,
    AnswerPartner: _answer_partner,
    DeclineDoubleGoOut: _decline_double,
}


# ---------------------------------------------------------------------------------------------
# Legal actions


def _fits(rules: CanastaRules, naturals: int, wilds: int) -> bool:
    """M2 and M3 for a rank meld of ``naturals`` and ``wilds``."""
    if naturals < 2 or wilds > rules.max_wild:
        return False
    return wilds <= naturals if rules.wild_rule is WildRule.LE else wilds < naturals


def _naturals_by_rank(cards: Iterable[Card]) -> dict[str, list[Card]]:
    out: dict[str, list[Card]] = {}
    for card in cards:
        if card.is_natural:
            out.setdefault(card.rank, []).append(card)
    return out


def _open_rank_meld(melds: Sequence[TableMeld], rank: str) -> TableMeld | None:
    for meld in melds:
        if meld.kind is MeldKind.RANK and meld.rank == rank:
            return meld
    return None


def _plan(
    state: DealState, seat: int, cards: Sequence[Card], *, keep: int, skip_rank: str | None = None
) -> tuple[list[list[Card]], dict[int, list[Card]], list[Card]]:
    """A greedy way to lay ``cards``: additions to the side's melds, new melds of three or more
    naturals, pairs with a wild card, black threes when ``keep`` allows going out, the remaining
    wild cards where the limits let them. Returns (new groups, additions, cards left)."""
    rules = state.rules
    side = state.seat_sides[seat]
    melds = state.melds[side]
    groups: list[list[Card]] = []
    additions: dict[int, list[Card]] = {}
    left: list[Card] = []
    wilds = [card for card in cards if card.is_wild]
    wilds.sort(key=lambda card: card.points)
    for rank, naturals in _naturals_by_rank(cards).items():
        if rank == skip_rank:
            left.extend(naturals)
            continue
        meld = _open_rank_meld(melds, rank)
        if meld is not None:
            additions.setdefault(meld.meld_id, []).extend(naturals)
        elif len(naturals) >= 3:
            groups.append(list(naturals))
        elif len(naturals) == 2 and wilds and _fits(rules, 2, 1):
            groups.append([*naturals, wilds.pop()])
        else:
            left.extend(naturals)
    threes = [card for card in cards if card.is_black_three]
    if len(threes) >= 3 and keep <= 1:
        groups.append(threes)
    else:
        left.extend(threes)
    left.extend(card for card in cards if card.is_red_three)
    for wild in list(wilds):
        for group in groups:
            if group[0].is_black_three:
                continue
            count = sum(1 for card in group if card.is_wild)
            if _fits(rules, len(group) - count, count + 1):
                group.append(wild)
                wilds.remove(wild)
                break
        else:
            for meld in melds:
                if meld.kind is not MeldKind.RANK:
                    continue
                extra = additions.get(meld.meld_id, [])
                extra_wild = sum(1 for card in extra if card.is_wild)
                natural_total = meld.natural_count + len(extra) - extra_wild
                if _fits(rules, natural_total, meld.wild_count + extra_wild + 1):
                    additions.setdefault(meld.meld_id, []).append(wild)
                    wilds.remove(wild)
                    break
    left.extend(wilds)
    return groups, additions, left


def _as_meld(seat: int, groups: Sequence[Sequence[Card]], additions: Mapping[int, Sequence[Card]]) -> Meld:
    return Meld(
        seat,
        tuple(tuple(group) for group in groups),
        tuple(Addition(meld_id, tuple(cards)) for meld_id, cards in additions.items() if cards),
    )


def _sequence_groups(state: DealState, hand: Sequence[Card]) -> list[Group]:
    """M12: runs of three or more consecutive naturals of one suit in the hand."""
    out: list[Group] = []
    for suit in ("S", "H", "D", "C"):
        by_rank = {card.rank: card for card in hand if card.is_natural and card.suit == suit}
        run: list[Card] = []
        for rank in NATURAL_RANKS:
            card = by_rank.get(rank)
            if card is not None:
                run.append(card)
                continue
            if len(run) >= 3:
                out.append(tuple(run[-7:]))
            run = []
        if len(run) >= 3:
            out.append(tuple(run[-7:]))
    return out


def _meld_candidates(state: DealState, seat: int) -> list[Action]:
    hand = state.hands[seat]
    side = state.seat_sides[seat]
    melds = state.melds[side]
    out: list[Action] = []
    if not state.opened[side]:
        groups, _, _left = _plan(state, seat, hand, keep=2)
        if groups:
            out.append(_as_meld(seat, groups, {}))
            plain = [[card for card in group if not card.is_wild] for group in groups]
            plain = [group for group in plain if len(group) >= 3]
            if plain and plain != groups:
                out.append(_as_meld(seat, plain, {}))
        return out
    wilds = [card for card in hand if card.is_wild]
    for rank, naturals in _naturals_by_rank(hand).items():
        meld = _open_rank_meld(melds, rank)
        if meld is not None:
            out.append(Meld(seat, (), (Addition(meld.meld_id, tuple(naturals)),)))
        elif len(naturals) >= 3:
            out.append(Meld(seat, (tuple(naturals),)))
        elif len(naturals) == 2 and wilds:
            out.append(Meld(seat, ((*naturals, wilds[0]),)))
    if wilds:
        for meld in melds:
            if meld.kind is MeldKind.RANK:
                out.append(Meld(seat, (), (Addition(meld.meld_id, (wilds[0],)),)))
    if state.rules.sequences:
        out.extend(Meld(seat, (group,)) for group in _sequence_groups(state, hand))
    return out


def _going_out_candidate(state: DealState, seat: int, *, discard: bool) -> Meld | None:
    groups, additions, left = _plan(state, seat, state.hands[seat], keep=1 if discard else 0)
    if len(left) > (1 if discard else 0) or not (groups or any(additions.values())):
        return None
    return _as_meld(seat, groups, additions)


def _pile_candidates(state: DealState, seat: int) -> list[Action]:
    if not state.pile:
        return []
    rules = state.rules
    side = state.seat_sides[seat]
    hand = state.hands[seat]
    top = state.pile[-1]
    bases: list[tuple[list[Card], int | None]] = []
    if top.is_wild:
        if len(state.pile) >= 2 and state.pile[-2].is_natural:
            beneath = state.pile[-2]
            naturals = [card for card in hand if card.is_natural and card.rank == beneath.rank]
            if naturals:
                bases.append(([beneath, naturals[0], top], None))
    elif top.is_natural:
        naturals = [card for card in hand if card.is_natural and card.rank == top.rank]
        wilds = [card for card in hand if card.is_wild]
        meld = _open_rank_meld(state.melds[side], top.rank)
        if len(naturals) >= 2:
            bases.append(([top, *naturals], meld.meld_id if meld is not None else None))
        if naturals and wilds:
            bases.append(([top, naturals[0], wilds[0]], meld.meld_id if meld is not None else None))
        if meld is not None:
            bases.append(([top], meld.meld_id))
    out: list[Action] = []
    for cards, meld_id in bases:
        if meld_id is None:
            groups: list[list[Card]] = [cards]
            additions: dict[int, list[Card]] = {}
        else:
            groups, additions = [], {meld_id: cards}
        out.append(_as_take(seat, groups, additions))
        if not state.opened[side]:
            rest = [card for card in hand if card not in cards]
            extra, _, _ = _plan(state, seat, rest, keep=2, skip_rank=top.rank)
            if extra:
                out.append(_as_take(seat, groups + extra, additions))
    if rules.go_out_top_card_only and top.is_natural:
        groups, additions, left = _plan(state, seat, [*hand, top], keep=0)
        if not left:
            take = _as_meld(seat, groups, additions)
            out.append(TakePile(seat, take.melds, take.additions, top_card_only=True))
    return out


def _as_take(
    seat: int, groups: Sequence[Sequence[Card]], additions: Mapping[int, Sequence[Card]]
) -> TakePile:
    meld = _as_meld(seat, groups, additions)
    return TakePile(seat, meld.melds, meld.additions)


def _can_go_out(state: DealState, seat: int) -> bool:
    """Whether the engine's going-out plan empties the seat's hand this turn (G3: only a player
    able to go out asks his partner)."""
    plan = _going_out_candidate(state, seat, discard=True)
    if plan is None:
        return False
    try:
        after, _ = apply(state, plan)
    except GameError:
        return False
    if after.phase is not Phase.PLAYING or after.went_out is not None:
        return True
    return len(after.hands[seat]) == 1 and _going_out_refusal(after, seat) is None


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
        plan = _going_out_candidate(state, seat, discard=False)
        if plan is not None:
            candidates.append(plan)
        candidates.append(DeclineDoubleGoOut(seat))
    elif state.stage is Stage.DRAW:
        candidates.append(Draw(seat) if state.stock else DeclinePile(seat))
        candidates.extend(_pile_candidates(state, seat))
    else:
        plan = _going_out_candidate(state, seat, discard=True)
        if plan is not None:
            candidates.append(plan)
            if (
                not state.asked
                and not state.turn_laid
                and state.rules.ask_partner
                and _can_go_out(state, seat)
            ):
                candidates.append(AskPartner(seat))
        candidates.extend(_meld_candidates(state, seat))
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
