"""The cage's pages (wallet/views/): the search, registration, the player's page with buy-in,
cash-out, card lock and unlock, balance adjustments and their approval, receipts; for the
cashier and the pit boss as their permissions allow, refused to the other roles and to anonymous
visitors, each with and without htmx."""

from __future__ import annotations

import re
import uuid
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.forms import ValidationError
from django.test import Client
from django.utils import timezone

from casino.actors import Actor
from casino.models import Approval, AuditRecord, Player, Table
from casino.money import amount_minor_parse
from tests.factories import PlayerFactory, staff_user
from tests.snapshots import ledger_snapshot
from wallet.models import AdjustmentStatus, BalanceAdjustment, Transfer, TransferKind
from wallet.selectors import account_balance
from wallet.services import balance_adjust, cage_buy_in, system_buy_in

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(response: Any) -> str:
    return response.content.decode()


def _htmx(target: str) -> dict[str, str]:
    return {**HTMX, "HTTP_HX_TARGET": target}


def _text(html: str, element_id: str) -> str:
    """The text of the element with ``element_id``, tags removed and spaces collapsed, followed by
    its refusal code when it carries one (``data-code``: kept for tools, not shown as text)."""
    match = re.search(rf'<(\w+)([^>]*\bid="{element_id}"[^>]*)>(.*?)</\1>', html, re.S)
    assert match is not None, f"no #{element_id} in the page"
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", match.group(3))).split())
    code = re.search(r'\bdata-code="([^"]*)"', match.group(2))
    return f"{text} {code.group(1)}" if code else text


@pytest.fixture
def cashier(seeded: Any) -> Any:
    return staff_user("cashier", "cashier-1")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


@pytest.fixture
def other_pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-2")


@pytest.fixture
def agi(seeded: Any) -> Player:
    return Player.objects.get(card_number="1000000001")


def _player(name: str = "Zoe Zimmer", card: str = "7000000042", balance_minor: int = 0) -> Player:
    player = PlayerFactory(casino=Table.objects.get(name="BJ1").casino, display_name=name, card_number=card)
    if balance_minor:
        system_buy_in(player=player, amount_minor=balance_minor, actor=Actor.automatic("test"))
    return player


def _token() -> str:
    return str(uuid.uuid4())


# ------------------------------------------------------------------------------- amounts


@pytest.mark.parametrize(
    ("typed", "signed", "minor"),
    [
        ("150", False, 15000),
        ("150.50", False, 15050),
        ("150,50", False, 15050),
        (" 1,250.50 ", False, 125050),
        ("0.05", False, 5),
        ("-20", True, -2000),
        ("+20.10", True, 2010),
        ("20", True, 2000),
    ],
)
def test_amounts_typed_by_people_become_minor_units(typed, signed, minor):
    assert amount_minor_parse(typed, signed=signed) == minor


@pytest.mark.parametrize(
    ("typed", "signed", "message"),
    [
        ("", False, "Enter an amount such as 150 or 150.50."),
        ("abc", False, "Enter an amount such as 150 or 150.50."),
        ("1.505", False, "Enter an amount such as 150 or 150.50."),
        ("1e5", False, "Enter an amount such as 150 or 150.50."),
        ("0", False, "The amount must be more than zero."),
        ("0.00", True, "The amount must be more than zero."),
        ("-20", False, "Enter the amount without a sign."),
        ("1234567890123456", False, "Enter an amount such as 150 or 150.50."),
    ],
)
def test_amounts_that_are_not_amounts_are_refused(typed, signed, message):
    with pytest.raises(ValidationError) as info:
        amount_minor_parse(typed, signed=signed)
    assert info.value.messages == [message]


# -------------------------------------------------------------------------------- access

CASHIER_GETS = ["/cage/", "/cage/?q=Agi", "/cage/players/new/"]
PIT_BOSS_GETS = ["/cage/adjustments/", "/cage/adjustments/?q=Agi"]


