"""/healthz and /readyz (casino/health.py): answered before the host check and the HTTPS
redirect; readiness 200 only when every check passes, 503 naming what failed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client, override_settings
from django.utils import timezone

from casino import health
from casino.audit import audit_anchor

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _anchors_of_this_test(settings: Any, tmp_path: Any) -> None:
    """Anchors in a folder of the test's own: none left by the tests before."""
    settings.AUDIT_ANCHOR_DIR = str(tmp_path / "anchors")


def ready(client: Client | None = None) -> tuple[int, dict[str, Any]]:
    response = (client or Client()).get("/readyz", HTTP_HOST="10.0.0.7:8000")
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return response.status_code, response.json()


@override_settings(SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["casino.example"])
def test_healthz_answers_a_probe_by_address_over_plain_http(transactional_db: Any) -> None:
    response = Client().get("/healthz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    # the same probe elsewhere is refused: the host is not allowed, and the redirect to HTTPS
    assert Client().get("/login/", HTTP_HOST="10.0.0.7:8000").status_code == 400


def test_ready_when_every_check_passes_and_not_without_an_anchor(seeded: None) -> None:
    status, body = ready()
    assert status == 503
    assert body["ready"] is False
    assert body["checks"]["anchor"] == {"ok": False, "detail": "no anchor yet"}
    assert all(check["ok"] for name, check in body["checks"].items() if name != "anchor"), body
    assert body["checks"]["database"]["detail"].startswith("as ")
    assert body["checks"]["migrations"] == {"ok": True, "detail": "all applied"}

    audit_anchor()
    status, body = ready()
    assert status == 200, body
    assert body["ready"] is True


def test_an_empty_chain_needs_no_anchor(transactional_db: Any) -> None:
    assert health.anchor_check() == health.Check(True, "the chain is empty")


def test_an_anchor_older_than_twice_its_interval_is_not_ready(seeded: None, settings: Any) -> None:
    audit_anchor()
    later = timezone.now() + dt.timedelta(seconds=2 * settings.AUDIT_ANCHOR_INTERVAL_SECONDS + 30)
    check = health.anchor_check(now=later)
    assert not check.ok
    assert check.detail.startswith("the newest anchor is ")


def test_a_broker_that_does_not_answer_is_not_ready(seeded: None, settings: Any) -> None:
    audit_anchor()
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.HINTS_URL = "redis://127.0.0.1:1/0"
    status, body = ready()
    assert status == 503
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["hints"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


def test_a_database_that_does_not_answer_is_not_ready(seeded: None, monkeypatch: Any) -> None:
    audit_anchor()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')

    monkeypatch.setattr(health.connection, "cursor", refused)
    monkeypatch.setattr(health.MigrationExecutor, "__init__", refused)
    status, body = ready()
    assert status == 503
    assert body["checks"]["database"] == {
        "ok": False,
        "detail": 'connection to server at "127.0.0.1", port 5432 failed: Connection refused',
    }
    assert body["checks"]["migrations"]["ok"] is False


def test_keys_that_do_not_load_are_not_ready(seeded: None, settings: Any) -> None:
    settings.AUDIT_HMAC_KEYS = "1:not-hex"
    check = health.audit_keys_check()
    assert not check.ok
