"""rules/canasta.md sections 3 and 4: melds, canastas and the opening (M1-M12, O1-O9), and the
opening vectors O-a..O-i of section 11. The rule's number is in each test's name."""

from __future__ import annotations

import pytest

from games.canasta import (
    Action,
    Addition,
    Discard,
    Draw,
    Meld,
    TakePile,
    apply,
    opening_requirement,
    preset,
)
from games.canasta.melds import CanastaKind, MeldKind, classify, extend, new_meld
from games.canasta.state import DealState, Phase, Stage
from games.errors import GameError
from tests.games.canasta.helpers import Deck, pick, position, refused, run

CLASSIC4 = preset("classic4")
RU4 = preset("ru4")


def meld_code(rules_name: str, codes: str) -> str:
    """The code that refuses ``codes`` as a new meld, or ``"ok"``."""
    try:
        classify(preset(rules_name), Deck()(codes))
    except GameError as error:
        return error.code
    return "ok"


def laid(state: DealState, action: Action) -> DealState:
    return apply(state, action)[0]


def test_rule_M1_three_or_more_of_one_natural_rank_suits_irrelevant() -> None:
    assert meld_code("classic4", "KS KH KS") == "ok"
    assert meld_code("classic4", "KS KH") == "meld_too_short"
    assert meld_code("classic4", "KS KH QS") == "mixed_ranks"
    # the melds belong to the side: the partner (seat 2) adds to the meld seat 0 laid
    state = position("classic4", hands={2: "KD 5S 6S"}, melds={0: ["KS KH KC"]}, turn=2, stage=Stage.MELD)
    after = laid(state, Meld(2, (), (Addition(1, pick(state, 2, "KD")),)))
    assert len(after.melds[0][0].cards) == 4


def test_rule_M2_wild_limit_LE_and_LT() -> None:
    assert meld_code("classic4", "QS QH 2S 2H") == "ok"  # LE (001 L13)
    assert meld_code("ru4", "QS QH 2S 2H") == "too_many_wild"  # LT (002 §5)
    assert meld_code("classic4", "2S 2H JK QS QH") == "too_many_wild"
    for codes in ("QS QH 2S", "KS KH KD 2S JK", "4S 4H 4D 4C 2S 2H"):
        assert meld_code("ru4", codes) == "ok"
    assert meld_code("classic4", "QS 2S 2H") == "too_few_naturals"


def test_rule_M3_max_wild_per_meld() -> None:
    assert meld_code("classic4", "QS QH QD QC 2S 2H 2D") == "ok"
    assert meld_code("classic4", "QS QH QD QC 2S 2H 2D JK") == "too_many_wild"
    assert meld_code("pl3deck", "QS QH QD 2S 2H 2D") == "too_many_wild"
    assert meld_code("samba", "QS QH QD QC 2S 2H") == "ok"


def test_rule_M4_threes() -> None:
    assert meld_code("classic4", "3H 3D 3H") == "red_three_not_meldable"
    assert meld_code("classic4", "3S 3C 2S") == "wild_with_threes"  # a wild card never stands for a three
    assert meld_code("classic4", "3S 3C 3S") == "ok"
    # a meld of black threes only in the turn its player goes out
    state = position("classic4", hands={0: "3S 3C 3S KD QD"}, melds={0: [run("9", 7)]}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "3S 3C 3S"),))) == "black_threes_only_going_out"


def test_rule_M5_one_meld_per_rank_and_a_second_only_after_a_canasta() -> None:
    state = position("classic4", hands={0: "KD KD KC 5S"}, melds={0: ["KS KH KC"]}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "KD KD KC"),))) == "rank_already_melded"
    three_packs = position("pl3deck", hands={0: "KD KD KC 5S 6S"}, melds={0: ["KS KH KC"]}, stage=Stage.MELD)
    assert refused(three_packs, Meld(0, (pick(three_packs, 0, "KD KD KC"),))) == "rank_already_melded"
    done = position("pl3deck", hands={0: "KD KD KC 5S 6S"}, melds={0: [run("K", 7)]}, stage=Stage.MELD)
    after = laid(done, Meld(0, (pick(done, 0, "KD KD KC"),)))
    assert [meld.rank for meld in after.melds[0]] == ["K", "K"]