def _player_urls(player: Player) -> dict[str, list[str]]:
    return {
        "both": [f"/cage/players/{player.pk}/"],
        "cashier_posts": [
            f"/cage/players/{player.pk}/buy-in/",
            f"/cage/players/{player.pk}/cash-out/",
            f"/cage/players/{player.pk}/lock/",
            f"/cage/players/{player.pk}/unlock/",
            "/cage/players/new/",
        ],
        "pit_boss_posts": [f"/cage/players/{player.pk}/adjust/", "/cage/adjustments/1/approve/"],
    }


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_anonymous_visitors_are_sent_to_the_login_page(seeded, agi, htmx):
    urls = _player_urls(agi)
    client = Client()
    for url in [*CASHIER_GETS, *PIT_BOSS_GETS, *urls["both"], "/cage/receipts/1/"]:
        response = client.get(url, **(HTMX if htmx else {}))
        assert response.status_code == 302 and response.url.startswith("/login/"), url
    for url in [*urls["cashier_posts"], *urls["pit_boss_posts"]]:
        response = client.post(url, {}, **(HTMX if htmx else {}))
        assert response.status_code == 302 and response.url.startswith("/login/"), url


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "operator", "auditor"])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_cage_is_not_for_other_roles(seeded, agi, role, htmx):
    client = _client(staff_user(role, f"{role}-9"))
    urls = _player_urls(agi)
    before = ledger_snapshot()
    for url in [*CASHIER_GETS, *PIT_BOSS_GETS, *urls["both"], "/cage/receipts/1/"]:
        response = client.get(url, **(HTMX if htmx else {}))
        assert response.status_code == 403, url
        assert REFUSED_TEXT in _page(response)
    for url in [*urls["cashier_posts"], *urls["pit_boss_posts"]]:
        response = client.post(url, {"buy_in-amount": "10", "buy_in-form_token": _token()})
        assert response.status_code == 403, url
    assert ledger_snapshot() == before


@pytest.mark.django_db
def test_the_cashier_may_not_adjust_nor_reach_the_adjustments_desk(seeded, cashier, agi):
    client = _client(cashier)
    before = ledger_snapshot()
    for url in PIT_BOSS_GETS:
        assert client.get(url).status_code == 403, url
    response = client.post(
        f"/cage/players/{agi.pk}/adjust/",
        {"adjust-amount": "10", "adjust-reason": "goodwill", "adjust-form_token": _token()},
    )
    assert response.status_code == 403 and REFUSED_TEXT in _page(response)
    assert ledger_snapshot() == before


@pytest.mark.django_db
def test_the_pit_boss_may_not_work_the_cashiers_counter(seeded, pit_boss, agi):
    client = _client(pit_boss)
    before = ledger_snapshot()
    for url in CASHIER_GETS:
        assert client.get(url).status_code == 403, url
    for url in _player_urls(agi)["cashier_posts"]:
        response = client.post(url, {"buy_in-amount": "10", "buy_in-form_token": _token()})
        assert response.status_code == 403, url
    assert ledger_snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "url", "partial_start"),
    [
        ("cashier", "/cage/", '<section class="card" id="player-results">'),
        ("cashier", "/cage/players/new/", '<section class="card" id="register-form">'),
        ("cashier", "/cage/players/{agi}/", '<section class="cage-player" id="player"'),
        ("pit_boss", "/cage/players/{agi}/", '<section class="cage-player" id="player"'),
        ("pit_boss", "/cage/adjustments/", '<section class="card" id="player-results">'),
        ("pit_boss", "/cage/adjustments/?q=Kov", '<section class="card" id="player-results">'),
    ],
)
def test_each_page_is_drawn_whole_or_as_its_partial(seeded, agi, role, url, partial_start):
    client = _client(staff_user(role, f"{role}-8"))
    url = url.format(agi=agi.pk)
    plain = client.get(url)
    partial = client.get(url, **HTMX)
    assert (plain.status_code, partial.status_code) == (200, 200)
    assert "<html" in _page(plain) and "<html" not in _page(partial)
    assert _page(partial).lstrip().startswith(partial_start)
    assert plain["Vary"] == partial["Vary"] == "HX-Request, Cookie"


# -------------------------------------------------------------------------------- search


@pytest.mark.django_db
def test_the_search_finds_a_player_by_card_number_or_name(seeded, cashier):
    client = _client(cashier)
    _player("Agnes Black", "7000000001")
    by_card = _page(client.get("/cage/", {"q": "1000000001"}))
    assert re.findall(r'<tr class="player-row" data-player="\d+">\s*<td><a [^>]*>([^<]*)</a>', by_card) == [
        "Ági Kovács"
    ]
    by_name = _page(client.get("/cage/", {"q": "b"}, **_htmx("player-results")))
    names = re.findall(r'<tr class="player-row" data-player="\d+">\s*<td><a [^>]*>([^<]*)</a>', by_name)
    assert names == ["Agnes Black", "Bartek Nowak"]
    nobody = client.get("/cage/", {"q": "nobody here"}, **_htmx("player-results"))
    assert _text(_page(nobody), "no-players") == "No player matches “nobody here”."
    assert _text(_page(client.get("/cage/")), "search-hint") == "Type a card number or part of a name."


@pytest.mark.django_db
def test_the_search_form_works_without_javascript_and_asks_htmx_as_one_types(seeded, cashier):
    page = _page(_client(cashier).get("/cage/"))
    assert '<form class="card cage-search" method="get" action="/cage/" role="search">' in page
    assert (
        'hx-get="/cage/" hx-trigger="input changed delay:250ms, search" hx-target="#player-results"' in page
    )


