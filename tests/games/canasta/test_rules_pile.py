"""rules/canasta.md section 5: taking the discard pile (P1-P13) and the pile vectors P-a..P-i
of section 11. The rule's number is in each test's name."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.canasta import Addition, CanastaRules, Discard, Meld, TakePile, apply, legal_actions, preset
from games.canasta.state import DealState, Stage
from tests.games.canasta.helpers import pick, position, refused

OPEN = {0: ["AS AH AD"]}


def take_group(state: DealState, codes: str) -> TakePile:
    """Take the pile melding its top card with ``codes`` from the hand (or the pile)."""
    return TakePile(0, ((state.pile[-1], *pick(state, 0, codes)),))


def take_adding(state: DealState, meld_id: int, codes: str = "") -> TakePile:
    extra = pick(state, 0, codes) if codes else ()
    return TakePile(0, (), (Addition(meld_id, (state.pile[-1], *extra)),))


def test_rule_P1_minimum_pile_size() -> None:
    one = "KD"
    classic = position("classic4", hands={0: "KS KH 5S 6S"}, pile=one, melds=OPEN)
    assert apply(classic, take_group(classic, "KS KH"))[0].melds[0][1].rank == "K"
    ru4 = position("ru4", hands={0: "KS KH 5S"}, pile=one, melds=OPEN)
    assert refused(ru4, take_group(ru4, "KS KH")) == "pile_too_small"


def test_rule_P2_a_black_three_on_top_blocks_everyone() -> None:
    state = position("classic4", hands={0: "3S 3C 5S 6S"}, pile="9S 3S", melds=OPEN)
    assert refused(state, take_group(state, "3S 3C")) == "pile_blocked_black_three"
    # once covered, the block ends: a black three does not freeze
    covered = position("classic4", hands={0: "KS KH 5S 6S"}, pile="3S KD", melds=OPEN)
    assert not covered.is_pile_frozen
    assert apply(covered, take_group(covered, "KS KH"))[0].stage is Stage.MELD


def test_rule_P3_wild_on_top_forbidden_or_beneath_pair() -> None:
    classic = position("classic4", hands={0: "JH JD 5S 6S"}, pile="9S JS 2C", melds=OPEN)
    assert refused(
        classic, TakePile(0, ((classic.pile[-2], *pick(classic, 0, "JH"), classic.pile[-1]),))
    ) == ("pile_blocked_wild")
    ru4 = position("ru4", hands={0: "JH 5S 6S 7S"}, pile="9S JS 2C", melds=OPEN)
    assert (
        refused(ru4, TakePile(0, ((ru4.pile[-1], *pick(ru4, 0, "5S 6S")),)))
        == "wild_on_top_needs_beneath_pair"
    )
    after, _ = apply(ru4, TakePile(0, ((ru4.pile[-2], *pick(ru4, 0, "JH"), ru4.pile[-1]),)))
    assert [card.code for card in after.melds[0][1].cards] == ["JS", "JH", "2C"]


def test_rule_P4_a_red_three_on_top_cannot_be_taken() -> None:
    state = position("kurnik2", hands={0: "3H 3D 5S 6S"}, pile="9S 3H", melds=OPEN)
    assert refused(state, take_group(state, "3H 3D")) == "pile_blocked_red_three"


def test_rule_P5_freeze_until_taken_or_covered() -> None:
    taken = position("classic4", hands={0: "9H JK 5S"}, pile="5C 2C 9D", melds={0: ["9S 9C 9S"]})
    assert taken.is_pile_frozen
    assert refused(taken, take_adding(taken, 1)) == "pile_frozen_needs_pair"
    covered = position("ru4", hands={0: "5S 6S 7S"}, pile="5C 2C 9D", melds={0: ["9S 9C 9S"]})
    assert not covered.is_pile_frozen
    assert apply(covered, take_adding(covered, 1))[0].stage is Stage.MELD
    # a red three in the pile freezes it too (001 L22)
    assert position("kurnik2", hands={0: "5S"}, pile="3H 9D").is_pile_frozen


def test_rule_P6_frozen_or_not_open_needs_two_naturals_from_the_hand() -> None:
    frozen = position("classic4", hands={0: "KS JK 6S 7S"}, pile="2C KD", melds={0: ["KH KC KS"]})
    assert refused(frozen, take_group(frozen, "KS JK")) == "pile_frozen_needs_pair"
    assert refused(frozen, take_adding(frozen, 1)) == "pile_frozen_needs_pair"  # adding is not enough
    pair = position("classic4", hands={0: "KS KH 6S 7S"}, pile="2C KD", melds={0: ["AS AH AD"]})
    assert apply(pair, take_group(pair, "KS KH"))[0].is_pile_frozen is False


def test_rule_P7_side_not_open_completes_its_initial_meld_with_the_top_card() -> None:
    state = position("classic4", hands={0: "KS KH 5S 6S 7S"}, pile="9C KD")
    assert refused(state, take_group(state, "KS KH")) == "opening_minimum_not_met"  # 30 < 50
    rich = position("classic4", hands={0: "KS KH AS AH AD 5S"}, pile="9C KD")
    after, _ = apply(rich, TakePile(0, ((rich.pile[-1], *pick(rich, 0, "KS KH")), pick(rich, 0, "AS AH AD"))))
    assert after.opened[0] and after.melds[0][0].cards[0] == rich.pile[-1]


@pytest.mark.parametrize(("name", "natural_and_wild"), [("classic4", True), ("ru4", False)])
def test_rule_P8_an_open_side_takes_an_unfrozen_pile_three_ways(name: str, natural_and_wild: bool) -> None:
    state = position(name, hands={0: "KS KH JK 5S"}, pile="9C KD", melds={0: ["AS AH AD", "QS QH QD"]})
    assert apply(state, take_group(state, "KS KH"))[0].stage is Stage.MELD  # (a)
    if natural_and_wild:
        assert apply(state, take_group(state, "KS JK"))[0].stage is Stage.MELD  # (b)
    else:
        assert refused(state, take_group(state, "KS JK")) == "pile_take_not_justified"
    queen = position(name, hands={0: "5S 6S"}, pile="9C QC", melds={0: ["QS QH QD"]})
    assert apply(queen, take_adding(queen, 1))[0].melds[0][0].cards[-1].code == "QC"  # (c)


def test_rule_P9_no_take_on_a_canasta_rank_option() -> None:
    melds = {0: ["JS JH JD JC JS 2S 2H"]}
    classic = position("classic4", hands={0: "JH JD 6S"}, pile="5C JC", melds=melds)
    assert apply(classic, take_adding(classic, 1, "JH JD"))[0].stage is Stage.MELD
    pl4 = position("pl4", hands={0: "JH JD 6S"}, pile="5C JC", melds=melds)
    assert refused(pl4, take_adding(pl4, 1, "JH JD")) == "pile_rank_has_canasta"


# P9 with a wild card on top (``wildOnTop`` BENEATH_PAIR): the rank that counts is the rank of
# the natural card directly under the wild, the rank the take melds.
J_CANASTA = {0: ["JS JH JD JC JS 2S 2H"]}


def ru4_with_p9(**options: object) -> CanastaRules:
    return preset("ru4", {"noTakeOnCanastaRank": True, **options})


def take_beneath_pair(state: DealState, codes: str, meld_id: int | None = None) -> TakePile:
    """Take a wild top with the natural under it and ``codes`` from the hand (P3 BENEATH_PAIR),
    as a new meld or added to the side's meld ``meld_id``."""
    cards = (state.pile[-2], *pick(state, 0, codes), state.pile[-1])
    if meld_id is None:
        return TakePile(0, (cards,))
    return TakePile(0, (), (Addition(meld_id, cards),))


