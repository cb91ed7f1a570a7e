"""Hold alerts: the statistical model on hand-computed figures, the scheduled check raising
fixed-band and statistical alerts once, and their resolution by a pit boss."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from django.utils import timezone

from accounting.gaming_days import schedule_of, shift_of
from accounting.hold import (
    HOLD_CHECK_PROCESS,
    MAIN_GAME_UNIT_VARIANCE,
    Expectation,
    hold_check,
    insurance_variance,
    unit_variance,
)
from accounting.models import AccountingSettings, CountKind, HoldAlert, HoldAlertKind
from accounting.selectors import current_gaming_day
from accounting.services_drop import hold_alert_resolve
from accounting.tasks import hold_check_task
from casino.actors import Actor
from casino.jobs import job_latest
from casino.models import AuditRecord, BackgroundJob, Table
from tables.models import BetKind
from tables.odds_jobs import MAIN_GAME_ODDS
from tests.accounting.conftest import TRAY, counted, opened, received
from tests.accounting.drop_support import CLOSER, drop_counted, drop_written, signed_in
from tests.accounting.tips_support import settled_round
from tests.tables.conftest import funded_player, refused

pytestmark = pytest.mark.django_db


def _main_edge_known(table: Table) -> None:
    """The main-game edge of BJ1's rule-set version as its finished job records it (0.4598 %)."""
    version = table.config_versions.order_by("-number").first().rule_set_version  # type: ignore[union-attr]
    params = {"rule_set_version": version.pk, "decks": int(version.options.get("decks", 6))}
    if job_latest(kind=MAIN_GAME_ODDS, params=params) is None:
        BackgroundJob.objects.create(
            kind=MAIN_GAME_ODDS,
            params=params,
            status=BackgroundJob.Status.SUCCEEDED,
            result={"house_edge": "0.004598", "method": "test"},
        )


# ---------------------------------------------------------------- the model


def test_insurance_variance_on_six_decks_by_hand() -> None:
    # 96 tens among the 311 cards left: wins 2 with 96/311, loses 1 with 215/311; the mean is
    # -23/311, the second moment (4 * 96 + 215) / 311 = 599/311.
    assert insurance_variance(6) == Fraction(599, 311) - Fraction(23, 311) ** 2 == Fraction(185760, 96721)


def test_side_bet_variance_from_its_outcomes(table: Table) -> None:
    config = table.config_versions.order_by("-number").first()
    assert config is not None
    variance = unit_variance(BetKind.PERFECT_PAIRS, config)
    if config.perfect_pairs_version is None:
        assert variance is None
        return
    payouts = config.perfect_pairs_version.payouts
    from tables.odds_jobs import side_bet_edge

    odds = side_bet_edge(BetKind.PERFECT_PAIRS, 6, payouts)
    mean = -odds.house_edge
    second = sum((row.probability * (row.pays**2 if row.pays else 1) for row in odds.outcomes), Fraction(0))
    assert variance == second - mean**2
    assert (
        unit_variance(BetKind.MAIN, config)
        == unit_variance(BetKind.BEHIND, config)
        == MAIN_GAME_UNIT_VARIANCE
    )


def test_the_expectation_of_two_hands_by_hand() -> None:
    # Two main bets of 10.00 at an edge of 0.4598 %: expected 9.196 minor units, variance
    # 2 * 1000^2 * 1.3 = 2 600 000, standard deviation 1612.45.
    edge = Fraction("0.004598")
    expected = Expectation(
        bets=2,
        wagered_minor=2_000,
        expected=2 * 1_000 * edge,
        variance=2 * 1_000 * 1_000 * MAIN_GAME_UNIT_VARIANCE,
        wagered_without_edge_minor=0,
    )
    assert expected.expected_minor == 9
    assert expected.deviation_minor == 1_612
    # A loss of the house of 40.00: (-4 000 - 9.196) / 1612.45 = -2.49 deviations.
    assert expected.z(-4_000) == Decimal("-2.49")
    assert Expectation(0, 0, Fraction(0), Fraction(0), 0).z(5) is None


# ---------------------------------------------------------------- the check


def _worked_shift(table: Table, dealer: Any, pit_boss: Any, pit_boss_two: Any, cashier: Any) -> None:
    """Win 1 500.00 on a drop of 3 000.00: a hold of 50 %, above the default band's 30 %."""
    day = current_gaming_day(table.casino)
    shift = shift_of(schedule_of(table.casino), timezone.now()).number
    opened(table, dealer, pit_boss)
    received(table, "fill", {10_000: 100_000}, pit_boss, cashier, dealer)
    received(table, "credit", {2_500: 50_000}, pit_boss, cashier, dealer)
    drop_counted(table, day, shift, 300_000, cashier, pit_boss_two)
    counted(table, CountKind.CLOSER, CLOSER, dealer, pit_boss)