# -------------------------------------------------------------------------- registration


def _register(client: Client, headers: dict[str, str] | None = None, **fields: str) -> Any:
    data = {"display_name": "Dora Dunn", "card_number": "7000000099", "pin": "4321", "pin_again": "4321"}
    return client.post("/cage/players/new/", {**data, **fields}, **(headers or {}))


@pytest.mark.django_db
def test_the_cashier_registers_a_player(seeded, cashier):
    client = _client(cashier)
    response = _register(client)
    player = Player.objects.get(card_number="7000000099")
    assert response.status_code == 302 and response.url == f"/cage/players/{player.pk}/?registered=1"
    assert (player.display_name, player.is_active, player.casino.code) == ("Dora Dunn", True, "demo")
    record = AuditRecord.objects.filter(action="player.created").latest("sequence")
    assert (record.actor_id, record.object_id) == (cashier.pk, str(player.pk))
    page = _page(client.get(response.url))
    assert _text(page, "cage-done") == "Player registered."
    assert _text(page, "player-status") == "Active"


@pytest.mark.django_db
def test_registering_with_htmx_sends_the_browser_to_the_new_player(seeded, cashier):
    response = _register(_client(cashier), HTMX, card_number="7000000098")
    player = Player.objects.get(card_number="7000000098")
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/cage/players/{player.pk}/?registered=1"


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize(
    ("fields", "status", "element", "text"),
    [
        (
            {"card_number": "1000000001"},
            400,
            "cage-error",
            "Card 1000000001 is already issued. card_number_taken",
        ),
        ({"pin": "12a4", "pin_again": "12a4"}, 400, "cage-error", "A PIN is 4 to 8 digits. invalid_pin"),
        ({"pin": "123", "pin_again": "123"}, 400, "cage-error", "A PIN is 4 to 8 digits. invalid_pin"),
        ({"pin_again": "4322"}, 422, "register-form", "The two PINs differ."),
        ({"display_name": "  "}, 422, "register-form", "This field is required."),
    ],
)
def test_a_refused_registration_says_why_and_registers_nobody(
    seeded, cashier, htmx, fields, status, element, text
):
    players, audit = Player.objects.count(), AuditRecord.objects.count()
    response = _register(_client(cashier), HTMX if htmx else None, **fields)
    assert response.status_code == status
    page = _page(response)
    assert ("<html" in page) is not htmx
    assert text in _text(page, element)
    assert (Player.objects.count(), AuditRecord.objects.count()) == (players, audit)


# ---------------------------------------------------------------------------- the player


@pytest.mark.django_db
def test_the_players_page_shows_status_balance_and_the_statement_newest_first(seeded, cashier):
    zoe = _player(balance_minor=20_000)
    cage_buy_in(player=zoe, amount_minor=5_050, actor=Actor.staff(cashier))
    page = _page(_client(cashier).get(f"/cage/players/{zoe.pk}/"))
    assert _text(page, "player-name") == "Zoe Zimmer"
    assert _text(page, "player-card") == "7000000042"
    assert _text(page, "player-status") == "Active"
    assert _text(page, "balance-available") == "250.50 EUR"
    assert _text(page, "balance-held") == "0.00"
    assert _text(page, "balance-total") == "250.50"
    lines = re.findall(
        r'<tr class="statement-line" data-transfer="\d+">\s*<td>[^<]+</td>\s*<td>([^<]+)(?:<span[^>]*>[^<]*</span>)?</td>\s*'
        r'<td class="num \w+">([^<]+)</td>\s*<td class="num">([^<]+)</td>',
        page,
    )
    assert [(what.strip(), amount, after) for what, amount, after in lines] == [
        ("Buy-in", "+50.50", "250.50"),
        ("Buy-in", "+200.00", "200.00"),
    ]
    assert _text(page, "no-holds") == "No open holds."


@pytest.mark.django_db
def test_the_statement_is_paged_and_a_page_is_its_own_partial(seeded, cashier):
    zoe = _player()
    for amount in range(1, 23):
        system_buy_in(player=zoe, amount_minor=amount * 100, actor=Actor.automatic("test"))
    client = _client(cashier)
    first = _page(client.get(f"/cage/players/{zoe.pk}/"))
    assert first.count('class="statement-line"') == 20
    assert "Page 1 of 2" in _text(first, "statement")
    assert "+22.00" in first and "+2.00 " not in _text(first, "statement") + " "
    second = client.get(f"/cage/players/{zoe.pk}/", {"page": 2}, **_htmx("statement"))
    html = _page(second)
    assert second.status_code == 200 and html.lstrip().startswith('<section class="card" id="statement">')
    assert re.findall(r'<td class="num credit">([^<]+)</td>', html) == ["+2.00", "+1.00"]
    assert "Page 2 of 2" in _text(html, "statement")


