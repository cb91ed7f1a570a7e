"""The dealer console (floor/console.py): each view with and without htmx, for the dealer
and the roles it is not for; the live version; actions succeeding and refused (nothing moved);
a round played through the console on a virtual and on a physical shoe; decisions recorded by
the dealer; and what each action costs in SQL statements."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from casino.middleware import STAFF_LANGUAGE_SESSION_KEY
from casino.models import AuditRecord, Table
from tables.models import Bet, PayoutLine, Round, RoundEvent, RoundRequest, Shoe
from tables.selectors import table_state
from tables.services import (
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    decision_make,
    round_request_reject,
)
from tables.services.shoes import shoe_commitment
from tables.services.versions import rule_set_version_approve, rule_set_version_create
from tests.factories import staff_user, table_settings_applied
from tests.tables.conftest import at_terminal, balance, funded_player, physical

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"
VERSION = re.compile(r'data-version="([0-9a-f]+)"')

# The SQL statements of each action through the view in a test (a plain POST, the session and
# the user included), in the order made: what each flow below asserts, as measured.
MEASURED: dict[str, list[int]] = {}


@pytest.fixture(autouse=True)
def _measured() -> None:
    MEASURED.clear()


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _console_url(table: str = "BJ1") -> str:
    return reverse("floor:console", args=[table])


def _action_url(action: str, table: str = "BJ1") -> str:
    return reverse("floor:console_action", args=[table, action])


def _closed(table: Table) -> None:
    Table.objects.filter(pk=table.pk).update(is_open=False)


def _counted(table: Table, dealer: Any, kind: str) -> None:
    """The tray's count of ``kind`` by the dealer, signed by a pit boss: it opens or closes the
    table (accounting.services.tray_count_sign); the tray as the ledger holds it."""
    from accounting.selectors import tray_ledger_minor
    from accounting.services import tray_count_record, tray_count_sign

    count = tray_count_record(
        table=table, kind=kind, amounts={100: tray_ledger_minor(table)}, actor=Actor.staff(dealer)
    )
    tray_count_sign(count=count, actor=Actor.staff(staff_user("pit_boss", f"pitboss-{kind}")))


def _current(table: Table) -> dict[str, str]:
    """The round fields a console drawn now posts (blank before the first round)."""
    latest = Round.objects.filter(table=table).order_by("-number").values_list("pk", "version").first()
    return {"round": str(latest[0]), "round_version": str(latest[1])} if latest else {}


def _act(client: Client, table: Table, action: str, expected: int = 302, **data: Any) -> Any:
    """A plain POST of ``action`` from a console drawn now; its statements are recorded."""
    posted = {**_current(table), **data}
    with CaptureQueriesContext(connection) as queries:
        response = client.post(_action_url(action, table.name), posted)
    assert response.status_code == expected, response.content.decode()[:2000]
    MEASURED.setdefault(action, []).append(len(queries.captured_queries))
    if expected == 302:
        assert response["Location"] == _console_url(table.name)
    return response


def _moved() -> tuple[int, int, int]:
    return Round.objects.count(), RoundEvent.objects.count(), AuditRecord.objects.count()


def _stack(table: Table, cards: list[str]) -> None:
    """Put ``cards`` on top of the table's current virtual shoe."""
    shoe = Shoe.objects.get(table=table, retired_at__isnull=True)
    order = list(shoe.order)
    for code in cards:
        order.remove(code)
    order = [*cards, *order]
    Shoe.objects.filter(pk=shoe.pk).update(order=order, commitment=shoe_commitment(shoe.secret, order))


def _page(response: Any) -> str:
    return response.content.decode()


def _is_partial(response: Any) -> bool:
    text = _page(response)
    return "<html" not in text and text.lstrip().startswith('<section id="console"')


def _signed_on_open(table: Table, dealer: Any) -> Client:
    """dealer-1 signed on to BJ1 (open, as seeded) with a fresh virtual shoe, through the console."""
    client = _client(dealer)
    _act(client, table, "sign-on")
    _act(client, table, "shuffle")
    return client


def _alice_dealt(
    table: Table, dealer: Any, cards: tuple[str, ...] = ("TS", "7H", "9D", "TC")
) -> tuple[Client, Any, Any, Round]:
    """Alice (100.00) bets 10.00 on box 1 of BJ1, opened through the console; no more bets deals
    ``cards`` (hers first, then the dealer's up card: T 9 against a 7 unless told): the dealer's
    client, alice, her terminal actor and the round."""
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    client = _signed_on_open(table, dealer)
    _stack(table, list(cards))
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    _act(client, table, "close-betting")
    return client, alice, as_alice, round_