def test_rule_M6_canasta_kinds_judged_on_the_final_composition() -> None:
    deck = Deck()
    natural = new_meld(CLASSIC4, 1, deck(run("9", 7)))
    assert natural.canasta_kind is CanastaKind.NATURAL
    mixed = extend(CLASSIC4, natural, deck("2S"))
    assert mixed.canasta_kind is CanastaKind.MIXED
    assert new_meld(CLASSIC4, 2, deck(run("8", 6))).canasta_kind is None


def test_rule_M7_cards_may_still_be_added_to_a_canasta() -> None:
    deck = Deck()
    canasta = new_meld(CLASSIC4, 1, deck(run("9", 5) + " 2S 2H"))
    bigger = extend(CLASSIC4, canasta, deck("9S JK"))
    assert len(bigger.cards) == 9 and bigger.wild_count == 3
    with pytest.raises(GameError) as caught:
        extend(CLASSIC4, bigger, deck("2D"))  # a fourth wild card breaks M3
    assert caught.value.code == "too_many_wild"


def test_rule_M8_never_add_to_an_opponents_meld() -> None:
    state = position(
        "classic4", hands={0: "KD 5S 6S"}, melds={0: ["AS AH AD"], 1: ["KS KH KC"]}, stage=Stage.MELD
    )
    assert refused(state, Meld(0, (), (Addition(2, pick(state, 0, "KD")),))) == "not_your_meld"


def test_rule_M9_add_requires_own_meld_option() -> None:
    rules = preset("ru4", {"addRequiresOwnMeld": True})
    state = position(rules, hands={2: "KD 5S 6S 7S 7H 7D"}, melds={0: ["KS KH KC"]}, turn=2, stage=Stage.MELD)
    add = Meld(2, (), (Addition(1, pick(state, 2, "KD")),))
    assert refused(state, add) == "own_meld_required"
    after = laid(state, Meld(2, (pick(state, 2, "7S 7H 7D"),)))
    assert laid(after, add).melds[0][0].cards[-1].code == "KD"
    # without the option the partner adds at once
    plain = position(RU4, hands={2: "KD 5S 6S"}, melds={0: ["KS KH KC"]}, turn=2, stage=Stage.MELD)
    assert len(laid(plain, Meld(2, (), (Addition(1, pick(plain, 2, "KD")),))).melds[0][0].cards) == 4


def test_rule_M10_melded_cards_never_go_back_to_a_hand() -> None:
    state = position("classic4", hands={0: "5S 6S 7S"}, melds={0: ["KS KH KC"]}, stage=Stage.MELD)
    melded = state.melds[0][0].cards[0]
    assert refused(state, Discard(0, melded)) == "card_not_held"
    assert refused(state, Meld(0, ((melded, *pick(state, 0, "5S 6S")),))) == "card_not_held"


def test_rule_M11_joker_canasta_laid_at_once() -> None:
    assert meld_code("classic4", "JK JK JK JK 2S 2H 2D") == "wild_only_meld"
    rules = preset("ru4", {"jokerCanasta": True})
    kind, _, _ = classify(rules, Deck()("JK JK JK JK 2S 2H 2D"))
    assert kind is MeldKind.JOKER
    assert meld_code("ru4", "JK JK JK") == "wild_only_meld"
    state = position(rules, hands={0: "JK JK JK JK 2S 2H 2D 9S"}, melds={0: ["KS KH KC"]}, stage=Stage.MELD)
    # it counts as a canasta for going out: laid, the 9 is the final discard
    after = laid(state, Meld(0, (pick(state, 0, "JK JK JK JK 2S 2H 2D"),)))
    assert after.melds[0][1].canasta_kind is CanastaKind.JOKER
    gone = laid(after, Discard(0, pick(after, 0, "9S")[0]))
    assert gone.phase is Phase.FINISHED and gone.went_out == 0
    with pytest.raises(GameError) as caught:  # never built up
        extend(rules, after.melds[0][1], Deck()("2C"))
    assert caught.value.code == "meld_closed"


def test_rule_M12_sequences_and_sambas_in_three_pack_presets() -> None:
    assert meld_code("pl3deck", "8S 9S TS JS") == "ok"
    assert meld_code("pl3deck", "QS KS AS") == "ok"
    assert meld_code("pl3deck", "AS 4S 5S") == "mixed_ranks"  # ace high only
    assert meld_code("pl3deck", "8S 9S 2S") == "mixed_ranks"  # no wild cards
    assert meld_code("pl3deck", "8S 9H TS") == "mixed_ranks"
    assert meld_code("classic4", "8S 9S TS") == "mixed_ranks"
    rules = preset("samba")
    deck = Deck()
    sequence = new_meld(rules, 1, deck("8S 9S TS JS QS KS"))
    samba = extend(rules, sequence, deck("AS"))
    assert samba.canasta_kind is CanastaKind.SAMBA and samba.is_canasta
    with pytest.raises(GameError) as caught:
        extend(rules, samba, deck("7S"))
    assert caught.value.code == "meld_closed"


