"""The auditor's pages (casino/audit_views.py): the trail filtered and paged, its CSV export, one
record with its difference and neighbours, and the three checks started as background jobs with
their progress and result pages. Each page with and without htmx, for the roles that may see it
(auditor, pit boss) and those that may not, and for anonymous visitors."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import pytest
from django.db.models import QuerySet
from django.test import Client
from django.utils import timezone

from casino.audit import audit_append
from casino.audit_jobs import CHAIN_CHECK, LEDGER_CHECK, ROUND_REPLAY
from casino.audit_views import Change, record_difference
from casino.models import AuditRecord, BackgroundJob
from tests.factories import staff_user
from tests.tampering import raw, triggers_off


def _jobs() -> QuerySet[BackgroundJob]:
    """The jobs of these tests: the demo casino's own (its rule sets' house edges, computed by
    the seeds) aside."""
    return BackgroundJob.objects.exclude(kind="tables.main_game_odds")


pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def auditor(seeded: Any) -> Any:
    return staff_user("auditor", "auditor-pages")


@pytest.fixture
def auditor_client(client: Client, auditor: Any) -> Client:
    client.force_login(auditor)
    return client


def _csv(response: Any) -> list[list[str]]:
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def _sequences(response: Any) -> list[int]:
    html = response.content.decode()
    return [int(part.split('"', 1)[0]) for part in html.split('<tr data-sequence="')[1:]]


# ----------------------------------------------------------------------------- access


PAGES = [
    ("get", "/audit/"),
    ("get", "/audit/export.csv"),
    ("get", "/audit/records/1/"),
    ("post", "/audit/checks/chain/start/"),
]


@pytest.mark.parametrize(("method", "url"), PAGES)
@pytest.mark.parametrize("role", ["dealer", "operator", "cashier"])
def test_staff_without_the_audit_permission_are_refused(
    client: Client, seeded: Any, method: str, url: str, role: str
) -> None:
    client.force_login(staff_user(role, f"{role}-refused"))
    before = AuditRecord.objects.count()

    response = getattr(client, method)(url)

    assert response.status_code == 403
    assert AuditRecord.objects.count() == before
    assert _jobs().count() == 0


@pytest.mark.parametrize(("method", "url"), PAGES)
def test_anonymous_visitors_are_sent_to_the_login(client: Client, seeded: Any, method: str, url: str) -> None:
    response = getattr(client, method)(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


@pytest.mark.parametrize("role", ["auditor", "pit_boss"])
def test_the_auditor_and_the_pit_boss_see_the_trail(client: Client, seeded: Any, role: str) -> None:
    client.force_login(staff_user(role, f"{role}-sees"))

    response = client.get("/audit/")

    assert response.status_code == 200
    assert "Audit trail" in response.content.decode()
    assert "HX-Request" in response["Vary"]


# ------------------------------------------------------------------------------ the trail


def test_the_trail_is_paged_fifty_newest_first(auditor_client: Client) -> None:
    head = AuditRecord.objects.order_by("-sequence").first()
    assert head is not None
    total = AuditRecord.objects.count()

    first = auditor_client.get("/audit/")
    second = auditor_client.get("/audit/", {"page": 2})

    assert _sequences(first) == list(range(head.sequence, head.sequence - 50, -1))
    assert _sequences(second) == list(range(head.sequence - 50, max(head.sequence - 100, 0), -1))
    assert f"{total} records" in first.content.decode()
    assert f"Page 1 of {(total + 49) // 50}" in first.content.decode()


def test_the_filters_return_exactly_the_matching_records(auditor_client: Client, auditor: Any) -> None:
    old = audit_append(
        action="test.old", actor_name="Zoe Old", role="robot", object_type="test.thing", object_id="7"
    )
    triggers_off()
    raw(
        "UPDATE casino_auditrecord SET recorded_at = %s WHERE sequence = %s",
        [dt.datetime(2026, 1, 5, 9, 30, tzinfo=dt.UTC), old.sequence],
    )
    mine = audit_append(action="test.new", actor=auditor, object_type="test.thing", object_id="8")
    other = audit_append(
        action="test.newer", actor_name="Zoe Other", role="robot", object_type="test.other", object_id="7"
    )

    def listed(**query: str) -> list[int]:
        response = auditor_client.get("/audit/", query)
        assert response.status_code == 200
        return _sequences(response)

    assert listed(actor="zoe") == [other.sequence, old.sequence]
    assert listed(role="robot") == [other.sequence, old.sequence]
    assert listed(action="test.new") == [other.sequence, mine.sequence]
    assert listed(action="test.") == [other.sequence, mine.sequence, old.sequence]
    assert listed(object_type="test.thing") == [mine.sequence, old.sequence]
    assert listed(object_type="test.thing", object_id="7") == [old.sequence]
    assert listed(action="test.", recorded_from="2026-01-05T09:30", recorded_to="2026-01-05T09:30") == [
        old.sequence
    ]
    assert listed(action="test.", recorded_to="2026-01-05T09:29") == []
    assert listed(action="test.", recorded_from="2026-01-05T09:31") == [other.sequence, mine.sequence]
    assert listed(action="nothing.") == []


def test_an_invalid_filter_is_shown_in_words_and_lists_nothing(auditor_client: Client) -> None:
    response = auditor_client.get("/audit/", {"recorded_from": "soon", "recorded_to": "2026-01-01T00:00"})

    html = response.content.decode()
    assert response.status_code == 200
    assert "From: Enter a valid date/time." in html
    assert _sequences(response) == []
    assert "No records match." in html


def test_a_backwards_range_is_refused_in_words(auditor_client: Client) -> None:
    response = auditor_client.get(
        "/audit/", {"recorded_from": "2026-01-02T00:00", "recorded_to": "2026-01-01T00:00"}
    )

    assert "The range ends before it starts." in response.content.decode()
    assert _sequences(response) == []


def test_with_htmx_the_trail_is_only_the_records(auditor_client: Client) -> None:
    full = auditor_client.get("/audit/", {"action": "table."})
    partial = auditor_client.get("/audit/", {"action": "table."}, headers=HTMX)

    assert b"<html" in full.content and b'id="audit-checks"' in full.content
    assert b"<html" not in partial.content and b'id="audit-checks"' not in partial.content
    assert partial.content.decode().lstrip().startswith('<section id="audit-records">')
    assert _sequences(partial) == _sequences(full)
    assert "HX-Request" in partial["Vary"]
    assert 'href="/audit/export.csv?action=table."' in partial.content.decode()


def test_a_record_of_a_round_links_the_round(auditor_client: Client) -> None:
    record = audit_append(action="round.settled", object_type="tables.round", object_id=41)

    html = auditor_client.get("/audit/", {"action": "round.settled"}).content.decode()

    assert '<a href="/pit/rounds/41/">tables.round 41</a>' in html
    assert f'<a href="/audit/records/{record.sequence}/">{record.sequence}</a>' in html


# ------------------------------------------------------------------------------ the export


def test_the_export_is_every_record_the_filter_shows_and_is_audited(
    auditor_client: Client, auditor: Any
) -> None:
    records = [
        audit_append(action="test.export", actor_name=f"robot {n}", object_type="test.thing", object_id=n)
        for n in range(60)
    ]
    audit_append(action="test.other")

    response = auditor_client.get("/audit/export.csv", {"action": "test.export"})

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = _csv(response)
    assert rows[0] == [
        "sequence",
        "time",
        "actor",
        "role",
        "terminal",
        "action",
        "object type",
        "object id",
        "hash",
    ]
    assert [int(row[0]) for row in rows[1:]] == [record.sequence for record in reversed(records)]
    last = records[-1]
    assert rows[1] == [
        str(last.sequence),
        last.recorded_at.isoformat(),
        "robot 59",
        "",
        "",
        "test.export",
        "test.thing",
        "59",
        last.hash,
    ]
    exported = AuditRecord.objects.order_by("-sequence").first()
    assert exported is not None
    assert (exported.action, exported.actor_name, exported.role, exported.after) == (
        "audit.exported",
        "auditor-pages",
        "auditor",
        {"filter": {"action": "test.export"}},
    )


def test_the_export_leaves_its_own_record_out(auditor_client: Client) -> None:
    response = auditor_client.get("/audit/export.csv", {"action": "audit."})

    rows = _csv(response)
    assert rows[1:] == []
    assert AuditRecord.objects.filter(action="audit.exported").count() == 1


def test_an_invalid_filter_exports_nothing(auditor_client: Client) -> None:
    before = AuditRecord.objects.count()

    response = auditor_client.get("/audit/export.csv", {"recorded_from": "soon"})

    assert response.status_code == 400
    assert "From: Enter a valid date/time." in response.content.decode()
    assert AuditRecord.objects.count() == before


def test_an_invalid_filter_exports_nothing_with_htmx_either(auditor_client: Client) -> None:
    before = AuditRecord.objects.count()

    response = auditor_client.get("/audit/export.csv", {"recorded_to": "later"}, headers=HTMX)

    html = response.content.decode()
    assert response.status_code == 400
    assert "<html" not in html
    assert "To: Enter a valid date/time." in html
    assert AuditRecord.objects.count() == before


# ------------------------------------------------------------------------------ one record


def test_the_difference_flattens_nested_keys() -> None:
    before = {"name": "BJ1", "limits": {"min_minor": 500, "max_minor": 50_000}, "gone": True}
    after = {"name": "BJ1", "limits": {"min_minor": 1000, "max_minor": 50_000}, "seats": [1, 2]}

    assert record_difference(before, after) == [
        Change("gone", "removed", old="true"),
        Change("limits.max_minor", "unchanged", old="50000", new="50000"),
        Change("limits.min_minor", "changed", old="500", new="1000"),
        Change("name", "unchanged", old='"BJ1"', new='"BJ1"'),
        Change("seats", "added", new="[1, 2]"),
    ]
    assert record_difference(None, {"a": {"b": {"c": "ü"}}}) == [Change("a.b.c", "added", new='"ü"')]
    assert record_difference(None, None) == []


def test_a_record_page_shows_every_field_the_difference_and_its_neighbours(auditor_client: Client) -> None:
    previous = audit_append(action="test.before")
    record = audit_append(
        action="table.limits_changed",
        actor_name="operator",
        role="operator",
        object_type="tables.table",
        object_id=3,
        before={"limits": {"min_minor": 500, "max_minor": 9_000}, "gone": 1},
        after={"limits": {"min_minor": 1000, "max_minor": 9_000}, "added": "yes"},
    )
    following = audit_append(action="test.after")

    response = auditor_client.get(f"/audit/records/{record.sequence}/")

    html = response.content.decode()
    assert response.status_code == 200
    assert f"Record #{record.sequence}: table.limits_changed" in html
    assert record.hash in html and record.previous_hash in html
    assert "tables.table 3" in html
    assert '<tr class="change-changed" data-key="limits.min_minor">' in html
    assert '<tr class="change-removed" data-key="gone">' in html
    assert '<tr class="change-added" data-key="added">' in html
    assert "<summary>1 key unchanged</summary>" in html
    assert (
        '<tr class="change-unchanged" data-key="limits.max_minor"><td><code>limits.max_minor</code></td><td><code>9000</code></td></tr>'
        in html
    )
    assert (
        f'href="/audit/records/{previous.sequence}/" rel="prev">← #{previous.sequence} test.before</a>'
        in html
    )
    assert (
        f'href="/audit/records/{following.sequence}/" rel="next">#{following.sequence} test.after →</a>'
        in html
    )
    assert "HX-Request" in response["Vary"]


def test_a_record_page_with_htmx_is_only_the_record(auditor_client: Client) -> None:
    record = audit_append(action="round.settled", object_type="tables.round", object_id=41, after={"a": 1})

    response = auditor_client.get(f"/audit/records/{record.sequence}/", headers=HTMX)

    html = response.content.decode()
    assert "<html" not in html
    assert html.lstrip().startswith(f'<article id="audit-record" data-sequence="{record.sequence}">')
    assert '<a href="/pit/rounds/41/">tables.round 41</a>' in html
    assert "The newest record of the chain" in html


def test_the_first_record_has_no_previous_and_an_unknown_one_is_not_found(auditor_client: Client) -> None:
    first = auditor_client.get("/audit/records/1/").content.decode()

    assert "The first record of the chain" in first
    assert auditor_client.get("/audit/records/999999/").status_code == 404


# ------------------------------------------------------------------------------ the checks


def test_the_chain_check_runs_as_a_job_and_its_page_says_intact(auditor_client: Client, auditor: Any) -> None:
    response = auditor_client.post("/audit/checks/chain/start/")

    job = _jobs().get()
    assert response.status_code == 302
    assert response["Location"] == f"/audit/checks/{job.pk}/"
    assert (job.kind, job.params, job.status, job.created_by) == (CHAIN_CHECK, {}, "succeeded", auditor)
    assert AuditRecord.objects.filter(action="job.started", object_id=str(job.pk)).count() == 1
    page = auditor_client.get(response["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert isinstance(job.result, dict)
    assert f"Chain intact: {job.result['checked']} records checked." in html
    assert "<progress" in html and "hx-get" not in html.split('id="job-progress', 1)[1].split(">", 1)[0]
    home = auditor_client.get("/audit/").content.decode()
    assert f'Last check: <a href="/audit/checks/{job.pk}/">' in home


def test_with_htmx_the_start_redirects_the_client(auditor_client: Client) -> None:
    response = auditor_client.post("/audit/checks/ledger/start/", headers=HTMX)

    job = _jobs().get()
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/audit/checks/{job.pk}/"
    assert job.kind == LEDGER_CHECK


def test_the_chain_check_names_the_altered_record(auditor_client: Client) -> None:
    triggers_off()
    raw("UPDATE casino_auditrecord SET actor_name = 'someone else' WHERE sequence = 4", [])

    response = auditor_client.post("/audit/checks/chain/start/", follow=True)

    html = response.content.decode()
    assert 'Chain broken at record <a href="/audit/records/4/">#4</a>' in html
    assert "Reason: content does not match its hash (3 records good before it)." in html


def test_a_running_check_polls_and_its_poll_sends_the_result_when_done(
    auditor_client: Client, auditor: Any
) -> None:
    job = BackgroundJob.objects.create(
        kind=CHAIN_CHECK,
        params={},
        status="running",
        done=120,
        total=480,
        stage="Checking the audit records",
        created_by=auditor,
    )

    running = auditor_client.get(f"/audit/checks/{job.pk}/").content.decode()
    poll = auditor_client.get(f"/audit/checks/{job.pk}/", headers=HTMX).content.decode()

    assert (
        f'hx-get="/audit/checks/{job.pk}/" hx-trigger="sse:job, every 15s" hx-sync="this:replace" hx-disinherit="hx-sync" hx-swap="outerHTML"'
        in running
    )
    assert f'sse-connect="/audit/checks/{job.pk}/stream/"' in running
    assert '<progress max="480" value="120">' in running
    assert "Checking the audit records" in running and "120 of 480" in running
    assert f'<a class="button secondary" href="/audit/checks/{job.pk}/">Refresh</a>' in running
    assert "<html" not in poll and "hx-swap-oob" not in poll and 'hx-trigger="sse:job, every 15s"' in poll
    BackgroundJob.objects.filter(pk=job.pk).update(
        status="succeeded",
        done=480,
        finished_at=timezone.now(),
        result={"is_intact": True, "checked": 480, "unanchored": 0, "anchors_checked": 0},
    )
    done = auditor_client.get(f"/audit/checks/{job.pk}/", headers=HTMX).content.decode()
    assert "hx-trigger" not in done
    assert '<section id="check-result" class="check-result" hx-swap-oob="true">' in done
    assert "Chain intact: 480 records checked." in done


def test_a_failed_check_says_why(auditor_client: Client) -> None:
    job = BackgroundJob.objects.create(
        kind=LEDGER_CHECK,
        params={},
        status="failed",
        error="OperationalError: the server closed the connection",
        finished_at=timezone.now(),
    )

    html = auditor_client.get(f"/audit/checks/{job.pk}/").content.decode()

    assert "The check could not finish: OperationalError: the server closed the connection" in html
    assert "sse-connect" not in html  # finished: nothing to follow


def test_the_ledger_check_names_the_forged_transfers(auditor_client: Client) -> None:
    job = BackgroundJob.objects.create(
        kind=LEDGER_CHECK,
        params={},
        status="succeeded",
        finished_at=timezone.now(),
        result={
            "is_clean": False,
            "offender": "",
            "forged": [
                {
                    "transfer_id": 77,
                    "kind": "adjustment",
                    "amount_minor": 500_000,
                    "reason": "no audit record names it",
                }
            ],
        },
    )

    html = auditor_client.get(f"/audit/checks/{job.pk}/").content.decode()

    assert "1 transfer is not vouched for by the audit chain:" in html
    assert '<a href="/audit/?object_type=wallet.transfer&amp;object_id=77">77</a>' in html
    assert "5,000.00" in html and "no audit record names it" in html


def test_the_ledger_check_of_the_demo_is_clean(auditor_client: Client) -> None:
    html = auditor_client.post("/audit/checks/ledger/start/", follow=True).content.decode()

    assert "Ledger consistent: " in html


def test_the_round_replay_takes_a_range_and_names_the_rounds(auditor_client: Client, seeded: Any) -> None:
    response = auditor_client.post(
        "/audit/checks/replay/start/", {"replay_from": "2026-01-05T09:00", "replay_to": "2026-01-05T10:00"}
    )

    job = _jobs().get()
    assert response.status_code == 302
    assert job.kind == ROUND_REPLAY
    assert job.params == {
        "casino_id": job.params["casino_id"],
        "from": "2026-01-05T09:00:00+00:00",
        "to": "2026-01-05T10:01:00+00:00",
    }
    html = auditor_client.get(response["Location"]).content.decode()
    assert "0 settled rounds replayed: all reproduce." in html
    assert "from 2026-01-05 09:00, before 2026-01-05 10:01" in html

    BackgroundJob.objects.filter(pk=job.pk).update(
        result={
            "replayed": 3,
            "failed": [
                {
                    "round_id": 12,
                    "table": "BJ2",
                    "number": 4,
                    "settled_at": "2026-01-05T09:12:00+00:00",
                    "differences": ["line 0: stored a != replayed b"],
                    "differences_count": 1,
                }
            ],
        }
    )
    html = auditor_client.get(response["Location"]).content.decode()
    assert "1 of 3 settled rounds does not reproduce:" in html
    assert '<a href="/pit/rounds/12/">BJ2</a>' in html and '<a href="/pit/rounds/12/">4</a>' in html


def test_a_replay_without_its_range_is_refused_in_words_and_starts_nothing(auditor_client: Client) -> None:
    before = AuditRecord.objects.count()

    full = auditor_client.post("/audit/checks/replay/start/", {"replay_from": "2026-01-05T09:00"})
    partial = auditor_client.post(
        "/audit/checks/replay/start/",
        {"replay_from": "2026-01-05T10:00", "replay_to": "2026-01-05T09:00"},
        headers=HTMX,
    )

    assert full.status_code == 400
    assert "Settled to: This field is required." in full.content.decode()
    assert partial.status_code == 400
    assert "<html" not in partial.content.decode()
    assert "The range ends before it starts." in partial.content.decode()
    assert _jobs().count() == 0
    assert AuditRecord.objects.count() == before


def test_an_unknown_check_or_another_kind_of_job_is_not_found(auditor_client: Client) -> None:
    other = BackgroundJob.objects.create(kind="cage.report", params={})

    assert auditor_client.post("/audit/checks/vault/start/").status_code == 404
    assert auditor_client.get(f"/audit/checks/{other.pk}/").status_code == 404
    assert auditor_client.get("/audit/checks/999999/").status_code == 404
    assert _jobs().count() == 1


def test_a_check_cannot_be_started_with_get(auditor_client: Client) -> None:
    assert auditor_client.get("/audit/checks/chain/start/").status_code == 405
    assert _jobs().count() == 0
