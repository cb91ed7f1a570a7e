from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from casino.roles import role_label, role_of


def venue(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    role = role_of(user)
    return {
        "staff_role": role,
        "staff_role_label": role_label(role),
    }
