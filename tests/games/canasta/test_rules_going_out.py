"""rules/canasta.md section 6: going out and the end of the deal (G1-G9). The rule's number
is in each test's name."""

from __future__ import annotations

from games.canasta import (
    Addition,
    AnswerPartner,
    AskPartner,
    DeclineDoubleGoOut,
    DeclinePile,
    Discard,
    Draw,
    EndTurn,
    Meld,
    TakePile,
    apply,
    legal_actions,
    score_deal,
)
from games.canasta.events import DealEnded, StockExhausted, WentOut
from games.canasta.state import DealState, EndReason, Phase, Stage
from tests.games.canasta.helpers import pick, position, refused, run

CANASTA = {0: [run("9", 7)]}


def test_rule_G1_going_out_by_melding_or_discarding_ends_the_deal_at_once() -> None:
    state = position("classic4", hands={0: "KS KH KD", 1: "5S"}, melds=CANASTA, stage=Stage.MELD)
    after, events = apply(state, Meld(0, (pick(state, 0, "KS KH KD"),)))
    assert after.phase is Phase.FINISHED and after.end_reason is EndReason.WENT_OUT
    assert isinstance(events[-1], DealEnded) and any(isinstance(event, WentOut) for event in events)
    score = score_deal(after)
    assert score.sides[0].going_out == 100 and score.sides[1].hand == -5
    discard = position("classic4", hands={0: "KS"}, melds=CANASTA, stage=Stage.MELD)
    assert apply(discard, Discard(0, discard.hands[0][0]))[0].went_out == 0


def test_rule_G2_canastas_needed_to_go_out_sambas_count() -> None:
    two = position("classic2", hands={0: "KS"}, melds=CANASTA, stage=Stage.MELD)
    assert refused(two, Discard(0, two.hands[0][0])) == "not_enough_canastas"
    none = position("classic4", hands={0: "KS"}, melds={0: ["9S 9H 9D"]}, stage=Stage.MELD)
    assert refused(none, Discard(0, none.hands[0][0])) == "not_enough_canastas"
    samba = position(
        "pl3deck", hands={0: "KS"}, melds={0: [run("9", 7), "8S 9S TS JS QS KS AS"]}, stage=Stage.MELD
    )
    assert apply(samba, Discard(0, samba.hands[0][0]))[0].went_out == 0
    # the canasta may be completed in the going-out turn itself
    late = position("classic4", hands={0: "9S 4S"}, melds={0: [run("9", 6)]}, stage=Stage.MELD)
    grown, _ = apply(late, Meld(0, (), (Addition(1, pick(late, 0, "9S")),)))
    assert apply(grown, Discard(0, pick(grown, 0, "4S")[0]))[0].went_out == 0


def test_rule_G3_asking_the_partner_binds_the_answer() -> None:
    state = position("classic4", hands={0: "KS KH KD 9C", 2: "6S"}, melds=CANASTA, stage=Stage.MELD)
    go_out = Meld(0, (pick(state, 0, "KS KH KD"),), (Addition(1, pick(state, 0, "9C")),))
    asked, _ = apply(state, AskPartner(0))
    assert asked.phase is Phase.ASKED and legal_actions(asked) == (
        AnswerPartner(2, True),
        AnswerPartner(2, False),
    )
    assert refused(asked, AnswerPartner(1, True)) == "not_your_turn"
    assert refused(asked, Discard(0, asked.hands[0][0])) == "answer_pending"
    yes, _ = apply(asked, AnswerPartner(2, True))
    assert refused(yes, Discard(0, pick(yes, 0, "9C")[0])) == "must_go_out"
    assert refused(yes, AskPartner(0)) == "already_asked"
    assert apply(yes, go_out)[0].went_out == 0
    no, _ = apply(asked, AnswerPartner(2, False))
    assert refused(no, go_out) == "partner_said_no"
    melded, _ = apply(no, Meld(0, (), (Addition(1, pick(no, 0, "9C")),)))
    # once per turn, before melding; never without a partner; only when able to go out
    assert refused(melded, AskPartner(0)) == "already_asked"
    assert refused(
        position("classic2", hands={0: "KS KH KD 5S"}, melds=CANASTA, stage=Stage.MELD), AskPartner(0)
    ) == ("no_partner_to_ask")
    assert refused(position("classic4", hands={0: "KS QH JD 5S"}, stage=Stage.MELD), AskPartner(0)) == (
        "cannot_go_out_now"
    )


