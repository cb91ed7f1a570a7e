"""Taking the discard pile (rules/canasta.md section 5): what the pile shows (T5), the rank a
take melds (P9) and the take itself (P1-P13, O6, G8), checked in the digest's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.canasta.actions import Action, TakePile
from games.canasta.cards import Card
from games.canasta.errors import CardNotHeldError, GoingOutRefusedError, PileRefusedError
from games.canasta.events import Event, PileTaken, RedThreeLaidOut, SideOpened
from games.canasta.laying import action_cards, check_after_laying, check_opening, lay
from games.canasta.melds import MeldKind
from games.canasta.rules import OpeningPileCards, WildOnTop
from games.canasta.state import DealState, Stage, evolve
from games.canasta.turns import check_turn, flagged, go_out, replaced


def pile_view(state: DealState) -> dict[str, object]:
    """rules T5: what every player sees of the pile - its top card, its size, whether it is
    frozen; the cards below the top are hidden."""
    top = state.top_card
    return {
        "top": None if top is None else top.key,
        "size": len(state.pile),
        "is_frozen": state.is_pile_frozen,
    }


def pile_take_rank(pile: Sequence[Card]) -> str | None:
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


def take_pile(state: DealState, action: Action, events: list[Event]) -> DealState:
    """Section 5: take the discard pile by melding its top card.

    Checks in order: P1 (``minPileSize``), P10 (one card against a one-card pile), P2 (a black
    three on top), P4 (a red three on top), P3 (``wildOnTop``), P9 (``noTakeOnCanastaRank``, on the
    rank the take melds: the card under a wild top, ``pile_take_rank``),
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
    check_turn(state, action, Stage.DRAW)
    rules = state.rules
    seat = action.seat
    side = state.seat_sides[seat]
    hand = state.hands[seat]
    _check_pile_open(state, action)
    cards = action_cards(action.melds, action.additions)
    _check_take_cards(state, action, cards)
    _check_take_justified(state, action)
    rest = state.pile[:-1]
    rest_set = set(rest)
    pile_used = frozenset(card for card in cards if card in rest_set)
    not_counted = pile_used if rules.opening_pile_cards is OpeningPileCards.TOP_ONLY else frozenset()
    laid_events: list[Event] = []
    laid = lay(
        state,
        seat,
        action.melds,
        action.additions,
        laid_events,
        not_counted=not_counted,
        not_from_hand=pile_used,
    )
    is_open = state.opened[side]
    if not is_open:
        check_opening(state, side, laid)
    used = set(cards)
    remaining = [card for card in hand if card not in used]
    to_hand, new_pile = _split_rest(rest, used, top_card_only=action.top_card_only)
    events.extend(laid_events)
    events.append(PileTaken(seat, state.pile[-1], to_hand, state.is_pile_frozen, action.top_card_only))
    threes = _lay_out_pile_red_threes(state, seat, to_hand, remaining, events)
    if not is_open:
        events.append(SideOpened(seat, side, laid.counted_points, state.requirements[side].minimum, False))
    new_state = evolve(
        state,
        hands=replaced(state.hands, seat, tuple(remaining)),
        pile=new_pile,
        pile_deal_cards=min(state.pile_deal_cards, len(new_pile)),
        melds=(*state.melds[:side], laid.melds, *state.melds[side + 1 :]),
        red_threes=replaced(state.red_threes, side, tuple(threes)),
        opened=(*state.opened[:side], True, *state.opened[side + 1 :]),
        has_own_meld=flagged(state.has_own_meld, seat, laid.started_meld),
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
    check_after_laying(new_state, seat, len(remaining), black_threes=laid.black_threes, waiver=False)
    if not remaining:
        return go_out(new_state, seat, events)
    return new_state


def _check_pile_open(state: DealState, action: TakePile) -> None:
    """Whether the pile may be taken at all, before the cards are looked at, in this order: G8
    (``goOutTopCardOnly``), P1 (``minPileSize``), P10 (one card against a one-card pile), P2 (a
    black three on top), P4 (a red three on top), P3 (``wildOnTop`` FORBIDDEN), P9
    (``noTakeOnCanastaRank``, on the rank of :func:`pile_take_rank`)."""
    rules = state.rules
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
    if len(state.hands[action.seat]) == 1 and len(pile) == 1 and not rules.one_card_may_take_one_card_pile:
        raise PileRefusedError(
            "one card in hand never takes a one-card pile (P10)", code="one_card_one_card_pile"
        )
    if top.is_black_three:
        raise PileRefusedError("a black three on top blocks the pile (P2)", code="pile_blocked_black_three")
    if top.is_red_three:
        raise PileRefusedError("a red three on top cannot be melded (P4)", code="pile_blocked_red_three")
    if top.is_wild and rules.wild_on_top is WildOnTop.FORBIDDEN:
        raise PileRefusedError("a wild card on top blocks the pile (P3)", code="pile_blocked_wild")
    taken_rank = pile_take_rank(pile)
    if (
        rules.no_take_on_canasta_rank
        and taken_rank is not None
        and any(
            meld.kind is MeldKind.RANK and meld.rank == taken_rank and meld.is_canasta
            for meld in state.melds[state.seat_sides[action.seat]]
        )
    ):
        raise PileRefusedError("the side has a canasta of this rank (P9)", code="pile_rank_has_canasta")


def _beneath_top(pile: Sequence[Card]) -> Card | None:
    """Rule P3 (``wildOnTop`` BENEATH_PAIR): the card under a wild top card, taken with it."""
    top = pile[-1]
    return pile[-2] if top.is_wild and len(pile) >= 2 else None


def _check_take_cards(state: DealState, action: TakePile, cards: Sequence[Card]) -> None:
    """Rules P12 and O6: the top card is melded, and every other card comes from the hand, or
    from the pile where ``openingPileCards`` ANY (never with the top card alone) or P3's card
    beneath a wild top allows it (``top_card_not_melded``, ``pile_cards_not_allowed``)."""
    pile = state.pile
    top = pile[-1]
    if top not in cards:
        raise PileRefusedError("the top card must be melded (P12)", code="top_card_not_melded")
    held = set(state.hands[action.seat])
    rest = pile[:-1]
    beneath = _beneath_top(pile)
    usable: set[Card] = set()
    if state.rules.opening_pile_cards is OpeningPileCards.ANY and not action.top_card_only:
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


def _check_take_justified(state: DealState, action: TakePile) -> None:
    """Rules P3, P6 and P8: what the hand brings to the meld that holds the top card justifies
    the take. A wild top: the card beneath and a natural of its rank; a frozen pile or a side
    not open: two naturals of the top's rank; else two naturals, a natural and a wild
    (``takeNaturalPlusWild``) or the top added to a meld (``takeByAddingTopCard``)."""
    rules = state.rules
    top = state.pile[-1]
    held = set(state.hands[action.seat])
    beneath = _beneath_top(state.pile)
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
        return
    naturals = sum(1 for card in from_hand if card.is_natural and card.rank == top.rank)
    wilds = sum(1 for card in from_hand if card.is_wild)
    if frozen or not state.opened[state.seat_sides[action.seat]]:
        if naturals < 2:
            code = "pile_frozen_needs_pair" if frozen else "side_not_open_needs_pair"
            raise PileRefusedError("two naturals of the top card's rank from the hand (P6)", code=code)
    elif not (
        naturals >= 2
        or (rules.take_natural_plus_wild and naturals >= 1 and wilds >= 1)
        or (by_addition and rules.take_by_adding_top_card)
    ):
        raise PileRefusedError("nothing in the hand justifies the take (P8)", code="pile_take_not_justified")


def _split_rest(
    rest: tuple[Card, ...], used: set[Card], *, top_card_only: bool
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Rules P11 and G8: the pile's cards not melded join the hand and the pile is empty; with
    the top card alone the rest stays as the pile. The cards to the hand and the new pile."""
    if top_card_only:
        return (), rest
    return tuple(card for card in rest if card not in used), ()


def _lay_out_pile_red_threes(
    state: DealState, seat: int, to_hand: Sequence[Card], remaining: list[Card], events: list[Event]
) -> list[Card]:
    """Rules P11, P13 and D10: the pile's cards join the hand (``remaining``), its red threes
    are laid out for the side without replacement. The side's red threes after the take."""
    side = state.seat_sides[seat]
    threes = list(state.red_threes[side])
    for card in to_hand:
        if card.is_red_three:
            threes.append(card)
            events.append(RedThreeLaidOut(seat, side, card, "pile", None))
        else:
            remaining.append(card)
    return threes
