"""Money as people read and type it (``casino.money``), in the casino's currency exponent: 2 for a
currency with cents (EUR), 0 for one without (HUF); the exponent of a signed-in person's venue is
active on their pages."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from django import forms
from django.test import Client
from django.utils import translation

from casino.actors import Actor
from casino.models import Casino, Player
from casino.money import (
    DEFAULT_EXPONENT,
    MoneyField,
    amount_minor_parse,
    currency_exponent,
    currency_exponent_activate,
    currency_exponent_deactivate,
    money,
    money_input,
    money_plain,
)
from casino.templatetags.money import money_currency
from tests.factories import PlayerFactory
from wallet.models import Account
from wallet.selectors import account_balance
from wallet.services import system_buy_in


@pytest.fixture(autouse=True)
def _defaults_after() -> Iterator[None]:
    yield
    currency_exponent_deactivate()
    translation.deactivate()


# ---------------------------------------------------------------------------------- display

AMOUNTS = (0, 5, 1250, 123456, -5, None)


def test_with_exponent_2_an_amount_shows_cents():
    assert [money(amount, language="en", exponent=2) for amount in AMOUNTS] == [
        "0.00",
        "0.05",
        "12.50",
        "1,234.56",
        "-0.05",
        "",
    ]
    assert [money(amount, language="hu", exponent=2) for amount in AMOUNTS] == [
        "0,00",
        "0,05",
        "12,50",
        "1\u00a0234,56",
        "-0,05",
        "",
    ]
    assert [money_plain(amount, exponent=2) for amount in AMOUNTS] == [
        "0.00",
        "0.05",
        "12.50",
        "1234.56",
        "-0.05",
        "",
    ]


def test_with_exponent_0_an_amount_shows_whole_units():
    assert [money(amount, language="en", exponent=0) for amount in AMOUNTS] == [
        "0",
        "5",
        "1,250",
        "123,456",
        "-5",
        "",
    ]
    assert [money(amount, language="hu", exponent=0) for amount in AMOUNTS] == [
        "0",
        "5",
        "1\u00a0250",
        "123\u00a0456",
        "-5",
        "",
    ]
    assert [money_plain(amount, exponent=0) for amount in AMOUNTS] == ["0", "5", "1250", "123456", "-5", ""]
    assert money(-123456, currency="HUF", language="en", exponent=0) == "-HUF\u00a0123,456"
    assert money(123456, currency="HUF", language="hu", exponent=0) == "123\u00a0456\u00a0HUF"


def test_a_form_shows_an_amount_as_it_is_typed_in_the_language():
    with translation.override("en"):
        assert money_input(500000, exponent=2) == "5000.00"
        assert money_input(500000, exponent=0) == "500000"
    with translation.override("pl"):
        assert money_input(500050, exponent=2) == "5000,50"
        assert money_input(-5, exponent=2) == "-0,05"


def test_without_an_exponent_the_active_one_is_used_and_the_default_is_2():
    assert currency_exponent() == DEFAULT_EXPONENT == 2
    assert money_plain(123456) == "1234.56"
    currency_exponent_activate(0)
    assert (currency_exponent(), money_plain(123456), amount_minor_parse("150")) == (0, "123456", 150)
    currency_exponent_deactivate()
    assert (currency_exponent(), money_plain(123456), amount_minor_parse("150")) == (2, "1234.56", 15000)


@pytest.mark.django_db
def test_the_money_currency_filter_takes_the_casino_s_exponent(seeded):
    casino = Casino.objects.get()
    assert money_currency(123456, casino) == "€1,234.56"
    casino.currency, casino.currency_exponent = "HUF", 0
    with translation.override("hu"):
        assert money_currency(123456, casino) == "123\u00a0456\u00a0HUF"


# ---------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("typed", "exponent", "minor"),
    [
        ("150", 2, 15000),
        ("150,5", 2, 15050),
        ("1 250,50", 2, 125050),
        ("1,250.50", 2, 125050),
        ("150", 0, 150),
        ("1 250", 0, 1250),
        ("\u00a0123\u00a0456 ", 0, 123456),
    ],
)
def test_a_typed_amount_becomes_minor_units_of_the_exponent(typed, exponent, minor):
    assert amount_minor_parse(typed, exponent=exponent) == minor


@pytest.mark.parametrize(
    ("typed", "exponent", "message"),
    [
        ("150.505", 2, "Enter an amount such as 150 or 150.50."),
        ("150.5", 0, "A whole number such as 3."),
        ("150,50", 0, "A whole number such as 3."),
        ("0", 0, "The amount must be more than zero."),
        ("-5", 0, "Enter the amount without a sign."),
    ],
)
def test_an_amount_the_exponent_cannot_hold_is_refused_with_its_code(typed, exponent, message):
    with translation.override("en"), pytest.raises(forms.ValidationError) as refused:
        amount_minor_parse(typed, exponent=exponent)
    assert (refused.value.code, refused.value.messages) == ("invalid_amount", [message])


def test_zero_is_an_amount_only_where_allowed_and_a_sign_only_when_signed():
    assert amount_minor_parse("0", allow_zero=True, exponent=0) == 0
    assert amount_minor_parse("0,00", allow_zero=True, exponent=2) == 0
    assert amount_minor_parse("-20", signed=True, exponent=0) == -20
    with pytest.raises(forms.ValidationError):
        amount_minor_parse("0,00", exponent=2)


def test_the_money_field_reads_and_shows_the_active_exponent():
    field = MoneyField(allow_zero=True)
    currency_exponent_activate(0)
    with translation.override("en"):
        assert (field.clean("1 500"), field.clean("0"), field.prepare_value(1500)) == (1500, 0, "1500")
        with pytest.raises(forms.ValidationError):
            field.clean("15.50")
    currency_exponent_deactivate()
    with translation.override("en"):
        assert (field.clean("15.50"), field.prepare_value(1550)) == (1550, "15.50")


# ------------------------------------------------------------------------- a venue without cents


def _text(html: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</dd>', html, re.S)
    assert found is not None, element_id
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


@pytest.mark.django_db
def test_a_casino_without_cents_shows_and_reads_whole_amounts_on_its_pages(seeded):
    # given a venue whose currency has no minor units, and a player with 20,000 of it
    Casino.objects.update(currency="HUF", currency_exponent=0)
    Account.objects.update(currency="HUF")
    player = PlayerFactory(casino=Casino.objects.get(), display_name="Zoe", card_number="7000000077")
    system_buy_in(player=player, amount_minor=20_000, actor=Actor.automatic("test"))
    # when the cashier signs in and buys the player in for 1 500
    client = Client()
    signed_in = client.post("/login/", {"username": "cashier", "password": "cashier-demo"})
    assert signed_in.status_code == 302
    url = f"/cage/players/{player.pk}/"
    bought = client.post(f"{url}buy-in/", {"buy_in-amount": "1 500", "buy_in-form_token": str(uuid.uuid4())})
    # then 1 500 minor units moved, and the page shows whole amounts
    assert bought.status_code == 302
    assert account_balance(player).balance_minor == 21_500
    assert _text(client.get(url).content.decode(), "balance-available") == "21,500 HUF"
    # and an amount with cents is refused, moving nothing
    refused = client.post(f"{url}buy-in/", {"buy_in-amount": "15.50", "buy_in-form_token": str(uuid.uuid4())})
    assert "A whole number such as 3." in refused.content.decode()
    assert account_balance(player).balance_minor == 21_500
    # and the request left the default exponent behind it
    assert currency_exponent() == DEFAULT_EXPONENT
    assert Player.objects.filter(pk=player.pk).exists()