def test_the_task_raises_a_fixed_band_alert_once_and_a_pit_boss_resolves_it(
    table: Table, dealer: Any, pit_boss: Any, pit_boss_two: Any, cashier: Any
) -> None:
    _worked_shift(table, dealer, pit_boss, pit_boss_two, cashier)

    first = hold_check_task.delay().get()
    again = hold_check_task()

    alert = HoldAlert.objects.get()
    assert first == {"raised": [alert.pk]} and again == {"raised": []}
    assert (alert.table, alert.gaming_day, alert.kind) == (
        table,
        current_gaming_day(table.casino),
        HoldAlertKind.FIXED_BAND,
    )
    assert alert.figures == {
        "win_minor": 150_000,
        "drop_minor": 300_000,
        "hold_bp": 5_000,
        "low_bp": 500,
        "high_bp": 3_000,
    }
    record = AuditRecord.objects.get(action="accounting.hold_alert_raised")
    assert (record.actor_id, record.actor_name) == (None, "hold check")

    resolution = hold_alert_resolve(
        alert=alert, note="Two big losses of one player, seen on camera.", actor=Actor.staff(pit_boss)
    )

    assert resolution.resolved_by == pit_boss
    assert AuditRecord.objects.filter(action="accounting.hold_alert_resolved").count() == 1


def test_a_hold_inside_the_band_raises_nothing(
    table: Table, dealer: Any, pit_boss: Any, pit_boss_two: Any, cashier: Any
) -> None:
    AccountingSettings.objects.update_or_create(casino=table.casino, defaults={"hold_band_high_bp": 6_000})
    _worked_shift(table, dealer, pit_boss, pit_boss_two, cashier)

    assert hold_check(casino=table.casino, actor=Actor.automatic(HOLD_CHECK_PROCESS)) == []


def test_a_table_not_counted_at_both_ends_raises_no_fixed_band_alert(
    table: Table, dealer: Any, pit_boss: Any, cashier: Any
) -> None:
    day = current_gaming_day(table.casino)
    opened(table, dealer, pit_boss)
    drop_counted(
        table, day, shift_of(schedule_of(table.casino), timezone.now()).number, 300_000, cashier, pit_boss
    )

    assert hold_check(casino=table.casino, actor=Actor.automatic(HOLD_CHECK_PROCESS)) == []


def test_wallet_rounds_far_from_their_expectation_raise_a_statistical_alert(
    table: Table, dealer: Any, pit_boss: Any
) -> None:
    AccountingSettings.objects.update_or_create(casino=table.casino, defaults={"hold_band_sigmas": 1})
    _main_edge_known(table)
    player = funded_player(table, 10_000, name="Alice Archer")
    signed_in(table, player, timezone.now())
    opened(table, dealer, pit_boss)
    for number in range(3):  # three hands of 10.00 won by the player: the house loses 30.00
        settled_round(table, dealer, player=player, sign_on=number == 0)
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)

    raised = hold_check(casino=table.casino, actor=Actor.staff(pit_boss))

    kinds = {alert.kind: alert for alert in raised}
    statistical = kinds[HoldAlertKind.STATISTICAL]
    # Expected 3 * 1000 * 0.004598 = 13.794, deviation sqrt(3 * 10^6 * 1.3) = 1974.84:
    # (-3000 - 13.794) / 1974.84 = -1.53 deviations, beyond the band of 1.
    assert statistical.figures == {
        "wallet_win_minor": -3_000,
        "expected_minor": 14,
        "deviation_minor": 1_975,
        "sigmas": 1,
        "z": "-1.53",
        "bets": 3,
        "wagered_minor": 3_000,
        "drop_minor": 10_000,
    }
    # The win of -30.00 on a drop of 100.00 (her wallet buy-in) is a hold of -30 %: below 5 %.
    assert kinds[HoldAlertKind.FIXED_BAND].figures["hold_bp"] == -3_000
    assert AuditRecord.objects.filter(action="accounting.hold_alert_raised", actor=pit_boss).count() == 2


def test_without_the_main_game_edge_the_statistical_check_waits(
    table: Table, dealer: Any, pit_boss: Any
) -> None:
    AccountingSettings.objects.update_or_create(casino=table.casino, defaults={"hold_band_sigmas": 1})
    BackgroundJob.objects.filter(kind=MAIN_GAME_ODDS).delete()
    player = funded_player(table, 10_000, name="Alice Archer")
    for number in range(3):
        settled_round(table, dealer, player=player, sign_on=number == 0)

    raised = hold_check(casino=table.casino, actor=Actor.automatic(HOLD_CHECK_PROCESS))

    assert [alert.kind for alert in raised] == []


# ---------------------------------------------------------------- the resolution's controls


def _alert(table: Table) -> HoldAlert:
    return HoldAlert.objects.create(
        table=table,
        gaming_day=current_gaming_day(table.casino),
        kind=HoldAlertKind.FIXED_BAND,
        figures={},
        raised_at=timezone.now(),
    )


def test_a_resolution_needs_a_note_a_pit_boss_and_happens_once(
    table: Table, pit_boss: Any, pit_boss_two: Any, dealer: Any, accountant: Any
) -> None:
    alert = _alert(table)
    before = drop_written()

    refused("reason_required", hold_alert_resolve, alert=alert, note="  ", actor=Actor.staff(pit_boss))
    refused("permission_denied", hold_alert_resolve, alert=alert, note="seen", actor=Actor.staff(dealer))
    refused("permission_denied", hold_alert_resolve, alert=alert, note="seen", actor=Actor.staff(accountant))
    assert drop_written() == before

    hold_alert_resolve(alert=alert, note="Seen on camera.", actor=Actor.staff(pit_boss))
    after = drop_written()
    refused(
        "hold_alert_already_resolved",
        hold_alert_resolve,
        alert=alert,
        note="again",
        actor=Actor.staff(pit_boss_two),
    )
    assert drop_written() == after
