"""A member's permissions, read in one query (casino/auth_backends.py): the same as Django's
ModelBackend grants, from the member's roles and their own permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.auth_backends import StaffBackend


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