@pytest.mark.django_db
def test_the_status_says_locked_by_the_cage_or_pin_locked_until_when(seeded, cashier):
    client = _client(cashier)
    zoe = _player()
    until = timezone.now() + timezone.timedelta(minutes=15)
    Player.objects.filter(pk=zoe.pk).update(locked_until=until)
    page = _page(client.get(f"/cage/players/{zoe.pk}/"))
    local = timezone.localtime(until).strftime("%Y-%m-%d %H:%M")
    assert _text(page, "player-status") == f"Locked after wrong PINs until {local}"
    Player.objects.filter(pk=zoe.pk).update(locked_until=None, is_active=False)
    assert _text(_page(client.get(f"/cage/players/{zoe.pk}/")), "player-status") == "Locked by the cage"


@pytest.mark.django_db
def test_a_player_of_no_such_id_is_not_found(seeded, cashier):
    assert _client(cashier).get("/cage/players/999999/").status_code == 404


@pytest.mark.django_db
def test_open_holds_name_their_table_and_round(seeded, cashier):
    from tests.tables.conftest import alice_betting

    alice, round_ = alice_betting(Table.objects.get(name="BJ1"), staff_user("dealer", "dealer-7"))
    page = _page(_client(cashier).get(f"/cage/players/{alice.pk}/"))
    rows = re.findall(
        r'<tr class="hold-row" data-hold="\d+"><td>[^<]+</td><td>([^<]+)</td><td>([^<]+)</td><td class="num">([^<]+)</td>',
        page,
    )
    assert rows == [("BJ1", str(round_.number), "10.00")]
    assert (_text(page, "balance-available"), _text(page, "balance-held")) == ("90.00 EUR", "10.00")


# --------------------------------------------------------------------- buy-in and cash-out


def _money(
    client: Client, player: Player, kind: str, amount: str, token: str = "", headers: Any = None
) -> Any:
    url = f"/cage/players/{player.pk}/{kind.replace('_', '-')}/"
    data = {f"{kind}-amount": amount, f"{kind}-form_token": token or _token()}
    return client.post(url, data, **(headers or {}))


@pytest.mark.django_db
def test_a_buy_in_moves_the_money_and_offers_its_receipt(seeded, cashier):
    zoe = _player()
    client = _client(cashier)
    response = _money(client, zoe, "buy_in", "150,50")
    transfer = Transfer.objects.get(kind=TransferKind.BUY_IN, postings__account__player=zoe)
    assert response.status_code == 302 and response.url == f"/cage/players/{zoe.pk}/?done={transfer.pk}"
    assert account_balance(zoe).balance_minor == 15_050
    assert transfer.created_by_id == cashier.pk
    page = _page(client.get(response.url))
    assert _text(page, "cage-done") == f"Buy-in recorded. Receipt of transfer {transfer.pk}"
    assert f'id="receipt-link" href="/cage/receipts/{transfer.pk}/"' in page


@pytest.mark.django_db
def test_a_cash_out_with_htmx_redraws_the_player_with_the_receipt_link(seeded, cashier):
    zoe = _player(balance_minor=20_000)
    response = _money(_client(cashier), zoe, "cash_out", "50", headers=HTMX)
    transfer = Transfer.objects.get(kind=TransferKind.CASH_OUT)
    html = _page(response)
    assert response.status_code == 200 and html.lstrip().startswith(
        '<section class="cage-player" id="player"'
    )
    assert _text(html, "cage-done") == f"Cash-out recorded. Receipt of transfer {transfer.pk}"
    assert _text(html, "balance-available") == "150.00 EUR"
    assert account_balance(zoe).balance_minor == 15_000


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_the_same_form_sent_twice_buys_in_once(seeded, cashier, htmx):
    zoe = _player()
    client = _client(cashier)
    token = _token()
    headers = HTMX if htmx else None
    first = _money(client, zoe, "buy_in", "200", token, headers)
    audit = AuditRecord.objects.count()
    second = _money(client, zoe, "buy_in", "200", token, headers)
    transfers = list(Transfer.objects.filter(kind=TransferKind.BUY_IN, postings__account__player=zoe))
    assert len(transfers) == 1 and account_balance(zoe).balance_minor == 20_000
    assert AuditRecord.objects.count() == audit
    if htmx:
        assert (first.status_code, second.status_code) == (200, 200)
        page = _page(second)
    else:
        assert second.url == f"/cage/players/{zoe.pk}/?done={transfers[0].pk}&again=1"
        page = _page(client.get(second.url))
    assert "This form had been sent already: nothing was moved again." in _text(page, "cage-done")


