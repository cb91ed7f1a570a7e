"""What waits for whom: the signatures a count, a drop count or a slip waits for, listed on the
pit's floor with their tables; each person's count of what waits for them in the header
(approvals they may decide and signatures they may give); a fill or credit in flight on its
table's dealer console."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import CountKind, SlipKind
from accounting.selectors import current_gaming_day, signatures_waiting, signatures_waiting_for
from accounting.services import (
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    slip_void_decide,
    tray_count_record,
    tray_count_sign,
)
from accounting.services_drop import drop_count_record, drop_count_sign
from casino.actors import Actor
from casino.four_eyes import approvals_waiting_count
from tests.accounting.conftest import TRAY
from tests.factories import staff_user
from tests.tables.payouts_support import boss_dealer, busy_round

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
FILL = {10_000: 500_000, 2_500: 100_000}  # 6 000.00


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _header_count(client: Client, url: str = "/pit/") -> int:
    page = client.get(url).content.decode()
    found = re.search(r'id="waiting-for-you"[^>]*>Waiting for you <span class="pill">(\d+)</span>', page)
    assert found is not None, page[:3000]
    return int(found.group(1))


def _waiting(casino_id: int) -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (entry.kind, entry.table.name, entry.waits_for) for entry in signatures_waiting(casino_id=casino_id)
    ]


def _floor_rows(page: str) -> list[tuple[str, str, str]]:
    """The floor's signatures waiting as (kind, table, waits for) rows."""
    return [
        (kind, table, re.sub(r"<[^>]+>", "", waits).strip())
        for kind, table, waits in re.findall(
            r'<tr class="signature-waiting[^"]*" data-kind="(\w+)" data-table="(\w+)">.*?'
            r'<td class="num">[^<]*</td>\s*<td>(.*?)</td>',
            page,
            re.S,
        )
    ]


def test_an_opener_waiting_for_the_pit_boss_is_counted_for_him_and_listed_on_the_floor(
    table, dealer, pit_boss
):
    # given nothing waiting, then the dealer's opener of BJ1 waiting for the pit boss's signature
    assert _waiting(table.casino_id) == []
    client = _client(pit_boss)
    assert _header_count(client) == 0
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    # then the selector names it, with its table and whose signature it waits for
    assert _waiting(table.casino_id) == [("opener", "BJ1", ("pit_boss",))]
    assert [
        entry.object_id for entry in signatures_waiting_for(user=pit_boss, casino_id=table.casino_id)
    ] == [count.pk]
    assert signatures_waiting_for(user=dealer, casino_id=table.casino_id) == []
    # and the pit boss's header counts it, on every page, and the floor lists it (not "nothing")
    assert _header_count(client) == 1
    assert _header_count(client, "/pit/queue/") == 1
    assert _header_count(_client(dealer), reverse("casino:dealer_home")) == 0
    floor = client.get("/pit/").content.decode()
    assert _floor_rows(floor) == [("opener", "BJ1", "a pit boss · you may sign it")]
    assert '<span class="pill" id="signatures-size">1</span>' in floor
    partial = client.get("/pit/", **HTMX).content.decode()
    assert "<html" not in partial and _floor_rows(partial) == [
        ("opener", "BJ1", "a pit boss · you may sign it")
    ]
    assert f'href="{reverse("accounting:table", args=["BJ1"])}"' in floor
    # and the floor's live version moves on when it is signed, and nothing waits any more
    version = re.search(r"/pit/live/\?version=([0-9a-f]+)", floor).group(1)
    assert client.get("/pit/live/", {"version": version}).status_code == 204
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    assert client.get("/pit/live/", {"version": version}).status_code == 200
    assert _waiting(table.casino_id) == []
    assert _header_count(client) == 0
    assert 'id="signatures-none">No signature waits.' in client.get("/pit/").content.decode()


def test_a_count_the_pit_boss_signed_first_waits_for_a_dealer(table, dealer, pit_boss):
    tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(pit_boss))
    assert _waiting(table.casino_id) == [("opener", "BJ1", ("dealer",))]
    assert len(signatures_waiting_for(user=dealer, casino_id=table.casino_id)) == 1
    assert signatures_waiting_for(user=pit_boss, casino_id=table.casino_id) == []
    assert _header_count(_client(dealer), reverse("casino:dealer_home")) == 1
    assert _floor_rows(_client(staff_user("pit_boss", "pitboss-2")).get("/pit/").content.decode()) == [
        ("opener", "BJ1", "a dealer")
    ]


