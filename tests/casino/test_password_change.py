"""A temporary password (a new account's, or one given by a reset) is changed at the next login
before anything else; a member changes their own password whenever they like; each refusal
says why and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import AuditRecord, StaffPreference
from casino.services import staff_create, staff_password_change, staff_password_reset
from tests.factories import staff_user

pytestmark = pytest.mark.django_db
NEW = "felt-green-shoe-42"


@pytest.fixture
def operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-1")


def _login(username: str, password: str) -> tuple[Client, Any]:
    client = Client()
    return client, client.post("/login/", {"username": username, "password": password})


def test_after_a_reset_every_page_leads_to_the_password_change_until_it_is_done(operator):
    dealer = get_user_model().objects.get(username="dealer")
    temporary = staff_password_reset(user=dealer, actor=Actor.staff(operator))
    client, answer = _login("dealer", temporary)
    assert (answer.status_code, answer["Location"]) == (302, "/account/password/")
    page = client.get("/account/password/")
    assert page.status_code == 200 and 'id="password-required"' in page.content.decode()
    for path in ("/dealer/", "/dealer/tables/BJ1/", "/accounting/"):
        led = client.get(path)
        assert (led.status_code, led["Location"]) == (302, "/account/password/"), path
    htmx = client.get("/dealer/", headers={"HX-Request": "true"})
    assert (htmx.status_code, htmx["HX-Redirect"]) == (204, "/account/password/")
    # a refusal keeps the temporary password
    refused = client.post("/account/password/", {"current": temporary, "new": NEW, "repeated": "other"})
    assert refused.status_code == 400 and "passwords_differ" in refused.content.decode()
    assert get_user_model().objects.get(pk=dealer.pk).check_password(temporary)
    # the change: the member stays signed in and reaches their pages
    done = client.post("/account/password/", {"current": temporary, "new": NEW, "repeated": NEW})
    assert (done.status_code, done["Location"]) == (302, "/")
    assert client.get("/dealer/").status_code == 200
    assert get_user_model().objects.get(pk=dealer.pk).check_password(NEW)
    assert StaffPreference.objects.get(user=dealer).password_change_required is False
    record = AuditRecord.objects.filter(action="staff.password_changed").get()
    assert (record.actor_id, record.after) == (dealer.pk, {"by_the_member": True})
    assert NEW not in str(AuditRecord.objects.values())
    # and the next login goes straight to the member's page
    _client, again = _login("dealer", NEW)
    assert again["Location"] == "/"


def test_a_new_account_changes_its_initial_password_at_the_first_login(operator):
    staff_create(
        username="newdealer",
        first_name="N",
        last_name="D",
        role="dealer",
        password="given-by-op-77",
        actor=Actor.staff(operator),
    )
    _client, answer = _login("newdealer", "given-by-op-77")
    assert answer["Location"] == "/account/password/"


@pytest.mark.parametrize(
    ("current", "new", "repeated", "code"),
    [
        ("wrong", NEW, NEW, "wrong_password"),
        ("dealer-demo", NEW, "felt-green-shoe-43", "passwords_differ"),
        ("dealer-demo", "dealer-demo", "dealer-demo", "password_unchanged"),
        ("dealer-demo", "12345678", "12345678", "invalid_password"),
    ],
)
def test_each_refusal_changes_nothing(seeded, current, new, repeated, code):
    dealer = get_user_model().objects.get(username="dealer")
    before = (dealer.password, AuditRecord.objects.count())
    with pytest.raises(ServiceError) as refused:
        staff_password_change(user=dealer, current=current, new=new, repeated=repeated)
    assert refused.value.code == code
    fresh = get_user_model().objects.get(pk=dealer.pk)
    assert (fresh.password, AuditRecord.objects.count()) == before


def test_a_member_changes_their_password_from_the_header_link(seeded):
    client, _answer = _login("cashier", "cashier-demo")
    page = client.get("/cage/").content.decode()
    assert 'href="/account/password/" id="password-link"' in page
    form = client.get("/account/password/").content.decode()
    assert 'id="password-required"' not in form and "Current password" in form
    done = client.post("/account/password/", {"current": "cashier-demo", "new": NEW, "repeated": NEW})
    assert done.status_code == 302
    assert client.get("/cage/").status_code == 200
