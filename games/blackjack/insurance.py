"""Insurance (rules/blackjack.md 3.3): the stake a bet may insure, the one place that decides it,
and the bets a round offers it to.
"""

from __future__ import annotations

from games.blackjack.rules import InsuranceStake, RuleSet
from games.blackjack.state import Bet, RoundState
from games.errors import IllegalActionError


def insurance_stake_limits(rules: RuleSet, bet_stake_minor: int) -> tuple[int, int] | None:
    """Smallest and largest insurance stake a bet of ``bet_stake_minor`` may take (rules 3.3),
    or None when it cannot be insured at all.

    Every amount is a whole number of the table's smallest chip (``payout_rounding_unit_minor``).
    ``InsuranceStake.HALF``: exactly half, so ``(half, half)``, or None when half is not a whole
    number of chips (1001 cents with a 1-cent chip; 150 with a 50 chip: 75). ``UP_TO_HALF``:
    ``(unit, largest multiple of the unit not above half)``, or None below two chips.
    """
    unit = rules.payout_rounding_unit_minor
    if rules.insurance_stake is InsuranceStake.HALF:
        if bet_stake_minor % (2 * unit):
            return None
        return bet_stake_minor // 2, bet_stake_minor // 2
    largest = bet_stake_minor // (2 * unit) * unit
    if largest < unit:
        return None
    return unit, largest


def insurance_stake(rules: RuleSet, bet_stake_minor: int, requested_minor: int | None = None) -> int:
    """The insurance stake of a bet of ``bet_stake_minor`` when its bettor asks for
    ``requested_minor`` (None: exactly half) (rules 3.3). The one place that decides it: the
    ``InsuranceTaken`` event carries the result, and the live table holds exactly that.

    Raises IllegalActionError with the code:

    - ``insurance_stake_not_exact``: exactly half is asked (None, or the half under ``HALF``) and
      half the stake is not a whole number of the table's smallest chip;
    - ``invalid_stake``: an amount that is not a positive whole number of minor units;
    - ``insurance_stake_not_allowed``: under ``InsuranceStake.HALF``, any amount but the half;
    - ``insurance_stake_above_half``: under ``UP_TO_HALF``, more than half the stake;
    - ``insurance_stake_not_unit_multiple``: under ``UP_TO_HALF``, not a multiple of the chip.
    """
    unit = rules.payout_rounding_unit_minor
    if requested_minor is not None:
        if isinstance(requested_minor, bool) or not isinstance(requested_minor, int) or requested_minor <= 0:
            raise IllegalActionError(
                "an insurance stake is a positive whole number of minor units", code="invalid_stake"
            )
        if rules.insurance_stake is InsuranceStake.UP_TO_HALF:
            if 2 * requested_minor > bet_stake_minor:
                raise IllegalActionError(
                    f"{requested_minor} is more than half of {bet_stake_minor}",
                    code="insurance_stake_above_half",
                )
            if requested_minor % unit:
                raise IllegalActionError(
                    f"{requested_minor} is not a multiple of the table's {unit}-unit chip",
                    code="insurance_stake_not_unit_multiple",
                )
            return requested_minor
    if bet_stake_minor % (2 * unit):
        # Half the stake is not a whole number of chips; we refuse rather than round, so that
        # insurance never pays on another amount than the one the rule names.
        raise IllegalActionError(
            f"half of {bet_stake_minor} is not a whole number of the table's {unit}-unit chip",
            code="insurance_stake_not_exact",
        )
    half = bet_stake_minor // 2
    if requested_minor is not None and requested_minor != half:
        raise IllegalActionError(
            f"insurance is exactly half the stake ({half}), not {requested_minor}",
            code="insurance_stake_not_allowed",
        )
    return half


def insurance_offers(state: RoundState) -> list[tuple[Bet, bool]]:
    """Main bets and bets behind that may insure (rules 3.3, 2.4), with even money eligibility.

    A bet that cannot be insured (:func:`insurance_stake_limits` is None) and may not take even
    money is not offered: it asks for no decision, and a take on it is refused with its code.
    """
    bets = {bet.bet_id: bet for bet in state.bets}
    offers: list[tuple[Bet, bool]] = []
    even_money_on = state.rules.even_money
    for box in state.boxes:
        hand = box.hands[0]
        even_money = even_money_on and hand.is_blackjack
        for stake in hand.stakes:
            bet = bets[stake.bet_id]
            if even_money or insurance_stake_limits(state.rules, bet.stake_minor) is not None:
                offers.append((bet, even_money))
    return offers
