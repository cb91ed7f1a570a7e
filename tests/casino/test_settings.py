"""The production settings pass Django's deployment checks when their variables are set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_production_settings_pass_check_deploy():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.production",
        "SECRET_KEY": "x" * 20 + "production-secret-for-the-check-only-" + "y" * 20,
        "DATABASE_URL": "postgres://casino@db.invalid:5432/casino",
        "ALLOWED_HOSTS": "backoffice.example.com",
        "AUDIT_HMAC_KEYS": "1:" + "ab" * 32,
    }

    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=env)

    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_to_start_without_a_secret():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.production", "SECRET_KEY": ""}
    env.pop("SECRET_KEY")

    result = _manage("check", env=env)

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_every_task_on_the_beat_schedule_is_a_registered_task() -> None:
    from casino.celery import app

    app.loader.import_default_modules()
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled >= {
        "casino.tasks.audit_verify_task",
        "casino.tasks.audit_anchor_task",
        "wallet.tasks.ledger_verify_task",
        "tables.tasks.round_verify_task",
    }
    assert scheduled <= set(app.tasks)
