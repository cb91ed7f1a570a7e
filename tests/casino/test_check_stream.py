"""A running check's page follows its job's stream (``audit:check_stream``): the auditor's, for the
checks only, passing each saved change of the job on."""

from __future__ import annotations

import pytest

from casino.audit_jobs import CHAIN_CHECK
from casino.jobs import job_update
from casino.models import BackgroundJob
from tests.asgi_server import AsgiServer, events, open_stream, session_cookie_of, stream_status
from tests.factories import staff_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_check_page_carries_its_stream_while_the_job_runs(seeded: None, asgi_server: AsgiServer) -> None:
    auditor = session_cookie_of(staff_user("auditor", "auditor-stream"))
    cashier = session_cookie_of(staff_user("cashier", "cashier-check-stream"))
    running = BackgroundJob.objects.create(kind=CHAIN_CHECK, params={}, status="running", total=480)
    other = BackgroundJob.objects.create(kind="tables.main_game_odds", params={}, status="running")
    stream = f"/audit/checks/{running.pk}/stream/"

    assert stream_status(asgi_server, stream) == 302  # to the login page, as the page
    assert stream_status(asgi_server, stream, cashier) == 403
    assert stream_status(asgi_server, f"/audit/checks/{other.pk}/stream/", auditor) == 404  # no check
    response = open_stream(asgi_server, stream, {"Cookie": auditor})
    assert response.status == 200
    assert [each["event"] for each in events(response, 1)] == ["job"]  # at once

    job_update(running.pk, done=120, stage="Checking the audit records")

    (moved,) = events(response, 1)
    assert moved["event"] == "job" and moved["data"].startswith(f"job:{running.pk} ")
    response.close()