def test_rule_G4_last_card_keep_one_or_skip_discard() -> None:
    classic = position("classic4", hands={0: "KS KH KD 5S"}, melds={0: ["9S 9H 9D"]}, stage=Stage.MELD)
    assert refused(classic, Meld(0, (pick(classic, 0, "KS KH KD"),))) == "must_keep_a_card"
    ru4 = position("ru4", hands={0: "KS KH KD 5S"}, melds={0: ["9S 9H 9D"]}, stage=Stage.MELD)
    melded, _ = apply(ru4, Meld(0, (pick(ru4, 0, "KS KH KD"),)))
    assert refused(melded, Discard(0, melded.hands[0][0])) == "not_enough_canastas"
    passed, _ = apply(melded, EndTurn(0))  # "I cannot discard"
    assert passed.turn == 1 and len(passed.hands[0]) == 1


def test_rule_G5_black_threes_final_discard_option() -> None:
    hand = {0: "3S 3C 3S 4S"}
    classic = position("classic4", hands=hand, melds=CANASTA, stage=Stage.MELD)
    melded, _ = apply(classic, Meld(0, (pick(classic, 0, "3S 3C 3S"),)))
    assert apply(melded, Discard(0, pick(melded, 0, "4S")[0]))[0].went_out == 0  # E20
    pl4 = position("pl4", hands=hand, melds=CANASTA, stage=Stage.MELD)
    assert refused(pl4, Meld(0, (pick(pl4, 0, "3S 3C 3S"),))) == "black_threes_final_discard"
    whole = position("pl4", hands={0: "3S 3C 3S 9C"}, melds=CANASTA, stage=Stage.MELD)
    out, _ = apply(whole, Meld(0, (pick(whole, 0, "3S 3C 3S"),), (Addition(1, pick(whole, 0, "9C")),)))
    assert out.went_out == 0
    # a lone black three may be the final discard
    lone = position("pl4", hands={0: "3C"}, melds=CANASTA, stage=Stage.MELD)
    assert apply(lone, Discard(0, lone.hands[0][0]))[0].went_out == 0


def test_rule_G6_concealed_going_out() -> None:
    def concealed(name: str, partner_melded: bool, laid_before: bool) -> bool:
        melds = {0: ["AS AH AD"]} if partner_melded else None
        state = position(
            name,
            hands={0: run("J", 6) + " JK 6S 6H 6D 4S"},
            melds=melds,
            stage=Stage.MELD,
            turn_drew=True,
            has_laid=(laid_before, False, False, False),
        )
        melded, _ = apply(state, Meld(0, (pick(state, 0, run("J", 6) + " JK"), pick(state, 0, "6S 6H 6D"))))
        out, _ = apply(melded, Discard(0, pick(melded, 0, "4S")[0]))
        return out.concealed

    assert concealed("classic4", partner_melded=False, laid_before=False)  # E15
    assert concealed("classic4", partner_melded=True, laid_before=False)  # 000 L105 (E17)
    assert not concealed("ru4", partner_melded=True, laid_before=False)  # 002 §11.2 (E16)
    assert not concealed("classic4", partner_melded=True, laid_before=True)


