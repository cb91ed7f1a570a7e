"""Settings of the terminal API, each overridable in Django settings or the environment.

A Django setting of the same name wins (tests override them with pytest-django's ``settings``);
otherwise the environment variable; otherwise the default here."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core import checks

DEFAULTS: dict[str, Any] = {
    # DRF rate strings ("<n>/<second|minute|hour|day>"); an empty string switches a throttle off.
    "API_THROTTLE_TERMINAL": "1200/min",
    "API_THROTTLE_PLAYER": "600/min",
    "API_THROTTLE_SIGN_IN": "20/min",
    # A player session ends after this many idle seconds, and in any case after the hard limit.
    "API_PLAYER_SESSION_IDLE_SECONDS": 900,
    "API_PLAYER_SESSION_MAX_SECONDS": 8 * 3600,
    # Long-poll on the table state: the longest wait a client may ask for, and the poll step.
    "API_LONG_POLL_MAX_MILLISECONDS": 25_000,
    "API_LONG_POLL_STEP_MILLISECONDS": 250,
}


# Settings that were renamed: set under the old name they would be ignored without a word.
RENAMED: dict[str, str] = {
    "API_LONG_POLL_MAX_SECONDS": "API_LONG_POLL_MAX_MILLISECONDS",
    "API_LONG_POLL_STEP_SECONDS": "API_LONG_POLL_STEP_MILLISECONDS",
}


@checks.register(checks.Tags.compatibility)
def renamed_settings_check(**kwargs: Any) -> list[checks.CheckMessage]:
    """An error (``manage.py check``, ``migrate``, ``runserver`` stop on it) for each renamed
    setting still set in the environment or the Django settings."""
    return [
        checks.Error(
            f"{old} is no longer read: it was renamed {new}, in whole milliseconds.",
            hint=f"Set {new} instead (and remove {old}).",
            # The id it was first given, kept for SILENCED_SYSTEM_CHECKS lists that name it.
            id="tables.E001",
        )
        for old, new in RENAMED.items()
        if old in os.environ or hasattr(settings, old)
    ]


def api_setting(name: str) -> Any:
    default = DEFAULTS[name]
    if hasattr(settings, name):
        return getattr(settings, name)
    raw = os.environ.get(name)
    if raw is None:
        return default
    if isinstance(default, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(default, int):
        return int(raw)
    return raw
