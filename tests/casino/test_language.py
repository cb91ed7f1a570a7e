"""The language of the screens: each staff member's choice (``staff_language_set``, the switch in
the header), kept across logins; the browser's language for visitors who are not signed in;
money as each language writes it; refusals in the active language."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone, translation

from casino.errors import AccountLockedError, ServiceError
from casino.middleware import STAFF_LANGUAGE_SESSION_KEY
from casino.models import AuditRecord, StaffPreference
from casino.money import money, money_plain
from casino.refusals import refusal_text
from casino.services import staff_language_set
from casino.templatetags.money import money_currency
from games.errors import IllegalActionError
from tables.errors import StakeBelowTableMinError
from tests.factories import staff_user
from tests.tables.conftest import refused
from wallet.errors import InsufficientFundsError

HTMX = {"HTTP_HX_REQUEST": "true"}
SWITCH = "/language/"


@pytest.fixture(autouse=True)
def _default_language_after() -> Iterator[None]:
    """A request leaves its language active in the thread (Django's LocaleMiddleware never
    deactivates it): the tests after these get the default language back."""
    yield
    translation.deactivate()


def _page(response: Any) -> str:
    return response.content.decode()


# ------------------------------------------------------------------------------------ the service


@pytest.mark.django_db
def test_a_staff_member_s_language_is_kept_and_audited_once_per_change(seeded):
    # given a dealer without a choice
    dealer = staff_user("dealer", "dealer-1")
    # when she chooses Hungarian, then Hungarian again, then Polish
    staff_language_set(user=dealer, language="hu")
    staff_language_set(user=dealer, language="hu")
    staff_language_set(user=dealer, language="pl")
    # then Polish is kept, and the two changes are audited with before and after
    assert StaffPreference.objects.get(user=dealer).language == "pl"
    records = AuditRecord.objects.filter(action="staff.language_set", object_id=str(dealer.pk)).order_by(
        "sequence"
    )
    assert [(record.before, record.after) for record in records] == [
        (None, {"language": "hu"}),
        ({"language": "hu"}, {"language": "pl"}),
    ]


@pytest.mark.django_db
def test_an_unknown_language_is_refused_with_nothing_written(seeded):
    dealer = staff_user("dealer", "dealer-1")
    before = AuditRecord.objects.count()
    error = refused("unknown_language", staff_language_set, user=dealer, language="de")
    assert (error.status, error.details) == (400, {"language": "de"})
    assert StaffPreference.objects.filter(user=dealer).exists() is False
    assert AuditRecord.objects.count() == before


# ------------------------------------------------------------------------------------- the switch


def _signed_in(username: str = "dealer-1", role: str = "dealer") -> tuple[Client, Any]:
    user = staff_user(role, username)
    client = Client()
    client.force_login(user)
    return client, user


@pytest.mark.django_db
def test_a_signed_in_dealer_switches_to_russian_and_every_page_follows(seeded):
    client, dealer = _signed_in()
    # when she switches on the console
    response = client.post(SWITCH, {"language": "ru", "next": "/dealer/"})
    # then she is back on the page she was on, in Russian, and the choice is kept for her
    assert (response.status_code, response["Location"]) == (302, "/dealer/")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ru"
    assert StaffPreference.objects.get(user=dealer).language == "ru"
    assert client.session[STAFF_LANGUAGE_SESSION_KEY] == "ru"
    page = client.get("/dealer/")
    assert page["Content-Language"] == "ru"
    assert "<h1>Ваши столы</h1>" in _page(page) and '<option value="ru" lang="ru" selected>' in _page(page)
    # and the switch names each language in itself
    assert [name in _page(page) for name in (">English<", ">Magyar<", ">Polski<", ">Русский<")] == [True] * 4
    # and a signed-in page varies with the session, not with the browser's language
    assert "Accept-Language" not in page.get("Vary", "")
    assert client.get("/dealer/", HTTP_ACCEPT_LANGUAGE="pl")["Content-Language"] == "ru"


@pytest.mark.django_db
def test_the_switch_with_htmx_asks_for_the_page_again(seeded):
    client, dealer = _signed_in()
    response = client.post(SWITCH, {"language": "hu", "next": "/dealer/"}, **HTMX)
    assert (response.status_code, response["HX-Redirect"]) == (200, "/dealer/")
    assert "HX-Request" in response["Vary"]
    assert StaffPreference.objects.get(user=dealer).language == "hu"


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_an_unknown_language_is_refused_in_words_with_nothing_kept(seeded, htmx):
    client, dealer = _signed_in()
    client.post(SWITCH, {"language": "pl", "next": "/dealer/"})
    response = client.post(SWITCH, {"language": "xx", "next": "/dealer/"}, **(HTMX if htmx else {}))
    assert response.status_code == 400
    page = _page(response)
    # the reason in the language still active (Polish), with the switch to try again
    assert 'id="language-error"' in page and "Back office nie obsługuje języka „xx”." in page
    assert ("<html" in page) is not htmx
    assert '<input type="hidden" name="next" value="/dealer/">' in page
    assert StaffPreference.objects.get(user=dealer).language == "pl"
    assert client.session[STAFF_LANGUAGE_SESSION_KEY] == "pl"


@pytest.mark.django_db
def test_the_switch_goes_back_only_to_pages_of_the_back_office(seeded):
    client, _ = _signed_in()
    response = client.post(SWITCH, {"language": "hu", "next": "https://elsewhere.example/"})
    assert response["Location"] == "/"


@pytest.mark.django_db
def test_the_switch_takes_no_get(seeded):
    client, _ = _signed_in()
    assert client.get(SWITCH).status_code == 405


# -------------------------------------------------------------------- visitors and the login step


@pytest.mark.django_db
def test_the_login_page_speaks_the_browser_s_language_then_the_one_chosen_there(seeded):
    client = Client()
    # the browser asks for Hungarian
    page = client.get("/login/", HTTP_ACCEPT_LANGUAGE="hu-HU,hu;q=0.9")
    assert "Személyzeti bejelentkezés" in _page(page) and page["Content-Language"] == "hu"
    assert "Accept-Language" in page["Vary"]
    # the visitor switches to Polish on the login page: a cookie, no account touched
    switched = client.post(SWITCH, {"language": "pl", "next": "/login/"}, HTTP_ACCEPT_LANGUAGE="hu")
    assert (switched.status_code, switched["Location"]) == (302, "/login/")
    assert StaffPreference.objects.count() == 0
    assert "Logowanie personelu" in _page(client.get("/login/", HTTP_ACCEPT_LANGUAGE="hu"))
    # an unknown language is refused there too
    assert client.post(SWITCH, {"language": "xx", "next": "/login/"}).status_code == 400


@pytest.mark.django_db
def test_a_dealer_s_choice_follows_her_to_her_next_login_on_another_device(seeded):
    # given the demo dealer chose Hungarian on one device
    from django.contrib.auth import get_user_model

    dealer = get_user_model().objects.get(username="dealer")
    staff_language_set(user=dealer, language="hu")
    # when she logs in on another one, whose browser asks for English
    device = Client()
    response = device.post(
        "/login/", {"username": "dealer", "password": "dealer-demo"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    # then her pages are Hungarian, and so is the login page after she logs out
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "hu"
    assert "<h1>Az Ön asztalai</h1>" in _page(device.get("/dealer/", HTTP_ACCEPT_LANGUAGE="en"))
    device.post("/logout/")
    assert "Személyzeti bejelentkezés" in _page(device.get("/login/", HTTP_ACCEPT_LANGUAGE="en"))


@pytest.mark.django_db
def test_without_a_choice_the_language_of_the_login_page_stays_for_the_session(seeded):
    device = Client()
    device.post("/login/", {"username": "pitboss", "password": "pitboss-demo"}, HTTP_ACCEPT_LANGUAGE="ru")
    assert device.session[STAFF_LANGUAGE_SESSION_KEY] == "ru"
    assert "<h1>Игровой зал</h1>" in _page(device.get("/pit/", HTTP_ACCEPT_LANGUAGE="en"))
    assert StaffPreference.objects.count() == 0


@pytest.mark.django_db
def test_a_refused_login_speaks_the_login_page_s_language(seeded):
    response = Client().post(
        "/login/", {"username": "dealer", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="pl"
    )
    assert response.status_code == 401
    assert "Błędna nazwa użytkownika lub hasło." in _page(response)


# ---------------------------------------------------------------------------------------- money


def test_money_follows_the_language_and_files_keep_one_form():
    amounts = (0, 5, 1250, 123456, 123456789, -5, None)
    assert [money(amount, language="en") for amount in amounts] == [
        "0.00",
        "0.05",
        "12.50",
        "1,234.56",
        "1,234,567.89",
        "-0.05",
        "",
    ]
    for language in ("hu", "pl", "ru"):
        assert [money(amount, language=language) for amount in amounts] == [
            "0,00",
            "0,05",
            "12,50",
            "1\u00a0234,56",
            "1\u00a0234\u00a0567,89",
            "-0,05",
            "",
        ]
    assert [money_plain(amount) for amount in amounts] == [
        "0.00",
        "0.05",
        "12.50",
        "1234.56",
        "1234567.89",
        "-0.05",
        "",
    ]


def test_money_with_the_currency_as_each_language_writes_it():
    assert money(123456, currency="EUR", language="en") == "€1,234.56"
    assert money(-5, currency="USD", language="en") == "-$0.05"
    assert money(123456, currency="CHF", language="en") == "CHF\u00a01,234.56"
    for language in ("hu", "pl", "ru"):
        assert money(123456, currency="EUR", language=language) == "1\u00a0234,56\u00a0€"
        assert money(123456, currency="HUF", language=language) == "1\u00a0234,56\u00a0HUF"


@pytest.mark.django_db
def test_the_money_currency_filter_takes_the_casino_or_its_code(seeded):
    from casino.models import Casino

    casino = Casino.objects.get()
    assert casino.currency == "EUR"
    with translation.override("pl"):
        assert money_currency(123456, casino) == "1\u00a0234,56\u00a0€"
    with translation.override("en"):
        assert money_currency(123456, "EUR") == "€1,234.56"
        assert money_currency(None, casino) == ""


# ------------------------------------------------------------------------------------- refusals


def test_in_english_a_refusal_with_its_specifics_is_its_code_s_sentence_with_money_in_words():
    with translation.override("en"):
        # the services' words name minor units (the API's); a screen names money
        assert refusal_text(StakeBelowTableMinError("the main minimum is 500", minimum_minor=500)) == (
            "The stake is below the table minimum of 5.00."
        )
        short = InsufficientFundsError(
            "Insufficient funds on table tray account 19: 5000 available, 12000 needed.",
            account_id=19,
            available_minor=5000,
            needed_minor=12000,
        )
        assert refusal_text(short) == "Insufficient funds: 50.00 available, 120.00 needed."
        # without its specifics, the service's own message
        assert refusal_text(StakeBelowTableMinError("the main minimum is 500")) == "the main minimum is 500"
        assert refusal_text(ServiceError("As it was said.", code="no_sentence_for_this")) == "As it was said."


def test_in_the_other_languages_a_refusal_is_its_code_s_sentence_with_the_specifics():
    with_limit = StakeBelowTableMinError("the main minimum is 500", minimum_minor=500)
    without = StakeBelowTableMinError("the main minimum is 500")
    with translation.override("hu"):
        assert refusal_text(with_limit) == "A tét az asztali minimum (5,00) alatt van."
        assert refusal_text(without) == "A tét az asztali minimum alatt van."
    with translation.override("ru"):
        assert (
            refusal_text(IllegalActionError("no", code="split_not_allowed")) == "Эту руку нельзя сплитовать."
        )
        # a code without a sentence keeps the service's words
        assert refusal_text(ServiceError("As it was said.", code="no_sentence_for_this")) == "As it was said."


def test_a_moment_in_a_refusal_is_its_local_time():
    until = timezone.make_aware(dt.datetime(2026, 12, 1, 18, 5), dt.UTC)
    with translation.override("pl"), timezone.override("Europe/Warsaw"):
        assert refusal_text(AccountLockedError("locked", locked_until=until)) == (
            "Konto jest zablokowane po zbyt wielu nieudanych logowaniach do 19:05. "
            "Spróbuj wtedy lub poproś operatora o odblokowanie."
        )


@pytest.mark.django_db
def test_the_terminal_api_refuses_in_the_terminal_s_language_keeping_every_other_field(seeded):
    from casino.models import Terminal
    from tests.api.conftest import ApiClient, make_device, sign_in

    # given Ági on box 1 of BJ1, and Bartek at the table's other terminal
    first = make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    second = make_device("T-BJ1-2", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    agi = ApiClient(first, sign_in(first, "1000000001", "1111"))
    bartek = ApiClient(second, sign_in(second, "1000000002", "2222"))
    from casino.models import Table

    box = f"/api/v1/tables/{Table.objects.get(name='BJ1').pk}/boxes/1/take/"
    assert agi.post(box).status_code == 200
    # when Bartek asks for box 1, once without a language and once in Hungarian
    english = bartek.post(box)
    hungarian = bartek.post(box, headers={"Accept-Language": "hu"})
    # then the service's own message, and its Hungarian sentence; nothing else differs
    assert english.status_code == hungarian.status_code == 409
    assert english.json() == {
        "type": "about:blank#box_taken",
        "title": "Box taken",
        "status": 409,
        "code": "box_taken",
        "detail": "box 1 is taken",
    }
    assert hungarian.json() == {**english.json(), "detail": "Ez a téthely már foglalt."}