@pytest.mark.django_db
def test_the_same_token_with_another_amount_is_refused(seeded, cashier):
    zoe = _player()
    client = _client(cashier)
    token = _token()
    _money(client, zoe, "buy_in", "200", token)
    before = ledger_snapshot()
    response = _money(client, zoe, "buy_in", "300", token)
    assert response.status_code == 422
    assert _text(_page(response), "cage-error").endswith("idempotency_key_reused")
    assert ledger_snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_cash_out_above_the_available_balance_is_refused_with_the_reason(seeded, cashier, htmx):
    zoe = _player(balance_minor=15_000)
    before = ledger_snapshot()
    response = _money(_client(cashier), zoe, "cash_out", "500.00", headers=HTMX if htmx else None)
    assert response.status_code == 409
    html = _page(response)
    assert ("<html" in html) is not htmx
    assert (
        _text(html, "cage-error") == "Refused: the player has only 150.00 EUR available. insufficient_funds"
    )
    assert ledger_snapshot() == before
    # the form keeps what was typed, with a fresh token: sending it again is a new command
    assert 'value="500.00"' in html


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_large_cash_out_asks_for_a_confirmation_and_moves_nothing_until_given(seeded, cashier, htmx):
    # given the demo casino's confirmation amount, 10,000.00, and a player holding 12,000.00
    zoe = _player(balance_minor=1_200_000)
    client = _client(cashier)
    assert "Above 10,000.00 a cash-out asks for a confirmation." in _page(
        client.get(f"/cage/players/{zoe.pk}/")
    )
    before = ledger_snapshot()
    # when the cashier cashes out 10,000.50
    response = _money(client, zoe, "cash_out", "10000.50", headers=HTMX if htmx else None)
    # then the page asks to confirm it, in words, and nothing moved
    html = _page(response)
    assert response.status_code == 409
    assert _text(html, "cage-error") == (
        "A cash-out above 10,000.00 is paid only once the cashier has confirmed it: check 10,000.50 and confirm. "
        "cash_out_confirmation_required"
    )
    assert _text(html, "cash-out-confirm") == "I have checked the amount: pay out 10000.50 in cash."
    assert 'name="cash_out-confirmed"' in html and 'value="10000.50"' in html
    assert ledger_snapshot() == before


@pytest.mark.django_db
def test_a_confirmed_large_cash_out_is_paid(seeded, cashier):
    zoe = _player(balance_minor=1_200_000)
    client = _client(cashier)

    response = client.post(
        f"/cage/players/{zoe.pk}/cash-out/",
        {"cash_out-amount": "10000.50", "cash_out-form_token": _token(), "cash_out-confirmed": "on"},
    )

    transfer = Transfer.objects.get(kind=TransferKind.CASH_OUT)
    assert response.status_code == 302 and response.url == f"/cage/players/{zoe.pk}/?done={transfer.pk}"
    assert account_balance(zoe).balance_minor == 1_200_000 - 1_000_050
    record = AuditRecord.objects.order_by("-sequence").first()
    assert (record.action, record.after["confirmed_above_minor"]) == ("wallet.cash_out", 1_000_000)


@pytest.mark.django_db
def test_a_cash_out_up_to_the_confirmation_amount_is_paid_at_once(seeded, cashier):
    zoe = _player(balance_minor=1_200_000)

    response = _money(_client(cashier), zoe, "cash_out", "10000.00")

    assert response.status_code == 302
    assert account_balance(zoe).balance_minor == 200_000


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "message"),
    [("abc", "Enter an amount such as 150 or 150.50."), ("0", "The amount must be more than zero.")],
)
def test_an_amount_that_is_no_amount_is_refused_on_the_form(seeded, cashier, typed, message):
    zoe = _player()
    before = ledger_snapshot()
    response = _money(_client(cashier), zoe, "buy_in", typed)
    assert response.status_code == 422
    assert message in _text(_page(response), "buy-in")
    assert ledger_snapshot() == before


@pytest.mark.django_db
def test_a_form_without_its_token_moves_nothing(seeded, cashier):
    zoe = _player()
    before = ledger_snapshot()
    response = _client(cashier).post(f"/cage/players/{zoe.pk}/buy-in/", {"buy_in-amount": "20"})
    assert response.status_code == 422
    assert ledger_snapshot() == before


