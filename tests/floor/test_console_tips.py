"""The console's tips step (floor/console.py, templates/floor/dealer/_tips.html): after a
settled round and until the next opens, the dealer records the round's tips or "no tips", with
and without htmx; refusals in words with nothing written; the next round does not wait for it."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import Tip, TipSource
from accounting.tips import tip_from_player
from casino.models import Table
from tables.models import Round
from tables.services import Actor, round_open
from tests.accounting.conftest import day_closed
from tests.accounting.tips_support import settled_round, written
from tests.factories import TerminalFactory, staff_user

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _console() -> str:
    return reverse("floor:console", args=["BJ1"])


def _action(action: str) -> str:
    return reverse("floor:console_action", args=["BJ1", action])


def _current(table: Table) -> dict[str, str]:
    latest = Round.objects.filter(table=table).order_by("-number").values_list("pk", "version").first()
    assert latest is not None
    return {"round": str(latest[0]), "round_version": str(latest[1])}


def _partial(response: Any) -> bool:
    return response.content.decode().lstrip().startswith('<section id="console"')


@pytest.fixture
def settled(table: Table, dealer: Any) -> Round:
    return settled_round(table, dealer)


def test_the_tips_step_shows_after_a_settled_round_only(table, dealer, settled):
    client = _client(dealer)
    page = client.get(_console()).content.decode()
    assert 'id="round-tips"' in page and "Tips of round 1" in page
    assert 'data-key="G"' in page and 'data-key="O"' in page
    assert 'action="/dealer/tables/BJ1/do/tip/"' in page and 'action="/dealer/tables/BJ1/do/no-tips/"' in page
    # the partial has it too
    partial = client.get(_console(), **HTMX)
    assert _partial(partial) and 'id="round-tips"' in partial.content.decode()
    # once the next round opens, the step is gone: betting does not wait for it
    round_open(table=table, actor=Actor.staff(dealer))
    assert 'id="round-tips"' not in client.get(_console()).content.decode()


def test_another_dealer_sees_no_tips_step(table, settled, dealer_two):
    page = _client(dealer_two).get(_console()).content.decode()
    assert 'id="round-tips"' not in page


def test_a_tip_by_a_plain_post_is_recorded_then_the_console_shows_it(table, dealer, settled):
    client = _client(dealer)
    response = client.post(_action("tip"), {**_current(table), "amount": "5.00", "box": "1"})
    assert response.status_code == 302 and response["Location"] == _console()
    tip = Tip.objects.get()
    assert (tip.amount_minor, tip.box, tip.source, tip.round_id) == (500, 1, TipSource.CHIPS, settled.pk)
    page = client.get(_console()).content.decode()
    assert 'class="tip-line" data-source="chips"' in page and "5.00" in page
    # with a tip recorded, "no tips" is no longer offered
    assert 'data-key="O"' not in page


def test_a_tip_by_htmx_redraws_the_console_with_it(table, dealer, settled):
    response = _client(dealer).post(_action("tip"), {**_current(table), "amount": "2,50"}, **HTMX)
    assert response.status_code == 200 and _partial(response)
    assert Tip.objects.get().amount_minor == 250
    assert 'class="tip-line" data-source="chips"' in response.content.decode()


@pytest.mark.parametrize("amount", ["0", "-5", "abc", ""])
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_an_amount_not_above_zero_is_refused_in_words(table, dealer, settled, amount, headers):
    before = written()
    response = _client(dealer).post(_action("tip"), {**_current(table), "amount": amount}, **headers)
    assert response.status_code == 422
    assert 'title="invalid_tip_amount"' in response.content.decode()
    assert _partial(response) == bool(headers)
    assert written() == before


def test_a_round_not_settled_takes_no_tips(table, dealer, settled):
    round_open(table=table, actor=Actor.staff(dealer))
    before = written()
    for action, data in (("tip", {"amount": "5"}), ("no-tips", {})):
        response = _client(dealer).post(_action(action), {**_current(table), **data})
        assert response.status_code == 409
        assert 'title="round_not_settled"' in response.content.decode()
    assert written() == before


def test_the_settled_round_takes_no_tips_from_a_screen_drawn_before_the_next_opened(table, dealer, settled):
    drawn = _current(table)
    round_open(table=table, actor=Actor.staff(dealer))
    before = written()
    response = _client(dealer).post(_action("tip"), {**drawn, "amount": "5"})
    assert response.status_code == 409 and 'title="stale_screen"' in response.content.decode()
    assert written() == before


def test_only_the_dealer_signed_on_records_tips(table, settled, dealer_two):
    before = written()
    response = _client(dealer_two).post(_action("tip"), {**_current(table), "amount": "5"})
    assert response.status_code == 409 and 'title="not_signed_on"' in response.content.decode()
    assert written() == before


@pytest.mark.parametrize("role", ["cashier", "pit_boss"])
def test_the_roles_the_console_is_not_for_are_refused(table, settled, role):
    client = _client(staff_user(role))
    before = written()
    for headers in ({}, HTMX):
        response = client.post(_action("tip"), {**_current(table), "amount": "5"}, **headers)
        assert response.status_code == 403 and REFUSED_TEXT in response.content.decode()
    assert written() == before


def test_a_closed_gaming_day_takes_no_tips(table, dealer, settled, pit_boss, accountant):
    # given the round opened yesterday (as the owner could move it), whose day is closed now
    opened_at = settled.opened_at - dt.timedelta(days=1)
    type(settled).objects.filter(pk=settled.pk).update(opened_at=opened_at)
    day = shift_of(schedule_of(table.casino), opened_at).gaming_day
    day_closed(table.casino, day, pit_boss, accountant)
    before = written()
    response = _client(dealer).post(_action("tip"), {**_current(table), "amount": "5"}, **HTMX)
    assert response.status_code == 409 and 'title="gaming_day_closed"' in response.content.decode()
    assert written() == before


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_no_tips_closes_the_step_once(table, dealer, settled, headers):
    client = _client(dealer)
    response = client.post(_action("no-tips"), _current(table), **headers)
    assert response.status_code == (200 if headers else 302)
    record = Tip.objects.get()
    assert (record.source, record.amount_minor) == (TipSource.NONE, 0)
    page = client.get(_console()).content.decode()
    assert 'class="tip-line" data-source="none"' in page and 'data-key="O"' not in page
    before = written()
    again = client.post(_action("no-tips"), _current(table), **headers)
    assert again.status_code == 409 and 'title="tips_already_recorded"' in again.content.decode()
    assert written() == before


@pytest.fixture
def accountant(seeded: Any) -> Any:
    return staff_user("accountant", "accountant-1")


@pytest.fixture
def dealer_two(seeded: Any) -> Any:
    return staff_user("dealer", "dealer-2")


def test_a_tip_from_a_players_wallet_reaches_the_open_console_at_its_next_poll(table, dealer, settled):
    # given the dealer's console drawn after the settlement, its poll finding nothing new
    client = _client(dealer)
    page = client.get(_console(), **HTMX).content.decode()
    version = re.search(r'data-version="([0-9a-f]+)"', page).group(1)
    live = reverse("floor:console_live", args=["BJ1"])
    assert client.get(live, {"version": version}, **HTMX).status_code == 204
    # when alice tips 2.50 from her wallet at a terminal
    tip_from_player(
        table=table,
        amount_minor=250,
        actor=Actor.at_terminal(TerminalFactory(casino=table.casino, table=table), settled.bets.get().player),
    )
    # then the next poll redraws the console with her tip on the tips step
    polled = client.get(live, {"version": version}, **HTMX)
    assert polled.status_code == 200
    assert 'class="tip-line" data-source="wallet"' in polled.content.decode()
    # and once the next round opens, the tips step and its statement are gone from the poll
    round_open(table=table, actor=Actor.staff(dealer))
    with CaptureQueriesContext(connection) as queries:
        client.get(live, {"version": version}, **HTMX)
    assert not any("accounting_tip" in query["sql"] for query in queries.captured_queries)
