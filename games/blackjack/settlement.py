"""Settlement of a finished round as payout lines (rules/blackjack.md 3.3, 4.3, 7, 8).

Every line says what one bet (on one hand) gets back: the multiplier is the exact net win per
unit of stake (``3/2``, ``1``, ``0``, ``-1``, ``25`` ...). A fractional net (3:2 on an odd stake,
half a stake on surrender) is rounded DOWN to a multiple of
``rules.payout_rounding_unit_minor``; the part the player does not get is reported as
``rounding_remainder_minor``. Whole nets are never rounded.

``rounding_remainder_minor`` is exactly ``multiplier * stake_minor - net_minor`` as a
:class:`~fractions.Fraction` of minor units: what the exact rule would have paid (or, on a
loss, not taken) beyond the rounded amount. It is zero on whole ratios, ``0 <= r <
payout_rounding_unit_minor`` otherwise (``1/2`` for 3:2 on 901 cents, ``25`` for 3:2 on 950
cents with a 50-cent chip), and the house keeps it: it is inside the house result, never paid
separately. Money is conserved exactly, per line ``paid_minor == stake_minor + net_minor`` (all
integers) and ``multiplier * stake_minor == net_minor + rounding_remainder_minor`` (exact), so for a
round ``sum(stake) == sum(paid) + house_net`` and ``house_net == -sum(multiplier * stake) +
sum(rounding_remainder)``. A rounded loss never takes more than the stake.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from games.blackjack.jsonable import fraction_text, jsonable
from games.blackjack.rules import NoPeekLoss, RuleSet
from games.blackjack.sidebets import perfect_pairs_outcome, twenty_one_plus_three_outcome
from games.blackjack.state import Bet, BetKind, Box, Hand, InsuranceChoice, Phase, RoundState
from games.cards import hand_value, is_blackjack
from games.errors import RoundNotSettledError


@dataclass(frozen=True, slots=True)
class PayoutLine:
    bet_id: str
    player: str
    box: int
    hand: int | None
    kind: BetKind
    outcome: str
    rule: str
    multiplier: Fraction
    stake_minor: int
    net_minor: int
    paid_minor: int
    rounding_remainder_minor: Fraction

    def to_dict(self) -> dict[str, Any]:
        data = jsonable(self)
        assert isinstance(data, dict)
        return data


def ratio_text(value: Fraction) -> str:
    """``3/2`` -> ``"3:2"``, ``2`` -> ``"2:1"``."""
    return f"{value.numerator}:{value.denominator}"


def settle_amount(
    multiplier: Fraction, stake_minor: int, unit_minor: int, *, is_rounded: bool | None = None
) -> tuple[int, Fraction]:
    """Net amount for a stake at an exact multiplier, and the rounding remainder (rules 7).

    A payout at a fractional ratio (3:2, 6:5, half a stake) is rounded down to a multiple of
    ``unit_minor`` (the table's smallest chip); a payout at a whole ratio (1:1, 2:1, 25:1) is
    paid exactly. ``is_rounded`` overrides that choice.

    >>> settle_amount(Fraction(3, 2), 900, 1)
    (1350, Fraction(0, 1))
    >>> settle_amount(Fraction(3, 2), 901, 1)
    (1351, Fraction(1, 2))
    >>> settle_amount(Fraction(3, 2), 950, 50)
    (1400, Fraction(25, 1))
    >>> settle_amount(Fraction(1), 75, 50)
    (75, Fraction(0, 1))
    >>> settle_amount(Fraction(-1, 2), 30, 50)
    (-30, Fraction(15, 1))
    """
    exact = multiplier * stake_minor
    if is_rounded is None:
        is_rounded = multiplier.denominator != 1
    if not is_rounded:
        if exact.denominator != 1:
            raise ValueError(f"{exact} is not a whole number of minor units")
        return int(exact), Fraction(0)
    # Never take more than the stake: rounding a loss down to a whole chip could.
    net = max(math.floor(exact / unit_minor) * unit_minor, -stake_minor)
    return net, exact - net


def make_line(
    bet: Bet,
    *,
    kind: BetKind,
    hand: int | None,
    outcome: str,
    rule: str,
    multiplier: Fraction,
    stake_minor: int,
    rules: RuleSet,
    bet_id: str | None = None,
    is_rounded: bool | None = None,
) -> PayoutLine:
    net, remainder = settle_amount(
        multiplier, stake_minor, rules.payout_rounding_unit_minor, is_rounded=is_rounded
    )
    return PayoutLine(
        bet_id=bet.bet_id if bet_id is None else bet_id,
        player=bet.player,
        box=bet.box,
        hand=hand,
        kind=kind,
        outcome=outcome,
        rule=rule,
        multiplier=multiplier,
        stake_minor=stake_minor,
        net_minor=net,
        paid_minor=stake_minor + net,
        rounding_remainder_minor=remainder,
    )


@dataclass(frozen=True, slots=True)
class _Dealer:
    total: int
    is_blackjack: bool
    is_bust: bool


def _hand_result(hand: Hand, dealer: _Dealer, rules: RuleSet) -> tuple[str, str, Fraction]:
    """Outcome, rule clause and multiplier of a hand against the dealer (rules 4.3, 5, 7); a
    no-peek dealer blackjack that takes the original stake only is applied afterwards, per bet,
    by :func:`no_peek_original_stake_loss`."""
    if hand.is_surrendered:
        if dealer.is_blackjack and not rules.peeks:
            # Late surrender gives up half the stake only against a dealer without blackjack;
            # a no-peek dealer blackjack shown afterwards takes the stake like any other hand's.
            return "lose", "4.3 no-peek dealer blackjack: surrender lost", Fraction(-1)
        return "surrender", "5.7 surrender: half the stake", Fraction(-1, 2)
    if hand.is_bust:
        return "bust", "5.1 bust loses at once", Fraction(-1)
    if hand.is_blackjack:
        if dealer.is_blackjack:
            return "push", "7 blackjack vs dealer blackjack: push", Fraction(0)
        return "blackjack", f"7 blackjack {ratio_text(rules.blackjack_pays)}", rules.blackjack_pays
    if dealer.is_blackjack:
        rule = "4.3 dealer blackjack" if rules.peeks else "4.3 no-peek dealer blackjack"
        return "lose", rule, Fraction(-1)
    total = hand.value.total
    if dealer.is_bust:
        return "win", "7 dealer bust 1:1", Fraction(1)
    if total > dealer.total:
        return "win", "7 higher total 1:1", Fraction(1)
    if total == dealer.total:
        return "push", "7 equal totals: push", Fraction(0)
    return "lose", "7 lower total", Fraction(-1)


def _box_hand_lines(
    state: RoundState, box: Box, dealer: _Dealer, bets: dict[str, Bet], even_money: set[str]
) -> list[PayoutLine]:
    rules = state.rules
    lines: list[PayoutLine] = []
    original_only = (
        dealer.is_blackjack and not rules.peeks and rules.no_peek_loss is NoPeekLoss.ORIGINAL_STAKE
    )
    charged: set[str] = set()
    for index, hand in enumerate(box.hands):
        outcome, rule, multiplier = _hand_result(hand, dealer, rules)
        for stake in hand.stakes:
            bet = bets[stake.bet_id]
            line_outcome, line_rule, line_multiplier = outcome, rule, multiplier
            is_rounded: bool | None = None
            if stake.bet_id in even_money:
                line_outcome, line_rule, line_multiplier = "even_money", "3.3 even money 1:1", Fraction(1)
            elif original_only and multiplier < 0:
                line_outcome, line_rule, line_multiplier = no_peek_original_stake_loss(
                    bet, stake.stake_minor, outcome, rule, is_charged=stake.bet_id in charged
                )
                charged.add(stake.bet_id)
                is_rounded = False  # the original stake or nothing: never rounded
            lines.append(
                make_line(
                    bet,
                    kind=bet.kind,
                    hand=index,
                    outcome=line_outcome,
                    rule=line_rule,
                    multiplier=line_multiplier,
                    stake_minor=stake.stake_minor,
                    rules=rules,
                    is_rounded=is_rounded,
                )
            )
    return lines


NO_PEEK_ORIGINAL_STAKE_RULE = "4.3 no-peek dealer blackjack: original stake only"


def no_peek_original_stake_loss(
    bet: Bet, stake_minor: int, outcome: str, rule: str, *, is_charged: bool
) -> tuple[str, str, Fraction]:
    """One losing line of ``bet`` against a no-peek dealer blackjack with
    ``NoPeekLoss.ORIGINAL_STAKE`` (rules 4.3): outcome, rule and multiplier on ``stake_minor``.

    A bet loses at most its original stake in total on the box, busted hands included, as if
    the dealer had peeked: its first losing line (hand by hand from the left, lost or busted)
    loses exactly ``bet.stake_minor`` (a doubled hand gets the added half back); every later
    line of the bet (``is_charged``: the original stake is already lost) is ``returned``.
    Example: stake 1000, 8s split, hand 0 busts, hand 1 stands on 18: hand 0 loses 1000,
    hand 1's 1000 is returned (``ALL_STAKES``: both lost, 2000). A line whose money the rule
    does not change (a bust of exactly the original stake) keeps its own ``rule``.
    """
    if is_charged:
        return "returned", NO_PEEK_ORIGINAL_STAKE_RULE, Fraction(0)
    if outcome == "bust" and stake_minor == bet.stake_minor:
        return outcome, rule, Fraction(-1)
    return outcome, NO_PEEK_ORIGINAL_STAKE_RULE, Fraction(-bet.stake_minor, stake_minor)


def _side_lines(state: RoundState, box: Box, side_bets: list[Bet]) -> list[PayoutLine]:
    """Perfect Pairs and 21+3 on the box's first cards (rules 4.2, 8), whatever the main game did."""
    rules = state.rules
    lines: list[PayoutLine] = []
    first, second = box.first_cards[0], box.first_cards[1]
    upcard = state.dealer_cards[0]
    for bet in side_bets:
        outcome: str | None
        if bet.kind is BetKind.PERFECT_PAIRS:
            assert rules.perfect_pairs is not None
            outcome = perfect_pairs_outcome(first, second)
            pays = rules.perfect_pairs.payout(outcome) if outcome is not None else 0
            name = "perfect pairs"
        else:
            assert rules.twenty_one_plus_three is not None
            outcome = twenty_one_plus_three_outcome((first, second, upcard), rules.twenty_one_plus_three)
            pays = rules.twenty_one_plus_three.payout(outcome) if outcome is not None else 0
            name = "21+3"
        if outcome is None or pays == 0:
            line = make_line(
                bet,
                kind=bet.kind,
                hand=None,
                outcome="lose",
                rule=f"8 {name}: no combination",
                multiplier=Fraction(-1),
                stake_minor=bet.stake_minor,
                rules=rules,
            )
        else:
            line = make_line(
                bet,
                kind=bet.kind,
                hand=None,
                outcome=outcome,
                rule=f"8 {name} {outcome.replace('_', ' ')} {pays}:1",
                multiplier=Fraction(pays),
                stake_minor=bet.stake_minor,
                rules=rules,
            )
        lines.append(line)
    return lines


def dealer_summary(state: RoundState) -> tuple[int, bool, bool]:
    """Dealer total, blackjack, bust."""
    value = hand_value(state.dealer_cards)
    return value.total, is_blackjack(state.dealer_cards), value.total > 21


def settlement(state: RoundState) -> tuple[PayoutLine, ...]:
    """Every payout line of a settled round, box by box from the dealer's left.

    Order per box: main bet and bets behind hand by hand, side bets, insurance. Bets behind a
    box whose owner did not play come back as ``refund`` lines (rules 2.4). Insurance pays
    ``insurance_pays`` on the stake the engine decided when it was taken
    (``InsuranceTaken.stake_minor``, rules 3.3); a no-peek dealer blackjack takes what
    ``no_peek_loss`` says (rules 4.3, :func:`no_peek_original_stake_loss`).
    Raises RoundNotSettledError before the round has ended.
    """
    if state.phase is not Phase.SETTLED:
        raise RoundNotSettledError(f"the round is in phase {state.phase.value}, not settled")
    rules = state.rules
    bets = {bet.bet_id: bet for bet in state.bets}
    total, dealer_blackjack, dealer_bust = dealer_summary(state)
    dealer = _Dealer(total, dealer_blackjack, dealer_bust)
    even_money = {item.bet_id for item in state.insurance if item.choice is InsuranceChoice.EVEN_MONEY}
    playing = {box.number: box for box in state.boxes}
    lines: list[PayoutLine] = []
    for number in range(1, rules.boxes + 1):
        box = playing.get(number)
        if box is None:
            for bet in state.bets:
                if bet.box == number and bet.kind is BetKind.BEHIND:
                    lines.append(
                        make_line(
                            bet,
                            kind=bet.kind,
                            hand=None,
                            outcome="refund",
                            rule="2.4 owner not playing: bet behind returned",
                            multiplier=Fraction(0),
                            stake_minor=bet.stake_minor,
                            rules=rules,
                        )
                    )
            continue
        lines.extend(_box_hand_lines(state, box, dealer, bets, even_money))
        side_bets = [bet for bet in state.bets if bet.box == number and bet.kind in _SIDE]
        lines.extend(_side_lines(state, box, side_bets))
        for item in state.insurance:
            if item.box != number or item.choice is not InsuranceChoice.TAKEN:
                continue
            assert item.insurance_bet_id is not None
            insured = bets[item.bet_id]
            if dealer_blackjack:
                outcome, rule, multiplier = (
                    "win",
                    f"3.3 insurance {ratio_text(rules.insurance_pays)}",
                    rules.insurance_pays,
                )
            else:
                outcome, rule, multiplier = "lose", "3.3 insurance lost", Fraction(-1)
            lines.append(
                make_line(
                    insured,
                    kind=BetKind.INSURANCE,
                    hand=None,
                    outcome=outcome,
                    rule=rule,
                    multiplier=multiplier,
                    stake_minor=item.stake_minor,
                    rules=rules,
                    bet_id=item.insurance_bet_id,
                )
            )
    return tuple(lines)


_SIDE = (BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)


def totals(lines: tuple[PayoutLine, ...]) -> dict[str, Any]:
    """Stakes, paid and house result of a set of lines (house_net = stakes - paid)."""
    stake = sum(line.stake_minor for line in lines)
    paid = sum(line.paid_minor for line in lines)
    remainder = sum((line.rounding_remainder_minor for line in lines), Fraction(0))
    return {
        "stake_minor": stake,
        "paid_minor": paid,
        "house_net_minor": stake - paid,
        "rounding_remainder_minor": fraction_text(remainder),
    }
