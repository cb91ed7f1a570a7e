"""The settlement of a canasta game (docs/canasta-tables.md): each loser pays the difference
times the stake, rounded down to the minor unit and capped at his hold; the fee comes from the
pot and never exceeds it; what the winners' even split leaves goes to house rounding."""

from __future__ import annotations

import pytest

from cardroom.models import CanastaGame
from cardroom.services.settlement import game_fee, settlement_plan

PARTNERS = {0: 0, 1: 1, 2: 0, 3: 1}


def game(**fields: object) -> CanastaGame:
    values: dict[str, object] = {
        "stake_minor": 100,
        "stake_points": 100,
        "hold_minor": 10_000,
        "fee_kind": "none",
        "fee_basis_points": 0,
        "fee_minor": 0,
        "totals": [5120, 40],
        **fields,
    }
    return CanastaGame(**values)


def test_each_loser_pays_the_difference_times_the_stake_and_the_winners_share_it():
    plan = settlement_plan(game(), PARTNERS, 0, deals=4, hours_started=1)

    assert plan.amounts == {0: 5080, 1: -5080, 2: 5080, 3: -5080}
    assert (plan.pot_minor, plan.fee_minor, plan.rounding_minor) == (10_160, 0, 0)


def test_a_fraction_of_a_minor_unit_is_never_charged_and_the_split_remainder_goes_to_rounding():
    # 1250 points at 7 cents per 100 points = 87.5 cents: 87 each; a 3% pot share of 174 is 5.22: 5
    plan = settlement_plan(
        game(stake_minor=7, totals=[5250, 4000], fee_kind="pot_share", fee_basis_points=300),
        PARTNERS,
        0,
        deals=3,
        hours_started=1,
    )

    assert plan.amounts == {0: 84, 1: -87, 2: 84, 3: -87}
    assert (plan.pot_minor, plan.fee_minor, plan.rounding_minor) == (174, 5, 1)
    assert sum(plan.amounts.values()) + plan.fee_minor + plan.rounding_minor == 0


def test_a_loss_is_capped_at_the_hold():
    plan = settlement_plan(game(stake_minor=500, hold_minor=20_000), PARTNERS, 0, deals=4, hours_started=1)

    assert plan.amounts == {0: 20_000, 1: -20_000, 2: 20_000, 3: -20_000}


def test_with_three_players_each_loser_pays_his_own_difference_to_the_winner():
    plan = settlement_plan(
        game(stake_minor=1, stake_points=1, totals=[3100, 5200, 2600]),
        {0: 0, 1: 1, 2: 2},
        1,
        deals=5,
        hours_started=1,
    )

    assert plan.amounts == {0: -2100, 1: 4700, 2: -2600}


@pytest.mark.parametrize(
    ("fields", "deals", "hours", "fee"),
    [
        ({"fee_kind": "pot_share", "fee_basis_points": 500}, 4, 1, 508),
        ({"fee_kind": "per_deal", "fee_minor": 250}, 4, 1, 1000),
        ({"fee_kind": "per_hour", "fee_minor": 400}, 4, 3, 1200),
        ({"fee_kind": "per_deal", "fee_minor": 5000}, 4, 1, 10_160),  # never more than the pot
        ({"fee_kind": "none"}, 4, 1, 0),
    ],
)
def test_the_fee_of_each_kind(fields, deals, hours, fee):
    assert game_fee(game(**fields), 10_160, deals=deals, hours_started=hours) == fee