# ------------------------------------------------------------------------------------- access


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["console", "console_live"])
def test_the_console_is_drawn_whole_or_as_the_partial(table, dealer, name):
    client = _client(dealer)
    url = reverse(f"floor:{name}", args=["BJ1"])
    plain = client.get(url)
    partial = client.get(url, **HTMX)
    assert (plain.status_code, partial.status_code) == (200, 200)
    assert "<html" in _page(plain) and 'id="console"' in _page(plain)
    assert _is_partial(partial)
    assert plain["Vary"] == partial["Vary"] == "HX-Request, Cookie"
    assert "Sign on to run this table." in _page(partial)
    assert 'action="/dealer/tables/BJ1/do/sign-on/"' in _page(partial)


@pytest.mark.django_db
def test_the_recall_is_drawn_whole_or_as_the_partial(table, dealer):
    client = _client(dealer)
    url = reverse("floor:recall", args=["BJ1"])
    plain = client.get(url)
    partial = client.get(url, **HTMX)
    assert (plain.status_code, partial.status_code) == (200, 200)
    assert "<html" in _page(plain) and "<html" not in _page(partial)


@pytest.mark.django_db
def test_an_action_with_htmx_answers_the_partial_and_a_plain_one_redirects(table, dealer):
    _closed(table)
    client = _client(dealer)
    plain = client.post(_action_url("sign-on"))
    assert (plain.status_code, plain["Location"]) == (302, "/dealer/tables/BJ1/")
    _counted(table, dealer, "opener")
    partial = client.post(_action_url("shuffle"), **HTMX)
    assert partial.status_code == 200 and _is_partial(partial)
    assert 'id="table-open">Open for play<' in _page(partial)
    assert partial["Vary"] == "HX-Request, Cookie"


VIEWS = [
    ("get", "/dealer/tables/BJ1/"),
    ("get", "/dealer/tables/BJ1/live/"),
    ("get", "/dealer/tables/BJ1/recall/"),
    ("post", "/dealer/tables/BJ1/do/sign-on/"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["pit_boss", "cashier", "auditor", "operator"])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_console_is_not_for_other_roles(seeded, role, htmx):
    client = _client(staff_user(role, f"{role}-9"))
    before = _moved()
    for method, url in VIEWS:
        response = getattr(client, method)(url, **(HTMX if htmx else {}))
        assert response.status_code == 403, url
        assert REFUSED_TEXT in _page(response)
    assert _moved() == before
    assert not Table.objects.get(name="BJ1").dealer_spells.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_anonymous_visitors_go_to_the_login_page(seeded, htmx):
    for method, url in VIEWS:
        response = getattr(Client(), method)(url, **(HTMX if htmx else {}))
        assert (response.status_code, response["Location"]) == (302, f"/login/?next={url}")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/dealer/tables/NOPE/"),
        ("get", "/dealer/tables/NOPE/live/"),
        ("get", "/dealer/tables/NOPE/recall/"),
        ("post", "/dealer/tables/NOPE/do/sign-on/"),
    ],
)
def test_an_unknown_table_is_not_found(dealer, method, url):
    response = getattr(_client(dealer), method)(url)
    assert response.status_code == 404
    assert "Nothing here" in _page(response)


# ----------------------------------------------------------------------------------------- live