# ------------------------------------------------------------------- card lock and unlock


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_the_cashier_locks_and_unlocks_a_card(seeded, cashier, htmx):
    zoe = _player()
    client = _client(cashier)
    headers = HTMX if htmx else {}
    locked = client.post(f"/cage/players/{zoe.pk}/lock/", {"lock-reason": "card reported lost"}, **headers)
    zoe.refresh_from_db()
    assert zoe.is_active is False
    record = AuditRecord.objects.filter(action="player.card_locked").get()
    assert (record.actor_id, record.after) == (
        cashier.pk,
        {"is_active": False, "reason": "card reported lost"},
    )
    page = _page(locked) if htmx else _page(client.get(locked.url))
    assert _text(page, "cage-done") == "Card locked."
    assert _text(page, "player-status") == "Locked by the cage"
    unlocked = client.post(f"/cage/players/{zoe.pk}/unlock/", **headers)
    zoe.refresh_from_db()
    assert zoe.is_active is True
    page = _page(unlocked) if htmx else _page(client.get(unlocked.url))
    assert _text(page, "cage-done") == "Card unlocked."
    assert _text(page, "player-status") == "Active"


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_lock_without_a_reason_and_an_unlock_of_an_active_card_are_refused(seeded, cashier, htmx):
    zoe = _player()
    client = _client(cashier)
    headers = HTMX if htmx else {}
    audit = AuditRecord.objects.count()
    response = client.post(f"/cage/players/{zoe.pk}/lock/", {"lock-reason": "  "}, **headers)
    assert response.status_code == 422
    assert _text(_page(response), "cage-error") == "A reason is required to lock a card. reason_required"
    response = client.post(f"/cage/players/{zoe.pk}/unlock/", **headers)
    assert response.status_code == 409
    assert _text(_page(response), "cage-error") == "Card 7000000042 is not locked. card_not_locked"
    zoe.refresh_from_db()
    assert (zoe.is_active, AuditRecord.objects.count()) == (True, audit)


# --------------------------------------------------------------------------- adjustments


def _adjust(
    client: Client,
    player: Player,
    amount: str,
    reason: str = "goodwill",
    token: str = "",
    headers: Any = None,
) -> Any:
    data = {"adjust-amount": amount, "adjust-reason": reason, "adjust-form_token": token or _token()}
    return client.post(f"/cage/players/{player.pk}/adjust/", data, **(headers or {}))


