"""Staff authentication: Django's ``ModelBackend``, with a member's permissions and roles read
with the member.

``ModelBackend`` reads the signed-in member on every request, then, when a page checks a
permission, their own permissions and their roles' (groups') permissions in two more queries;
the role the audit records name (``casino.roles.role_of``) is one more. Here the member, the
permission names and the role names come in one statement, and are kept on the user object for
the request, as ``ModelBackend`` keeps them: what a member may do is unchanged. A superuser's
permissions (all of them) are read as ``ModelBackend`` reads them, when first asked.

The statement is ``casino.sql.staff_member_read`` (its figure is there).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission, User
from django.db.models import Q

from casino.roles import role_cache
from casino.sql import staff_member_read


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:
        try:
            member_id = int(user_id)
        except (TypeError, ValueError):
            return None
        user = staff_member_read(member_id)
        if user is None or not self.user_can_authenticate(user):
            return None
        if not user.is_superuser:
            user._perm_cache = set(user.permission_names)  # type: ignore[attr-defined]
        role_cache(user, user.role_names)  # type: ignore[attr-defined]
        return user

    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            granted = Permission.objects.all()
            if not user_obj.is_superuser:
                granted = granted.filter(Q(user=user_obj) | Q(group__user=user_obj))
            rows = granted.values_list("content_type__app_label", "codename").order_by().distinct()
            user_obj._perm_cache = {f"{app_label}.{codename}" for app_label, codename in rows}
        names: set[str] = user_obj._perm_cache
        return names
