"""Staff authentication: Django's ``ModelBackend``, with a member's permissions and roles read
with the member.

``ModelBackend`` reads the signed-in member on every request, then, when a page checks a
permission, their own permissions and their roles' (groups') permissions in two more queries;
the role the audit records name (``casino.roles.role_of``) is one more. Here the member, the
permission names and the role names come in one statement (two array subqueries of the same
relations), and are kept on the user object for the request, as ``ModelBackend`` keeps them:
what a member may do is unchanged. A superuser's permissions (all of them) are read as
``ModelBackend`` reads them, when first asked.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import CharField, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Concat

from casino.roles import role_cache


def _permission_names(granted: QuerySet[Permission]) -> QuerySet[Any, Any]:
    return (
        granted.annotate(
            name_=Concat("content_type__app_label", Value("."), "codename", output_field=CharField())
        )
        .order_by()
        .values("name_")
    )


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:
        member = OuterRef("pk")
        user = (
            User._default_manager.annotate(
                permission_names=ArraySubquery(
                    _permission_names(Permission.objects.filter(Q(user=member) | Q(group__user=member)))
                ),
                role_names=ArraySubquery(Group.objects.filter(user=member).values("name")),
            )
            .filter(pk=user_id)
            .first()
        )
        if user is None or not self.user_can_authenticate(user):
            return None
        if not user.is_superuser:
            user._perm_cache = set(user.permission_names)  # type: ignore[attr-defined]
        role_cache(user, user.role_names)
        return user

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            granted = Permission.objects.all()
            if not user_obj.is_superuser:
                granted = granted.filter(Q(user=user_obj) | Q(group__user=user_obj))
            user_obj._perm_cache = {row["name_"] for row in _permission_names(granted).distinct()}
        names: set[str] = user_obj._perm_cache
        return names