@pytest.mark.django_db
def test_an_adjustment_up_to_the_threshold_applies_at_once_with_its_receipt(seeded, pit_boss):
    zoe = _player(balance_minor=10_000)
    client = _client(pit_boss)
    response = _adjust(client, zoe, "-20.50", "double buy-in keyed")
    adjustment = BalanceAdjustment.objects.get()
    assert (adjustment.status, adjustment.amount_minor) == (AdjustmentStatus.APPLIED, -2050)
    assert response.url == f"/cage/players/{zoe.pk}/?done={adjustment.transfer_id}"
    assert account_balance(zoe).balance_minor == 7_950
    page = _page(client.get(response.url))
    assert _text(page, "cage-done") == f"Adjustment applied. Receipt of transfer {adjustment.transfer_id}"


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_an_adjustment_above_the_threshold_waits_and_its_requester_cannot_approve_it(seeded, pit_boss, htmx):
    zoe = _player(balance_minor=10_000)
    client = _client(pit_boss)
    headers = HTMX if htmx else None
    response = _adjust(client, zoe, "600", "jackpot paid short", headers=headers)
    adjustment = BalanceAdjustment.objects.get()
    assert adjustment.status == AdjustmentStatus.PENDING and account_balance(zoe).balance_minor == 10_000
    page = _page(response) if htmx else _page(client.get(response.url))
    assert _text(page, "cage-done") == "The adjustment waits for a second pit boss's approval."
    row = _text(page, "adjustments")
    assert "+600.00 jackpot paid short pitboss-1" in row
    assert "Your request: another pit boss decides it." in row
    assert f"/cage/adjustments/{adjustment.pk}/" not in page  # no button to decide one's own
    assert (adjustment.approval.kind, adjustment.approval.status) == ("balance_adjustment", "pending")
    before = ledger_snapshot()
    for decision, data in (("approve", {}), ("reject", {"reason": "changed my mind"})):
        refused = client.post(
            f"/cage/adjustments/{adjustment.pk}/{decision}/", {"player": zoe.pk, **data}, **(headers or {})
        )
        assert refused.status_code == 403
        assert _text(_page(refused), "cage-error") == (
            "A second person must decide: whoever asked for it cannot, nor, for a payout, the round's "
            "dealer. four_eyes_required"
        )
        assert ledger_snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_second_pit_boss_approves_from_the_players_page(seeded, pit_boss, other_pit_boss, htmx):
    zoe = _player(balance_minor=10_000)
    adjustment = balance_adjust(
        player=zoe, amount_minor=60_000, reason="jackpot paid short", actor=Actor.staff(pit_boss)
    )
    client = _client(other_pit_boss)
    headers = HTMX if htmx else {}
    response = client.post(f"/cage/adjustments/{adjustment.pk}/approve/", {"player": zoe.pk}, **headers)
    adjustment.refresh_from_db()
    assert (adjustment.status, adjustment.decided_by_id) == (AdjustmentStatus.APPLIED, other_pit_boss.pk)
    assert account_balance(zoe).balance_minor == 70_000
    if not htmx:
        assert response.url == f"/cage/players/{zoe.pk}/?adjustment=approve&done={adjustment.transfer_id}"
    page = _page(response) if htmx else _page(client.get(response.url))
    assert (
        _text(page, "cage-done")
        == f"Adjustment approved and applied. Receipt of transfer {adjustment.transfer_id}"
    )
    assert _text(page, "no-adjustments") == "No adjustment waits."
    approval = adjustment.approval
    assert (approval.status, approval.requested_by_id, approval.decided_by_id) == (
        "approved",
        pit_boss.pk,
        other_pit_boss.pk,
    )
    before = ledger_snapshot()
    again = client.post(f"/cage/adjustments/{adjustment.pk}/approve/", {"player": zoe.pk}, **headers)
    assert again.status_code == 409
    assert _text(_page(again), "cage-error") == "This is decided already. approval_decided"
    assert account_balance(zoe).balance_minor == 70_000 and ledger_snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_the_adjustments_desk_lists_what_waits_and_decides_it(seeded, pit_boss, other_pit_boss, htmx):
    zoe = _player(balance_minor=10_000)
    first = balance_adjust(
        player=zoe, amount_minor=60_000, reason="jackpot paid short", actor=Actor.staff(pit_boss)
    )
    second = balance_adjust(
        player=zoe, amount_minor=-55_000, reason="paid twice", actor=Actor.staff(pit_boss)
    )
    client = _client(other_pit_boss)
    desk = _page(client.get("/cage/adjustments/"))
    assert re.findall(r'data-adjustment="(\d+)"', desk) == [str(first.pk), str(second.pk)]
    assert "Zoe Zimmer" in _text(desk, "adjustments")
    alone = client.get("/cage/adjustments/", **_htmx("adjustments"))
    assert _page(alone).lstrip().startswith('<section class="card" id="adjustments">')
    assert alone["Vary"] == "HX-Request, Cookie"
    headers = _htmx("adjustments") if htmx else {}
    rejected = client.post(f"/cage/adjustments/{second.pk}/reject/", {"reason": "not proven"}, **headers)
    second.refresh_from_db()
    assert second.status == AdjustmentStatus.REJECTED and account_balance(zoe).balance_minor == 10_000
    decided = Approval.objects.get(pk=second.approval_id)
    assert (decided.status, decided.decided_by_id, decided.decision_reason) == (
        "rejected",
        other_pit_boss.pk,
        "not proven",
    )
    if htmx:
        html = _page(rejected)
        assert html.lstrip().startswith('<section class="card" id="adjustments">')
        assert _text(html, "adjustment-done") == "Adjustment rejected."
    else:
        assert rejected.url == "/cage/adjustments/"
    before = ledger_snapshot()
    refused = client.post(f"/cage/adjustments/{first.pk}/reject/", {"reason": " "}, **headers)
    assert refused.status_code == 422
    assert _text(_page(refused), "adjustment-error") == "A rejection needs a reason. reason_required"
    assert ledger_snapshot() == before


@pytest.mark.django_db
def test_the_cashier_sees_pending_adjustments_but_no_decision(seeded, cashier, pit_boss):
    zoe = _player(balance_minor=10_000)
    adjustment = balance_adjust(
        player=zoe, amount_minor=60_000, reason="jackpot paid short", actor=Actor.staff(pit_boss)
    )
    client = _client(cashier)
    page = _page(client.get(f"/cage/players/{zoe.pk}/"))
    assert "+600.00 jackpot paid short pitboss-1" in _text(page, "adjustments")
    assert "/approve/" not in page and 'id="adjust"' not in page
    response = client.post(f"/cage/adjustments/{adjustment.pk}/approve/", {"player": zoe.pk})
    assert response.status_code == 403
    assert BalanceAdjustment.objects.get().status == AdjustmentStatus.PENDING


@pytest.mark.django_db
def test_the_same_adjustment_form_sent_twice_adjusts_once(seeded, pit_boss):
    zoe = _player(balance_minor=10_000)
    client = _client(pit_boss)
    token = _token()
    _adjust(client, zoe, "600", token=token)
    second = _adjust(client, zoe, "600", token=token)
    assert BalanceAdjustment.objects.count() == 1
    assert second.url == f"/cage/players/{zoe.pk}/?pending=1&again=1"


