"""Melds and canastas (rules/canasta.md section 3): what a group of cards may be.

:func:`classify` says what a new group is or refuses it; :func:`extend` checks cards added to a
meld. Both raise :class:`~games.canasta.errors.InvalidMeldError` with the rule's code.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from games.canasta.cards import NATURAL_RANKS, Card
from games.canasta.errors import InvalidMeldError
from games.canasta.rules import CanastaRules, WildRule

CANASTA_SIZE = 7


class MeldKind(Enum):
    RANK = "rank"  # M1: three or more of one natural rank, wild cards allowed (M2, M3)
    BLACK_THREES = "black_threes"  # M4: only when going out
    JOKER = "joker"  # M11: seven wild cards laid at once
    SEQUENCE = "sequence"  # M12: same suit, consecutive; seven cards = a samba


class CanastaKind(Enum):
    NATURAL = "natural"
    MIXED = "mixed"
    JOKER = "joker"
    SAMBA = "samba"


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table: its side's id for it, its kind, its cards in the order laid."""

    meld_id: int
    kind: MeldKind
    cards: tuple[Card, ...]
    rank: str | None = None
    suit: str | None = None

    @property
    def wild_count(self) -> int:
        return sum(1 for card in self.cards if card.is_wild)

    @property
    def natural_count(self) -> int:
        return len(self.cards) - self.wild_count

    @property
    def points(self) -> int:
        """rules S1: the card points of the meld (a wild card keeps its own value, 1.3)."""
        return sum(card.points for card in self.cards)

    @property
    def canasta_kind(self) -> CanastaKind | None:
        """rules M6, M11, M12: what canasta this meld is, or None while it is not one.

        The kind is judged on the final composition: a wild card added to a natural canasta
        makes it mixed.
        """
        if self.kind is MeldKind.RANK:
            if len(self.cards) < CANASTA_SIZE:
                return None
            return CanastaKind.NATURAL if self.wild_count == 0 else CanastaKind.MIXED
        if self.kind is MeldKind.JOKER:
            return CanastaKind.JOKER
        if self.kind is MeldKind.SEQUENCE and len(self.cards) == CANASTA_SIZE:
            return CanastaKind.SAMBA
        return None

    @property
    def is_canasta(self) -> bool:
        """A complete canasta, joker canasta or samba: each counts for going out (G2)."""
        return self.canasta_kind is not None


def _check_wild_limits(rules: CanastaRules, naturals: int, wilds: int) -> None:
    """rules M2 (``wildRule``) and M3 (``maxWild``); both imply at least two naturals."""
    if naturals < 2:
        raise InvalidMeldError("a meld needs at least two natural cards (M2)", code="too_few_naturals")
    if rules.wild_rule is WildRule.LE and wilds > naturals:
        raise InvalidMeldError("never more wild cards than naturals (M2, LE)", code="too_many_wild")
    if rules.wild_rule is WildRule.LT and wilds >= naturals:
        raise InvalidMeldError("fewer wild cards than naturals (M2, LT)", code="too_many_wild")
    if wilds > rules.max_wild:
        raise InvalidMeldError(f"at most {rules.max_wild} wild cards in a meld (M3)", code="too_many_wild")


def _is_sequence(cards: Sequence[Card]) -> tuple[bool, str | None]:
    suits = {card.suit for card in cards}
    if len(suits) != 1 or any(not card.is_natural for card in cards):
        return False, None
    positions = sorted(NATURAL_RANKS.index(card.rank) for card in cards)
    consecutive = all(b == a + 1 for a, b in itertools.pairwise(positions))
    return consecutive, next(iter(suits))


def classify(rules: CanastaRules, cards: Sequence[Card]) -> tuple[MeldKind, str | None, str | None]:
    """What a new group of cards is: (kind, rank, suit), or InvalidMeldError.

    Rules M1 (three of a natural rank), M2/M3 (wild limits), M4 (red threes never, black threes
    alone and without wild cards, a wild card never stands for a three), M11 (joker canasta),
    M12 (sequences). Codes: ``meld_too_short``, ``red_three_not_meldable``,
    ``wild_with_threes``, ``wild_only_meld``, ``too_few_naturals``, ``too_many_wild``,
    ``mixed_ranks``, ``sequence_too_long``.
    """
    if len(cards) < 3:
        raise InvalidMeldError("a meld has at least three cards (M1)", code="meld_too_short")
    if any(card.is_red_three for card in cards):
        raise InvalidMeldError("red threes are never melded (M4)", code="red_three_not_meldable")
    wilds = sum(1 for card in cards if card.is_wild)
    black_threes = sum(1 for card in cards if card.is_black_three)
    if black_threes:
        if black_threes != len(cards):
            raise InvalidMeldError(
                "a meld of black threes holds black threes only (M4)", code="wild_with_threes"
            )
        return MeldKind.BLACK_THREES, "3", None
    if wilds == len(cards):
        if rules.joker_canasta and len(cards) == CANASTA_SIZE:
            return MeldKind.JOKER, None, None
        raise InvalidMeldError("a meld needs natural cards (M2, M11)", code="wild_only_meld")
    ranks = {card.rank for card in cards if not card.is_wild}
    if len(ranks) == 1:
        _check_wild_limits(rules, len(cards) - wilds, wilds)
        return MeldKind.RANK, next(iter(ranks)), None
    if rules.sequences and wilds == 0 and len(ranks) == len(cards):
        is_sequence, suit = _is_sequence(cards)
        if is_sequence:
            if len(cards) > CANASTA_SIZE:
                raise InvalidMeldError("a samba has seven cards (M12)", code="sequence_too_long")
            return MeldKind.SEQUENCE, None, suit
    raise InvalidMeldError("a meld is of one natural rank (M1)", code="mixed_ranks")


