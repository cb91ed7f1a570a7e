"""The production settings pass Django's deployment checks when their variables are set."""

from __future__ import annotations

import json
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


def _production(**variables: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.production",
        "SECRET_KEY": "x" * 20 + "production-secret-for-the-check-only-" + "y" * 20,
        "DATABASE_URL": "postgres://casino@db.invalid:5432/casino",
        "ALLOWED_HOSTS": "backoffice.example.com",
        "AUDIT_HMAC_KEYS": "1:" + "ab" * 32,
        **variables,
    }


def test_production_settings_pass_check_deploy():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=_production())

    assert result.returncode == 0, result.stdout + result.stderr


def test_a_malformed_audit_key_fails_the_checks_at_start():
    # the example env file's placeholder, left as it is
    result = _manage("check", "--deploy", env=_production(AUDIT_HMAC_KEYS="1:change-me-to-64-hex-digits"))

    assert result.returncode != 0
    assert "casino.E001" in result.stderr
    assert "audit HMAC key version 1 of AUDIT_HMAC_KEYS is not hexadecimal" in result.stderr


def test_an_empty_audit_key_directory_fails_the_checks_at_start(tmp_path):
    result = _manage("check", env=_production(AUDIT_HMAC_KEYS="", AUDIT_HMAC_KEY_DIR=str(tmp_path)))

    assert result.returncode != 0
    assert "casino.E001" in result.stderr
    assert "no audit HMAC key" in result.stderr
    assert list(tmp_path.iterdir()) == []  # production never generates one


def test_the_audit_key_check_names_a_short_key_and_passes_a_good_one(settings):
    from casino.checks import AUDIT_KEYS_ERROR, audit_hmac_keys_check

    settings.AUDIT_HMAC_KEYS = "1:" + "ab" * 16
    errors = audit_hmac_keys_check()
    settings.AUDIT_HMAC_KEYS = "1:" + "ab" * 32

    assert [(error.id, error.msg) for error in errors] == [
        (AUDIT_KEYS_ERROR, "audit HMAC key version 1 of AUDIT_HMAC_KEYS is shorter than 32 bytes")
    ]
    assert audit_hmac_keys_check() == []


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


def test_a_placeholder_anchor_public_key_fails_the_checks_at_start():
    placeholder = "change-me-to-the-signing-keys-public-key-in-hex"  # deploy/production.env.example's

    result = _manage("check", env=_production(AUDIT_ANCHOR_PUBLIC_KEYS=placeholder))

    assert result.returncode != 0
    assert "casino.E002" in result.stderr
    assert f"AUDIT_ANCHOR_PUBLIC_KEYS: {placeholder!r} is not a 32-byte hex key" in result.stderr


def test_the_anchor_key_check_names_a_signing_key_file_that_is_no_key(settings, tmp_path):
    from casino.checks import ANCHOR_KEYS_ERROR, anchor_keys_check

    settings.AUDIT_ANCHOR_SIGNING_KEY_FILE = str(tmp_path / "signing.pem")
    settings.AUDIT_KEYS_GENERATE = False
    assert anchor_keys_check() == []  # no file: a process that only verifies
    (tmp_path / "signing.pem").write_text("not a key\n")

    (error,) = anchor_keys_check()

    assert error.id == ANCHOR_KEYS_ERROR
    assert "AUDIT_ANCHOR_SIGNING_KEY_FILE" in error.msg


def _database_settings(**variables: str) -> dict[str, object]:
    code = (
        "import json; from django.conf import settings; d = settings.DATABASES['default']; "
        "print(json.dumps({'options': d['OPTIONS'], 'checks': d['CONN_HEALTH_CHECKS']}))"
    )
    result = _manage(
        "shell",
        "-c",
        code,
        env={**os.environ, "DATABASE_URL": "postgres://casino@db.invalid:5432/casino", **variables},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_connection_and_the_pool_fail_fast_when_the_database_does_not_answer():
    pooled = _database_settings(DATABASE_POOL="1")
    single = _database_settings(DATABASE_POOL="0")

    assert pooled["options"]["connect_timeout"] == 3
    assert pooled["options"]["pool"] == {
        "min_size": 2,
        "max_size": 20,
        "timeout": 2.0,
        "reconnect_timeout": 2.0,
    }
    assert pooled["checks"] is True
    assert single["options"]["connect_timeout"] == 3
    assert "pool" not in single["options"]


def test_the_database_timeouts_come_from_the_environment():
    pooled = _database_settings(
        DATABASE_POOL="1",
        DATABASE_CONNECT_TIMEOUT="5",
        DATABASE_POOL_TIMEOUT="1",
        DATABASE_POOL_RECONNECT_TIMEOUT="10",
        DATABASE_POOL_CHECK="0",
    )

    assert pooled["options"]["connect_timeout"] == 5
    assert (pooled["options"]["pool"]["timeout"], pooled["options"]["pool"]["reconnect_timeout"]) == (1, 10)
    assert pooled["checks"] is False
