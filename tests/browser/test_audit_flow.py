"""The auditor's main flow in a real browser (Debian's chromium, driven by Playwright through
``executable_path``; never a downloaded browser).

An operator changes BJ1's settings; the auditor filters the trail by that operator (the list
follows the typing without a reload), opens the record and sees its before and after as a
difference. Then one audit record is altered directly in the database, behind the application's
back (the append-only triggers off, as the database superuser can); the auditor runs the chain
check (a check still running, first, shows its progress bar moving without a reload), which runs as a background job in a thread of the server while its page follows the
job's stream, and the result page names the altered record and links to it.

Each step's screenshot is written to ``var/screens/audit-flow/`` (``SCREENS_DIR`` overrides the
folder).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from playwright import sync_api

from casino.audit_jobs import CHAIN_CHECK
from casino.jobs import job_update
from casino.models import AuditRecord, BackgroundJob, Table
from tables.services import Actor, table_settings_change
from tests.browser.conftest import Screens, signed_in
from tests.factories import staff_user
from tests.tampering import raw, triggers_off

# The check's page re-reads its progress on each hint of the job; the check of the demo's chain
# takes a fraction of a second.
SHOWN_WITHIN_MS = 10_000


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_auditor_filters_the_trail_reads_a_record_and_finds_the_altered_one(
    browser: Any, live_server: Any, seeded: Any, settings: Any
) -> None:
    expect = sync_api.expect
    screens = Screens("audit-flow")
    # Given: the checks run as they do under `make run`, in a thread of the web process
    settings.BACKGROUND_JOBS_INLINE = False
    settings.CELERY_BROKER_URL = ""
    # and an operator's change of BJ1's settings in the trail
    operator = staff_user("operator", "operator-audit-flow")
    table_settings_change(
        table=Table.objects.get(name="BJ1"),
        actor=Actor.staff(operator),
        settings={"betting_seconds": 45, "payout_approval_threshold_minor": 250_000},
    )
    change = AuditRecord.objects.filter(actor_name="operator-audit-flow").order_by("-sequence").first()
    assert change is not None and change.before is not None and change.after is not None

    # When: the auditor signs in, lands on the trail and filters it by the operator, as they type
    auditor = signed_in(browser, live_server, "auditor", "auditor-demo")
    expect(auditor.locator("h1")).to_have_text("Audit trail")
    expect(auditor.locator("#audit-trail tbody tr").first).to_be_visible()
    screens.take(auditor, "trail")
    auditor.evaluate("window.notReloaded = true")
    auditor.fill("input[name=actor]", "operator-audit")
    rows = auditor.locator("#audit-trail tbody tr[data-sequence]")
    expect(rows.first).to_have_attribute("data-sequence", str(change.sequence))
    expect(rows).to_have_count(AuditRecord.objects.filter(actor_name__icontains="operator-audit").count())
    assert auditor.evaluate("window.notReloaded") is True
    assert "actor=operator-audit" in auditor.url
    screens.take(auditor, "trail-filtered")

    # and opens the record: its before and after as a difference
    auditor.click(f'#audit-trail a[href="/audit/records/{change.sequence}/"] >> nth=0')
    expect(auditor.locator("h1")).to_contain_text(f"Record #{change.sequence}")
    changed = auditor.locator("#record-difference tr.change-changed")
    expect(changed.first).to_be_visible()
    expect(auditor.locator('#record-difference tr[data-key="betting_seconds"]')).to_contain_text("changed")
    expect(auditor.locator('#record-difference tr[data-key="betting_seconds"]')).to_contain_text("45")
    screens.take(auditor, "record-difference")

    # A check that is running shows its progress, and its page follows it without a reload
    running = BackgroundJob.objects.create(
        kind=CHAIN_CHECK,
        params={},
        status="running",
        done=120,
        total=480,
        stage="Checking the audit records",
        created_by=User.objects.get(username="auditor"),
        started_at=timezone.now(),
    )
    auditor.goto(f"{live_server.url}/audit/checks/{running.pk}/")
    progress = auditor.locator(".job-progress")
    expect(progress).to_contain_text("Checking the audit records 120 of 480")
    expect(progress.locator("progress")).to_have_attribute("value", "120")
    screens.take(auditor, "check-in-progress")
    auditor.evaluate("window.notReloaded = true")
    job_update(running.pk, done=360)  # as the job's progress is saved, hinted
    expect(progress).to_contain_text("360 of 480", timeout=SHOWN_WITHIN_MS)
    job_update(
        running.pk,
        status="succeeded",
        done=480,
        finished_at=timezone.now(),
        result={"is_intact": True, "checked": 480, "unanchored": 0, "anchors_checked": 0},
    )
    expect(auditor.locator("#chain-intact")).to_have_text(
        "Chain intact: 480 records checked.", timeout=SHOWN_WITHIN_MS
    )
    expect(progress).to_have_attribute("data-status", "succeeded")
    assert auditor.evaluate("window.notReloaded") is True

    # Then one record is altered behind the application's back
    altered = AuditRecord.objects.filter(action="table.created").order_by("sequence").first()
    assert altered is not None
    with transaction.atomic():
        triggers_off()
        raw("UPDATE casino_auditrecord SET actor_name = 'mallory' WHERE sequence = %s", [altered.sequence])

    # and the auditor runs the chain check: its page shows the progress, then the result
    auditor.goto(f"{live_server.url}/audit/")
    auditor.click("#start-chain-check")
    expect(auditor.locator(".job-progress progress")).to_be_visible()
    broken = auditor.locator("#chain-broken")
    expect(broken).to_be_visible(timeout=SHOWN_WITHIN_MS)
    expect(broken).to_contain_text(f"Chain broken at record #{altered.sequence}")
    expect(broken).to_contain_text("content does not match its hash")
    expect(auditor.locator(".job-progress")).to_have_attribute("data-status", "succeeded")
    check = BackgroundJob.objects.filter(kind=CHAIN_CHECK).exclude(pk=running.pk).get()
    assert (check.kind, check.status, check.created_by) == (CHAIN_CHECK, "succeeded", running.created_by)
    screens.take(auditor, "chain-check-names-the-altered-record")

    # which links to the altered record, showing what it now says
    broken.locator(f'a[href="/audit/records/{altered.sequence}/"]').click()
    expect(auditor.locator("#audit-record")).to_contain_text("mallory")
    screens.take(auditor, "altered-record")
    auditor.context.close()