@pytest.mark.django_db
def test_a_refused_adjustment_moves_nothing(seeded, pit_boss):
    zoe = _player(balance_minor=1_000)
    client = _client(pit_boss)
    before = ledger_snapshot()
    no_reason = _adjust(client, zoe, "5", reason="")
    assert (
        no_reason.status_code == 422
        and _text(_page(no_reason), "cage-error") == "A reason is required. reason_required"
    )
    overdrawn = _adjust(client, zoe, "-50")
    assert overdrawn.status_code == 409
    assert (
        _text(_page(overdrawn), "cage-error")
        == "Refused: the player has only 10.00 EUR available. insufficient_funds"
    )
    assert ledger_snapshot() == before


# ------------------------------------------------------------------------------ receipts


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["cashier", "pit_boss"])
def test_a_receipt_names_the_casino_the_player_and_the_cashier(seeded, cashier, agi, role):
    transfer = cage_buy_in(player=agi, amount_minor=20_000, actor=Actor.staff(cashier))
    client = _client(cashier if role == "cashier" else staff_user(role, f"{role}-5"))
    page = _page(client.get(f"/cage/receipts/{transfer.pk}/"))
    assert "<h1>Demo Casino</h1>" in page
    assert [
        _text(page, f"receipt-{name}") for name in ("kind", "amount", "player", "card", "transfer", "cashier")
    ] == ["Buy-in", "+200.00 EUR", "Ági Kovács", "••••••0001", str(transfer.pk), "cashier-1"]
    assert _text(page, "receipt-time") == timezone.localtime(transfer.created_at).strftime(
        "%Y-%m-%d %H:%M:%S"
    )
    partial = client.get(f"/cage/receipts/{transfer.pk}/", **HTMX)
    assert (
        _page(partial)
        .lstrip()
        .startswith(f'<article class="receipt" id="receipt" data-transfer="{transfer.pk}">')
    )
    assert partial["Vary"] == "HX-Request, Cookie"


@pytest.mark.django_db
def test_a_receipt_prints_without_the_navigation(seeded, cashier, agi):
    transfer = cage_buy_in(player=agi, amount_minor=20_000, actor=Actor.staff(cashier))
    page = _page(_client(cashier).get(f"/cage/receipts/{transfer.pk}/"))
    assert "/static/wallet/cage.css" in page
    css = (Path(settings.BASE_DIR) / "wallet" / "static" / "wallet" / "cage.css").read_text()
    print_rules = css[css.index("@media print") :]
    assert "header.top, nav, .no-print, .messages { display: none !important; }" in print_rules


@pytest.mark.django_db
def test_only_the_cages_transactions_have_a_receipt(seeded, cashier):
    settlement = Transfer.objects.exclude(
        kind__in=[TransferKind.BUY_IN, TransferKind.CASH_OUT, TransferKind.ADJUSTMENT]
    ).first()
    client = _client(cashier)
    if settlement is not None:
        assert client.get(f"/cage/receipts/{settlement.pk}/").status_code == 404
    assert client.get("/cage/receipts/999999/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_two_submits_of_one_form_at_the_same_moment_buy_in_once(seeded):
    import threading

    from django.db import connections

    cashier = staff_user("cashier", "cashier-race")
    zoe = _player()
    token = _token()
    barrier = threading.Barrier(2)
    answers: list[Any] = []

    def submit() -> None:
        client = _client(cashier)
        try:
            barrier.wait(10)
            answers.append(_money(client, zoe, "buy_in", "200", token))
        except BaseException as error:  # reported below
            answers.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    transfers = list(Transfer.objects.filter(kind=TransferKind.BUY_IN, postings__account__player=zoe))
    assert len(transfers) == 1 and account_balance(zoe).balance_minor == 20_000
    assert sorted(answer.url for answer in answers) == [
        f"/cage/players/{zoe.pk}/?done={transfers[0].pk}",
        f"/cage/players/{zoe.pk}/?done={transfers[0].pk}&again=1",
    ]


@pytest.mark.django_db
def test_an_adjustments_receipt_carries_its_reason(seeded, pit_boss, agi):
    adjustment = balance_adjust(
        player=agi, amount_minor=-1_500, reason="bought in twice", actor=Actor.staff(pit_boss)
    )
    page = _page(_client(pit_boss).get(f"/cage/receipts/{adjustment.transfer_id}/"))
    assert [_text(page, f"receipt-{name}") for name in ("kind", "amount", "cashier")] == [
        "Balance adjustment",
        "-15.00 EUR",
        "pitboss-1",
    ]
    assert "<dt>Reason</dt><dd>bought in twice</dd>" in page
