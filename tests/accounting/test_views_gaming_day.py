"""The gaming day on its page: closing it after its last shift, in order, with the confirmation
on the signature that closes it; the pages refusing a write for a closed day in words, nothing
written; asking for a reopening and deciding it; the day's reports showing it."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounting.models import CountKind, DropCount, GamingDaySignature, Slip, SlipKind, TableBuyIn
from accounting.selectors import current_gaming_day
from accounting.services import slip_request, tray_count_record, tray_count_sign
from casino.actors import Actor
from casino.gaming_day_state import is_gaming_day_closed
from casino.models import Approval, Casino, GamingDayClose
from tests.accounting.conftest import (
    TRAY,
    day_closed,
    day_closed_before_its_end,
    moved_to_day,
    opened,
    snapshot,
    yesterday,
)
from tests.accounting.test_reports import pdf_text
from tests.factories import staff_user

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _set_up_days_ago(casino: Casino, days: int) -> None:
    Casino.objects.filter(pk=casino.pk).update(created_at=timezone.now() - dt.timedelta(days=days))
    casino.refresh_from_db()


def _row(page: str, day: dt.date) -> str:
    """The day's row of the page's table of open days."""
    found = re.search(rf'<tr class="day-row" id="day-{day.isoformat()}">.*?</tr>', page, re.S)
    assert found is not None, f"no row of {day}"
    return found.group(0)


def test_the_current_day_closes_only_after_its_last_shift_on_its_page(table, pit_boss):
    # given the current gaming day, in one of its shifts
    today = current_gaming_day(table.casino)
    client = client_of(pit_boss)
    # its row says when it can close, and offers no signature
    row = _row(client.get("/accounting/").text, today)
    assert "Closes after its last shift, which ends at" in row and "close-day" not in row
    # a signature posted anyway is refused in words, and nothing is written
    before = snapshot()
    refused = client.post("/accounting/day/close/", {"day": today.isoformat()}, headers=HTMX)
    assert refused.status_code == 409 and 'data-code="gaming_day_not_ended"' in refused.text
    tomorrow = (today + dt.timedelta(days=1)).isoformat()
    assert (
        f"The gaming day {today.isoformat()} closes after its last shift, which ends at 06:00 on {tomorrow}."
        in refused.text
    )
    assert snapshot() == before and not GamingDaySignature.objects.exists()


def test_a_day_closes_on_its_page_with_the_confirmation_on_the_second_signature(
    table, dealer, pit_boss, accountant
):
    # given yesterday with an opener still to sign
    _set_up_days_ago(table.casino, 1)
    day = yesterday(table.casino)
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    moved_to_day(day, count)
    posted = {"day": day.isoformat()}
    assert client_of(dealer).post("/accounting/day/close/", posted, headers=HTMX).status_code == 403
    open_work = client_of(pit_boss).post("/accounting/day/close/", posted, headers=HTMX)
    assert open_work.status_code == 409 and "gaming_day_has_open_work" in open_work.text
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    # the first signature closes nothing: no confirmation asked
    first = _row(client_of(pit_boss).get("/accounting/").text, day)
    assert "Sign the gaming day's close" in first and "hx-confirm" not in first
    signed = client_of(pit_boss).post("/accounting/day/close/", posted, headers=HTMX)
    assert signed.status_code == 200 and "closes with the second signature" in signed.text
    assert "signed for the pit by pitboss-1" in _row(signed.text, day)
    twice = client_of(pit_boss).post("/accounting/day/close/", posted)
    assert twice.status_code == 403 and "same_person_signed_twice" in twice.text
    # the second one closes the day: it is confirmed first
    second = _row(client_of(accountant).get("/accounting/").text, day)
    assert "Sign and close the gaming day" in second
    assert 'hx-confirm="Close this gaming day? Nothing more will be written into it."' in second
    closed = client_of(accountant).post("/accounting/day/close/", posted, headers=HTMX)
    assert closed.status_code == 200 and "Gaming day closed." in closed.text
    assert f'id="day-{day.isoformat()}"' not in closed.text  # no longer among the open days
    listed = re.search(
        rf'<li class="closed-day" id="closed-{day.isoformat()}">.*?</li>\s*</ul>', closed.text, re.S
    )
    assert listed is not None and "closed by accountant-1" in listed.group(0)
    assert is_gaming_day_closed(table.casino.pk, day)


def test_a_day_closes_in_order_on_its_page(table, pit_boss):
    _set_up_days_ago(table.casino, 2)
    day = yesterday(table.casino)
    before = snapshot()
    refused = client_of(pit_boss).post("/accounting/day/close/", {"day": day.isoformat()}, headers=HTMX)
    first = (day - dt.timedelta(days=1)).isoformat()
    assert refused.status_code == 409 and 'data-code="gaming_day_earlier_open"' in refused.text
    assert f"The gaming day {first} is open: close the days in order, {first} first." in refused.text
    assert snapshot() == before


def test_the_pages_refuse_a_write_for_a_closed_day_in_words(table, dealer, pit_boss, cashier, accountant):
    # given BJ1 open, and the day closed before it ended (as the close at 14:51 left it)
    opened(table, dealer, pit_boss)
    pending = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 100}, actor=Actor.staff(pit_boss))
    day_closed_before_its_end(table.casino, current_gaming_day(table.casino), accountant)
    before = snapshot()
    drop_before = (DropCount.objects.count(), TableBuyIn.objects.count())
    answers = [
        client_of(pit_boss).post(
            "/accounting/slips/request/",
            {"amount-100": "1.00", "table": "BJ1", "kind": "fill"},
            headers=HTMX,
        ),
        client_of(cashier).post(f"/accounting/slips/{pending.pk}/issue/", headers=HTMX),
        client_of(dealer).post(
            "/accounting/tables/BJ1/counts/",
            {**{f"amount-{value}": f"{amount // 100}" for value, amount in TRAY.items()}, "kind": "closer"},
            headers=HTMX,
        ),
        client_of(dealer).post("/accounting/drop/buy-ins/", {"table": "BJ1", "amount": "250"}, headers=HTMX),
        client_of(cashier).post(
            "/accounting/drop/counts/",
            {"table": "BJ1", "shift": f"{current_gaming_day(table.casino).isoformat()}/1", "total": "300"},
            headers=HTMX,
        ),
    ]
    for answer in answers:
        assert answer.status_code == 409, answer.text[:300]
        assert 'data-code="gaming_day_closed"' in answer.text
        assert "is closed: nothing more is written into it." in answer.text
    assert snapshot() == before and (DropCount.objects.count(), TableBuyIn.objects.count()) == drop_before
    assert Slip.objects.count() == 1


def test_a_closed_day_reopens_through_its_page_and_its_reports_show_it(table, pit_boss, accountant):
    # given yesterday closed
    _set_up_days_ago(table.casino, 1)
    day = yesterday(table.casino)
    day_closed(table.casino, day, pit_boss, accountant)
    accountant_two = staff_user("accountant", "accountant-2")
    asked_for = {"day": day.isoformat(), "reason": "drop box of BJ2 found in the vault"}
    page = client_of(accountant).get("/accounting/").text
    assert 'class="actions reopen-form"' in page
    # a pit boss may not ask; a request says why
    assert client_of(pit_boss).post("/accounting/day/reopen/", asked_for).status_code == 403
    no_reason = client_of(accountant).post("/accounting/day/reopen/", {"day": day.isoformat()}, headers=HTMX)
    assert no_reason.status_code == 422 and "reason_required" in no_reason.text
    asked = client_of(accountant).post("/accounting/day/reopen/", asked_for, headers=HTMX)
    assert asked.status_code == 200 and "reopens when a second person approves" in asked.text
    approval = Approval.objects.get(kind="day_reopen")
    waiting = re.search(rf'<li class="reopen-request" id="reopen-{approval.pk}">.*?</li>', asked.text, re.S)
    assert waiting is not None and "It waits for someone else who signs gaming days." in waiting.group(0)
    assert "drop box of BJ2 found in the vault" in waiting.group(0)
    # whoever asked cannot approve through the page either
    own = client_of(accountant).post(
        f"/accounting/day/reopen/{approval.pk}/decide/", {"decision": "approve"}, headers=HTMX
    )
    assert own.status_code == 403 and "four_eyes_required" in own.text
    assert is_gaming_day_closed(table.casino.pk, day)
    # the second person sees the buttons and approves
    second = client_of(accountant_two)
    decision = re.search(
        rf'<li class="reopen-request" id="reopen-{approval.pk}">.*?</li>',
        second.get("/accounting/").text,
        re.S,
    )
    assert (
        decision is not None
        and "Approve: reopen the day" in decision.group(0)
        and "Reject" in decision.group(0)
    )
    approved = second.post(
        f"/accounting/day/reopen/{approval.pk}/decide/", {"decision": "approve"}, headers=HTMX
    )
    assert approved.status_code == 200 and "Gaming day reopened." in approved.text
    assert not is_gaming_day_closed(table.casino.pk, day)
    row = _row(approved.text, day)
    assert (
        "asked by accountant-1 because: drop box of BJ2 found in the vault; approved by accountant-2" in row
    )
    # and closed again by its two signatures
    day_closed(table.casino, day, pit_boss, accountant)
    assert GamingDayClose.objects.filter(gaming_day=day).count() == 2
    # the day's reports say so: the day page, the win page, the table reports and their PDF,
    # the cash transaction log
    history = [
        "Gaming day closed at",
        "Gaming day reopened at",
        "asked by accountant-1 because: drop box of BJ2 found in the vault; approved by accountant-2.",
    ]
    reader = client_of(accountant)
    closed_entry = re.search(
        rf'<li class="closed-day" id="closed-{day.isoformat()}">.*?</ul>',
        reader.get("/accounting/").text,
        re.S,
    )
    assert closed_entry is not None
    assert [
        item.strip() for item in re.findall(r'<li class="day-event[^"]*">(.*?)</li>', closed_entry.group(0))
    ][1].endswith("approved by accountant-2")
    for url in (
        f"/accounting/win/?day={day.isoformat()}",
        f"/accounting/reports/day/?day={day.isoformat()}",
        f"/accounting/reports/master/?day={day.isoformat()}",
        f"/accounting/reports/shift/?day={day.isoformat()}&shift=1",
        f"/accounting/cash-log/?day={day.isoformat()}",
    ):
        text = reader.get(url).text
        for line in history:
            assert line in text, (url, line)
        assert text.count("Gaming day closed at") == 2, url
    pdf = pdf_text(reader.get(f"/accounting/reports/day/?day={day.isoformat()}&format=pdf").content)
    assert "Gaming day reopened at" in pdf and "approved by accountant-2" in pdf


def test_a_reopening_is_rejected_on_the_page_with_a_reason(table, pit_boss, accountant):
    _set_up_days_ago(table.casino, 1)
    day = yesterday(table.casino)
    day_closed(table.casino, day, pit_boss, accountant)
    client_of(accountant).post("/accounting/day/reopen/", {"day": day.isoformat(), "reason": "recount"})
    approval = Approval.objects.get(kind="day_reopen")
    second = client_of(staff_user("accountant", "accountant-2"))
    url = f"/accounting/day/reopen/{approval.pk}/decide/"
    no_reason = second.post(url, {"decision": "reject"}, headers=HTMX)
    assert no_reason.status_code == 422 and "reason_required" in no_reason.text
    rejected = second.post(url, {"decision": "reject", "reason": "the count agrees"})
    assert rejected.status_code == 302
    approval.refresh_from_db()
    assert (approval.status, approval.decision_reason) == ("rejected", "the count agrees")
    assert is_gaming_day_closed(table.casino.pk, day)
