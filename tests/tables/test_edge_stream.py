"""The operator's pages follow the main-game edge computations they show running on one stream
(``operator:main_edge_stream``, ``?job=``): for the staff who may see them (as ``main_edge``),
for those computations only; starting one while the page is open reloads the page, whose stream
then carries it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from casino.audit_jobs import CHAIN_CHECK
from casino.jobs import job_update
from casino.models import BackgroundJob, Table
from tables.odds_jobs import MAIN_GAME_ODDS
from tables.services import Actor, table_config_current
from tables.services.versions import rule_set_version_create
from tests.asgi_server import AsgiServer, events, open_stream, session_cookie_of, stream_status
from tests.factories import staff_user

STREAM = "/operator/rule-set-versions/edges/stream/"


@pytest.fixture
def bj2(seeded: Any) -> Table:
    return Table.objects.get(name="BJ2")


def draft_computing(table: Any, operator: Any) -> tuple[Any, BackgroundJob]:
    """A new version of the table's rule set, its edge's job queued and not run (the test's
    transaction never commits: the job would run after the commit, elsewhere)."""
    draft = rule_set_version_create(
        rule_set=table.rule_set,
        options={**table.rule_set.current_version().options, "dealer_hits_soft_17": True},
        actor=Actor.staff(operator),
    )
    return draft, BackgroundJob.objects.get(kind=MAIN_GAME_ODDS, params__rule_set_version=draft.pk)


@pytest.mark.django_db
def test_the_pages_showing_a_computation_running_carry_its_stream(
    bj2: Any, operator: Any, settings: Any
) -> None:
    settings.BACKGROUND_JOBS_INLINE = False
    draft, job = draft_computing(bj2, operator)
    client = Client()
    client.force_login(operator)
    connect = f'sse-connect="{STREAM}?job={job.pk}"'

    rule_set_page = client.get(f"/operator/rule-sets/{bj2.rule_set_id}/").content.decode()
    approvals_page = client.get("/operator/approvals/").content.decode()

    assert connect in rule_set_page and connect in approvals_page
    edge = rule_set_page.split(f'id="main-edge-{draft.pk}"')[1].split(">")[0]
    assert 'hx-trigger="sse:job, every 15s"' in edge
    # the table's page, while the edge of the version it plays is computed again
    assert "sse-connect" not in client.get("/operator/tables/BJ2/").content.decode()
    playing = table_config_current(bj2).rule_set_version
    BackgroundJob.objects.filter(kind=MAIN_GAME_ODDS, params__rule_set_version=playing.pk).update(
        status="running", result=None
    )
    again = BackgroundJob.objects.get(kind=MAIN_GAME_ODDS, params__rule_set_version=playing.pk)
    assert f'sse-connect="{STREAM}?job={again.pk}"' in client.get("/operator/tables/BJ2/").content.decode()
    # once computed, the pages follow nothing
    for computed in (job, again):
        job_update(computed.pk, status="succeeded", result={"house_edge": "0.005", "method": "exact"})
    assert "sse-connect" not in client.get(f"/operator/rule-sets/{bj2.rule_set_id}/").content.decode()


@pytest.mark.django_db
def test_starting_a_computation_reloads_the_page_while_it_runs(
    bj2: Any, operator: Any, settings: Any
) -> None:
    settings.BACKGROUND_JOBS_INLINE = False
    draft, job = draft_computing(bj2, operator)
    BackgroundJob.objects.filter(pk=job.pk).delete()  # as if never asked for
    client = Client()
    client.force_login(operator)

    response = client.post(f"/operator/rule-set-versions/{draft.pk}/edge/", HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and response["HX-Refresh"] == "true"
    started = BackgroundJob.objects.get(kind=MAIN_GAME_ODDS, params__rule_set_version=draft.pk)
    page = client.get(f"/operator/rule-sets/{bj2.rule_set_id}/").content.decode()
    assert f'sse-connect="{STREAM}?job={started.pk}"' in page


@pytest.mark.django_db(transaction=True)
def test_the_stream_is_for_the_staff_who_see_the_edge_and_its_computations_only(
    bj2: Any, pit_boss: Any, asgi_server: AsgiServer
) -> None:
    version = bj2.rule_set.current_version()
    job = BackgroundJob.objects.create(
        kind=MAIN_GAME_ODDS, params={"rule_set_version": version.pk}, status="running"
    )
    dealer = session_cookie_of(staff_user("dealer", "dealer-edge-stream"))
    other = BackgroundJob.objects.create(kind=CHAIN_CHECK, params={})
    pit = session_cookie_of(pit_boss)
    stream = f"{STREAM}?job={job.pk}"

    assert stream_status(asgi_server, stream) == 302  # to the login page, as main_edge
    assert stream_status(asgi_server, stream, dealer) == 403
    assert stream_status(asgi_server, f"{STREAM}?job={other.pk}", pit) == 404  # no edge computation
    assert stream_status(asgi_server, f"{STREAM}?job={job.pk}&job=x", pit) == 404
    assert stream_status(asgi_server, STREAM, pit) == 404
    response = open_stream(asgi_server, stream, {"Cookie": pit})
    assert response.status == 200
    assert [each["event"] for each in events(response, 1)] == ["job"]  # at once

    job_update(job.pk, done=1, total=1, stage="computing")

    (moved,) = events(response, 1)
    assert moved["event"] == "job" and moved["data"].startswith(f"job:{job.pk} ")
    response.close()
