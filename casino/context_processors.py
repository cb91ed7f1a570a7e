from typing import Any

from django.http import HttpRequest

from casino.roles import role_label, role_of


def venue(request: HttpRequest) -> dict[str, Any]:
    role = role_of(getattr(request, "user", None))
    return {"staff_role": role, "staff_role_label": role_label(role)}
