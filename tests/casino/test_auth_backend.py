"""A member's permissions, read in one query (casino/auth_backends.py): the same as Django's
ModelBackend grants, from the member's roles and their own permissions; and the signed-in
member read with their permissions and role in one statement, on every request."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.auth_backends import StaffBackend
from casino.roles import DEALER, PIT_BOSS, role_of


def _permission(codename: str) -> Permission:
    return Permission.objects.get(content_type__app_label="casino", codename=codename)


@pytest.mark.django_db
def test_a_members_permissions_come_from_their_roles_and_their_own_in_one_query():
    # given a member in a role that may run tables, granted one permission of their own
    member = get_user_model().objects.create_user("perm-member", password="x-x-x-x-x-1")
    role = Group.objects.create(name="perm-role")
    role.permissions.add(_permission("run_table"))
    member.groups.add(role)
    member.user_permissions.add(_permission("supervise_pit"))
    member = get_user_model().objects.get(pk=member.pk)

    # when the member's permissions are checked, twice in one request
    with CaptureQueriesContext(connection) as queries:
        granted = (member.has_perm("casino.run_table"), member.has_perm("casino.supervise_pit"))
        refused = member.has_perm("casino.view_accounting")

    # then both kinds are granted, the rest is not, and it took one query
    assert granted == (True, True) and refused is False
    assert len(queries.captured_queries) == 1
    assert StaffBackend().get_all_permissions(member) == {"casino.run_table", "casino.supervise_pit"}


@pytest.mark.django_db
def test_an_inactive_member_has_no_permission_and_a_superuser_has_all():
    user_model = get_user_model()
    inactive = user_model.objects.create_user("perm-inactive", password="x-x-x-x-x-1", is_active=False)
    inactive.user_permissions.add(_permission("run_table"))
    superuser = user_model.objects.create_superuser("perm-super", password="x-x-x-x-x-1")

    assert StaffBackend().get_all_permissions(inactive) == set()
    assert not user_model.objects.get(pk=inactive.pk).has_perm("casino.run_table")
    assert len(StaffBackend().get_all_permissions(superuser)) == Permission.objects.count()


@pytest.mark.django_db
def test_the_signed_in_member_comes_with_their_permissions_and_role_in_one_statement():
    # given a dealer who is a pit boss too, with a permission of their own
    member = get_user_model().objects.create_user("perm-signed-in", password="x-x-x-x-x-1")
    for name, codename in ((DEALER, "run_table"), (PIT_BOSS, "approve_payout")):
        role, _ = Group.objects.get_or_create(name=name)
        role.permissions.add(_permission(codename))
        member.groups.add(role)
    member.user_permissions.add(_permission("view_audit"))

    # when a request reads the member (the session's user id), then asks what they may do
    with CaptureQueriesContext(connection) as queries:
        user = StaffBackend().get_user(member.pk)
        assert user is not None
        granted = {
            codename: user.has_perm(f"casino.{codename}") for codename in ("run_table", "approve_payout")
        }
        answers = (granted, user.has_perm("casino.view_audit"), user.has_perm("casino.operate_cage"))
        role = role_of(user)

    # then one statement answered all of it, as ModelBackend and the groups would
    assert answers == ({"run_table": True, "approve_payout": True}, True, False)
    assert role == PIT_BOSS  # the first of ROLE_ORDER the member holds
    assert len(queries.captured_queries) == 1
    assert StaffBackend().get_all_permissions(user) == StaffBackend().get_all_permissions(
        get_user_model().objects.get(pk=member.pk)
    )


@pytest.mark.django_db
def test_a_role_taken_away_is_gone_at_the_next_request():
    member = get_user_model().objects.create_user("perm-next", password="x-x-x-x-x-1")
    role, _ = Group.objects.get_or_create(name=DEALER)
    role.permissions.add(_permission("run_table"))
    member.groups.add(role)
    assert StaffBackend().get_user(member.pk).has_perm("casino.run_table")

    member.groups.remove(role)

    user = StaffBackend().get_user(member.pk)
    assert (user.has_perm("casino.run_table"), role_of(user)) == (False, "")


@pytest.mark.django_db
def test_an_inactive_or_unknown_member_is_not_signed_in_and_a_superuser_is_with_every_permission():
    user_model = get_user_model()
    inactive = user_model.objects.create_user("perm-off", password="x-x-x-x-x-1", is_active=False)
    superuser = user_model.objects.create_superuser("perm-root", password="x-x-x-x-x-1")

    assert StaffBackend().get_user(inactive.pk) is None
    assert StaffBackend().get_user(10**9) is None
    assert StaffBackend().get_user("not-an-id") is None
    signed_in = StaffBackend().get_user(superuser.pk)
    assert signed_in is not None and role_of(signed_in) == "superuser"
    assert signed_in.has_perm("casino.approve_payout") and signed_in.has_perm("auth.delete_group")
