"""A pit boss and the accounting office close a gaming day; from then on its counts and slips no
longer change."""

from __future__ import annotations

import datetime as dt

import pytest

from accounting.models import CountKind, GamingDayClose, SlipKind
from accounting.selectors import current_gaming_day
from accounting.services import (
    gaming_day_sign,
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    tray_count_record,
    tray_count_sign,
)
from casino.actors import Actor
from casino.errors import ServiceError
from tests.accounting.conftest import TRAY, counted, day_closed, opened, snapshot

pytestmark = pytest.mark.django_db


def test_a_closed_gaming_day_refuses_counts_slips_and_signatures(
    table, dealer, pit_boss, cashier, accountant
):
    # given an opened table, a received fill, and the day closed by the pit boss and the accountant
    opener = opened(table, dealer, pit_boss)
    fill = slip_request(
        table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss)
    )
    slip_issue(slip=fill, actor=Actor.staff(cashier))
    slip_receive(slip=fill, actor=Actor.staff(dealer))
    today = current_gaming_day(table.casino)
    closed = day_closed(table.casino, today, pit_boss, accountant)
    assert (closed.gaming_day, closed.closed_by) == (today, accountant)
    # then nothing more is written into it
    before = snapshot()
    refusals = []
    for attempt in (
        lambda: tray_count_record(
            table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer)
        ),
        lambda: slip_request(
            table=table, kind=SlipKind.CREDIT, amounts={100: 100}, actor=Actor.staff(pit_boss)
        ),
        lambda: tray_count_record(
            table=table,
            kind=CountKind.OPENER,
            amounts=TRAY,
            actor=Actor.staff(dealer),
            corrects=opener,
            reason="recount",
        ),
        lambda: slip_void(slip=fill, actor=Actor.staff(pit_boss), reason="late"),
        lambda: gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss)),
    ):
        with pytest.raises(ServiceError) as refused:
            attempt()
        refusals.append(refused.value.code)
    assert refusals == ["gaming_day_closed"] * 4 + ["gaming_day_already_closed"]
    assert snapshot() == before


def test_a_day_with_a_slip_in_flight_or_a_count_to_sign_does_not_close(
    table, dealer, pit_boss, cashier, accountant
):
    today = current_gaming_day(table.casino)
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    with pytest.raises(ServiceError) as unsigned:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss))
    assert unsigned.value.code == "gaming_day_has_open_work"
    assert unsigned.value.details["unsigned_counts"] == [count.pk]
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    fill = slip_request(
        table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss)
    )
    slip_issue(slip=fill, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as in_flight:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss))
    assert in_flight.value.details["open_slips"] == [fill.number]
    assert not GamingDayClose.objects.exists()
    slip_receive(slip=fill, actor=Actor.staff(dealer))
    day_closed(table.casino, today, pit_boss, accountant)
    assert GamingDayClose.objects.count() == 1


def test_only_a_pit_boss_and_the_accounting_office_sign_a_day_that_has_begun(
    table, dealer, pit_boss, cashier
):
    today = current_gaming_day(table.casino)
    for user in (dealer, cashier):
        with pytest.raises(ServiceError) as refused:
            gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(user))
        assert refused.value.code == "permission_denied"
    with pytest.raises(ServiceError) as tomorrow:
        gaming_day_sign(casino=table.casino, day=today + dt.timedelta(days=1), actor=Actor.staff(pit_boss))
    assert tomorrow.value.code == "gaming_day_not_started"
    assert not GamingDayClose.objects.exists()


def test_a_count_of_a_closed_day_is_corrected_by_a_new_record_of_an_open_day(
    table, dealer, pit_boss, accountant
):
    # given a closer recorded yesterday, in a day the pit boss closed
    opened(table, dealer, pit_boss)
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    yesterday = current_gaming_day(table.casino) - dt.timedelta(days=1)
    type(closer).objects.filter(pk=closer.pk).update(gaming_day=yesterday)  # as the owner could
    day_closed(table.casino, yesterday, pit_boss, accountant)
    # when it is corrected today, the correction names it, and the closed record stays
    correction = tray_count_record(
        table=table,
        kind=CountKind.CLOSER,
        amounts={**TRAY, 100: 9_000},
        actor=Actor.staff(dealer),
        corrects=closer,
        reason="recount",
    )
    tray_count_sign(count=correction, actor=Actor.staff(pit_boss))
    assert (correction.corrects_id, correction.gaming_day) == (closer.pk, current_gaming_day(table.casino))
    closer.refresh_from_db()
    assert (closer.gaming_day, closer.total_minor) == (yesterday, 2_000_000)


def test_a_day_closes_with_two_signatures_by_two_people_in_either_order(
    table, pit_boss, pit_boss_two, accountant
):
    from accounting.models import GamingDaySignature
    from casino.models import AuditRecord

    today = current_gaming_day(table.casino)
    # the accounting office first: the day stays open
    assert gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(accountant)) is None
    assert not GamingDayClose.objects.exists()
    before = snapshot()
    # the same person again, or a second pit boss after a first, is refused with nothing written
    with pytest.raises(ServiceError) as twice:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(accountant))
    assert twice.value.code == "same_person_signed_twice"
    assert snapshot() == before
    # then a pit boss's signature closes it
    closed = gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss))
    assert closed is not None and closed.closed_by == pit_boss
    roles = sorted(GamingDaySignature.objects.values_list("role", flat=True))
    assert roles == ["accountant", "pit_boss"]
    actions = list(AuditRecord.objects.order_by("-sequence").values_list("action", flat=True)[:3])
    assert actions == [
        "accounting.gaming_day_closed",
        "accounting.gaming_day_signed",
        "accounting.gaming_day_signed",
    ]
    with pytest.raises(ServiceError) as again:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss_two))
    assert again.value.code == "gaming_day_already_closed"


def test_two_pit_bosses_do_not_close_a_day(table, pit_boss, pit_boss_two):
    today = current_gaming_day(table.casino)
    assert gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss)) is None
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss_two))
    assert refused.value.code == "signature_not_needed"
    assert snapshot() == before and not GamingDayClose.objects.exists()


def test_a_drop_count_waiting_for_its_second_signature_keeps_the_day_open(
    table, cashier, pit_boss, accountant
):
    from django.utils import timezone

    from accounting.gaming_days import schedule_of, shift_of
    from accounting.services_drop import drop_count_record, drop_count_sign

    today = current_gaming_day(table.casino)
    shift = shift_of(schedule_of(table.casino), timezone.now()).number
    count = drop_count_record(
        table=table, gaming_day=today, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )
    with pytest.raises(ServiceError) as waiting:
        gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss))
    assert waiting.value.code == "gaming_day_has_open_work"
    assert waiting.value.details["unsigned_drop_counts"] == [count.pk]
    drop_count_sign(count=count, actor=Actor.staff(pit_boss))
    day_closed(table.casino, today, pit_boss, accountant)
