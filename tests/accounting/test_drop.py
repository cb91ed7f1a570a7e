"""Drop: buy-ins recorded at the table, the drop box count and its two signatures, corrections,
and a closed gaming day refusing all of it."""

from __future__ import annotations

from typing import Any

import pytest

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import DropCount, DropSignatureRole, TableBuyIn
from accounting.selectors import current_gaming_day
from accounting.services import gaming_day_sign
from accounting.services_drop import drop_count_record, drop_count_sign, table_buy_in_record
from casino.actors import Actor
from casino.models import AuditRecord
from tests.accounting.conftest import day_closed
from tests.accounting.drop_support import drop_counted, drop_written
from tests.tables.conftest import refused

pytestmark = pytest.mark.django_db


def _now_shift(table: Any) -> tuple[Any, int]:
    from django.utils import timezone

    return current_gaming_day(table.casino), shift_of(schedule_of(table.casino), timezone.now()).number


# ---------------------------------------------------------------- buy-ins at the table


def test_a_dealer_records_a_buy_in_in_the_current_shift(table: Any, dealer: Any) -> None:
    day, shift = _now_shift(table)

    buy_in = table_buy_in_record(table=table, amount_minor=50_000, actor=Actor.staff(dealer))

    assert (buy_in.gaming_day, buy_in.shift, buy_in.amount_minor) == (day, shift, 50_000)
    record = AuditRecord.objects.filter(action="accounting.table_buy_in_recorded").get()
    assert record.after["amount_minor"] == 50_000


def test_a_cashier_does_not_record_buy_ins_at_the_table(table: Any, cashier: Any) -> None:
    before = drop_written()
    refused(
        "permission_denied", table_buy_in_record, table=table, amount_minor=50_000, actor=Actor.staff(cashier)
    )
    assert drop_written() == before


@pytest.mark.parametrize("amount", [0, -100, 10.5, True])
def test_a_buy_in_is_a_whole_amount_above_zero(table: Any, dealer: Any, amount: Any) -> None:
    before = drop_written()
    refused(
        "invalid_buy_in", table_buy_in_record, table=table, amount_minor=amount, actor=Actor.staff(dealer)
    )
    assert drop_written() == before


def test_a_correction_replaces_a_buy_in_with_a_reason_once(table: Any, dealer: Any, pit_boss: Any) -> None:
    wrong = table_buy_in_record(table=table, amount_minor=50_000, actor=Actor.staff(dealer))
    before = drop_written()
    refused(
        "reason_required",
        table_buy_in_record,
        table=table,
        amount_minor=5_000,
        actor=Actor.staff(pit_boss),
        corrects=wrong,
    )
    assert drop_written() == before

    fixed = table_buy_in_record(
        table=table, amount_minor=5_000, actor=Actor.staff(pit_boss), corrects=wrong, reason="typo"
    )

    assert (fixed.corrects_id, fixed.gaming_day, fixed.shift) == (wrong.pk, wrong.gaming_day, wrong.shift)
    refused(
        "signature_not_needed",
        table_buy_in_record,
        table=table,
        amount_minor=0,
        actor=Actor.staff(pit_boss),
        corrects=wrong,
        reason="x",
    )
    assert TableBuyIn.objects.count() == 2


# ---------------------------------------------------------------- the drop box count


def test_a_drop_count_is_signed_by_the_count_team_and_a_pit_boss(
    table: Any, cashier: Any, pit_boss: Any
) -> None:
    day, shift = _now_shift(table)

    count = drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )
    drop_count_sign(count=count, actor=Actor.staff(pit_boss))

    assert sorted(count.signatures.values_list("role", "signer__username")) == [
        (DropSignatureRole.COUNT_TEAM, "cashier-1"),
        (DropSignatureRole.VERIFIER, "pitboss-1"),
    ]
    actions = list(
        AuditRecord.objects.filter(object_type="accounting.dropcount").values_list("action", flat=True)
    )
    assert actions == ["accounting.drop_counted", "accounting.drop_count_signed"]


def test_the_accountant_verifies_a_drop_count_too(table: Any, cashier: Any, accountant: Any) -> None:
    day, shift = _now_shift(table)
    count = drop_counted(table, day, shift, 300_000, cashier, accountant)
    assert count.signatures.count() == 2


def test_the_same_person_signing_twice_is_refused(table: Any, cashier: Any) -> None:
    day, shift = _now_shift(table)
    count = drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )
    before = drop_written()

    refused("same_person_signed_twice", drop_count_sign, count=count, actor=Actor.staff(cashier))

    assert drop_written() == before