@pytest.mark.usefixtures("bj1_open")
def test_a_slip_waits_for_the_cage_then_the_table_and_shows_on_the_console(table, dealer, pit_boss, cashier):
    console = _client(dealer)
    console_url = reverse("floor:console", args=["BJ1"])
    version = re.search(r'data-version="([0-9a-f]+)"', console.get(console_url).content.decode()).group(1)
    assert "slip-in-flight" not in console.get(console_url).content.decode()
    # when the pit boss requests a fill: it waits for the cage, and the cashier's count says so
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    assert _waiting(table.casino_id) == [("fill", "BJ1", ("issued",))]
    counts = {
        user.username: len(signatures_waiting_for(user=user, casino_id=table.casino_id))
        for user in (pit_boss, cashier, dealer)
    }
    assert counts == {"pitboss-1": 0, "cashier-1": 1, "dealer-1": 0}
    assert _header_count(_client(cashier), reverse("cage:home")) == 1
    # and the table's console shows the fill in flight within a poll (its version moved on)
    live = console.get(reverse("floor:console_live", args=["BJ1"]), {"version": version}, **HTMX)
    assert live.status_code == 200
    shown = re.search(
        r'<p class="banner warn slip-in-flight"[^>]*data-step="(\w+)">(.*?)</p>', live.content.decode(), re.S
    )
    assert shown.group(1) == "requested"
    assert (
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", shown.group(2))).strip()
        == f"Slip in flight: Fill {slip.year}-1 · 6,000.00 · Requested"
    )
    # when the cage issues it: it waits for the table (a dealer or a pit boss), not the cashier
    slip_issue(slip=slip, actor=Actor.staff(cashier))
    assert _waiting(table.casino_id) == [("fill", "BJ1", ("received",))]
    assert [
        len(signatures_waiting_for(user=user, casino_id=table.casino_id))
        for user in (pit_boss, cashier, dealer)
    ] == [
        1,
        0,
        1,
    ]
    page = console.get(console_url).content.decode()
    assert 'data-step="issued"' in page and "Issued by the cage" in page
    floor = _client(pit_boss).get("/pit/").content.decode()
    assert _floor_rows(floor) == [("fill", "BJ1", "the table, to receive it · you may sign it")]
    # when the table receives it: nothing waits, and the console shows no slip
    slip_receive(slip=slip, actor=Actor.staff(dealer))
    assert _waiting(table.casino_id) == []
    assert "slip-in-flight" not in console.get(console_url).content.decode()


@pytest.mark.usefixtures("bj1_open")
def test_a_proposed_void_waits_for_a_second_person_as_an_approval(table, pit_boss, pit_boss_two, cashier):
    slip = slip_request(
        table=table, kind=SlipKind.CREDIT, amounts={50_000: 1_000_000}, actor=Actor.staff(pit_boss)
    )
    proposal = slip_void(slip=slip, actor=Actor.staff(cashier), reason="wrong table")
    # the void is no signature: it waits as a four-eyes approval, for anyone but its proposer
    assert _waiting(table.casino_id) == []
    assert approvals_waiting_count(user=cashier, casino_id=table.casino_id) == 0
    assert approvals_waiting_count(user=pit_boss_two, casino_id=table.casino_id) == 1
    slip_void_decide(
        slip=slip, approval_id=proposal.approval_id, actor=Actor.staff(pit_boss_two), approve=True
    )
    assert _waiting(table.casino_id) == []
    assert approvals_waiting_count(user=pit_boss_two, casino_id=table.casino_id) == 0


def test_a_drop_count_waits_for_its_verifier(table, cashier, pit_boss, accountant):
    day = current_gaming_day(table.casino)
    shift = shift_of(schedule_of(table.casino), timezone.now()).number
    count = drop_count_record(
        table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
    )
    assert _waiting(table.casino_id) == [("drop_count", "BJ1", ("verifier",))]
    mine = {
        user.username: len(signatures_waiting_for(user=user, casino_id=table.casino_id))
        for user in (cashier, pit_boss, accountant)
    }
    assert mine == {"cashier-1": 0, "pitboss-1": 1, "accountant-1": 1}
    assert _header_count(_client(accountant), reverse("accounting:day")) == 1
    floor = _client(pit_boss).get("/pit/").content.decode()
    assert _floor_rows(floor) == [
        ("drop_count", "BJ1", "a pit boss or the accounting office · you may sign it")
    ]
    assert f"Drop count, shift {shift}" in floor
    drop_count_sign(count=count, actor=Actor.staff(accountant))
    assert _waiting(table.casino_id) == []


def test_the_header_counts_the_approvals_a_person_may_decide_too(table, pit_boss, operator):
    # given the busy round's three held payouts, dealt by a dealer who also holds the pit boss's
    # permissions, and an opener waiting for a pit boss
    dealer = boss_dealer(pit_boss)
    busy_round(table, dealer, operator)
    tray_count_record(
        table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(staff_user("dealer", "dealer-9"))
    )
    # then the pit boss may decide the three and sign the opener: 4; the round's dealer none of the
    # payouts but the opener
    assert approvals_waiting_count(user=pit_boss, casino_id=table.casino_id) == 3
    assert _header_count(_client(pit_boss)) == 4
    assert approvals_waiting_count(user=dealer, casino_id=table.casino_id) == 0
    assert _header_count(_client(dealer)) == 1
    # and an auditor, who decides and signs nothing, reads 0 with no link
    auditor_page = _client(staff_user("auditor", "auditor-9")).get(reverse("audit:home")).content.decode()
    assert (
        '<span class="waiting" id="waiting-for-you">Waiting for you <span class="pill">0</span></span>'
        in auditor_page
    )
