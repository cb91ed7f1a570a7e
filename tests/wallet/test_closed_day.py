"""A closed gaming day takes no ledger write: no cash-out at the cage, no balance adjustment, and
no reversal of one of its transfers (which would change its cash log and its terminal drop);
through the service and the cage's pages, with nothing written. A mistake found in a closed day
is corrected by an adjustment in the open day."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from django.test import Client

from accounting.selectors import current_gaming_day
from casino.actors import Actor
from casino.models import Player, Table
from tests.accounting.conftest import day_closed, day_closed_before_its_end
from tests.factories import PlayerFactory, staff_user
from tests.snapshots import ledger_snapshot
from tests.tables.conftest import refused
from wallet.models import Transfer
from wallet.services import balance_adjust, cage_buy_in, cage_cash_out, transfer_reverse

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def cashier(seeded: Any) -> Any:
    return staff_user("cashier", "cashier-1")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


def _zoe(cashier: Any) -> Player:
    zoe = PlayerFactory(
        casino=Table.objects.get(name="BJ1").casino, display_name="Zoe Zimmer", card_number="7000000042"
    )
    cage_buy_in(player=zoe, amount_minor=20_000, actor=Actor.staff(cashier))
    return zoe


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_no_cash_out_and_no_adjustment_in_a_closed_day(cashier, pit_boss):
    # given Zoe's 200.00, and the current day closed before its end (as a close at 14:51 left it)
    zoe = _zoe(cashier)
    day_closed_before_its_end(zoe.casino, current_gaming_day(zoe.casino), staff_user("accountant"))
    before = ledger_snapshot()
    # when the cage pays her 50.00 out, or a pit boss adjusts her balance
    refused("gaming_day_closed", cage_cash_out, player=zoe, amount_minor=5_000, actor=Actor.staff(cashier))
    refused(
        "gaming_day_closed",
        balance_adjust,
        player=zoe,
        amount_minor=1_000,
        reason="goodwill",
        actor=Actor.staff(pit_boss),
    )
    # then nothing is written, and the cage's pages say why
    assert ledger_snapshot() == before
    for headers in ({}, HTMX):
        paid = _client(cashier).post(
            f"/cage/players/{zoe.pk}/cash-out/",
            {"cash_out-amount": "50", "cash_out-form_token": str(uuid.uuid4())},
            **headers,
        )
        adjusted = _client(pit_boss).post(
            f"/cage/players/{zoe.pk}/adjust/",
            {"adjust-amount": "10", "adjust-reason": "goodwill", "adjust-form_token": str(uuid.uuid4())},
            **headers,
        )
        for answer in (paid, adjusted):
            text = answer.content.decode()
            assert answer.status_code == 409, text[:300]
            assert "is closed: nothing more is written into it." in text and "gaming_day_closed" in text
    assert ledger_snapshot() == before


def test_a_transfer_of_a_closed_day_is_not_reversed(cashier, pit_boss):
    # given Zoe's buy-in, then the gaming day's start moved to just after it (as the owner could):
    # the buy-in is of the day before, which then closes
    zoe = _zoe(cashier)
    buy_in = Transfer.objects.filter(postings__account__player=zoe).get()
    casino = zoe.casino
    casino.gaming_day_starts_at = (
        (buy_in.created_at + dt.timedelta(microseconds=1)).astimezone(casino.zone).time()
    )
    casino.save(update_fields=["gaming_day_starts_at"])
    day = casino.gaming_day(buy_in.created_at)
    assert day == current_gaming_day(casino) - dt.timedelta(days=1)
    day_closed(casino, day, pit_boss, staff_user("accountant"))
    before = ledger_snapshot()
    # when it is reversed, it is refused: the closed day's cash log and drop would change
    refusal = refused(
        "gaming_day_closed",
        transfer_reverse,
        transfer=buy_in,
        reason="wrong player",
        actor=Actor.staff(pit_boss),
    )
    assert refusal.details["day"] == day.isoformat()
    assert ledger_snapshot() == before
    # a transfer of the open day is reversed as before
    cage_buy_in(player=zoe, amount_minor=1_000, actor=Actor.staff(cashier))
    today = Transfer.objects.filter(postings__account__player=zoe).order_by("-pk").first()
    assert today is not None
    assert (
        transfer_reverse(transfer=today, reason="wrong amount", actor=Actor.staff(pit_boss)).reverses_id
        == today.pk
    )