def test_rule_O1_a_side_not_open_neither_melds_below_the_minimum_nor_adds() -> None:
    state = position("classic4", hands={0: "KS KH KD AS AH AD 5S 5H 5D 9S 8S"}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "KS KH KD"),))) == "opening_minimum_not_met"
    assert refused(state, Meld(0, (), (Addition(1, pick(state, 0, "KS")),))) == "no_such_meld"
    opened = laid(state, Meld(0, (pick(state, 0, "AS AH AD"),)))
    assert opened.opened[0]
    # once open, a small meld is fine
    assert laid(opened, Meld(0, (pick(opened, 0, "5S 5H 5D"),))).melds[0][1].points == 15


def test_rule_O2_one_player_one_turn_sums_his_melds() -> None:
    state = position("classic4", hands={0: "KS KH KD 9S 9H 9D 5S 6S"}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "KS KH KD"),))) == "opening_minimum_not_met"
    after = laid(state, Meld(0, (pick(state, 0, "KS KH KD"), pick(state, 0, "9S 9H 9D"))))
    assert after.opened[0] and len(after.melds[0]) == 2
    # the partner's melds later in the same deal need no minimum
    assert after.requirements[0].minimum == 50 and after.opened[0]


def test_rule_O3_minimum_from_the_cumulative_score_or_the_previous_deal() -> None:
    state = position("classic4", hands={0: "AS AH AD 5S 6S"}, scores=[1500, 0], stage=Stage.MELD)
    assert state.requirements[0].minimum == 90
    assert refused(state, Meld(0, (pick(state, 0, "AS AH AD"),))) == "opening_minimum_not_met"
    rules = preset("kurnik2", {"openingBasis": "PREVIOUS_HAND"})
    from games.canasta import start_deal
    from tests.games.canasta.helpers import shuffled

    dealt, _ = start_deal(rules, shuffled(rules, 5), scores=[4000, 0], previous_hand_scores=[-20, 900])
    assert [requirement.minimum for requirement in dealt.requirements] == [15, 50]


def test_rule_O4_only_card_values_count_vector_O_e() -> None:
    # O-e: 5 5 5 (15) with two red threes laid: 15 < 50
    state = position("classic4", hands={0: "5S 5H 5D 9S"}, red_threes={0: "3H 3D"}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "5S 5H 5D"),))) == "opening_minimum_not_met"
    # a canasta's bonus does not count: seven 4s are 35 points
    state = position("classic4", hands={0: run("4", 7) + " 9S 8S"}, stage=Stage.MELD, turn_drew=True)
    assert refused(state, Meld(0, (pick(state, 0, run("4", 7)),))) == "opening_minimum_not_met"


@pytest.mark.parametrize(
    ("table", "scores", "minimums"),
    [
        (
            "classic4",
            (-5, 0, 995, 1000, 1495, 1500, 2000, 2995, 3000, 4995),
            (15, 50, 50, 50, 50, 90, 90, 90, 120, 120),
        ),
        ("ru4", (-5, 0, 995, 1000, 1500, 2000, 3000, 4000, 4995), (15, 30, 30, 60, 60, 90, 120, 150, 150)),
        (
            "samba",
            (-5, 0, 1000, 2000, 3000, 4000, 5000, 5995, 6000, 7000),
            (15, 30, 60, 90, 120, 150, 150, 150, 200, 200),
        ),
    ],
)
def test_rule_O5_opening_tables(table: str, scores: tuple[int, ...], minimums: tuple[int, ...]) -> None:
    rules = preset(table)
    assert tuple(opening_requirement(rules, score).minimum for score in scores) == minimums


def test_rule_O5_tables_T3_and_T4() -> None:
    t3 = preset("pl4", {"target10000": True})
    assert [opening_requirement(t3, s).minimum for s in (-5, 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 9995)] == [
        15, 30, 60, 90, 120, 120, 150, 150, 180, 180,
    ]  # fmt: skip
    t4 = preset("pl4", {"target7500": True})
    assert [opening_requirement(t4, s).minimum for s in (-5, 0, 1500, 3000, 4995)] == [15, 50, 90, 120, 120]
    assert not opening_requirement(t4, 4995).canasta_at_once and opening_requirement(t4, 5000).canasta_at_once


