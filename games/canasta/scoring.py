"""Scoring a finished deal (rules/canasta.md sections 7 and 8) and the game's standing.

:func:`score_deal` scores an engine state; :func:`score_finished` scores a deal given as data
(:class:`FinishedDeal`: the melds, red threes and hands a host reads off a table of physical
cards), after checking that it could have happened. Both give a :class:`DealScore`: each side's
:class:`SideScore` (the five parts of section 7 and the canasta bonuses by kind), the new totals,
the next opening requirements and the game's end (W1-W3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.canasta.cards import Card, copies, hand_points
from games.canasta.errors import InvalidDealError
from games.canasta.melds import CanastaKind, Meld, MeldKind, check_rank_limit, new_meld
from games.canasta.rules import (
    CanastaRules,
    FullSetShortfall,
    OpeningBasis,
    OpeningRequirement,
    RedThreeRule,
    opening_requirement,
)
from games.canasta.state import DealState, EndReason, Phase


@dataclass(frozen=True, slots=True)
class SideDeal:
    """One side at the end of a deal: its melds, its red threes laid out, and the cards left in
    each of its players' hands (one tuple per player, in seat order)."""

    melds: tuple[Meld, ...]
    red_threes: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class FinishedDeal:
    """A finished deal as data. ``went_out`` is the side that went out (None when the stock ran
    out, G9); ``out_player`` its player (index in the side's ``hands``); ``concealed`` (G6),
    ``partner_had_melded`` (G6, C18), ``double_out`` (G7); ``final_discard`` the going-out
    discard if any (G5)."""

    rules: CanastaRules
    scores: tuple[int, ...]
    sides: tuple[SideDeal, ...]
    went_out: int | None = None
    out_player: int = 0
    concealed: bool = False
    partner_had_melded: bool = False
    double_out: bool = False
    stock_exhausted: bool = False
    final_discard: Card | None = None


@dataclass(frozen=True, slots=True)
class SideScore:
    """rules 7: ``total = melded + canasta_bonus + red_threes + going_out + hand``.

    ``canastas`` gives the bonus by kind (``natural``, ``mixed``, ``joker``, ``samba``,
    ``sevens``); their sum is ``canasta_bonus``. ``hand`` is zero or negative.
    """

    melded: int
    canasta_bonus: int
    red_threes: int
    going_out: int
    hand: int
    canastas: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.melded + self.canasta_bonus + self.red_threes + self.going_out + self.hand


@dataclass(frozen=True, slots=True)
class DealScore:
    """The scores of a deal and the game after it.

    ``next_requirements`` are the sides' opening requirements for the next deal (section 4);
    ``is_game_over`` is W1 (a side reached the target) with a single highest total (W3: a tie
    for first plays another deal); ``winner`` and ``margin`` (over the runner-up) then say who
    won by how much.
    """

    sides: tuple[SideScore, ...]
    totals_before: tuple[int, ...]
    totals: tuple[int, ...]
    next_requirements: tuple[OpeningRequirement, ...]
    is_game_over: bool
    winner: int | None
    margin: int | None


def _canasta_bonus(rules: CanastaRules, meld: Meld) -> tuple[str, int] | None:
    """rules S2: natural 500, mixed 300 (``gradedMixed``: 400/300/200 for 1/2/3 wild cards),
    joker canasta ``jokerCanastaBonus``, samba ``sambaBonus``."""
    kind = meld.canasta_kind
    if kind is None:
        return None
    if kind is CanastaKind.NATURAL:
        return "natural", rules.natural_canasta_bonus
    if kind is CanastaKind.MIXED:
        if rules.graded_mixed:
            grades = rules.graded_mixed_bonus
            return "mixed", grades[min(meld.wild_count, len(grades)) - 1]
        return "mixed", rules.mixed_canasta_bonus
    if kind is CanastaKind.JOKER:
        return "joker", rules.joker_canasta_bonus
    return "samba", rules.samba_bonus or 0


