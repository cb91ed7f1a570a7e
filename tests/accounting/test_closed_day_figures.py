"""A closed gaming day keeps its figures. Found on the floor: after the day's close, a cage
buy-in and a terminal sign-in at a table moved the closed day's terminal drop from 700.00 to
800.00, its hold from 6.71 % to 5.88 % and its cash log's cash in. Now each is refused
(``gaming_day_closed``), through its service and through the cage's page and the terminal API, and
the day's figures stay as they were closed."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounting.cash_log import cash_log
from accounting.selectors import current_gaming_day
from accounting.win import table_records
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Player, PlayerSession, Table, Terminal
from casino.player_sessions import player_session_start
from tests.accounting.conftest import day_closed_before_its_end, snapshot
from tests.accounting.drop_support import signed_in
from tests.api.conftest import ApiClient, make_device
from tests.factories import PlayerFactory
from tests.snapshots import ledger_snapshot
from wallet.services import cage_buy_in

pytestmark = pytest.mark.django_db


def _figures(table: Table) -> tuple[int, int, int]:
    """The day's terminal drop at the table, the drop no table got, and the cash log's cash in."""
    day = current_gaming_day(table.casino)
    records = table_records(table.casino, day, day)
    return (
        records.figures(table.pk).terminal_drop_minor,
        records.unattributed_minor,
        cash_log(table.casino, day).in_minor,
    )


@pytest.fixture
def closed_floor(table: Table, cashier: Any, accountant: Any) -> dict[str, Any]:
    """The day as it was found: Hana signed in at BJ1 with her 700.00 bought in at the cage, Ivo's
    100.00 bought in and not yet at a table; then the day closed."""
    hana = PlayerFactory(casino=table.casino, display_name="Hana Horak", card_number="7100000001")
    ivo = PlayerFactory(casino=table.casino, display_name="Ivo Ilic", card_number="7100000002")
    from django.utils import timezone

    signed_in(table, hana, timezone.now())
    cage_buy_in(player=hana, amount_minor=70_000, actor=Actor.staff(cashier))
    cage_buy_in(player=ivo, amount_minor=10_000, actor=Actor.staff(cashier))
    before_close = _figures(table)
    day_closed_before_its_end(table.casino, current_gaming_day(table.casino), accountant)
    return {"hana": hana, "ivo": ivo, "figures": before_close}


def test_the_closed_day_takes_no_cage_buy_in_and_no_sign_in_through_the_services(
    table: Table, cashier: Any, closed_floor: dict[str, Any]
) -> None:
    # given the closed day's terminal drop of 700.00 at BJ1
    assert closed_floor["figures"][0] == 70_000
    terminal = Terminal.objects.create(
        casino=table.casino, name="T-BJ1-9", kind=Terminal.Kind.PLAYER_TERMINAL, table=table
    )
    Player.objects.filter(pk=closed_floor["ivo"].pk).update(pin_hash=_pin_hash("4321"))
    ledger, records = ledger_snapshot(), snapshot()
    sessions = PlayerSession.objects.count()
    # when the cage buys Hana in for 100.00 more, and Ivo signs in at BJ1
    with pytest.raises(ServiceError) as buy_in:
        cage_buy_in(player=closed_floor["hana"], amount_minor=10_000, actor=Actor.staff(cashier))
    with pytest.raises(ServiceError) as sign_in:
        player_session_start(terminal=terminal, card_number="7100000002", pin="4321")
    # then both are refused, and the day's drop, its buy-ins and its cash log stay as closed
    assert (buy_in.value.code, sign_in.value.code) == ("gaming_day_closed", "gaming_day_closed")
    assert buy_in.value.details["day"] == current_gaming_day(table.casino).isoformat()
    assert _figures(table) == closed_floor["figures"] == (70_000, closed_floor["figures"][1], 80_000)
    assert ledger_snapshot() == ledger and snapshot() == records
    assert PlayerSession.objects.count() == sessions


def test_the_closed_day_takes_no_cage_buy_in_and_no_sign_in_through_the_cage_and_the_terminal(
    table: Table, cashier: Any, closed_floor: dict[str, Any]
) -> None:
    import uuid

    Player.objects.filter(pk=closed_floor["ivo"].pk).update(pin_hash=_pin_hash("4321"))
    device = make_device("T-BJ1-9", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    ledger, sessions = ledger_snapshot(), PlayerSession.objects.count()
    client = Client()
    client.force_login(cashier)
    hana = closed_floor["hana"]
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        page = client.post(
            f"/cage/players/{hana.pk}/buy-in/",
            {"buy_in-amount": "100", "buy_in-form_token": str(uuid.uuid4())},
            **headers,
        )
        text = page.content.decode()
        assert page.status_code == 409, text[:500]
        assert "is closed: nothing more is written into it." in text and "gaming_day_closed" in text
    answer = ApiClient(device).post("/api/v1/player-sessions/", {"card_number": "7100000002", "pin": "4321"})
    assert answer.status_code == 409 and answer.json()["code"] == "gaming_day_closed"
    assert _figures(table) == closed_floor["figures"]
    assert ledger_snapshot() == ledger and PlayerSession.objects.count() == sessions


def _pin_hash(pin: str) -> str:
    from django.contrib.auth.hashers import make_password

    return make_password(pin)