@pytest.mark.django_db
def test_the_live_console_answers_204_until_something_changes(table, dealer):
    # given dealer-1 at BJ1 with betting open, and the version the console was drawn at
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    version = VERSION.search(_page(client.get(_console_url()))).group(1)
    live = reverse("floor:console_live", args=["BJ1"])
    # when nothing changed: 204, twice
    for headers in ({}, HTMX):
        unchanged = client.get(live, {"version": version}, **headers)
        assert (unchanged.status_code, unchanged.content) == (204, b"")
    # when alice bets 10.00 through the service
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_id = int(_current(table)["round"])
    bet_place(
        round_id=round_id, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    # then the live console is the partial, showing her bet, at a new version
    changed = client.get(live, {"version": version}, **HTMX)
    assert changed.status_code == 200 and _is_partial(changed)
    assert "Alice Archer" in _page(changed)
    new_version = VERSION.search(_page(changed)).group(1)
    assert new_version != version
    assert client.get(live, {"version": new_version}).status_code == 204


# -------------------------------------------------------------------------------------- refusals


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_opening_betting_at_a_closed_table_is_refused_with_nothing_moved(table, dealer, htmx):
    _closed(table)
    client = _client(dealer)
    client.post(_action_url("sign-on"))
    client.post(_action_url("shuffle"))
    before = _moved()
    response = client.post(_action_url("open-betting"), **(HTMX if htmx else {}))
    assert response.status_code == 409
    assert (
        'title="table_closed" data-code="table_closed"><strong>the table is closed: open it for play first</strong></p>'
        in _page(response)
    )
    assert ("<html" in _page(response)) is not htmx
    assert _moved() == before


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_stale_screen_is_refused_with_nothing_moved(table, dealer, htmx):
    # given betting open at round version 1, and a screen drawn before (no round on it)
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    before = _moved()
    stale = {"round": str(round_.pk), "round_version": str(round_.version - 1)}
    for data in (stale, {}):
        response = client.post(_action_url("close-betting"), data, **(HTMX if htmx else {}))
        assert response.status_code == 409
        assert "The table moved on since your screen was drawn: look again, then act." in _page(response)
        assert 'title="stale_screen"' in _page(response)
    assert _moved() == before
    assert Round.objects.get(pk=round_.pk).status == "betting"


@pytest.mark.django_db
def test_a_settlement_the_tray_cannot_pay_is_refused_in_words_with_nothing_moved(table, dealer):
    # given alice winning 10.00 on 10.00 at a table whose tray holds 5.00
    from wallet.models import AccountKind, Posting
    from wallet.services import table_accounts_open, table_credit

    tray = table_accounts_open(table=table)[AccountKind.TABLE_TRAY]
    table_credit(table=table, amount_minor=tray.balance_minor - 500, actor=Actor.staff(staff_user("cashier")))
    client, alice, as_alice, round_ = _alice_dealt(table, dealer)
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    before = (*_moved(), Posting.objects.count())
    # when the dealer settles, the console says why in words, money as money (the tray pays the
    # net win: her stake comes back from its hold)
    response = _act(client, table, "settle", expected=409)
    assert (
        'title="insufficient_funds" data-code="insufficient_funds"><strong>Insufficient funds: 5.00 available, 10.00 needed.</strong></p>'
        in _page(response)
    )
    # then nothing moved: the round still waits to be settled, her stake still held
    assert (*_moved(), Posting.objects.count()) == before
    assert Round.objects.get(pk=round_.pk).status == "settling"
    assert balance(alice) == (10_000, 1000)


@pytest.mark.django_db
def test_actions_before_signing_on_are_refused(table, dealer):
    _closed(table)
    client = _client(dealer)
    before = _moved()
    response = client.post(_action_url("shuffle"))
    assert response.status_code == 409
    assert (
        'title="not_signed_on" data-code="not_signed_on"><strong>Sign on to this table first.</strong></p>'
        in _page(response)
    )
    unknown = client.post(_action_url("sign-on"))
    assert unknown.status_code == 302
    nothing = client.post(_action_url("dance"))
    assert nothing.status_code == 409 and 'title="no_such_action"' in _page(nothing)
    assert Table.objects.get(pk=table.pk).is_open is False
    assert _moved()[:2] == before[:2]


@pytest.mark.django_db
def test_a_dealer_with_a_name_on_the_account_is_shown_by_name(table, dealer):
    type(dealer).objects.filter(pk=dealer.pk).update(first_name="Dana", last_name="Dealer")
    _act(_client(dealer), table, "sign-on")
    page = _page(_client(staff_user("dealer", "dealer-2")).get(_console_url()))
    assert "Dealer Dana Dealer since" in page and "Dana Dealer is dealing this table." in page


@pytest.mark.django_db
def test_a_dealer_takes_over_through_the_console(table, dealer):
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    other = _client(staff_user("dealer", "dealer-2"))
    page = _page(other.get(_console_url()))
    assert "dealer-1 is dealing this table. Take over to run it." in page
    assert "Take over the table" in page
    other.post(_action_url("sign-on"))
    page = _page(other.get(_console_url()))
    assert "Dealer dealer-2 since" in page and "took over from dealer-1 at" in page
    # and the first dealer's actions are refused now
    refused = _client(dealer).post(_action_url("shuffle"))
    assert refused.status_code == 409 and 'title="not_signed_on"' in _page(refused)


# ------------------------------------------------------------------------------- the full flow


@pytest.mark.django_db
def test_a_round_played_through_the_console_on_a_virtual_shoe(table, dealer):
    # given BJ1 closed, alice (100.00) owning box 1
    _closed(table)
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    client = _client(dealer)
    # when the dealer signs on, counts the tray to open, records the shuffle and opens betting
    _act(client, table, "sign-on")
    page = _page(client.get(_console_url()))
    assert 'href="/accounting/tables/BJ1/" data-key="T">Count the tray to open' in page
    _counted(table, dealer, "opener")
    _act(client, table, "shuffle")
    _stack(table, ["TS", "7H", "9D", "TC"])
    page = _page(client.get(_console_url()))
    assert "Open betting" in page and 'data-key="W">Count the tray to close' in page
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    assert (round_.status, round_.dealer_id) == ("betting", dealer.pk)
    # and alice bets 10.00; no more bets: the virtual shoe deals
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    assert "No more bets" in _page(client.get(_console_url()))
    _act(client, table, "close-betting")
    state = table_state(table=table)
    assert (state["round"]["status"], state["boxes"][0]["hands"][0]["cards"]) == ("players", ["TS", "9D"])
    # she stands at her terminal; the dealer stands on 17
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    assert Round.objects.get(pk=round_.pk).status == "settling"
    _act(client, table, "settle")
    # then she is paid 20.00 on 10.00, and the console shows the payouts
    assert Round.objects.get(pk=round_.pk).status == "settled"
    assert balance(alice) == (11_000, 0)
    page = _page(client.get(_console_url()))
    assert 'id="payout-summary"' in page and "Payouts of round 1" in page
    # and the dealer counts the tray to close the table, and signs off
    _counted(table, dealer, "closer")
    _act(client, table, "sign-off")
    assert Table.objects.get(pk=table.pk).is_open is False
    assert not table.dealer_spells.filter(signed_off_at__isnull=True).exists()
    assert list(
        AuditRecord.objects.filter(object_type="tables.table", object_id=str(table.pk)).values_list(
            "action", flat=True
        )
    )[-4:] == ["table.dealer_signed_on", "table.opened", "table.closed", "table.dealer_signed_off"]
    # and each action ran the statements measured: at most 15 each, but the settlement's (the
    # ledger posted in the same transaction, the holds and accounts locked; the round sealed).
    # Opening betting and settling each take the gaming day's lock and check it is open (two
    # statements: casino.gaming_day_state.gaming_day_writable)
    assert MEASURED == {
        "sign-on": [13],
        "shuffle": [13],
        "open-betting": [15],
        "close-betting": [15],
        "settle": [28],
        "sign-off": [11],
    }


@pytest.mark.django_db
def test_the_felt_reads_a_natural_as_blackjack_and_a_dealer_bust_as_bust(table, dealer):
    # given alice's A K on box 1 and bob's 20 on box 2 against the dealer's 6 10, who draws a 10
    players = [funded_player(table, 10_000, name=name) for name in ("Alice Archer", "Bob Baker")]
    actors = [at_terminal(table, player) for player in players]
    for number, actor in enumerate(actors, start=1):
        box_take(table=table, box_number=number, actor=actor)
    client = _signed_on_open(table, dealer)
    _stack(table, ["AS", "TH", "6H", "KS", "QH", "TD", "TC"])
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    for number, actor in enumerate(actors, start=1):
        bet_place(
            round_id=round_.pk,
            actor=actor,
            box_number=number,
            kind="main",
            stake_minor=1000,
            idempotency_key="m",
        )
    _act(client, table, "close-betting")
    decision_make(round_id=round_.pk, actor=actors[1], box_number=2, decision="stand")
    # then the table's state says it (the terminals' and the console's)
    state = table_state(table=table)
    assert state["round"]["status"] == "settling"
    hand = state["boxes"][0]["hands"][0]
    assert (hand["cards"], hand["total"], hand["is_blackjack"], hand["is_bust"]) == (
        ["AS", "KS"],
        21,
        True,
        False,
    )
    dealer_hand = state["round"]["dealer"]
    assert (dealer_hand["total"], dealer_hand["is_bust"], dealer_hand["is_blackjack"]) == (26, True, False)
    # and the felt reads "Blackjack" (not "21 soft") and "Bust 26" (not "26")
    page = _page(client.get(_console_url()))
    assert '<span class="total">Blackjack</span>' in page
    assert '<p class="total">Bust 26</p>' in page
    assert "21 soft" not in page
    # and so does the round's summary once settled
    _act(client, table, "settle")
    summary = _page(client.get(_console_url())).split('id="payout-summary"', 1)[1]
    assert '<p class="hand-total">Blackjack</p>' in summary
    assert '<p class="hand-total">Bust 26</p>' in summary
    assert Round.objects.get(pk=round_.pk).status == "settled"


@pytest.mark.django_db
def test_a_round_played_through_the_console_on_a_physical_shoe(table, dealer, operator):
    # given BJ1 closed, on a physical shoe; alice owning box 1
    _closed(table)
    physical(table, operator)
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    client = _client(dealer)
    _act(client, table, "sign-on")
    _counted(table, dealer, "opener")
    # the cut card is asked for on a physical shoe and recorded
    assert 'name="cut_card"' in _page(client.get(_console_url()))
    _act(client, table, "shuffle", cut_card="60")
    assert Shoe.objects.get(table=table, retired_at__isnull=True).cut_card_position == 60
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    _act(client, table, "close-betting")
    page = _page(client.get(_console_url()))
    assert 'id="card-entry"' in page and "Next card: box 1" in page
    # when the dealer enters the cards, typed and picked
    _act(client, table, "card", card="KH")
    _act(client, table, "card", card="td")
    _act(client, table, "card", card="10d")
    _act(client, table, "card", rank="9", suit="C")
    # then they are where the deal expects them
    state = table_state(table=table)
    assert state["boxes"][0]["hands"][0]["cards"] == ["KH", "TD"]
    assert state["round"]["dealer"]["cards"] == ["TD", None]
    assert state["round"]["status"] == "players"
    # and a card nobody asked for is a misscan, shown on the console
    response = client.post(_action_url("card"), {**_current(table), "card": "5S"})
    assert response.status_code == 409 and 'title="misscan"' in _page(response)
    page = _page(client.get(_console_url()))
    assert "Misscan: 5S was refused: No card is expected now." in page
    assert "Correct the misscan" in page
    # and the dealer asks for a correction (no card left the shoe)
    _act(client, table, "correction", no_card="1", reason="double read")
    request = RoundRequest.objects.get(round=round_)
    assert (request.kind, request.card, request.reason) == ("correction", "", "double read")
    page = _page(client.get(_console_url()))
    assert "Correction (no card left the shoe) asked, waiting for the pit boss: double read" in page
    # and each action ran the statements measured (at most 15 each)
    assert MEASURED == {
        "sign-on": [13],
        "shuffle": [13],
        "open-betting": [15],
        "close-betting": [14],
        "card": [9, 9, 9, 9],
        "correction": [13],
    }


@pytest.mark.django_db
def test_the_misscan_banner_names_the_engine_reason(table, dealer, operator):
    _closed(table)
    physical(table, operator)
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    client = _client(dealer)
    _act(client, table, "sign-on")
    _counted(table, dealer, "opener")
    for action in ("shuffle", "open-betting"):
        _act(client, table, action)
    round_id = int(_current(table)["round"])
    bet_place(
        round_id=round_id, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    _act(client, table, "close-betting")
    for card in ("KH", "TD", "9D", "9C"):
        _act(client, table, "card", card=card)
    client.post(_action_url("card"), {**_current(table), "card": "5S"})
    # (in words; the engine's code is the banner's title, for whoever needs it, not its text)
    page = _page(client.get(_console_url()))
    assert (
        '<p class="banner error" id="misscan" title="card_not_expected" data-code="card_not_expected">'
        in page
    )
    assert "Misscan: 5S was refused: No card is expected now." in page
    assert "card_not_expected" not in re.sub(r"<[^>]*>", "", page)


@pytest.mark.django_db
def test_a_cut_card_that_is_no_position_in_the_shoe_is_refused(table, dealer, operator):
    _closed(table)
    physical(table, operator)
    client = _client(dealer)
    _act(client, table, "sign-on")
    _counted(table, dealer, "opener")
    before = _moved()
    for cut_card, code in (("x", "invalid_input"), ("0", "invalid_cut_card"), ("999", "invalid_cut_card")):
        response = client.post(_action_url("shuffle"), {"cut_card": cut_card})
        assert (response.status_code, f'title="{code}"' in _page(response)) == (409, True), cut_card
    assert _moved() == before


@pytest.mark.django_db
def test_the_dealer_records_a_decision_where_the_table_says_so(table, dealer, operator):
    # given BJ1 where the dealer records decisions; alice's 10.00 on box 1 dealt TS 9D
    table_settings_applied(table=table, operator=operator, settings={"dealer_records_decisions": True})
    client, _, _, round_ = _alice_dealt(table, dealer)
    page = _page(client.get(_console_url()))
    assert 'action="/dealer/tables/BJ1/do/decision-stand/"' in page
    # only the decisions the rules allow on her T 9: no split of a hand that is no pair
    offered = re.findall(r'action="/dealer/tables/BJ1/do/decision-(\w+)/"', page)
    assert offered == ["hit", "stand", "double"]
    # and her cards drawn as cards: 10 of spades, 9 of diamonds in red
    assert '<span class="playing-card" data-card="TS">10\u2660</span>' in page
    assert '<span class="playing-card red" data-card="9D">9\u2666</span>' in page
    # when the dealer records her stand
    _act(client, table, "decision-stand", box="1")
    # then the box stood on her word: the dealer played, the round waits to be settled
    assert Round.objects.get(pk=round_.pk).status == "settling"
    event = RoundEvent.objects.filter(round=round_, kind="decision").get()
    assert (event.actor_id, event.role) == (dealer.pk, "dealer")
    # and each action ran the statements measured (at most 15 each)
    assert MEASURED == {
        "sign-on": [13],
        "shuffle": [13],
        "open-betting": [15],
        "close-betting": [15],
        "decision-stand": [10],
    }


@pytest.mark.django_db
def test_the_dealer_records_a_surrender_where_the_rules_allow_it(table, dealer, operator, pit_boss):
    # given BJ1 on a rule-set version with late surrender, approved by the pit boss, where the
    # dealer records decisions; alice's 10.00 on box 1 dealt T 6 against a 10
    current = table.rule_set.current_version()
    late = rule_set_version_create(
        rule_set=table.rule_set, options={**current.options, "surrender": "late"}, actor=Actor.staff(operator)
    )
    late = rule_set_version_approve(version=late, actor=Actor.staff(pit_boss))
    table_settings_applied(
        table=table, operator=operator, settings={"dealer_records_decisions": True, "rule_set_version": late}
    )
    client, alice, _, round_ = _alice_dealt(table, dealer, ("TS", "TH", "6D", "7C"))
    # then her first two cards may be surrendered: the console offers it, with its key
    page = _page(client.get(_console_url()))
    offered = re.findall(r'action="/dealer/tables/BJ1/do/decision-(\w+)/"', page)
    assert offered == ["hit", "stand", "double", "surrender"]
    assert "Surrender <kbd>F</kbd>" in page
    # when the dealer records her surrender
    _act(client, table, "decision-surrender", box="1")
    # then her hand is over, and settling returns half her stake
    assert Round.objects.get(pk=round_.pk).status == "settling"
    _act(client, table, "settle")
    assert balance(alice) == (9_500, 0)
    line = PayoutLine.objects.get(round=round_)
    assert (line.outcome, line.rule) == ("surrender", "5.7 surrender: half the stake")


@pytest.mark.django_db
def test_a_surrender_the_rules_do_not_allow_is_refused_with_nothing_moved(table, dealer, operator):
    # given BJ1 without surrender, where the dealer records decisions: T 6 against a 10
    table_settings_applied(table=table, operator=operator, settings={"dealer_records_decisions": True})
    client, alice, _, round_ = _alice_dealt(table, dealer, ("TS", "TH", "6D", "7C"))
    page = _page(client.get(_console_url()))
    assert "decision-surrender" not in page
    before, money = _moved(), balance(alice)
    # when a hand-made form of the screen drawn now asks for a surrender anyway
    response = client.post(_action_url("decision-surrender"), {**_current(table), "box": "1"}, **HTMX)
    # then the engine refuses it in words, and nothing moved: no event, no audit record, no money
    assert response.status_code == 409
    assert 'title="surrender_not_allowed"' in _page(response)
    assert (_moved(), balance(alice)) == (before, money)
    assert Round.objects.get(pk=round_.pk).status == "players"


@pytest.mark.django_db
def test_the_dealer_records_insurance_where_the_table_says_so(table, dealer, operator):
    # given BJ1 where the dealer records decisions; alice's 10.00 on box 1 against the dealer's ace
    table_settings_applied(table=table, operator=operator, settings={"dealer_records_decisions": True})
    client, alice, _, round_ = _alice_dealt(table, dealer, cards=("TS", "AH", "9D", "7C"))
    assert Round.objects.get(pk=round_.pk).status == "insurance"
    # the console offers her bet's insurance, naming the bet's amount as the bet's
    page = _page(client.get(_console_url()))
    assert "Box 1, a bet of 10.00" in page and "Takes insurance" in page
    main = Bet.objects.get(round=round_, kind="main")
    # when the dealer records that she takes it
    _act(client, table, "insurance", bet=str(main.pk), take="1")
    # then her insurance of half the bet is placed and held
    insurance = Bet.objects.get(round=round_, kind="insurance")
    assert (insurance.stake_minor, insurance.insures_id) == (500, main.pk)
    assert balance(alice) == (10_000, 1_500)


@pytest.mark.django_db
def test_a_dealer_decision_is_refused_where_players_decide_at_terminals(table, dealer):
    client, _, _, round_ = _alice_dealt(table, dealer)
    assert "decision-stand" not in _page(client.get(_console_url()))
    before = _moved()
    version = Round.objects.get(pk=round_.pk).version
    response = client.post(_action_url("decision-stand"), {**_current(table), "box": "1"}, **HTMX)
    assert response.status_code == 403 and _is_partial(response)
    assert (
        'title="decisions_from_terminals" data-code="decisions_from_terminals"><strong>At this table the players decide at their terminals.</strong></p>'
        in _page(response)
    )
    assert _moved() == before
    assert Round.objects.get(pk=round_.pk).version == version


@pytest.mark.django_db
def test_the_dealer_asks_to_void_from_the_console(table, dealer):
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    round_ = Round.objects.get(table=table)
    refused = client.post(_action_url("void"), {**_current(table), "reason": " "})
    assert refused.status_code == 409 and 'title="reason_required"' in _page(refused)
    _act(client, table, "void", reason="wrong shoe")
    request = RoundRequest.objects.get(round=round_)
    assert (request.kind, request.reason, request.requested_by_id) == ("void", "wrong shoe", dealer.pk)
    page = _page(client.get(_console_url()))
    assert "Void asked, waiting for the pit boss: wrong shoe" in page
    assert 'data-key="V"' not in page  # a second void request would be refused approval_pending
    # and once the pit boss rejects it, the banner is gone and the dealer may ask again
    round_request_reject(request_id=request.pk, actor=Actor.staff(staff_user("pit_boss")), reason="play on")
    page = _page(client.get(_console_url()))
    assert "waiting for the pit boss" not in page and 'data-key="V"' in page
    # and each action ran the statements measured (at most 15 each)
    assert MEASURED == {"sign-on": [13], "shuffle": [14], "open-betting": [15], "void": [13]}


@pytest.mark.django_db
def test_a_canasta_table_offers_no_blackjack_action(seeded, dealer):
    # given the card-room table CA1 (canasta: no blackjack configuration)
    client = _client(dealer)

    # when its console is drawn, and an action is sent anyway
    page = client.get(_console_url("CA1"))
    before = (Round.objects.count(), AuditRecord.objects.count())
    refused = client.post(_action_url("sign-on", "CA1"), **HTMX)

    # then the page says so and offers no button; the action is refused with nothing written
    assert page.status_code == 200
    assert "CA1 is a Canasta table: this console runs blackjack tables only." in _page(page)
    assert 'data-key="J"' not in _page(page)
    assert refused.status_code == 409 and "not_a_blackjack_table" in _page(refused)
    assert (Round.objects.count(), AuditRecord.objects.count()) == before


@pytest.mark.django_db
def test_a_virtual_shoes_commitment_is_shown_once_shuffled(table, dealer):
    # given a virtual shoe shuffled from the console
    client = _signed_on_open(table, dealer)
    shoe = Shoe.objects.get(table=table, retired_at__isnull=True)

    # when the console is drawn
    page = _page(client.get(_console_url()))

    # then the new shoe's commitment is on it (its first 16 digits, the whole in the title)
    assert f'title="{shoe.commitment}">commitment {shoe.commitment[:16]}…' in page


@pytest.mark.django_db
def test_consoles_of_a_table_share_its_view_at_a_version_and_see_each_change(table, dealer):
    # given dealer-1 running BJ1 with betting open, and another dealer's console of the same table
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    watcher = _client(staff_user("dealer", "dealer-watch"))
    live = reverse("floor:console_live", args=["BJ1"])

    # when both draw the console at one version
    with CaptureQueriesContext(connection) as first:
        drawn = client.get(_console_url(), **HTMX)
    with CaptureQueriesContext(connection) as second:
        watched = watcher.get(_console_url(), **HTMX)

    # then the second drew from the view the first built (its own request's statements and the
    # version, with the table's last slip step, only), and each sees the page for itself: the
    # dealer's buttons, the other's banner. The first built it from 6: the round (with whether a
    # request waits), the shoe with the configuration's id, the boxes with their seats, the bets
    # with their bettors, the spells, the slips in flight.
    version = VERSION.search(_page(drawn)).group(1)
    assert VERSION.search(_page(watched)).group(1) == version
    assert (len(first.captured_queries), len(second.captured_queries)) == (5 + 6, 5)
    assert 'data-key="N"' in _page(drawn) and 'data-key="N"' not in _page(watched)
    assert "is dealing this table" in _page(watched)

    # when alice bets, both consoles' next poll shows her bet at the new version
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    bet_place(
        round_id=int(_current(table)["round"]),
        actor=as_alice,
        box_number=1,
        kind="main",
        stake_minor=1000,
        idempotency_key="m",
    )
    for console in (client, watcher):
        changed = console.get(live, {"version": version}, **HTMX)
        assert changed.status_code == 200 and "Alice Archer" in _page(changed)


@pytest.mark.django_db
def test_the_countdown_of_a_cached_view_counts_from_the_deadline_at_each_draw(table, dealer, monkeypatch):
    # given betting open at BJ1 and the console drawn once (the view cached at this version)
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    client.get(_console_url(), **HTMX)
    deadline = Round.objects.get(pk=int(_current(table)["round"])).decision_deadline_at

    # when it is drawn again 5 seconds before the deadline, the version unchanged
    monkeypatch.setattr("tables.selectors.timezone.now", lambda: deadline - dt.timedelta(seconds=5))
    page = _page(client.get(_console_url(), **HTMX))

    # then the countdown says 5 seconds, not what it said when the view was built
    assert '<span class="seconds">5</span>' in page


def _hungarian_dealer() -> Client:
    """A second dealer's client whose pages are in Hungarian (their choice, kept in the session)."""
    client = _client(staff_user("dealer", "dealer-magyar"))
    session = client.session
    session[STAFF_LANGUAGE_SESSION_KEY] = "hu"
    session.save()
    return client


@pytest.mark.django_db
def test_a_view_built_for_an_english_console_reads_in_hungarian_on_another(table, dealer):
    # given a bet at BJ1, and its console drawn in English (the view built and cached)
    client = _signed_on_open(table, dealer)
    _act(client, table, "open-betting")
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_id = int(_current(table)["round"])
    bet_place(
        round_id=round_id, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    bet_place(
        round_id=round_id,
        actor=as_alice,
        box_number=1,
        kind="perfect_pairs",
        stake_minor=100,
        idempotency_key="p",
    )
    english = _page(client.get(_console_url(), **HTMX))
    version = VERSION.search(english).group(1)
    assert cache.get(f"floor:console-view:{table.pk}:{version}:en") is not None

    # when a Hungarian-speaking dealer draws the same version, from that view
    watcher = _hungarian_dealer()
    magyar = _page(watcher.get(_console_url(), **HTMX))
    assert VERSION.search(magyar).group(1) == version

    # then each reads the bet kinds and the round's state in their own language
    assert "Perfect Pairs" in english and "Tökéletes Pár" not in english
    assert "Tökéletes Pár" in magyar and "Perfect Pairs" not in magyar


@pytest.mark.django_db
def test_the_payout_summary_reads_in_each_consoles_language(table, dealer):
    # given alice's 10.00 won on box 1 (T 9 against the dealer's 7 and T), settled at an English
    # console, the view built and cached
    client, _, as_alice, round_ = _alice_dealt(table, dealer)
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    _act(client, table, "settle")
    english = _page(client.get(_console_url(), **HTMX))
    version = VERSION.search(english).group(1)
    # when a Hungarian-speaking dealer draws the same version
    watcher = _hungarian_dealer()
    magyar = _page(watcher.get(_console_url(), **HTMX))
    assert VERSION.search(magyar).group(1) == version
    # then each reads the payout in their own words and amounts, from a view of their language
    assert "Higher total pays 1:1 (§\u00a07)" in english and "20.00" in english
    assert "A magasabb összeg 1:1-et fizet (§\u00a07)" in magyar and "20,00" in magyar
    assert "Higher total" not in magyar and "magasabb" not in english
    assert cache.get(f"floor:console-view:{table.pk}:{version}:hu") is not None