def red_three_score(rules: CanastaRules, count: int, *, melds: int, canastas: int) -> int:
    """rules S3: 100 each, all four 800 (two packs), all six 1000 (three packs: with the
    canastas ``redThreeFullSetMinCanastas`` asks, else ``redThreeFullSetShortfall``), signed by
    ``redThreeRule`` (MELD_NEG: minus without a meld; CANASTA_NEG: minus without a canasta;
    CANASTA_ZERO: nothing without a canasta)."""
    if count == 0:
        return 0
    base = rules.red_three_value * count
    if count == rules.red_three_full_set_count:
        needed = rules.red_three_full_set_min_canastas
        if needed is None:
            base = rules.red_three_full_set_bonus
        elif canastas >= needed:
            return rules.red_three_full_set_bonus
        elif rules.red_three_full_set_shortfall is FullSetShortfall.NEGATIVE:
            return -rules.red_three_full_set_bonus
    if rules.red_three_rule is RedThreeRule.MELD_NEG:
        return base if melds > 0 else -base
    if rules.red_three_rule is RedThreeRule.CANASTA_NEG:
        return base if canastas > 0 else -base
    return base if canastas > 0 else 0


def score_side(rules: CanastaRules, side: SideDeal, *, went_out: bool, deal: FinishedDeal) -> SideScore:
    """rules S1-S5 for one side."""
    canastas: dict[str, int] = {}
    for meld in side.melds:
        bonus = _canasta_bonus(rules, meld)
        if bonus is None:
            continue
        kind, points = bonus
        canastas[kind] = canastas.get(kind, 0) + points
        if rules.sevens_bonus and meld.kind is MeldKind.RANK and meld.rank == "7":
            canastas["sevens"] = canastas.get("sevens", 0) + rules.sevens_bonus
    canasta_count = sum(1 for meld in side.melds if meld.is_canasta)
    melded = sum(meld.points for meld in side.melds)
    if rules.no_canasta_negative and canasta_count == 0:
        melded = -melded
    going_out = 0
    if went_out:
        going_out = rules.out_bonus
        if deal.concealed and (not deal.partner_had_melded or rules.concealed_if_partner_melded):
            going_out += rules.concealed_bonus
        if deal.double_out:
            going_out += rules.double_go_out_bonus
    hand = sum(
        hand_points(cards, black_three=rules.black_three_in_hand, red_three=rules.red_three_in_hand)
        for cards in side.hands
    )
    return SideScore(
        melded=melded,
        canasta_bonus=sum(canastas.values()),
        red_threes=red_three_score(
            rules, len(side.red_threes), melds=len(side.melds), canastas=canasta_count
        ),
        going_out=going_out,
        hand=hand,
        canastas=canastas,
    )


def game_standing(rules: CanastaRules, totals: Sequence[int]) -> tuple[bool, int | None, int | None]:
    """rules W1-W3: (is the game over, the winning side, its margin over the runner-up)."""
    if max(totals) < rules.target:
        return False, None, None
    ranked = sorted(range(len(totals)), key=lambda side: -totals[side])
    best, second = ranked[0], ranked[1]
    if totals[best] == totals[second]:
        return False, None, None
    return True, best, totals[best] - totals[second]


def _check(deal: FinishedDeal) -> None:
    """The deal could have happened: card counts (1.1), melds (section 3, M4, M5), red threes,
    going out (G1, G2, G5, G7) or the stock (G9). Raises InvalidDealError or InvalidMeldError."""
    rules = deal.rules
    if len(deal.scores) != len(deal.sides):
        raise InvalidDealError("one score per side", code="wrong_side_count")
    if deal.went_out is None and not deal.stock_exhausted:
        raise InvalidDealError("nobody went out and the stock did not run out", code="deal_not_finished")
    if deal.went_out is not None and deal.stock_exhausted:
        raise InvalidDealError("a side went out, so the stock did not end the deal", code="impossible_deal")
    counts: Counter[str] = Counter()
    for side in deal.sides:
        for meld in side.melds:
            counts.update(card.code for card in meld.cards)
        counts.update(card.code for card in side.red_threes)
        for hand in side.hands:
            counts.update(card.code for card in hand)
    if deal.final_discard is not None:
        counts[deal.final_discard.code] += 1
    for code, count in counts.items():
        if count > copies(code, rules.decks, rules.jokers):
            raise InvalidDealError(f"{count} x {code}: the packs hold fewer", code="too_many_copies")
    for index, side in enumerate(deal.sides):
        if any(not card.is_red_three for card in side.red_threes):
            raise InvalidDealError("only red threes are laid out as red threes", code="not_a_red_three")
        for meld in side.melds:
            if meld.kind is MeldKind.BLACK_THREES and deal.went_out != index:
                raise InvalidDealError(
                    "black threes are melded only by the player going out (M4)",
                    code="black_threes_not_going_out",
                )
            if (
                meld.kind is MeldKind.BLACK_THREES
                and deal.final_discard is not None
                and not rules.black_three_final_discard
            ):
                raise InvalidDealError(
                    "after black threes every card is melded (G5)", code="black_threes_final_discard"
                )
    if deal.went_out is None:
        return
    if not 0 <= deal.went_out < len(deal.sides):
        raise InvalidDealError(
            f"no side {deal.went_out + 1}: the game has {len(deal.sides)}", code="wrong_side_count"
        )
    out = deal.sides[deal.went_out]
    if not 0 <= deal.out_player < len(out.hands):
        raise InvalidDealError("no such player on the side", code="wrong_player_count")
    if out.hands[deal.out_player]:
        raise InvalidDealError("the player who went out holds cards", code="out_player_holds_cards")
    if sum(1 for meld in out.melds if meld.is_canasta) < rules.canastas_to_go_out:
        raise InvalidDealError(
            f"going out needs {rules.canastas_to_go_out} canasta(s) (G2)", code="not_enough_canastas"
        )
    if deal.concealed and not any(meld.is_canasta for meld in out.melds):
        raise InvalidDealError("a concealed going out lays a canasta (G6)", code="concealed_without_canasta")
    if deal.double_out:
        if not rules.double_go_out or len(out.hands) < 2:
            raise InvalidDealError("no double going out in this game (G7)", code="double_out_not_allowed")
        if any(out.hands):
            raise InvalidDealError(
                "after a double going out both hands are empty", code="out_player_holds_cards"
            )