def test_rule_P9_wild_on_top_counts_the_rank_beneath_it() -> None:
    state = position(ru4_with_p9(), hands={0: "JH 5S 6S 7S"}, pile="9S JC 2C", melds=J_CANASTA)

    assert refused(state, take_beneath_pair(state, "JH", meld_id=1)) == "pile_rank_has_canasta"
    assert refused(state, take_beneath_pair(state, "JH")) == "pile_rank_has_canasta"
    assert not [action for action in legal_actions(state) if isinstance(action, TakePile)]


def test_rule_P9_wild_on_top_over_another_rank_is_taken() -> None:
    state = position(ru4_with_p9(), hands={0: "KH 5S 6S 7S"}, pile="9S KC 2C", melds=J_CANASTA)

    after, _ = apply(state, take_beneath_pair(state, "KH"))

    assert [card.code for card in after.melds[0][1].cards] == ["KC", "KH", "2C"]
    assert [action for action in legal_actions(state) if isinstance(action, TakePile)]


def test_rule_P9_a_meld_of_the_rank_beneath_that_is_no_canasta_does_not_block() -> None:
    state = position(ru4_with_p9(), hands={0: "JH 5S 6S 7S"}, pile="9S JC 2C", melds={0: ["JS JH JD"]})

    after, _ = apply(state, take_beneath_pair(state, "JH", meld_id=1))

    assert [card.code for card in after.melds[0][0].cards] == ["JS", "JH", "JD", "JC", "JH", "2C"]


def test_rule_P9_off_a_wild_on_top_over_a_canasta_rank_is_taken() -> None:
    state = position("ru4", hands={0: "JH 5S 6S 7S"}, pile="9S JC 2C", melds=J_CANASTA)

    after, _ = apply(state, take_beneath_pair(state, "JH", meld_id=1))

    assert [card.code for card in after.melds[0][0].cards][-3:] == ["JC", "JH", "2C"]
    assert len(after.melds[0][0].cards) == 10


def test_rule_P9_the_opponents_canasta_of_the_rank_beneath_does_not_block() -> None:
    state = position(ru4_with_p9(), hands={0: "JH 5S 6S 7S"}, pile="9S JC 2C", melds={1: J_CANASTA[0]})

    assert apply(state, take_beneath_pair(state, "JH"))[0].stage is Stage.MELD


