"""The staff account services (casino/services/staff.py): create, disable, enable, password reset,
unlock and role assignment; who may do them, what each refuses, and that a refusal leaves
nothing behind (no account change, no audit record)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import AuditRecord, StaffLoginState
from casino.roles import role_of
from casino.services import (
    staff_create,
    staff_disable,
    staff_enable,
    staff_login,
    staff_password_reset,
    staff_role_assign,
    staff_unlock,
)
from tests.factories import staff_user
from tests.racing import committing_while
from tests.tables.conftest import refused

User = get_user_model()
STRONG = "felt-and-chips-42"


@pytest.fixture
def operator(seeded: Any) -> Any:
    return User.objects.get(username="operator")


@pytest.fixture
def dealer(seeded: Any) -> Any:
    return User.objects.get(username="dealer")


def _fresh(user: Any) -> Any:
    return User.objects.get(pk=user.pk)


def _audit(action: str) -> list[AuditRecord]:
    return list(AuditRecord.objects.filter(action=action).order_by("sequence"))


def _signed_in(username: str, password: str) -> Client:
    client = Client()
    response = client.post("/login/", {"username": username, "password": password})
    assert response.status_code == 302, response.content
    return client


# ------------------------------------------------------------------------------------- create


def test_an_operator_creates_an_account_with_its_role_and_password(operator):
    user = staff_create(
        username="dora",
        first_name="Dora",
        last_name="Dealer",
        role="dealer",
        password=STRONG,
        actor=Actor.staff(operator),
    )

    user = _fresh(user)
    assert (user.username, user.first_name, user.last_name, user.is_active) == (
        "dora",
        "Dora",
        "Dealer",
        True,
    )
    assert role_of(user) == "dealer"
    assert user.password != STRONG and user.check_password(STRONG)
    assert staff_login(request=None, username="dora", password=STRONG).pk == user.pk
    created = _audit("staff.created")[-1]
    assert (created.actor_id, created.object_id) == (operator.pk, str(user.pk))
    assert created.after == {
        "username": "dora",
        "first_name": "Dora",
        "last_name": "Dealer",
        "role": "dealer",
    }
    assigned = _audit("staff.role_assigned")[-1]
    assert (assigned.actor_id, assigned.before, assigned.after) == (
        operator.pk,
        {"groups": []},
        {"groups": ["dealer"]},
    )
    assert STRONG not in str(AuditRecord.objects.values())


@pytest.mark.parametrize(
    ("fields", "code", "message"),
    [
        ({"username": "Dealer"}, "username_taken", "The username Dealer is taken."),
        ({"username": "dealer"}, "username_taken", "The username dealer is taken."),
        (
            {"username": "bad name!"},
            "invalid_username",
            "A username is 1 to 150 letters, digits and @ . + - _ characters.",
        ),
        (
            {"username": "  "},
            "invalid_username",
            "A username is 1 to 150 letters, digits and @ . + - _ characters.",
        ),
        ({"role": "croupier"}, "unknown_role", "unknown role 'croupier'"),
        (
            {"password": "abc"},
            "invalid_password",
            "This password is too short. It must contain at least 8 characters. This password is too common.",
        ),
        ({"password": "password1"}, "invalid_password", "This password is too common."),
        ({"password": "39281746"}, "invalid_password", "This password is entirely numeric."),
        ({"password": "doradealer"}, "invalid_password", "The password is too similar to the first name."),
    ],
)
def test_a_refused_account_is_not_created_and_not_audited(operator, fields, code, message):
    before_users, before_audit = User.objects.count(), AuditRecord.objects.count()
    arguments = {
        "username": "dora",
        "first_name": "Doradealer",
        "last_name": "",
        "role": "dealer",
        "password": STRONG,
        **fields,
    }

    error = refused(code, staff_create, **arguments, actor=Actor.staff(operator))

    assert error.message == message
    assert (User.objects.count(), AuditRecord.objects.count()) == (before_users, before_audit)


def test_invalid_password_carries_each_validator_message(operator):
    error = refused(
        "invalid_password",
        staff_create,
        username="dora",
        first_name="",
        last_name="",
        role="dealer",
        password="abc",
        actor=Actor.staff(operator),
    )

    assert error.details["messages"] == [
        "This password is too short. It must contain at least 8 characters.",
        "This password is too common.",
    ]
    assert error.status == 400


@pytest.mark.parametrize("role", ["dealer", "pit_boss", "auditor", "cashier"])
def test_only_a_staff_manager_creates_accounts(seeded, role):
    by = staff_user(role, f"{role}-x")
    before = (User.objects.count(), AuditRecord.objects.count())

    error = refused(
        "permission_denied",
        staff_create,
        username="dora",
        first_name="",
        last_name="",
        role="dealer",
        password=STRONG,
        actor=Actor.staff(by),
    )

    assert (error.status, error.message) == (403, "You do not have permission to do that.")
    assert (User.objects.count(), AuditRecord.objects.count()) == before


# ---------------------------------------------------------------------------- disable, enable


def test_a_disabled_account_cannot_log_in_and_its_sessions_end(operator, dealer):
    client = _signed_in("dealer", "dealer-demo")
    assert client.get("/dealer/").status_code == 200

    staff_disable(user=dealer, reason="left the company", actor=Actor.staff(operator))

    assert _fresh(dealer).is_active is False
    response = client.get("/dealer/")
    assert (response.status_code, response["Location"]) == (302, "/login/?next=/dealer/")
    assert [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(dealer.pk)] == []
    record = _audit("staff.disabled")[-1]
    assert (record.actor_id, record.object_id, record.before) == (
        operator.pk,
        str(dealer.pk),
        {"is_active": True},
    )
    assert record.after == {"is_active": False, "reason": "left the company", "sessions_ended": 1}
    # the right password is told the account is disabled; a wrong one is an ordinary failure
    # (the refusals commit their audit records, as at the login page: no savepoint around them)
    with pytest.raises(ServiceError) as disabled:
        staff_login(request=None, username="dealer", password="dealer-demo")
    with pytest.raises(ServiceError) as wrong:
        staff_login(request=None, username="dealer", password="wrong")
    assert (disabled.value.code, disabled.value.status) == ("account_disabled", 403)
    assert disabled.value.message == "This account is disabled. Ask an operator to enable it."
    assert (wrong.value.code, wrong.value.message) == ("login_failed", "Wrong username or password.")
    assert [r.object_id for r in _audit("staff.login_refused_disabled")] == [str(dealer.pk)]
    assert [r.object_id for r in _audit("staff.login_failed")] == [str(dealer.pk)]


def test_the_login_page_refuses_a_disabled_account_in_words(client, operator, dealer):
    staff_disable(user=dealer, reason="suspended", actor=Actor.staff(operator))

    response = client.post("/login/", {"username": "dealer", "password": "dealer-demo"})

    assert response.status_code == 401
    assert "This account is disabled. Ask an operator to enable it." in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_an_enabled_account_logs_in_again_but_old_sessions_stay_ended(operator, dealer):
    old = _signed_in("dealer", "dealer-demo")
    staff_disable(user=dealer, reason="suspended", actor=Actor.staff(operator))

    staff_enable(user=dealer, actor=Actor.staff(operator))

    assert _fresh(dealer).is_active is True
    assert old.get("/dealer/").status_code == 302
    assert _signed_in("dealer", "dealer-demo").get("/dealer/").status_code == 200
    record = _audit("staff.enabled")[-1]
    assert (record.actor_id, record.before, record.after) == (
        operator.pk,
        {"is_active": False},
        {"is_active": True},
    )


@pytest.mark.parametrize(
    ("target", "reason", "code", "message"),
    [
        (
            "operator",
            "testing",
            "self_disable_refused",
            "You cannot do that to your own account; ask another operator.",
        ),
        ("dealer", "   ", "reason_required", "A reason is required to disable an account."),
        (
            "root",
            "testing",
            "superuser_not_managed",
            "Superuser accounts are not managed on the staff pages.",
        ),
    ],
)
def test_disable_refusals_change_nothing(operator, target, reason, code, message):
    User.objects.create_superuser(username="root", password=STRONG)
    user = User.objects.get(username=target)
    before = AuditRecord.objects.count()

    error = refused(code, staff_disable, user=user, reason=reason, actor=Actor.staff(operator))

    assert error.message == message
    assert _fresh(user).is_active is True
    assert AuditRecord.objects.count() == before


def test_disabling_twice_and_enabling_an_active_account_are_refused(operator, dealer):
    staff_disable(user=dealer, reason="suspended", actor=Actor.staff(operator))
    before = AuditRecord.objects.count()

    again = refused(
        "account_already_disabled", staff_disable, user=dealer, reason="again", actor=Actor.staff(operator)
    )
    staff_enable(user=dealer, actor=Actor.staff(operator))
    active = refused("account_already_enabled", staff_enable, user=dealer, actor=Actor.staff(operator))

    assert again.message == "The account dealer is disabled already."
    assert (again.status, active.status) == (409, 409)
    assert active.message == "The account dealer is enabled already."
    assert AuditRecord.objects.count() == before + 1  # the enable only


@pytest.mark.parametrize("role", ["dealer", "pit_boss", "auditor", "cashier"])
def test_only_a_staff_manager_disables_and_enables(seeded, dealer, role):
    by = staff_user(role, f"{role}-x")
    before = AuditRecord.objects.count()

    refused("permission_denied", staff_disable, user=dealer, reason="x", actor=Actor.staff(by))
    User.objects.filter(pk=dealer.pk).update(is_active=False)
    refused("permission_denied", staff_enable, user=dealer, actor=Actor.staff(by))

    assert _fresh(dealer).is_active is False
    assert AuditRecord.objects.count() == before


# ----------------------------------------------------------------------------- password reset


def test_a_reset_gives_a_temporary_password_once_and_ends_the_old_one(operator, dealer):
    client = _signed_in("dealer", "dealer-demo")

    password = staff_password_reset(user=dealer, actor=Actor.staff(operator))

    assert re.fullmatch(r"[a-hjkmnp-z2-9]{4}(-[a-hjkmnp-z2-9]{4}){3}", password)
    user = _fresh(dealer)
    assert user.password != password and user.check_password(password)
    assert not user.check_password("dealer-demo")
    assert client.get("/dealer/").status_code == 302  # the session ended with the old password
    assert staff_login(request=None, username="dealer", password=password).pk == dealer.pk
    record = _audit("staff.password_reset")[-1]
    assert (record.actor_id, record.object_id, record.after) == (
        operator.pk,
        str(dealer.pk),
        {"temporary_password_issued": True},
    )
    assert password not in str(AuditRecord.objects.values())


def test_two_resets_give_two_different_passwords(operator, dealer):
    assert staff_password_reset(user=dealer, actor=Actor.staff(operator)) != staff_password_reset(
        user=dealer, actor=Actor.staff(operator)
    )


@pytest.mark.parametrize(
    ("target", "by", "code"),
    [
        ("operator", "operator", "self_password_reset_refused"),
        ("root", "operator", "superuser_not_managed"),
        ("operator", "dealer", "permission_denied"),
        ("dealer", "cashier", "permission_denied"),
    ],
)
def test_reset_refusals_keep_the_password(seeded, target, by, code):
    User.objects.create_superuser(username="root", password=STRONG)
    user = User.objects.get(username=target)
    password_hash = user.password
    before = AuditRecord.objects.count()

    refused(code, staff_password_reset, user=user, actor=Actor.staff(User.objects.get(username=by)))

    assert _fresh(user).password == password_hash
    assert AuditRecord.objects.count() == before


# --------------------------------------------------------------------------------------- unlock


def _locked(user: Any) -> None:
    StaffLoginState.objects.update_or_create(
        user=user, defaults={"failed_attempts": 2, "locked_until": timezone.now() + dt.timedelta(minutes=10)}
    )


def test_an_operator_unlocks_a_locked_account(operator, dealer):
    _locked(dealer)

    staff_unlock(user=dealer, actor=Actor.staff(operator))

    state = StaffLoginState.objects.get(user=dealer)
    assert (state.locked_until, state.failed_attempts) == (None, 0)
    record = _audit("staff.unlocked")[-1]
    assert (record.actor_id, record.after) == (operator.pk, {"locked_until": None, "failed_attempts": 0})
    assert staff_login(request=None, username="dealer", password="dealer-demo").pk == dealer.pk


@pytest.mark.parametrize("role", ["dealer", "pit_boss", "auditor", "cashier"])
def test_only_a_staff_manager_unlocks(seeded, dealer, role):
    by = staff_user(role, f"{role}-x")
    _locked(dealer)
    until = StaffLoginState.objects.get(user=dealer).locked_until
    before = AuditRecord.objects.count()

    refused("permission_denied", staff_unlock, user=dealer, actor=Actor.staff(by))

    assert StaffLoginState.objects.get(user=dealer).locked_until == until
    assert AuditRecord.objects.count() == before


# ---------------------------------------------------------------------------------------- roles


def test_an_operator_gives_another_account_a_role(operator, dealer):
    staff_role_assign(user=dealer, role="pit_boss", actor=Actor.staff(operator))

    assert role_of(_fresh(dealer)) == "pit_boss"
    assert _fresh(dealer).has_perm("casino.approve_payout")
    record = _audit("staff.role_assigned")[-1]
    assert (record.actor_id, record.object_id, record.before, record.after) == (
        operator.pk,
        str(dealer.pk),
        {"groups": ["dealer"]},
        {"groups": ["pit_boss"]},
    )


def test_the_operator_role_is_granted_by_an_operator(operator, dealer):
    staff_role_assign(user=dealer, role="operator", actor=Actor.staff(operator))

    assert role_of(_fresh(dealer)) == "operator"


@pytest.mark.parametrize(
    ("target", "by", "role", "code"),
    [
        ("operator", "operator", "pit_boss", "self_role_grant_refused"),
        ("operator", "operator", "operator", "self_role_grant_refused"),
        ("root", "operator", "dealer", "superuser_not_managed"),
        ("dealer", "dealer", "operator", "permission_denied"),
        ("dealer", "pitboss", "pit_boss", "permission_denied"),
        ("dealer", "operator", "croupier", "unknown_role"),
    ],
)
def test_role_refusals_change_no_group(seeded, target, by, role, code):
    User.objects.create_superuser(username="root", password=STRONG)
    user = User.objects.get(username=target)
    groups = sorted(user.groups.values_list("name", flat=True))
    before = AuditRecord.objects.count()

    refused(code, staff_role_assign, user=user, role=role, actor=Actor.staff(User.objects.get(username=by)))

    assert sorted(_fresh(user).groups.values_list("name", flat=True)) == groups
    assert AuditRecord.objects.count() == before


def test_the_system_still_assigns_roles_without_a_person(dealer):
    staff_role_assign(user=dealer, role="cashier", actor=Actor.automatic("system"))

    assert role_of(_fresh(dealer)) == "cashier"
    assert _audit("staff.role_assigned")[-1].actor_name == "system"


# ---------------------------------------------------------------------------------- concurrency


@pytest.mark.django_db(transaction=True)
def test_two_operators_disabling_one_account_at_once_disable_it_once(operator, dealer):
    # given a second operator
    other = staff_user("operator", "operator-2")

    # when both disable the dealer, the second while the first holds its locks until its commit
    first, second = committing_while(
        lambda: staff_disable(user=dealer, reason="first", actor=Actor.staff(operator)),
        lambda: staff_disable(user=dealer, reason="second", actor=Actor.staff(other)),
    )

    # then the first disabled it and the second, having waited for the account's row, was refused
    assert first.pk == dealer.pk
    assert isinstance(second, ServiceError) and second.code == "account_already_disabled"
    assert [record.after["reason"] for record in _audit("staff.disabled")] == ["first"]
    assert _fresh(dealer).is_active is False
