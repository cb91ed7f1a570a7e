"""The dealers' tip report ``/accounting/tips/``: whole without htmx and its partial with it, the
shift picker, the CSV; readable with ``view_accounting``, by a dealer for their own share only,
refused to the others."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client

from accounting.gaming_days import schedule_of, shift_of
from accounting.tips import tip_from_player, tip_record
from casino.actors import Actor
from casino.models import Table
from tables.models import Round
from tests.accounting.tips_support import settled_round
from tests.factories import TerminalFactory, staff_user

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
URL = "/accounting/tips/"
REFUSED_TEXT = "This page is not for your role"


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def tipped(table: Table, dealer: Any, dealer_two: Any) -> Round:
    """Round 1 at BJ1 dealt by dealer-1, tipped 5.00 in chips and 2.50 from alice's wallet;
    dealer-2 deals a round at BJ2 and is tipped 1.00."""
    round_ = settled_round(table, dealer)
    tip_record(round_=round_, amount_minor=500, actor=Actor.staff(dealer), box=1)
    alice = round_.bets.get().player
    tip_from_player(
        table=table,
        amount_minor=250,
        actor=Actor.at_terminal(TerminalFactory(casino=table.casino, table=table), alice),
    )
    bj2 = Table.objects.select_related("casino").get(name="BJ2")
    other = settled_round(bj2, dealer_two)
    tip_record(round_=other, amount_minor=100, actor=Actor.staff(dealer_two))
    return round_


def _query(round_: Round) -> dict[str, str]:
    shift = shift_of(schedule_of(round_.table.casino), round_.opened_at)
    return {"day": shift.gaming_day.isoformat(), "shift": str(shift.number)}


def test_the_report_is_whole_without_htmx_and_its_partial_with_it(tipped, accountant):
    client = client_of(accountant)
    page, partial = client.get(URL, _query(tipped)), client.get(URL, _query(tipped), headers=HTMX)
    assert (page.status_code, partial.status_code) == (200, 200)
    assert "<html" in page.text and 'id="tips-report"' in page.text and 'id="shift-picker"' in page.text
    assert "<html" not in partial.text and 'id="tips-report"' in partial.text
    assert "HX-Request" in page["Vary"] and "HX-Request" in partial["Vary"]
    # the pool of the shift: 6.00 in chips, 2.50 from a wallet
    assert 'id="pool-chips">€6.00<' in page.text
    assert 'id="pool-wallet">€2.50<' in page.text
    assert "€8.50" in page.text
    assert page.text.count('class="tip-row"') == 3
    assert 'data-dealer="dealer-1"' in page.text and 'data-dealer="dealer-2"' in page.text


@pytest.mark.parametrize("role", ["accountant", "pit_boss", "auditor"])
def test_view_accounting_reads_the_whole_shift(tipped, role):
    response = client_of(staff_user(role)).get(URL, _query(tipped))
    assert response.status_code == 200
    assert 'id="pool-total"' in response.text and 'data-dealer="dealer-2"' in response.text


def test_a_dealer_reads_their_own_share_only(tipped, dealer):
    response = client_of(dealer).get(URL, _query(tipped))
    assert response.status_code == 200
    assert 'data-dealer="dealer-1"' in response.text
    assert 'data-dealer="dealer-2"' not in response.text
    assert 'id="pool-total"' not in response.text
    assert response.text.count('class="tip-row"') == 2
    partial = client_of(dealer).get(URL, _query(tipped), headers=HTMX)
    assert partial.status_code == 200 and 'data-dealer="dealer-2"' not in partial.text


@pytest.mark.parametrize("role", ["cashier", "operator"])
def test_the_other_roles_are_refused_with_the_styled_page(tipped, role):
    for headers in ({}, HTMX):
        response = client_of(staff_user(role)).get(URL, headers=headers)
        assert response.status_code == 403
        assert REFUSED_TEXT in response.text
    assert client_of(staff_user(role)).get(URL + "csv/").status_code == 403


def test_an_anonymous_visitor_is_sent_to_the_login(seeded):
    assert Client().get(URL).status_code == 302
    assert Client().get(URL + "csv/").status_code == 302


def test_the_shift_picker_shows_another_shift(tipped, accountant):
    query = _query(tipped)
    other = "2" if query["shift"] == "1" else "1"
    response = client_of(accountant).get(URL, {**query, "shift": other})
    assert response.status_code == 200
    assert f'data-shift="{other}"' in response.text
    assert "No tips in this shift." in response.text
    # a day that is no date falls back to the current shift
    assert client_of(accountant).get(URL, {"day": "no-date", "shift": "x"}).status_code == 200


def test_the_csv_holds_the_shares_the_tips_and_the_pool(tipped, accountant, dealer):
    response = client_of(accountant).get(URL + "csv/", _query(tipped))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    flat = [row for row in rows if row]
    assert ["Tip", "dealer-1", "BJ1", "1", "Chips", "", "5.00", ""] in flat
    assert ["Tip", "dealer-1", "BJ1", "1", "Wallet", "", "2.50", ""] in flat
    assert any(row[:1] == ["Pool"] and "8.50" in row for row in flat)
    own = client_of(dealer).get(URL + "csv/", _query(tipped)).content.decode("utf-8-sig")
    assert "dealer-2" not in own and "Pool" not in own.splitlines()[-1]
