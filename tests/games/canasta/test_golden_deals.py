"""Golden deals: a stacked shuffle, the actions, and every figure checked by hand."""

from __future__ import annotations

from games.canasta import Discard, Draw, Meld, apply, preset, rebuild, replay, score_deal, start_deal
from games.canasta.state import EndReason, Phase
from tests.games.canasta.helpers import pick, stacked

HANDS = {
    1: "AS AH AD AC AS AH AD KS KH KD 4S",
    2: "QS QH JS JH TS TH 9S 9H 8S 8H 7S",
    3: "QD QC JD JC TD TC 9D 9C 8D 8C 7D",
    0: "6S 6H 6D 6C 5S 5H 5D 5C 4H 4D 4C",
}


def test_golden_classic4_concealed_going_out_on_the_first_turn() -> None:
    # given classic4, dealer seat 0, the hands above, the upcard 7H and the king of clubs on the stock
    rules = preset("classic4")
    start, deal_events = start_deal(rules, stacked(rules, hands=HANDS, then="7H KC"), dealer=0, scores=[0, 0])
    assert [card.code for card in start.pile] == ["7H"] and start.turn == 1
    assert [event.type for event in deal_events] == ["cards_dealt"] * 4 + ["upcard_turned", "turn_started"]
    # when seat 1 draws the king, lays seven aces and four kings and discards the four of spades
    drawn, _ = apply(start, Draw(1))
    meld = Meld(1, (pick(drawn, 1, "AS AH AD AC AS AH AD"), pick(drawn, 1, "KS KH KD KC")))
    melded, _ = apply(drawn, meld)
    discard = Discard(1, pick(melded, 1, "4S")[0])
    final, events = apply(melded, discard)
    # then side 1 went out concealed: 140 + 40 melded, 500 natural canasta, 200, partner's hand -105
    assert final.phase is Phase.FINISHED and final.end_reason is EndReason.WENT_OUT and final.concealed
    assert [event.type for event in events] == ["card_discarded", "went_out", "deal_ended"]
    score = score_deal(final)
    side0, side1 = score.sides
    assert (side1.melded, side1.canasta_bonus, side1.red_threes, side1.going_out, side1.hand) == (
        180,
        500,
        0,
        200,
        -105,
    )
    assert side1.total == 775
    # the other side holds 55 + 105 points
    assert (side0.melded, side0.canasta_bonus, side0.going_out, side0.hand, side0.total) == (
        0,
        0,
        0,
        -160,
        -160,
    )
    assert score.totals == (-160, 775) and not score.is_game_over
    assert [requirement.minimum for requirement in score.next_requirements] == [15, 50]
    # and the deal replays from its actions and rebuilds from its events
    replayed, replay_events = replay(start, [Draw(1), meld, discard])
    assert replayed == final
    assert rebuild(start, replay_events) == final
