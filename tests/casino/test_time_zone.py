"""A signed-in person's pages show the venue's local time: the casino's time zone is read at
login into the session (casino.middleware); the terminal API and the login page keep the
server's zone, and a request leaves no zone active behind it."""

from __future__ import annotations

import zoneinfo

import pytest
from django.test import Client
from django.utils import timezone

from casino.models import AuditRecord, Casino

pytestmark = pytest.mark.django_db


def test_the_audit_trail_shows_the_venues_local_time_after_login(seeded):
    casino = Casino.objects.get(code="demo")
    Casino.objects.filter(pk=casino.pk).update(time_zone="Asia/Tokyo")  # UTC+9, no summer time
    client = Client()
    answer = client.post("/login/", {"username": "auditor", "password": "auditor-demo"})
    assert answer.status_code == 302
    assert client.session["casino_time_zone"] == "Asia/Tokyo"
    record = AuditRecord.objects.order_by("-sequence").first()
    assert record is not None
    local = record.recorded_at.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo")).strftime("%Y-%m-%d %H:%M:%S")
    utc = record.recorded_at.astimezone(zoneinfo.ZoneInfo("UTC")).strftime("%Y-%m-%d %H:%M:%S")
    page = client.get("/audit/").content.decode()
    assert f"<td>{local}</td>" in page and f"<td>{utc}</td>" not in page
    # and the request left the server's zone active for whatever runs next in the thread
    assert timezone.get_current_timezone_name() == "UTC"


def test_a_zone_the_server_does_not_know_is_left_out(seeded):
    Casino.objects.filter(code="demo").update(time_zone="Mars/Olympus")
    client = Client()
    client.post("/login/", {"username": "auditor", "password": "auditor-demo"})
    assert "casino_time_zone" not in client.session
    assert client.get("/audit/").status_code == 200
