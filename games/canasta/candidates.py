"""The melds and pile takes :func:`~games.canasta.engine.legal_actions` offers: a representative
set, each judged by :func:`~games.canasta.engine.apply` before it is offered (rules/canasta.md
sections 3-6). The plans are greedy: any other meld is still the player's to try.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.canasta.actions import Action, Addition, Group, Meld, TakePile
from games.canasta.cards import NATURAL_RANKS, Card
from games.canasta.melds import Meld as TableMeld
from games.canasta.melds import MeldKind
from games.canasta.rules import CanastaRules, WildRule
from games.canasta.state import DealState


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


def _as_take(
    seat: int, groups: Sequence[Sequence[Card]], additions: Mapping[int, Sequence[Card]]
) -> TakePile:
    meld = _as_meld(seat, groups, additions)
    return TakePile(seat, meld.melds, meld.additions)


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


def meld_candidates(state: DealState, seat: int) -> list[Action]:
    """Melds to offer from the hand (sections 3 and 4): before the side opened, the initial meld
    of :func:`_plan` with and without its wild cards (O2); after, each rank's naturals as a meld
    or an addition (M1, M5), a pair with a wild card (M2, M3), a wild card added to a rank meld
    and runs of one suit (M12)."""
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


def going_out_candidate(state: DealState, seat: int, *, discard: bool) -> Meld | None:
    """A meld that lays the whole hand (G1), keeping one card to discard when ``discard``, or
    None when :func:`_plan` finds none."""
    groups, additions, left = _plan(state, seat, state.hands[seat], keep=1 if discard else 0)
    if len(left) > (1 if discard else 0) or not (groups or any(additions.values())):
        return None
    return _as_meld(seat, groups, additions)


def pile_candidates(state: DealState, seat: int) -> list[Action]:
    """Takes of the pile to offer (section 5): the top card with two naturals, with a natural
    and a wild card, added to the side's meld of its rank, a wild top with the natural beneath
    (P3); before the side opened each with more melds for the minimum (O2); the top card alone
    to go out (G8)."""
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
