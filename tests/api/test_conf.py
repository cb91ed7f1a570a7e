"""Settings of the terminal API that were renamed are refused by name, never silently ignored."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import checks

from casino.api_conf import RENAMED, api_setting


def _errors() -> list[str]:
    return [message.id or "" for message in checks.run_checks() if message.level >= checks.ERROR]


def test_no_renamed_setting_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for old in RENAMED:
        monkeypatch.delenv(old, raising=False)
    assert "tables.E001" not in _errors()


def test_an_old_name_in_the_environment_stops_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_LONG_POLL_MAX_SECONDS", "1")
    messages = [m for m in checks.run_checks() if m.id == "tables.E001"]
    assert len(messages) == 1
    assert "API_LONG_POLL_MAX_MILLISECONDS" in messages[0].msg
    assert messages[0].level == checks.ERROR


def test_an_old_name_in_the_django_settings_too(settings: Any) -> None:
    settings.API_LONG_POLL_STEP_SECONDS = 1
    assert _errors().count("tables.E001") == 1


def test_the_new_names_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_LONG_POLL_MAX_MILLISECONDS", "1000")
    assert api_setting("API_LONG_POLL_MAX_MILLISECONDS") == 1000