def test_rule_O6_pile_cards_in_the_opening_vectors_O_b_O_c() -> None:
    hand = "KH KD JK 4S 5S 6S"
    ru4 = position("ru4", hands={0: hand}, pile="7S 7H KS", scores=[2000, 0])
    top = ru4.pile[-1]
    take = TakePile(0, (
        (top, *pick(ru4, 0, "KH KD")),
        (*pick(ru4, 0, "7S 7H"), *pick(ru4, 0, "JK")),
    ))  # fmt: skip
    after = laid(ru4, take)  # O-b: 30 + 60 = 90 at 2000 in ru4
    assert after.opened[0] and sum(meld.points for meld in after.melds[0]) == 90
    classic = position("classic4", hands={0: hand}, pile="7S 7H KS", scores=[2000, 0])
    take = TakePile(0, ((classic.pile[-1], *pick(classic, 0, "KH KD")), (*pick(classic, 0, "7S 7H JK"),)))
    assert refused(classic, take) == "pile_cards_not_allowed"  # O-c: the pile's 7 7 do not count
    best = TakePile(0, ((classic.pile[-1], *pick(classic, 0, "KH KD JK")),))
    assert refused(classic, best) == "opening_minimum_not_met"  # K K K Jkr = 80 < 90


def test_rule_O6_vector_O_d_top_card_and_hand_melds() -> None:
    state = position("classic4", hands={0: "KH KD 9S 9H 9D 5S"}, pile="4C KS")
    after = laid(state, TakePile(0, ((state.pile[-1], *pick(state, 0, "KH KD")), pick(state, 0, "9S 9H 9D"))))
    assert after.opened[0] and sorted(card.code for card in after.hands[0]) == ["4C", "5S"]


def test_rule_O7_concealed_going_out_after_a_stock_draw_needs_no_minimum() -> None:
    state = position("classic4", hands={0: run("4", 7)}, stock="QS 9S")
    drawn = laid(state, Draw(0))
    out = laid(drawn, Meld(0, (pick(drawn, 0, run("4", 7)),)))
    gone = laid(out, Discard(0, pick(out, 0, "QS")[0]))
    assert gone.phase is Phase.FINISHED and gone.concealed  # E34
    # the same meld without going out is refused: the minimum applies
    more = position("classic4", hands={0: run("4", 7) + " 8S"}, stock="QS 9S")
    drawn = laid(more, Draw(0))
    assert refused(drawn, Meld(0, (pick(drawn, 0, run("4", 7)),))) == "opening_minimum_not_met"


def test_rule_O8_vector_O_h_a_canasta_laid_at_once_from_5000_in_the_7500_game() -> None:
    rules = preset("pl4", {"target7500": True})
    state = position(rules, hands={0: run("Q", 7) + " KS KH KD 5S 6S"}, scores=[5100, 0], stage=Stage.MELD)
    assert (
        refused(state, Meld(0, (pick(state, 0, "QS QH QD"), pick(state, 0, "KS KH KD"))))
        == "opening_needs_canasta"
    )
    after = laid(state, Meld(0, (pick(state, 0, run("Q", 7)),)))
    assert after.opened[0]


def test_rule_O9_vectors_O_f_O_g_samba_opening_needs_three_naturals() -> None:
    state = position("samba", hands={0: "AS AH JK KS KH QS QH 2S 5S 6S"}, stage=Stage.MELD)
    assert refused(state, Meld(0, (pick(state, 0, "AS AH JK"),))) == "opening_needs_naturals"
    after = laid(state, Meld(0, (pick(state, 0, "KS KH JK"), pick(state, 0, "QS QH 2S"))))
    assert after.opened[0]


def test_section_11_vector_O_a_ru4_at_2000() -> None:
    state = position("ru4", hands={0: "JS JH JK QS QH QD 5S"}, scores=[2000, 0], stage=Stage.MELD)
    after = laid(state, Meld(0, (pick(state, 0, "JS JH JK"), pick(state, 0, "QS QH QD"))))
    assert after.opened[0] and sum(meld.points for meld in after.melds[0]) == 100


def test_section_11_vector_O_i_the_10000_game() -> None:
    rules = preset("pl4", {"target10000": True})
    assert [opening_requirement(rules, s).minimum for s in (995, 1000, 6995, 7000)] == [30, 60, 150, 180]
