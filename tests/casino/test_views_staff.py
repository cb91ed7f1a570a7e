"""The operator's staff pages (casino/staff_views.py) with and without htmx: the list, a new
account, an account's page and its commands (disable, enable, unlock, role, temporary password);
for the operator, refused to the other roles and sent to login when anonymous."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from casino.models import AuditRecord, StaffLoginState
from casino.roles import role_of
from tests.factories import staff_user

User = get_user_model()
HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"
STRONG = "felt-and-chips-42"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(response: Any) -> str:
    return response.content.decode()


@pytest.fixture
def operator(seeded: Any) -> Any:
    return User.objects.get(username="operator")


@pytest.fixture
def dealer(seeded: Any) -> Any:
    return User.objects.get(username="dealer")


@pytest.fixture
def as_operator(operator: Any) -> Client:
    return _client(operator)


def _row(page: str, user: Any) -> str:
    match = re.search(rf'<tr class="staff-row" id="staff-{user.pk}">.*?</tr>', page, re.S)
    assert match is not None, page
    return re.sub(r"\s+", " ", match.group(0))


def _cells(page: str, user: Any) -> list[str]:
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", _row(page, user))]


# --------------------------------------------------------------------------------------- list


def test_each_refused_password_rule_is_listed(as_operator):
    response = as_operator.post("/operator/staff/new/", {**NEW, "password": "abc"})

    page = _page(response)
    assert response.status_code == 400
    assert (
        "<li><strong>This password is too short. It must contain at least 8 characters.</strong></li>" in page
    )
    assert "<li><strong>This password is too common.</strong></li>" in page
    assert 'data-code="invalid_password"' in page


def test_the_list_shows_each_account_with_role_state_lock_and_last_login(as_operator, dealer):
    User.objects.filter(username="cashier").update(is_active=False)
    until = timezone.now() + dt.timedelta(minutes=10)
    StaffLoginState.objects.update_or_create(user=dealer, defaults={"locked_until": until})
    User.objects.create_superuser(username="root", password=STRONG)

    response = as_operator.get("/operator/staff/")

    page = _page(response)
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert "<html" in page and 'id="staff-create"' in page
    local = timezone.localtime(until).strftime("%Y-%m-%d %H:%M")
    assert _cells(page, dealer) == [
        "dealer",
        "Dana Dealer",
        "Dealer",
        "active",
        f"locked until {local}",
        "never",
    ]
    cashier = User.objects.get(username="cashier")
    assert _cells(page, cashier)[2:] == ["Cashier", "disabled", "not locked", "never"]
    operator = User.objects.get(username="operator")
    assert _cells(page, operator)[2:5] == ["Operator", "active", "not locked"]
    assert _cells(page, operator)[5] == timezone.localtime(operator.last_login).strftime("%Y-%m-%d %H:%M")
    assert "root" not in page


def test_the_list_with_htmx_is_only_its_section(as_operator):
    response = as_operator.get("/operator/staff/", **HTMX)

    page = _page(response)
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert "<html" not in page
    assert page.lstrip().startswith('<div id="staff">')


def test_the_list_takes_a_fixed_number_of_queries(as_operator, django_assert_max_num_queries):
    for number in range(5):
        staff_user("dealer", f"extra-dealer-{number}")
    with django_assert_max_num_queries(12):
        assert as_operator.get("/operator/staff/", **HTMX).status_code == 200


def test_the_terminals_page_links_to_the_staff_pages(as_operator):
    page = _page(as_operator.get("/operator/terminals/"))

    assert '<a href="/operator/staff/" id="staff-link">Staff accounts</a>' in page


# ------------------------------------------------------------------------------------- create

NEW = {"username": "dora", "first_name": "Dora", "last_name": "Dealer", "role": "dealer", "password": STRONG}


def test_a_new_account_is_created_and_its_page_shown(as_operator):
    response = as_operator.post("/operator/staff/new/", NEW)

    user = User.objects.get(username="dora")
    assert (response.status_code, response["Location"]) == (302, f"/operator/staff/{user.pk}/")
    assert role_of(user) == "dealer" and user.check_password(STRONG)
    page = _page(as_operator.get(response["Location"]))
    assert "Account dora created." in page
    assert '<dd id="member-role">Dealer</dd>' in page


def test_a_new_account_with_htmx_redraws_the_section(as_operator):
    response = as_operator.post("/operator/staff/new/", NEW, **HTMX)

    page = _page(response)
    user = User.objects.get(username="dora")
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert "<html" not in page
    assert "Account dora created." in page
    assert _cells(page, user)[:3] == ["dora", "Dora Dealer", "Dealer"]


@pytest.mark.parametrize("headers", [{}, HTMX])
@pytest.mark.parametrize(
    ("fields", "status", "text"),
    [
        ({"username": "dealer"}, 409, "The username dealer is taken."),
        ({"password": "abc"}, 400, "This password is too short. It must contain at least 8 characters."),
        ({"role": "croupier"}, 400, "unknown role &#x27;croupier&#x27;"),
    ],
)
def test_a_refused_account_comes_back_in_words_with_what_was_typed(
    as_operator, headers, fields, status, text
):
    users, records = User.objects.count(), AuditRecord.objects.count()

    response = as_operator.post("/operator/staff/new/", {**NEW, **fields}, **headers)

    page = _page(response)
    assert response.status_code == status
    assert response["Vary"] == "HX-Request, Cookie"
    assert ("<html" in page) is (not headers)
    assert text in page
    assert f'value="{({**NEW, **fields})["username"]}"' in page
    assert 'value="Dora"' in page
    assert STRONG not in page and 'value="abc"' not in page
    assert (User.objects.count(), AuditRecord.objects.count()) == (users, records)


# ---------------------------------------------------------------------------- account's page


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_an_account_page_offers_its_commands(as_operator, dealer, headers):
    response = as_operator.get(f"/operator/staff/{dealer.pk}/", **headers)

    page = _page(response)
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert ("<html" in page) is (not headers)
    assert '<dd id="member-role">Dealer</dd>' in page
    for action in ("role", "disable"):
        assert f'action="/operator/staff/{dealer.pk}/{action}/"' in page
    assert f'action="/operator/staff/{dealer.pk}/password/"' in page
    assert f'action="/operator/staff/{dealer.pk}/enable/"' not in page
    assert f'action="/operator/staff/{dealer.pk}/unlock/"' not in page  # not locked


def test_ones_own_account_page_offers_no_commands(as_operator, operator):
    page = _page(as_operator.get(f"/operator/staff/{operator.pk}/"))

    assert "This is your own account: another operator changes its role, its password or its access." in page
    assert f"/operator/staff/{operator.pk}/disable/" not in page


@pytest.mark.parametrize("url", ["/operator/staff/{pk}/", "/operator/staff/{pk}/password/"])
def test_unknown_accounts_and_superusers_are_not_found(as_operator, url):
    root = User.objects.create_superuser(username="root", password=STRONG)
    for pk in (root.pk, 999_999):
        method = as_operator.post if "password" in url else as_operator.get
        assert method(url.format(pk=pk)).status_code == 404
    assert User.objects.get(pk=root.pk).check_password(STRONG)


def test_an_unknown_command_is_not_found(as_operator, dealer):
    assert as_operator.post(f"/operator/staff/{dealer.pk}/promote/").status_code == 404


# ----------------------------------------------------------------------------------- commands


def test_disable_then_enable_without_htmx(as_operator, dealer):
    response = as_operator.post(f"/operator/staff/{dealer.pk}/disable/", {"reason": "suspended"})

    assert (response.status_code, response["Location"]) == (302, f"/operator/staff/{dealer.pk}/")
    assert User.objects.get(pk=dealer.pk).is_active is False
    page = _page(as_operator.get(response["Location"]))
    assert "Account dealer disabled; its sessions have ended." in page
    assert '<dd id="member-active"><span class="error">disabled</span></dd>' in page
    assert f'action="/operator/staff/{dealer.pk}/enable/"' in page

    response = as_operator.post(f"/operator/staff/{dealer.pk}/enable/")

    assert response.status_code == 302
    assert User.objects.get(pk=dealer.pk).is_active is True
    assert "Account dealer enabled." in _page(as_operator.get(response["Location"]))


def test_disable_with_htmx_redraws_the_account(as_operator, dealer):
    response = as_operator.post(f"/operator/staff/{dealer.pk}/disable/", {"reason": "suspended"}, **HTMX)

    page = _page(response)
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert page.lstrip().startswith('<section class="card" id="member">')
    assert "Account dealer disabled; its sessions have ended." in page
    assert '<span class="error">disabled</span>' in page


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_refused_command_is_shown_in_words_and_changes_nothing(as_operator, dealer, headers):
    before = AuditRecord.objects.count()

    response = as_operator.post(f"/operator/staff/{dealer.pk}/disable/", {"reason": " "}, **headers)

    page = _page(response)
    assert response.status_code == 422
    assert response["Vary"] == "HX-Request, Cookie"
    assert ("<html" in page) is (not headers)
    assert "A reason is required to disable an account." in page and 'data-code="reason_required"' in page
    assert User.objects.get(pk=dealer.pk).is_active is True
    assert AuditRecord.objects.count() == before


@pytest.mark.parametrize(
    ("action", "data", "code"),
    [
        ("disable", {"reason": "x"}, "self_disable_refused"),
        ("role", {"role": "pit_boss"}, "self_role_grant_refused"),
        ("password", {}, "self_password_reset_refused"),
    ],
)
def test_commands_on_ones_own_account_are_refused(as_operator, operator, action, data, code):
    before = (AuditRecord.objects.count(), User.objects.get(pk=operator.pk).password)

    response = as_operator.post(f"/operator/staff/{operator.pk}/{action}/", data, **HTMX)

    assert response.status_code == 403
    assert f'data-code="{code}"' in _page(response)
    assert "You cannot do that to your own account; ask another operator." in _page(response)
    assert (AuditRecord.objects.count(), User.objects.get(pk=operator.pk).password) == before
    assert role_of(User.objects.get(pk=operator.pk)) == "operator"


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_role_is_assigned(as_operator, dealer, headers):
    response = as_operator.post(f"/operator/staff/{dealer.pk}/role/", {"role": "pit_boss"}, **headers)

    assert response.status_code == (200 if headers else 302)
    assert role_of(User.objects.get(pk=dealer.pk)) == "pit_boss"
    page = _page(response) if headers else _page(as_operator.get(response["Location"]))
    assert "dealer is now Pit boss." in page
    assert '<dd id="member-role">Pit boss</dd>' in page


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_locked_account_is_unlocked(as_operator, dealer, headers):
    StaffLoginState.objects.update_or_create(
        user=dealer, defaults={"locked_until": timezone.now() + dt.timedelta(minutes=10)}
    )
    assert f'action="/operator/staff/{dealer.pk}/unlock/"' in _page(
        as_operator.get(f"/operator/staff/{dealer.pk}/")
    )

    response = as_operator.post(f"/operator/staff/{dealer.pk}/unlock/", **headers)

    assert response.status_code == (200 if headers else 302)
    assert StaffLoginState.objects.get(user=dealer).locked_until is None
    page = _page(response) if headers else _page(as_operator.get(response["Location"]))
    assert "Account dealer unlocked." in page
    assert '<dd id="member-lock">not locked</dd>' in page


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_password_reset_shows_the_temporary_password_once(as_operator, dealer, headers):
    response = as_operator.post(f"/operator/staff/{dealer.pk}/password/", **headers)

    page = _page(response)
    password = re.search(r'<code class="token" id="password">([^<]+)</code>', page).group(1)
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert "no-store" in response["Cache-Control"]
    assert ("<html" in page) is (not headers)
    assert "Temporary password for dealer" in page
    assert User.objects.get(pk=dealer.pk).check_password(password)
    assert password not in _page(as_operator.get(f"/operator/staff/{dealer.pk}/"))
    assert password not in _page(as_operator.get("/operator/staff/"))
    login = Client().post("/login/", {"username": "dealer", "password": password})
    assert login.status_code == 302


# ------------------------------------------------------------------------------------- access


def _urls(user: Any) -> list[tuple[str, str]]:
    return [
        ("get", "/operator/staff/"),
        ("get", f"/operator/staff/{user.pk}/"),
        ("post", "/operator/staff/new/"),
        ("post", f"/operator/staff/{user.pk}/disable/"),
        ("post", f"/operator/staff/{user.pk}/enable/"),
        ("post", f"/operator/staff/{user.pk}/unlock/"),
        ("post", f"/operator/staff/{user.pk}/role/"),
        ("post", f"/operator/staff/{user.pk}/password/"),
    ]


@pytest.mark.parametrize("role", ["dealer", "pit_boss", "auditor", "cashier"])
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_the_staff_pages_are_refused_to_other_roles(seeded, dealer, role, headers):
    client = _client(staff_user(role, f"{role}-x"))
    before = (AuditRecord.objects.count(), User.objects.count(), User.objects.get(pk=dealer.pk).password)
    data = {**NEW, "reason": "x"}

    for method, url in _urls(dealer):
        response = (
            getattr(client, method)(url, data, **headers) if method == "post" else client.get(url, **headers)
        )
        assert response.status_code == 403, url
        assert REFUSED_TEXT in _page(response), url

    assert (
        AuditRecord.objects.count(),
        User.objects.count(),
        User.objects.get(pk=dealer.pk).password,
    ) == before
    assert User.objects.get(pk=dealer.pk).is_active is True


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_anonymous_visitors_go_to_the_login_page(seeded, dealer, headers):
    for method, url in _urls(dealer):
        response = getattr(Client(), method)(url, **headers)
        assert (response.status_code, response["Location"]) == (302, f"/login/?next={url}"), url


def test_the_commands_need_post(as_operator, dealer):
    for url in (
        "/operator/staff/new/",
        f"/operator/staff/{dealer.pk}/disable/",
        f"/operator/staff/{dealer.pk}/password/",
    ):
        assert as_operator.get(url).status_code == 405
    assert as_operator.post("/operator/staff/").status_code == 405
