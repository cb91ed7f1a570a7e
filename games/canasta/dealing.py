"""The deal (rules/canasta.md section 2): the seats' sides (D2), the dealer (D1) and the first
state of a deal from its shuffle (D1-D8). No randomness: the shuffle is an input.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from games.canasta.cards import Card, pack
from games.canasta.errors import CanastaRuleSetError, InvalidShuffleError
from games.canasta.events import CardsDealt, Event, RedThreeLaidOut, TurnStarted, UpcardTurned
from games.canasta.rules import CanastaRules, OpeningBasis, Sides, UpcardReturn, opening_requirement
from games.canasta.state import DealState, Stage


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


@cache
def _pack_set(decks: int, jokers: int) -> frozenset[Card]:
    """Every card of the packs (rules 1.1), each instance once."""
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
    _check_shuffle(rules, shuffle, dealer)
    totals, basis = _scores_before(rules, side_count, scores, previous_hand_scores)
    hands, stock, events = _deal_hands(rules, shuffle, dealer)
    pile: list[Card] = []
    if not rules.house_deal:
        pile = _turn_upcard(rules, stock)
        events.append(UpcardTurned(tuple(pile)))
    red_threes = _lay_out_dealt_red_threes(rules, dealer, seat_sides, hands, stock, events)
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


def _check_shuffle(rules: CanastaRules, shuffle: Sequence[Card], dealer: int) -> None:
    """Rules 1.1 and D1: the shuffle is every card of the packs once, and the dealer a seat
    (``invalid_shuffle``, ``invalid_dealer``)."""
    if len(shuffle) != rules.cards or set(shuffle) != _pack_set(rules.decks, rules.jokers):
        raise InvalidShuffleError(f"a shuffle is the {rules.cards} cards of the packs, each once")
    if not 0 <= dealer < rules.players:
        raise InvalidShuffleError(f"no seat {dealer + 1} to deal", code="invalid_dealer")


def _scores_before(
    rules: CanastaRules,
    side_count: int,
    scores: Sequence[int] | None,
    previous_hand_scores: Sequence[int] | None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Rule O3: the sides' cumulative scores before the deal, and the scores their opening
    minimum is read from (``openingBasis``: the cumulative ones or the previous deal's); one per
    side (``invalid_scores``)."""
    totals = tuple(scores) if scores is not None else (0,) * side_count
    last = tuple(previous_hand_scores) if previous_hand_scores is not None else (0,) * side_count
    if len(totals) != side_count or len(last) != side_count:
        raise InvalidShuffleError(f"{side_count} sides need {side_count} scores", code="invalid_scores")
    return totals, totals if rules.opening_basis is OpeningBasis.CUMULATIVE else last


def _deal_hands(
    rules: CanastaRules, shuffle: Sequence[Card], dealer: int
) -> tuple[list[list[Card]], list[Card], list[Event]]:
    """Rules D1-D3: one card at a time from the dealer's left, ``handSize`` each, and under
    ``houseDeal`` one more to the dealer. The hands, the stock left and a ``CardsDealt`` per seat
    in turn order from the dealer's left."""
    players = rules.players
    cards = list(shuffle)
    hands: list[list[Card]] = [[] for _ in range(players)]
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
    return hands, cards[position:], events


def _turn_upcard(rules: CanastaRules, stock: list[Card]) -> list[Card]:
    """Rules D4-D6: the stock's top card is turned up to start the pile, and covered by the next
    one while it returns (:func:`_upcard_returns`). The turned cards leave ``stock``."""
    pile: list[Card] = []
    while stock:
        card = stock.pop(0)
        pile.append(card)
        if not _upcard_returns(rules, card):
            break
    return pile


def _lay_out_dealt_red_threes(
    rules: CanastaRules,
    dealer: int,
    seat_sides: tuple[int, ...],
    hands: list[list[Card]],
    stock: list[Card],
    events: list[Event],
) -> list[list[Card]]:
    """Rules D8 and D11: the red threes of the dealt hands are laid out for their side, in turn
    order from the dealer's left, each replaced from ``stock`` (again if the replacement is one).
    The red threes per side."""
    players = rules.players
    red_threes: list[list[Card]] = [[] for _ in range(max(seat_sides) + 1)]
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
    return red_threes