def extend(rules: CanastaRules, meld: Meld, cards: Sequence[Card]) -> Meld:
    """``meld`` with ``cards`` added (M6, M7: canastas may still grow), or InvalidMeldError.

    Codes: ``meld_closed`` (a samba or a joker canasta takes nothing, M11, M12),
    ``red_three_not_meldable``, ``wrong_rank``, ``too_many_wild``, ``sequence_broken``.
    """
    if not cards:
        raise InvalidMeldError("nothing to add", code="empty_meld")
    if any(card.is_red_three for card in cards):
        raise InvalidMeldError("red threes are never melded (M4)", code="red_three_not_meldable")
    combined = meld.cards + tuple(cards)
    if meld.kind is MeldKind.JOKER or (meld.kind is MeldKind.SEQUENCE and len(meld.cards) >= CANASTA_SIZE):
        raise InvalidMeldError("nothing may be added to a samba or a joker canasta", code="meld_closed")
    if meld.kind is MeldKind.BLACK_THREES:
        if not all(card.is_black_three for card in cards):
            raise InvalidMeldError("only black threes join black threes (M4)", code="wrong_rank")
        return Meld(meld.meld_id, meld.kind, combined, meld.rank)
    if meld.kind is MeldKind.SEQUENCE:
        is_sequence, suit = _is_sequence(combined)
        if not is_sequence or len({card.rank for card in combined}) != len(combined) or suit != meld.suit:
            raise InvalidMeldError(
                "a sequence grows by the next card of its suit (M12)", code="sequence_broken"
            )
        if len(combined) > CANASTA_SIZE:
            raise InvalidMeldError("a samba has seven cards (M12)", code="sequence_too_long")
        ordered = tuple(sorted(combined, key=lambda card: NATURAL_RANKS.index(card.rank)))
        return Meld(meld.meld_id, meld.kind, ordered, None, meld.suit)
    for card in cards:
        if not card.is_wild and card.rank != meld.rank:
            raise InvalidMeldError(f"a {card.code} does not join a meld of {meld.rank}", code="wrong_rank")
    wilds = sum(1 for card in combined if card.is_wild)
    _check_wild_limits(rules, len(combined) - wilds, wilds)
    return Meld(meld.meld_id, meld.kind, combined, meld.rank)


def new_meld(rules: CanastaRules, meld_id: int, cards: Sequence[Card]) -> Meld:
    """A new meld from ``cards`` (see :func:`classify`)."""
    kind, rank, suit = classify(rules, cards)
    ordered = tuple(cards)
    if kind is MeldKind.SEQUENCE:
        ordered = tuple(sorted(cards, key=lambda card: NATURAL_RANKS.index(card.rank)))
    return Meld(meld_id, kind, ordered, rank, suit)


def check_rank_limit(rules: CanastaRules, melds: Sequence[Meld], kind: MeldKind, rank: str | None) -> None:
    """rules M5: one meld per natural rank; where ``meldsPerRank`` is 2 a second meld of a rank
    only once the first is a complete canasta. Code ``rank_already_melded``."""
    if kind is not MeldKind.RANK:
        if kind is MeldKind.BLACK_THREES and any(m.kind is MeldKind.BLACK_THREES for m in melds):
            raise InvalidMeldError("the side has its black threes down", code="rank_already_melded")
        return
    same = [meld for meld in melds if meld.kind is MeldKind.RANK and meld.rank == rank]
    if not same:
        return
    if len(same) >= rules.melds_per_rank or not all(meld.is_canasta for meld in same):
        raise InvalidMeldError(f"the side already has a meld of {rank} (M5)", code="rank_already_melded")