def test_two_cashiers_do_not_make_a_drop_count(table: Any, cashier: Any) -> None:
    from tests.factories import staff_user

    day, shift = _now_shift(table)
    count = drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )
    other_cashier = staff_user("cashier", "cashier-2")
    before = drop_written()

    error = refused("wrong_role", drop_count_sign, count=count, actor=Actor.staff(other_cashier))

    assert "pit boss or the accounting office" in error.message
    assert drop_written() == before


def test_a_dealer_does_not_count_the_drop(table: Any, dealer: Any) -> None:
    day, shift = _now_shift(table)
    refused(
        "permission_denied",
        drop_count_record,
        table=table,
        gaming_day=day,
        shift=shift,
        total_minor=1,
        actor=Actor.staff(dealer),
    )


def test_a_box_is_counted_once_per_shift_then_corrected(table: Any, cashier: Any, pit_boss: Any) -> None:
    day, shift = _now_shift(table)
    first = drop_counted(table, day, shift, 300_000, cashier, pit_boss)
    before = drop_written()

    refused(
        "drop_already_counted",
        drop_count_record,
        table=table,
        gaming_day=day,
        shift=shift,
        total_minor=310_000,
        actor=Actor.staff(cashier),
    )
    assert drop_written() == before

    correction = drop_count_record(
        table=table,
        gaming_day=day,
        shift=shift,
        total_minor=310_000,
        actor=Actor.staff(cashier),
        corrects=first,
        reason="recount",
    )
    assert (correction.corrects_id, correction.shift) == (first.pk, shift)


def test_a_shift_that_has_not_begun_or_does_not_exist_is_refused(table: Any, cashier: Any) -> None:
    import datetime as dt

    day, _shift = _now_shift(table)
    before = drop_written()
    refused(
        "invalid_shift",
        drop_count_record,
        table=table,
        gaming_day=day + dt.timedelta(days=1),
        shift=1,
        total_minor=1,
        actor=Actor.staff(cashier),
    )
    refused(
        "invalid_shift",
        drop_count_record,
        table=table,
        gaming_day=day,
        shift=9,
        total_minor=1,
        actor=Actor.staff(cashier),
    )
    assert drop_written() == before


def test_a_closed_gaming_day_refuses_buy_ins_drop_counts_and_signatures(
    table: Any, cashier: Any, pit_boss: Any, pit_boss_two: Any, accountant: Any, dealer: Any
) -> None:
    import datetime as dt

    from accounting.gaming_days import shifts_of_day

    yesterday = current_gaming_day(table.casino) - dt.timedelta(days=1)
    last_shift = shifts_of_day(schedule_of(table.casino), yesterday)[-1].number
    pending = drop_count_record(
        table=table, gaming_day=yesterday, shift=1, total_minor=100_000, actor=Actor.staff(cashier)
    )
    drop_count_sign(count=pending, actor=Actor.staff(pit_boss))
    signed = DropCount.objects.get(pk=pending.pk)
    unsigned = drop_count_record(
        table=table, gaming_day=yesterday, shift=last_shift, total_minor=5_000, actor=Actor.staff(cashier)
    )
    # a drop count waiting for its second signature keeps the day from closing
    refused(
        "gaming_day_has_open_work",
        gaming_day_sign,
        casino=table.casino,
        day=yesterday,
        actor=Actor.staff(pit_boss_two),
    )
    drop_count_sign(count=unsigned, actor=Actor.staff(pit_boss))
    day_closed(table.casino, yesterday, pit_boss_two, accountant)
    before = drop_written()

    refused("gaming_day_closed", drop_count_sign, count=unsigned, actor=Actor.staff(pit_boss_two))
    refused(
        "gaming_day_closed",
        drop_count_record,
        table=table,
        gaming_day=yesterday,
        shift=2,
        total_minor=100_000,
        actor=Actor.staff(cashier),
    )
    refused(
        "gaming_day_closed",
        drop_count_record,
        table=table,
        gaming_day=yesterday,
        shift=1,
        total_minor=90_000,
        actor=Actor.staff(cashier),
        corrects=signed,
        reason="recount",
    )
    old_buy_in = TableBuyIn.objects.create(
        table=table,
        gaming_day=yesterday,
        shift=1,
        amount_minor=1_000,
        recorded_at=signed.counted_at,
        recorded_by=dealer,
    )
    before = drop_written()
    refused(
        "gaming_day_closed",
        table_buy_in_record,
        table=table,
        amount_minor=500,
        actor=Actor.staff(pit_boss),
        corrects=old_buy_in,
        reason="typo",
    )
    assert drop_written() == before
