"""Win and hold on worked examples: chip play (counts, slips, drop box), wallet play (rounds
settled from the players' wallets, terminal buy-ins), a shift not counted at both ends, several
days together, and the ledger reconciling with the figures."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import CountKind, SignatureRole, TrayCount, TrayCountSignature
from accounting.selectors import current_gaming_day
from accounting.services_drop import table_buy_in_record
from accounting.win import Figures, hold_percent, round_half_even, shift_figures, table_records
from casino.actors import Actor
from casino.models import Table
from tests.accounting.conftest import TRAY, counted, opened, received
from tests.accounting.drop_support import CLOSER, drop_counted, signed_in
from tests.accounting.tips_support import settled_round
from tests.tables.conftest import funded_player

pytestmark = pytest.mark.django_db

SEED_FILL = 2_000_000


def _now(table: Table) -> tuple[dt.date, int]:
    return current_gaming_day(table.casino), shift_of(schedule_of(table.casino), timezone.now()).number


# ---------------------------------------------------------------- the arithmetic


def test_the_formula_on_figures() -> None:
    figures = Figures(
        opener_minor=2_000_000,
        fills_minor=100_000,
        credits_minor=50_000,
        drop_box_minor=300_000,
        closer_minor=1_900_000,
    )
    # 19 000 + 500 + 3 000 - 20 000 - 1 000 = 1 500.00; 1 500 / 3 000 = 50 %.
    assert figures.chip_win_minor == 150_000
    assert figures.win_minor == 150_000
    assert figures.hold == Decimal("50.00")
    assert figures.hold_bp == 5_000


def test_wallet_win_and_terminal_drop_add_to_the_chip_figures() -> None:
    figures = Figures(
        opener_minor=2_000_000,
        closer_minor=2_000_000,
        drop_box_minor=100_000,
        terminal_drop_minor=300_000,
        wallet_win_minor=-20_000,
    )
    # Chip win 0 + 1 000 - 0 = 1 000.00 ... and the wallet's -200.00: 800.00 on 4 000.00 = 20 %.
    assert figures.chip_win_minor == 100_000
    assert figures.win_minor == 80_000
    assert figures.drop_minor == 400_000
    assert figures.hold == Decimal("20.00")


def test_no_hold_without_drop_and_no_win_without_both_counts() -> None:
    assert Figures(opener_minor=1, closer_minor=1).hold is None
    incomplete = Figures(opener_minor=2_000_000, drop_box_minor=300_000, is_complete=False)
    assert (incomplete.chip_win_minor, incomplete.win_minor, incomplete.hold, incomplete.hold_bp) == (
        None,
        None,
        None,
        None,
    )


def test_hold_rounds_half_to_even() -> None:
    assert hold_percent(1, 8) == Decimal("12.50")
    assert hold_percent(1, 3) == Decimal("33.33")
    assert hold_percent(-1, 3) == Decimal("-33.33")
    assert hold_percent(None, 5) is None
    assert round_half_even(5, 2) == 2
    assert round_half_even(7, 2) == 4
    assert round_half_even(-7, 2) == -4


def test_figures_add_over_tables() -> None:
    summed = Figures(opener_minor=1, wallet_win_minor=5) + Figures(opener_minor=2, is_complete=False)
    assert (summed.opener_minor, summed.wallet_win_minor, summed.is_complete) == (3, 5, False)


# ---------------------------------------------------------------- from the records


def test_a_chip_shift_worked_example(
    table: Table, dealer: Any, pit_boss: Any, pit_boss_two: Any, cashier: Any
) -> None:
    day, shift = _now(table)
    opened(table, dealer, pit_boss)  # 20 000.00
    received(table, "fill", {10_000: 100_000}, pit_boss, cashier, dealer)  # 1 000.00
    received(table, "credit", {2_500: 50_000}, pit_boss, cashier, dealer)  # 500.00
    table_buy_in_record(table=table, amount_minor=200_000, actor=Actor.staff(dealer))
    table_buy_in_record(table=table, amount_minor=80_000, actor=Actor.staff(pit_boss))
    drop_counted(table, day, shift, 300_000, cashier, pit_boss_two)  # 3 000.00
    counted(table, CountKind.CLOSER, CLOSER, dealer, pit_boss)  # 19 000.00

    row = next(entry for entry in shift_figures(table.casino, day, shift) if entry.table == table)
    figures = row.figures

    assert (
        figures.opener_minor,
        figures.fills_minor,
        figures.credits_minor,
        figures.drop_box_minor,
        figures.closer_minor,
    ) == (2_000_000, 100_000, 50_000, 300_000, 1_900_000)
    assert figures.is_complete
    assert figures.win_minor == 150_000
    assert figures.hold == Decimal("50.00")
    assert figures.table_buy_ins_minor == 280_000
    assert figures.unrecorded_buy_ins_minor == 20_000
    # The ledger moved with the slips as the cage issued them (and with the demo seed's fill of the
    # tray, 20 000.00 without a slip, in the same shift).
    assert (figures.ledger_fills_minor, figures.ledger_credits_minor, figures.ledger_other_minor) == (
        100_000 + SEED_FILL,
        50_000,
        0,
    )


def test_a_wallet_shift_worked_example_reconciles_with_the_ledger(
    table: Table, dealer: Any, pit_boss: Any
) -> None:
    day, shift = _now(table)
    player = funded_player(table, 10_000, name="Alice Archer")  # 100.00 into her wallet at the cage
    signed_in(table, player, timezone.now())
    opener = opened(table, dealer, pit_boss)
    settled_round(table, dealer, player=player)  # she stakes 10.00 and is paid 20.00: the house loses 10.00
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)  # the chips did not move

    figures = table_records(table.casino, day, day).figures(table.pk, (day, shift), (day, shift))

    assert figures.chip_win_minor == 0
    assert figures.wallet_win_minor == -1_000
    assert figures.terminal_drop_minor == 10_000
    assert figures.win_minor == -1_000
    assert figures.hold == Decimal("-10.00")
    closer.refresh_from_db()
    # Between the two counts the tray's ledger balance moved by fills - credits (none here) plus
    # the wallet win, and by nothing else; the shift's ledger fills are the seed's alone.
    assert closer.ledger_minor - opener.ledger_minor == figures.wallet_win_minor == -1_000
    assert (figures.ledger_fills_minor, figures.ledger_credits_minor, figures.ledger_other_minor) == (
        SEED_FILL,
        0,
        0,
    )


def test_a_table_still_open_has_no_win_yet(table: Table, dealer: Any, pit_boss: Any, cashier: Any) -> None:
    day, shift = _now(table)
    opened(table, dealer, pit_boss)
    drop_counted(table, day, shift, 300_000, cashier, pit_boss)

    figures = table_records(table.casino, day, day).figures(table.pk)

    assert not figures.is_complete
    assert (figures.opener_minor, figures.drop_box_minor, figures.win_minor, figures.hold) == (
        2_000_000,
        300_000,
        None,
        None,
    )


def test_an_unsigned_drop_count_is_not_drop(table: Table, dealer: Any, pit_boss: Any, cashier: Any) -> None:
    from accounting.services_drop import drop_count_record

    day, shift = _now(table)
    drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )

    figures = table_records(table.casino, day, day).figures(table.pk)

    assert (figures.drop_box_minor, figures.drop_counts_unsigned) == (0, 1)


def test_a_corrected_drop_count_counts_as_corrected(table: Table, pit_boss: Any, cashier: Any) -> None:
    from accounting.services_drop import drop_count_record, drop_count_sign

    day, shift = _now(table)
    first = drop_counted(table, day, shift, 300_000, cashier, pit_boss)
    correction = drop_count_record(
        table=table,
        gaming_day=day,
        shift=shift,
        total_minor=310_000,
        actor=Actor.staff(cashier),
        corrects=first,
        reason="recount",
    )
    assert table_records(table.casino, day, day).figures(table.pk).drop_box_minor == 300_000

    drop_count_sign(count=correction, actor=Actor.staff(pit_boss))

    assert table_records(table.casino, day, day).figures(table.pk).drop_box_minor == 310_000


def _count_on(table: Table, day: dt.date, kind: str, total: int, dealer: Any, pit_boss: Any) -> TrayCount:
    """A count signed by two people, recorded for an earlier gaming day (as it was then)."""
    at = timezone.now() - dt.timedelta(days=1)
    count = TrayCount.objects.create(
        table=table,
        kind=kind,
        gaming_day=day,
        shift=1,
        counted_at=at,
        counted_by=dealer,
        total_minor=total,
        ledger_minor=total,
    )
    TrayCountSignature.objects.create(count=count, role=SignatureRole.DEALER, signer=dealer, signed_at=at)
    TrayCountSignature.objects.create(count=count, role=SignatureRole.PIT_BOSS, signer=pit_boss, signed_at=at)
    return count


def test_a_table_open_over_the_day_change_is_counted_over_both_days(
    table: Table, dealer: Any, pit_boss: Any, cashier: Any
) -> None:
    today, shift = _now(table)
    yesterday = today - dt.timedelta(days=1)
    _count_on(table, yesterday, CountKind.OPENER, 2_000_000, dealer, pit_boss)
    drop_counted(table, yesterday, 1, 100_000, cashier, pit_boss)
    drop_counted(table, today, shift, 200_000, cashier, pit_boss)
    counted(table, CountKind.CLOSER, CLOSER, dealer, pit_boss)

    both = table_records(table.casino, yesterday, today)

    assert not both.figures(table.pk, (yesterday, 0), (yesterday, 99)).is_complete
    assert not both.figures(table.pk, (today, 0), (today, 99)).is_complete
    whole = both.figures(table.pk)
    # 19 000 + 3 000 - 20 000 = 2 000.00 on 3 000.00.
    assert (whole.is_complete, whole.win_minor, whole.hold) == (True, 200_000, Decimal("66.67"))


# ---------------------------------------------------------------- terminal buy-ins


def test_a_buy_in_goes_to_the_table_the_player_signs_in_at_next(table: Table) -> None:
    bj2 = Table.objects.get(casino=table.casino, name="BJ2")
    day, _shift = _now(table)
    seeded_buy_ins = table_records(table.casino, day, day).unattributed_minor
    player = funded_player(table, 50_000, name="Bea Bell")
    signed_in(bj2, player, timezone.now() + dt.timedelta(seconds=1))
    stranger = funded_player(table, 7_000, name="Cem Cole")  # never sits down

    records = table_records(table.casino, day, day)

    assert records.figures(bj2.pk).terminal_drop_minor == 50_000
    assert records.figures(table.pk).terminal_drop_minor == 0
    assert records.unattributed_minor - seeded_buy_ins == 7_000
    assert stranger.pk


def test_a_buy_in_while_signed_in_goes_to_that_table(table: Table) -> None:
    from wallet.services import system_buy_in

    day, _shift = _now(table)
    player = funded_player(table, 1_000, name="Dan Dole")
    signed_in(table, player, timezone.now() - dt.timedelta(minutes=5))
    system_buy_in(player=player, amount_minor=25_000, actor=Actor.automatic("test"))

    records = table_records(table.casino, day, day)

    # The first buy-in came while the session was open too (it started before it).
    assert records.figures(table.pk).terminal_drop_minor == 26_000


# ---------------------------------------------------------------- the chart


def test_the_chart_draws_a_loss_below_the_line_and_no_hold_without_a_win(table: Table) -> None:
    from accounting.win import TableRecords
    from accounting.win_charts import day_chart

    first = dt.date(2026, 3, 1)
    days = [first, first + dt.timedelta(days=1), first + dt.timedelta(days=2)]
    records = TableRecords(casino=table.casino, first_day=days[0], last_day=days[-1])
    records.terms[(table.pk, days[0], 1)] = Figures(
        drop_box_minor=100_000, closer_minor=25_000, opener_minor=100_000
    )
    records.terms[(table.pk, days[1], 2)] = Figures(terminal_drop_minor=200_000, wallet_win_minor=-50_000)
    records.terms[(table.pk, days[2], 1)] = Figures(opener_minor=100_000, drop_box_minor=40_000)
    records.counts[table.pk] = [(days[2], 1, CountKind.OPENER)]

    chart = day_chart(table, records, days)

    kinds = [bar.kind for bar in chart.bars]
    assert kinds == ["drop", "win", "drop", "loss", "drop"]  # the third day has no win
    loss = chart.bars[3]
    assert loss.y == chart.zero_y and loss.height > 0
    win = chart.bars[1]
    assert win.y + win.height == chart.zero_y
    # Holds: 250 / 1000 = 25 %, -500 / 2000 = -25 %; none on the third day.
    assert [point.title for point in chart.points] == [
        "2026-03-01: hold 25.00 %",
        "2026-03-02: hold -25.00 %",
    ]
    assert chart.polyline.count(",") == 2
    assert [label.label for label in chart.days] == ["01", "02", "03"]