def test_rule_P9_wild_on_top_over_no_natural_is_refused_by_P3_not_P9() -> None:
    state = position(ru4_with_p9(), hands={0: "JH 5S 6S 7S"}, pile="9S JK 2C", melds=J_CANASTA)

    assert (
        refused(state, TakePile(0, ((state.pile[-1], *pick(state, 0, "JH")),)))
        == "wild_on_top_needs_beneath_pair"
    )


def test_rule_P9_with_P3_forbidden_a_wild_on_top_blocks_first() -> None:
    pl4 = position("pl4", hands={0: "JH 5S 6S 7S"}, pile="9S JC 2C", melds=J_CANASTA)

    assert refused(pl4, take_beneath_pair(pl4, "JH")) == "pile_blocked_wild"


def test_rule_P10_one_card_never_takes_a_one_card_pile() -> None:
    state = position("classic4", hands={0: "5S"}, pile="7C", melds={0: ["7S 7H 7D"]})
    assert refused(state, take_adding(state, 1)) == "one_card_one_card_pile"


def test_rule_P11_the_whole_pile_is_taken() -> None:
    state = position("classic4", hands={0: "KS KH 5S"}, pile="4C 8D 9H QS KD", melds=OPEN)
    after, _ = apply(state, take_group(state, "KS KH"))
    assert after.pile == ()
    assert sorted(card.code for card in after.hands[0]) == ["4C", "5S", "8D", "9H", "QS"]


def test_rule_P12_meld_first_then_the_rest_joins_the_hand_then_meld_and_discard() -> None:
    state = position("classic4", hands={0: "KS KH 8S 8H 5S"}, pile="8D 9H KD", melds=OPEN)
    after, events = apply(state, take_group(state, "KS KH"))
    assert [type(event).__name__ for event in events[:2]] == ["MeldLaid", "PileTaken"]
    melded, _ = apply(after, Meld(0, (pick(after, 0, "8S 8H 8D"),)))  # a pile card melded after the take
    done, _ = apply(melded, Discard(0, pick(melded, 0, "9H")[0]))
    assert [card.code for card in done.hands[0]] == ["5S"]


def test_rule_P13_red_threes_found_in_the_pile_are_laid_out_without_replacement() -> None:
    state = position("kurnik2", hands={0: "KS KH 5S"}, pile="3H 9C KD", melds=OPEN)
    after, _ = apply(state, take_group(state, "KS KH"))
    assert [card.code for card in after.red_threes[0]] == ["3H"]
    assert sorted(card.code for card in after.hands[0]) == ["5S", "9C"]
    assert len(after.stock) == len(state.stock)


Situation = Callable[[str], tuple[DealState, TakePile]]


def _p_a(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "3S 3C 5S 6S"}, pile="9S 3S", melds=OPEN)
    return state, take_group(state, "3S 3C")


def _p_b(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "JH 5S 6S 7S"}, pile="9S JS 2C", melds=OPEN)
    return state, TakePile(0, ((state.pile[-2], *pick(state, 0, "JH"), state.pile[-1]),))


def _p_c(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "KH JK 5S 6S"}, pile="9S KS")
    return state, take_group(state, "KH JK")


def _p_d(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "KH JK 5S 6S"}, pile="9S KS", melds=OPEN)
    return state, take_group(state, "KH JK")


def _p_e(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "5S 6S 7S"}, pile="5C 2C 9D", melds={0: ["9S 9C 9S"]})
    return state, take_adding(state, 1)


def _p_f(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "JH JD 6S"}, pile="5C JC", melds={0: ["JS JH JD JC JS 2S 2H"]})
    return state, take_adding(state, 1, "JH JD")


def _p_g(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "5S"}, pile="7C", melds={0: ["7S 7H 7D"]})
    return state, take_adding(state, 1)


def _p_h(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "5S 6S 9S"}, pile="7C", melds={0: ["7S 7H 7D"]})
    return state, take_adding(state, 1)


def _p_i(name: str) -> tuple[DealState, TakePile]:
    state = position(name, hands={0: "8S 8H 5S"}, pile="5C 8D", melds=OPEN)
    return state, take_group(state, "8S 8H")


VECTORS: dict[str, tuple[Situation, tuple[bool, bool, bool]]] = {
    "P-a": (_p_a, (False, False, False)),
    "P-b": (_p_b, (False, False, True)),
    "P-c": (_p_c, (False, False, False)),
    "P-d": (_p_d, (True, True, False)),
    "P-e": (_p_e, (False, False, True)),
    "P-f": (_p_f, (True, False, True)),
    "P-g": (_p_g, (False, False, False)),
    "P-h": (_p_h, (True, True, False)),
    "P-i": (_p_i, (True, True, True)),
}


@pytest.mark.parametrize("vector", sorted(VECTORS))
@pytest.mark.parametrize("column", [0, 1, 2], ids=["classic4", "pl4", "ru4"])
def test_section_11_pile_vector(vector: str, column: int) -> None:
    situation, expected = VECTORS[vector]
    name = ("classic4", "pl4", "ru4")[column]
    state, action = situation(name)
    if expected[column]:
        after, _ = apply(state, action)
        assert after.turn_took_pile
    else:
        refused(state, action)