def score_finished(deal: FinishedDeal) -> DealScore:
    """Score a finished deal given as data (rules 7, 8), after :func:`_check`."""
    _check(deal)
    rules = deal.rules
    sides = tuple(
        score_side(rules, side, went_out=deal.went_out == index, deal=deal)
        for index, side in enumerate(deal.sides)
    )
    totals = tuple(before + side.total for before, side in zip(deal.scores, sides, strict=True))
    basis = totals if rules.opening_basis is OpeningBasis.CUMULATIVE else tuple(side.total for side in sides)
    over, winner, margin = game_standing(rules, totals)
    return DealScore(
        sides=sides,
        totals_before=deal.scores,
        totals=totals,
        next_requirements=tuple(opening_requirement(rules, score) for score in basis),
        is_game_over=over,
        winner=winner,
        margin=margin,
    )


def finished_deal(state: DealState) -> FinishedDeal:
    """The data of a finished engine deal, for :func:`score_finished`."""
    if state.phase is not Phase.FINISHED:
        raise InvalidDealError("the deal is not over", code="deal_not_finished")
    sides: list[SideDeal] = []
    for side in range(state.side_count):
        seats = state.seats_of(side)
        sides.append(
            SideDeal(state.melds[side], state.red_threes[side], tuple(state.hands[seat] for seat in seats))
        )
    went_out = None if state.went_out is None else state.seat_sides[state.went_out]
    out_player = (
        0
        if state.went_out is None
        else state.seats_of(state.seat_sides[state.went_out]).index(state.went_out)
    )
    return FinishedDeal(
        rules=state.rules,
        scores=state.scores,
        sides=tuple(sides),
        went_out=went_out,
        out_player=out_player,
        concealed=state.concealed,
        partner_had_melded=state.partner_had_melded,
        double_out=state.double_out,
        stock_exhausted=state.end_reason is EndReason.STOCK_EXHAUSTED,
    )


def score_deal(state: DealState) -> DealScore:
    """Score a deal the engine played to its end."""
    return score_finished(finished_deal(state))


def melds_from_cards(rules: CanastaRules, groups: Sequence[Sequence[Card]]) -> tuple[Meld, ...]:
    """Melds of one side from card lists, each checked as a new meld (section 3, M5)."""
    built = [new_meld(rules, number, group) for number, group in enumerate(groups, start=1)]
    checked: list[Meld] = []
    for meld in sorted(built, key=lambda meld: not meld.is_canasta):
        check_rank_limit(rules, checked, meld.kind, meld.rank)
        checked.append(meld)
    return tuple(built)


__all__ = [
    "DealScore",
    "FinishedDeal",
    "SideDeal",
    "SideScore",
    "finished_deal",
    "game_standing",
    "melds_from_cards",
    "red_three_score",
    "score_deal",
    "score_finished",
]
