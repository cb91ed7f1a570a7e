"""Laying cards on the table (rules/canasta.md sections 3, 4 and 6): new melds and additions
(M1-M12), the initial meld's minimum (O2-O9) and what a player may keep after laying (G1-G5).
A meld from the hand (:mod:`games.canasta.engine`) and a take of the pile (:mod:`games.canasta.pile`)
both lay through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.canasta.actions import Addition, Group
from games.canasta.cards import Card
from games.canasta.errors import CardNotHeldError, GoingOutRefusedError, InvalidMeldError, OpeningRefusedError
from games.canasta.events import CanastaCompleted, Event, MeldExtended, MeldLaid
from games.canasta.melds import Meld as TableMeld
from games.canasta.melds import MeldKind, check_rank_limit, extend, new_meld
from games.canasta.rules import LastCardRule
from games.canasta.state import Answer, DealState
from games.canasta.turns import going_out_refusal


@dataclass(frozen=True, slots=True)
class Laid:
    """What :func:`lay` laid: the side's melds after it, the new melds' ids, and what the opening
    (O4-O9) and going out (M4, G5) rules ask of it."""

    melds: tuple[TableMeld, ...]
    new_ids: tuple[int, ...]
    next_meld_id: int
    counted_points: int
    naturals: int
    canasta_at_once: bool
    black_threes: bool
    started_meld: bool


def lay(
    state: DealState,
    seat: int,
    groups: Sequence[Group],
    additions: Sequence[Addition],
    events: list[Event],
    *,
    not_counted: frozenset[Card] = frozenset(),
    not_from_hand: frozenset[Card] = frozenset(),
) -> Laid:
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
    return Laid(
        melds=tuple(melds),
        new_ids=tuple(new_ids),
        next_meld_id=next_id,
        counted_points=sum(card.points for card in laid if card not in not_counted),
        naturals=sum(1 for card in laid if card.is_natural),
        canasta_at_once=at_once,
        black_threes=black,
        started_meld=bool(groups),
    )


def action_cards(groups: Sequence[Group], additions: Sequence[Addition]) -> list[Card]:
    """The cards an action lays (T2): at least one, each named once."""
    cards = [card for group in groups for card in group] + [card for item in additions for card in item.cards]
    if not cards:
        raise InvalidMeldError("nothing to meld", code="empty_meld")
    if len(set(cards)) != len(cards):
        raise CardNotHeldError("a card is named twice", code="duplicate_card")
    return cards


def check_opening(state: DealState, side: int, laid: Laid) -> None:
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


def check_after_laying(
    state: DealState, seat: int, remaining: int, *, black_threes: bool, waiver: bool
) -> None:
    """What a player may keep after laying cards: none only when going out (G1, G2); a black-
    three meld (M4, G5) or an opening without minimum (O7) only in a going-out turn; under
    ``KEEP_ONE`` never a single card he could not throw (G4)."""
    refusal = going_out_refusal(state, seat)
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
