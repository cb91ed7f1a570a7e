"""A pit boss and the accounting office close a gaming day once its last shift has ended and every
earlier day is closed; from then on nothing is written into it; it reopens only when someone who
signs gaming days asks, with a reason, and a second person approves."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounting.models import CountKind, GamingDaySignature, SlipKind
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
from accounting.services_drop import drop_count_record
from casino.actors import Actor
from casino.errors import ServiceError
from casino.gaming_day_state import (
    gaming_day_history,
    gaming_day_reopen_decide,
    gaming_day_reopen_request,
    is_gaming_day_closed,
)
from casino.models import Approval, AuditRecord, Casino, GamingDayClose, GamingDayReopening
from tests.accounting.conftest import (
    TRAY,
    counted,
    day_closed,
    day_closed_before_its_end,
    moved_to_day,
    opened,
    snapshot,
    yesterday,
)
from tests.factories import staff_user
from tests.tables.conftest import refused

pytestmark = pytest.mark.django_db


def _set_up_days_ago(casino: Casino, days: int) -> None:
    """The casino set up ``days`` gaming days ago: each day since then closes in order."""
    Casino.objects.filter(pk=casino.pk).update(created_at=timezone.now() - dt.timedelta(days=days))
    casino.refresh_from_db()


def _closed_days(casino: Casino) -> list[tuple[dt.date, int]]:
    return list(
        GamingDayClose.objects.filter(casino=casino, reopening__isnull=True)
        .order_by("gaming_day")
        .values_list("gaming_day", "closing")
    )


# ---------------------------------------------------------------- when a day closes


def test_the_current_day_does_not_close_before_its_last_shift_has_ended(table, pit_boss, accountant):
    # given the current gaming day, in its second shift or any other
    casino = table.casino
    today = current_gaming_day(casino)
    before = snapshot()
    # when the pit boss and the accounting office sign its close, or the next day's
    for signer in (pit_boss, accountant):
        refusal = refused(
            "gaming_day_not_ended", gaming_day_sign, casino=casino, day=today, actor=Actor.staff(signer)
        )
        assert refusal.details["day"] == today.isoformat()
        assert refusal.details["end_day"] == (today + dt.timedelta(days=1)).isoformat()
        assert refusal.details["ends_at"] == casino.gaming_day_starts_at.strftime("%H:%M")
    tomorrow = today + dt.timedelta(days=1)
    refused("gaming_day_not_ended", gaming_day_sign, casino=casino, day=tomorrow, actor=Actor.staff(pit_boss))
    # then neither signature is written, and the day stays open
    assert snapshot() == before and not GamingDaySignature.objects.exists()
    assert not is_gaming_day_closed(casino.pk, today)


def test_a_day_does_not_close_while_an_earlier_day_is_open(table, pit_boss, accountant):
    # given a casino set up three days ago, none of its days closed
    casino = table.casino
    _set_up_days_ago(casino, 3)
    today = current_gaming_day(casino)
    first, second, last = (today - dt.timedelta(days=days) for days in (3, 2, 1))
    before = snapshot()
    # when yesterday is signed first, it is refused, naming the first open day
    refusal = refused(
        "gaming_day_earlier_open", gaming_day_sign, casino=casino, day=last, actor=Actor.staff(pit_boss)
    )
    assert (refusal.details["day"], refusal.details["open_day"]) == (last.isoformat(), first.isoformat())
    refused(
        "gaming_day_earlier_open", gaming_day_sign, casino=casino, day=second, actor=Actor.staff(accountant)
    )
    assert snapshot() == before
    # then the days close in order
    for day in (first, second, last):
        day_closed(casino, day, pit_boss, accountant)
    assert _closed_days(casino) == [(first, 1), (second, 1), (last, 1)]


def test_a_day_with_a_slip_in_flight_or_a_count_to_sign_does_not_close(
    table, dealer, pit_boss, cashier, accountant
):
    day = yesterday(table.casino)
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    moved_to_day(day, count)
    with pytest.raises(ServiceError) as unsigned:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss))
    assert unsigned.value.code == "gaming_day_has_open_work"
    assert unsigned.value.details["unsigned_counts"] == [count.pk]
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    fill = slip_request(
        table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss)
    )
    moved_to_day(day, fill)
    slip_issue(slip=fill, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as in_flight:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss))
    assert in_flight.value.details["open_slips"] == [fill.number]
    assert not GamingDayClose.objects.exists()
    slip_receive(slip=fill, actor=Actor.staff(dealer))
    day_closed(table.casino, day, pit_boss, accountant)
    assert GamingDayClose.objects.count() == 1


def test_only_a_pit_boss_and_the_accounting_office_sign_a_day(table, dealer, cashier):
    for user in (dealer, cashier):
        with pytest.raises(ServiceError) as refused_signature:
            gaming_day_sign(casino=table.casino, day=yesterday(table.casino), actor=Actor.staff(user))
        assert refused_signature.value.code == "permission_denied"
    assert not GamingDaySignature.objects.exists() and not GamingDayClose.objects.exists()


def test_a_day_closes_with_two_signatures_by_two_people_in_either_order(
    table, pit_boss, pit_boss_two, accountant
):
    day = yesterday(table.casino)
    # the accounting office first: the day stays open
    assert gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(accountant)) is None
    assert not GamingDayClose.objects.exists()
    before = snapshot()
    # the same person again is refused with nothing written
    with pytest.raises(ServiceError) as twice:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(accountant))
    assert twice.value.code == "same_person_signed_twice"
    assert snapshot() == before
    # then a pit boss's signature closes it
    closed = gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss))
    assert closed is not None and (closed.closed_by, closed.gaming_day, closed.closing) == (pit_boss, day, 1)
    roles = sorted(GamingDaySignature.objects.values_list("role", flat=True))
    assert roles == ["accountant", "pit_boss"]
    actions = list(AuditRecord.objects.order_by("-sequence").values_list("action", flat=True)[:3])
    assert actions == [
        "accounting.gaming_day_closed",
        "accounting.gaming_day_signed",
        "accounting.gaming_day_signed",
    ]
    with pytest.raises(ServiceError) as again:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss_two))
    assert again.value.code == "gaming_day_already_closed"


def test_two_pit_bosses_do_not_close_a_day(table, pit_boss, pit_boss_two):
    day = yesterday(table.casino)
    assert gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss)) is None
    before = snapshot()
    with pytest.raises(ServiceError) as refusal:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss_two))
    assert refusal.value.code == "signature_not_needed"
    assert snapshot() == before and not GamingDayClose.objects.exists()


def test_a_drop_count_waiting_for_its_second_signature_keeps_the_day_open(
    table, cashier, pit_boss, accountant
):
    from accounting.services_drop import drop_count_sign

    day = yesterday(table.casino)
    count = drop_count_record(
        table=table, gaming_day=day, shift=1, total_minor=300_000, actor=Actor.staff(cashier)
    )
    with pytest.raises(ServiceError) as waiting:
        gaming_day_sign(casino=table.casino, day=day, actor=Actor.staff(pit_boss))
    assert waiting.value.code == "gaming_day_has_open_work"
    assert waiting.value.details["unsigned_drop_counts"] == [count.pk]
    drop_count_sign(count=count, actor=Actor.staff(pit_boss))
    day_closed(table.casino, day, pit_boss, accountant)


# ---------------------------------------------------------------- a closed day takes no write


def test_a_closed_day_takes_no_count_slip_or_signature(table, dealer, pit_boss, cashier, accountant):
    # given the day closed while an opened table played on, as a close signed mid-shift left it
    # (the current day closed at 14:51): everything written now is of a closed day
    opener = opened(table, dealer, pit_boss)
    fill = slip_request(
        table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss)
    )
    slip_issue(slip=fill, actor=Actor.staff(cashier))
    slip_receive(slip=fill, actor=Actor.staff(dealer))
    pending = slip_request(table=table, kind=SlipKind.CREDIT, amounts={100: 100}, actor=Actor.staff(pit_boss))
    today = current_gaming_day(table.casino)
    day_closed_before_its_end(table.casino, today, accountant)
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
        lambda: slip_issue(slip=pending, actor=Actor.staff(cashier)),
        lambda: slip_void(slip=pending, actor=Actor.staff(pit_boss), reason="late"),
        lambda: gaming_day_sign(casino=table.casino, day=today, actor=Actor.staff(pit_boss)),
    ):
        with pytest.raises(ServiceError) as refusal:
            attempt()
        refusals.append(refusal.value.code)
    assert refusals == ["gaming_day_closed"] * 5 + ["gaming_day_already_closed"]
    assert snapshot() == before


def test_a_count_of_a_closed_day_is_corrected_by_a_new_record_of_an_open_day(
    table, dealer, pit_boss, accountant
):
    # given a closer recorded yesterday, in a day the pit boss closed
    opened(table, dealer, pit_boss)
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    day = yesterday(table.casino)
    moved_to_day(day, closer)
    day_closed(table.casino, day, pit_boss, accountant)
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
    assert (closer.gaming_day, closer.total_minor) == (day, 2_000_000)


# ---------------------------------------------------------------- reopening through four eyes


def test_a_closed_day_reopens_when_a_second_person_approves_the_reason_and_closes_again(
    table, cashier, pit_boss, accountant
):
    # given yesterday closed
    casino, day = table.casino, yesterday(table.casino)
    day_closed(casino, day, pit_boss, accountant)
    accountant_two = staff_user("accountant", "accountant-2")
    before = snapshot()
    # a pit boss may not ask, and the accounting office asks with a reason
    refused(
        "permission_denied",
        gaming_day_reopen_request,
        casino=casino,
        day=day,
        actor=Actor.staff(pit_boss),
        reason="x",
    )
    refused(
        "reason_required",
        gaming_day_reopen_request,
        casino=casino,
        day=day,
        actor=Actor.staff(accountant),
        reason=" ",
    )
    assert snapshot() == before and not Approval.objects.exists()
    asked = gaming_day_reopen_request(
        casino=casino, day=day, actor=Actor.staff(accountant), reason="drop box of BJ2 found in the vault"
    )
    assert (asked.kind, asked.status, asked.place, asked.requested_by) == (
        "day_reopen",
        "pending",
        day.isoformat(),
        accountant,
    )
    # the day stays closed while it waits: the drop count of its last shift is refused
    refused(
        "gaming_day_closed",
        drop_count_record,
        table=table,
        gaming_day=day,
        shift=1,
        total_minor=500,
        actor=Actor.staff(cashier),
    )
    refused(
        "approval_pending",
        gaming_day_reopen_request,
        casino=casino,
        day=day,
        actor=Actor.staff(accountant_two),
        reason="again",
    )
    # whoever asked does not decide, nor someone without the permission
    waiting = snapshot()
    refused(
        "four_eyes_required",
        gaming_day_reopen_decide,
        approval_id=asked.pk,
        actor=Actor.staff(accountant),
        approve=True,
    )
    refused(
        "permission_denied",
        gaming_day_reopen_decide,
        approval_id=asked.pk,
        actor=Actor.staff(pit_boss),
        approve=True,
    )
    assert snapshot() == waiting and is_gaming_day_closed(casino.pk, day)
    # when a second person of the accounting office approves, the day is open again
    reopening = gaming_day_reopen_decide(
        approval_id=asked.pk, actor=Actor.staff(accountant_two), approve=True
    )
    assert reopening is not None and reopening.approval.decided_by == accountant_two
    assert not is_gaming_day_closed(casino.pk, day)
    late = drop_count_record(
        table=table, gaming_day=day, shift=1, total_minor=500, actor=Actor.staff(cashier)
    )
    assert late.gaming_day == day
    actions = list(
        AuditRecord.objects.filter(action__startswith="casino.gaming_day_reopen")
        .order_by("sequence")
        .values_list("action", "actor__username")
    )
    assert actions == [
        ("casino.gaming_day_reopen_requested", "accountant-1"),
        ("casino.gaming_day_reopened", "accountant-2"),
    ]
    # and it closes again, signed anew, as its second closing
    from accounting.services_drop import drop_count_sign

    drop_count_sign(count=late, actor=Actor.staff(pit_boss))
    again = day_closed(casino, day, pit_boss, accountant)
    assert again.closing == 2 and _closed_days(casino) == [(day, 2)]
    assert sorted(GamingDaySignature.objects.filter(gaming_day=day).values_list("closing", "role")) == [
        (1, "accountant"),
        (1, "pit_boss"),
        (2, "accountant"),
        (2, "pit_boss"),
    ]
    history = [
        (event.kind, event.closing, event.by, event.asked_by, event.reason)
        for event in gaming_day_history(casino.pk, day)
    ]
    assert history == [
        ("closed", 1, "accountant-1", "", ""),
        ("reopened", 1, "accountant-2", "accountant-1", "drop box of BJ2 found in the vault"),
        ("closed", 2, "accountant-1", "", ""),
    ]


def test_a_rejected_reopening_leaves_the_day_closed(table, pit_boss, accountant):
    casino, day = table.casino, yesterday(table.casino)
    day_closed(casino, day, pit_boss, accountant)
    asked = gaming_day_reopen_request(casino=casino, day=day, actor=Actor.staff(accountant), reason="recount")
    second = Actor.staff(staff_user("accountant", "accountant-2"))
    refused("reason_required", gaming_day_reopen_decide, approval_id=asked.pk, actor=second, approve=False)
    assert (
        gaming_day_reopen_decide(approval_id=asked.pk, actor=second, approve=False, reason="the count agrees")
        is None
    )
    asked.refresh_from_db()
    assert (asked.status, asked.decision_reason) == ("rejected", "the count agrees")
    assert is_gaming_day_closed(casino.pk, day) and not GamingDayReopening.objects.exists()
    refused("approval_decided", gaming_day_reopen_decide, approval_id=asked.pk, actor=second, approve=True)


def test_the_latest_closed_day_reopens_first_and_an_open_day_does_not_reopen(table, pit_boss, accountant):
    casino = table.casino
    _set_up_days_ago(casino, 2)
    earlier, later = (current_gaming_day(casino) - dt.timedelta(days=days) for days in (2, 1))
    day_closed(casino, earlier, pit_boss, accountant)
    day_closed(casino, later, pit_boss, accountant)
    asker = Actor.staff(accountant)
    refusal = refused(
        "gaming_day_later_closed",
        gaming_day_reopen_request,
        casino=casino,
        day=earlier,
        actor=asker,
        reason="x",
    )
    assert refusal.details["later_day"] == later.isoformat()
    today = current_gaming_day(casino)
    refused(
        "gaming_day_not_closed", gaming_day_reopen_request, casino=casino, day=today, actor=asker, reason="x"
    )
    assert not Approval.objects.exists()
    # the later day reopened, the earlier may be asked for; the later then closes after it again
    asked = gaming_day_reopen_request(casino=casino, day=later, actor=asker, reason="recount")
    gaming_day_reopen_decide(
        approval_id=asked.pk, actor=Actor.staff(staff_user("accountant", "accountant-2")), approve=True
    )
    gaming_day_reopen_request(casino=casino, day=earlier, actor=asker, reason="recount too")
    assert _closed_days(casino) == [(earlier, 1)]


def test_a_reopening_waits_for_a_later_day_closed_meanwhile(table, pit_boss, accountant):
    casino = table.casino
    _set_up_days_ago(casino, 2)
    earlier, later = (current_gaming_day(casino) - dt.timedelta(days=days) for days in (2, 1))
    day_closed(casino, earlier, pit_boss, accountant)
    asked = gaming_day_reopen_request(casino=casino, day=earlier, actor=Actor.staff(accountant), reason="x")
    day_closed(casino, later, pit_boss, accountant)
    second = Actor.staff(staff_user("accountant", "accountant-2"))
    before = snapshot()
    refused(
        "gaming_day_later_closed", gaming_day_reopen_decide, approval_id=asked.pk, actor=second, approve=True
    )
    asked.refresh_from_db()
    assert asked.status == "pending" and snapshot() == before