def test_rule_G7_double_going_out_option() -> None:
    state = position("pl4", hands={0: "KS", 2: "QS QH QD"}, melds=CANASTA, stage=Stage.MELD)
    out, _ = apply(state, Discard(0, state.hands[0][0]))
    assert out.phase is Phase.DOUBLE_OUT and out.turn == 2
    assert refused(out, Meld(2, (pick(out, 2, "QS QH"),), ())) == "meld_too_short"
    partial = position("pl4", hands={0: "KS", 2: "QS QH QD 5S"}, melds=CANASTA, stage=Stage.MELD)
    partial_out, _ = apply(partial, Discard(0, partial.hands[0][0]))
    assert refused(partial_out, Meld(2, (pick(partial_out, 2, "QS QH QD"),))) == "double_out_all_or_nothing"
    double, _ = apply(out, Meld(2, (pick(out, 2, "QS QH QD"),)))
    assert double.phase is Phase.FINISHED and double.double_out
    assert score_deal(double).sides[0].going_out == 200
    declined, _ = apply(out, DeclineDoubleGoOut(2))
    assert declined.phase is Phase.FINISHED and not declined.double_out
    classic = position("classic4", hands={0: "KS", 2: "QS QH QD"}, melds=CANASTA, stage=Stage.MELD)
    assert apply(classic, Discard(0, classic.hands[0][0]))[0].phase is Phase.FINISHED


def test_rule_G8_going_out_with_the_top_card_only_option() -> None:
    def setup(name: str) -> tuple[DealState, TakePile]:
        state = position(name, hands={0: "KS KH 9C"}, pile="5C 7D KD", melds=CANASTA)
        action = TakePile(
            0,
            ((state.pile[-1], *pick(state, 0, "KS KH")),),
            (Addition(1, pick(state, 0, "9C")),),
            top_card_only=True,
        )
        return state, action

    state, action = setup("pl4")
    after, _ = apply(state, action)
    assert after.went_out == 0 and [card.code for card in after.pile] == ["5C", "7D"]
    assert refused(*setup("classic4")) == "top_card_only_not_allowed"
    short = position("pl4", hands={0: "KS KH 9C 4S"}, pile="5C KD", melds=CANASTA)
    take = TakePile(0, ((short.pile[-1], *pick(short, 0, "KS KH")),), top_card_only=True)
    assert refused(short, take) == "top_card_only_must_go_out"


def test_rule_G9_stock_exhausted() -> None:
    # the last stock card is drawn and discarded: the next player takes the pile or the deal ends
    state = position("classic4", hands={0: "KS QS", 1: "8S 8H 5S 6S"}, stock="8D", melds={1: ["AS AH AD"]})
    drawn, _ = apply(state, Draw(0))
    after, events = apply(drawn, Discard(0, pick(drawn, 0, "8D")[0]))
    assert after.stock == () and any(isinstance(event, StockExhausted) for event in events)
    assert refused(after, Draw(1)) == "stock_empty"
    legal = legal_actions(after)
    assert DeclinePile(1) in legal and any(isinstance(action, TakePile) for action in legal)
    ended, _ = apply(after, DeclinePile(1))
    assert ended.end_reason is EndReason.STOCK_EXHAUSTED and score_deal(ended).sides[0].going_out == 0
    taken, _ = apply(after, TakePile(1, ((after.pile[-1], *pick(after, 1, "8S 8H")),)))
    assert taken.phase is Phase.PLAYING
    # the last stock card a red three: laid out, no discard, the deal ends
    red = position("classic4", hands={0: "KS QS JS"}, stock="3H")
    drawn, _ = apply(red, Draw(0))
    assert refused(drawn, Discard(0, drawn.hands[0][0])) == "no_discard_after_last_red_three"
    assert apply(drawn, EndTurn(0))[0].end_reason is EndReason.STOCK_EXHAUSTED
    # drawCount 2 with one card left: that card
    two = position("classic2", hands={0: "KS"}, stock="9D")
    assert [card.code for card in apply(two, Draw(0))[0].hands[0]] == ["KS", "9D"]
