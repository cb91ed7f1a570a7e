"""Staff authentication: Django's ``ModelBackend``, with a member's permissions read in one query.

``ModelBackend`` reads a member's own permissions and their roles' (groups') permissions in two
queries, on every staff page (``casino.views.staff_page`` checks one permission). Here both come
from one query of the same two relations; what a member may do is unchanged, and the result is
kept on the user object for the request, as ``ModelBackend`` keeps it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.db.models import Q


class StaffBackend(ModelBackend):
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
