"""Whether a bet may be placed now at a live table: the betting window (rules 3.1), the table's
stake limits per bet type (rules 2.8), then every rule of :func:`validate_bet` (rules 2.2-2.4,
3.2). The one place that decides a bet; the live table's service reads the rows a bet's checks
need, builds the few-bet state of :func:`betting_view` and asks :func:`bet_check`.

Pure: the clock is an input (``now``, ``closes_at``), like the shoe order elsewhere.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from games.blackjack.engine import validate_bet
from games.blackjack.rules import RuleSet
from games.blackjack.state import Bet, BetKind, Phase, RoundState, Seat
from games.errors import BetRefusedError, StakeOutOfLimitsError


@dataclass(frozen=True, slots=True)
class StakeLimits:
    """The table's (minimum, maximum) stake in minor units per bet type (rules 2.8)."""

    main: tuple[int, int]
    behind: tuple[int, int]
    perfect_pairs: tuple[int, int]
    twenty_one_plus_three: tuple[int, int]

    def of(self, kind: BetKind) -> tuple[int, int]:
        if kind is BetKind.MAIN:
            return self.main
        if kind is BetKind.BEHIND:
            return self.behind
        if kind is BetKind.PERFECT_PAIRS:
            return self.perfect_pairs
        if kind is BetKind.TWENTY_ONE_PLUS_THREE:
            return self.twenty_one_plus_three
        raise BetRefusedError(f"a {kind.value} bet has no table limits", code="invalid_bet_kind")


def betting_is_open(*, is_betting: bool, closes_at: dt.datetime | None, now: dt.datetime) -> bool:
    """Bets are placed, taken back and left with their box only while the round is in betting and
    before its deadline (rules 3.1): once the deadline passed, "no more bets" holds even if nothing
    has applied it yet."""
    return is_betting and (closes_at is None or closes_at > now)


def betting_view(
    rules: RuleSet, *, is_betting: bool, seats: Iterable[Seat], bets: Iterable[Bet]
) -> RoundState:
    """The state of a round for a new bet's check, holding only the seats and placed bets the
    check reads: the box's owner seat, the box's main and side bets, and the bettor's own bets in
    the round (their main bets elsewhere count towards ``boxes_per_player``). Others' bets behind
    never matter. ``is_betting``: the round is still in its betting phase (else the phase is
    ``dealing``, and every bet is refused ``betting_closed``)."""
    phase = Phase.BETTING if is_betting else Phase.DEALING
    return RoundState(rules=rules, phase=phase, seats=tuple(seats), bets=tuple(bets))


def bet_check(
    state: RoundState,
    bet: Bet,
    *,
    limits: StakeLimits,
    closes_at: dt.datetime | None,
    now: dt.datetime,
) -> None:
    """Refuse ``bet`` unless it may be placed now; return None if it may.

    Codes: ``betting_closed`` (rules 3.1: the phase, or the deadline passed), ``invalid_stake``,
    ``stake_below_table_min`` / ``stake_above_table_max`` (rules 2.8, with the limit in
    ``details``), then :func:`validate_bet`'s (``no_such_box``, ``box_taken``, ``not_box_owner``,
    ``box_limit_reached``, ``bet_behind_own_box``, ``bet_behind_not_offered``,
    ``bets_behind_forbidden``, ``side_bet_not_offered``, ``side_bet_without_main_bet``,
    ``duplicate_side_bet`` ...)."""
    if not betting_is_open(is_betting=state.phase is Phase.BETTING, closes_at=closes_at, now=now):
        raise BetRefusedError("no more bets", code="betting_closed")
    stake = bet.stake_minor
    if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
        raise BetRefusedError("a stake is a positive whole number of minor units", code="invalid_stake")
    low, high = limits.of(bet.kind)
    if stake < low:
        raise StakeOutOfLimitsError(
            f"the {bet.kind.value} minimum is {low}",
            code="stake_below_table_min",
            details={"minimum_minor": low},
        )
    if stake > high:
        raise StakeOutOfLimitsError(
            f"the {bet.kind.value} maximum is {high}",
            code="stake_above_table_max",
            details={"maximum_minor": high},
        )
    validate_bet(state, bet)
