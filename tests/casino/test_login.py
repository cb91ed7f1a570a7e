from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from casino.models import AuditRecord, StaffLoginState
from casino.seeding import load_seed

DEMO_STAFF = load_seed("demo_casino.json")["staff"]
LANDING = {
    "dealer": "/dealer/",
    "pit_boss": "/pit/",
    "operator": "/operator/",
    "auditor": "/audit/",
    "cashier": "/cage/",
    "accountant": "/accounting/",
}


def _login(client: Client, username: str, password: str):
    return client.post(reverse("casino:login"), {"username": username, "password": password})


def test_login_page_is_served(client, db):
    response = client.get("/login/")

    assert response.status_code == 200
    assert b"Staff login" in response.content


@pytest.mark.parametrize("staff", DEMO_STAFF, ids=[s["username"] for s in DEMO_STAFF])
def test_every_demo_user_logs_in_and_lands_on_the_page_of_their_role(client, seeded, staff):
    response = _login(client, staff["username"], staff["password"])
    assert response.status_code == 302
    assert response.url == "/"

    landing = client.get("/", follow=True)

    assert landing.redirect_chain[-1][0] == LANDING[staff["role"]]
    assert landing.status_code == 200
    assert AuditRecord.objects.filter(action="staff.login", actor__username=staff["username"]).count() == 1


def test_wrong_password_is_refused_and_audited(client, seeded):
    response = _login(client, "dealer", "wrong")

    assert response.status_code == 401
    assert b"Wrong username or password." in response.content
    assert "_auth_user_id" not in client.session
    assert AuditRecord.objects.filter(action="staff.login_failed").count() == 1


@override_settings(LOGIN_MAX_FAILURES=3, LOGIN_LOCKOUT_SECONDS=600)
def test_repeated_failures_lock_the_account_and_the_lock_says_so(client, seeded):
    for _ in range(2):
        assert _login(client, "cashier", "wrong").status_code == 401

    third = _login(client, "cashier", "wrong")
    with_right_password = _login(client, "cashier", "cashier-demo")

    assert third.status_code == 423
    assert with_right_password.status_code == 423
    assert b"This account is locked after too many failed logins" in with_right_password.content
    assert "_auth_user_id" not in client.session
    assert StaffLoginState.objects.get(user__username="cashier").locked_until is not None
    assert AuditRecord.objects.filter(action="staff.locked").count() == 1
    assert AuditRecord.objects.filter(action="staff.login_refused_locked").count() == 1


def test_a_success_resets_the_failure_count(client, seeded):
    _login(client, "auditor", "wrong")

    _login(client, "auditor", "auditor-demo")

    assert StaffLoginState.objects.get(user__username="auditor").failed_attempts == 0


def test_logout_needs_post_and_ends_the_session(client, seeded):
    _login(client, "dealer", "dealer-demo")

    assert client.get("/logout/").status_code == 405
    response = client.post("/logout/")

    assert response.status_code == 302
    assert client.get("/dealer/").status_code == 302  # back to login
