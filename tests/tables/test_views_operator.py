"""The operator's configuration pages (tables/views/operator/): tables, rule sets, paytables,
the house edge where a choice is made, and the approvals a second person gives; with and without
htmx, for the roles allowed, and refused to the others with nothing changed."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from casino.jobs import job_run
from casino.middleware import STAFF_LANGUAGE_SESSION_KEY
from casino.models import Approval, AuditRecord, BackgroundJob, RuleSet, RuleSetVersion, Table
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.odds_jobs import version_rules
from tables.rule_set_texts import SEEDED_DESCRIPTIONS
from tables.services import Actor, table_config_current
from tables.services.versions import rule_set_version_create
from tests.factories import staff_user

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(response: Any) -> str:
    return response.content.decode()


def _form_data(config: TableConfigVersion, **changes: Any) -> dict[str, Any]:
    """The table form as drawn for ``config`` (money in major units), with ``changes``."""
    data: dict[str, Any] = {}
    for name in TableConfigVersion.LIMIT_FIELDS:
        value = getattr(config, name)
        data[name] = f"{value // 100}.{value % 100:02d}"
    for name in TableConfigVersion.SETTING_FIELDS:
        value = getattr(config, name)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif name.endswith("_minor"):
            data[name] = f"{value // 100}.{value % 100:02d}"
        else:
            data[name] = str(value)
    data["rule_set_version"] = str(config.rule_set_version_id)
    data["perfect_pairs_version"] = str(config.perfect_pairs_version_id or "")
    data["twenty_one_plus_three_version"] = str(config.twenty_one_plus_three_version_id or "")
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return data


@pytest.fixture
def bj2(seeded: Any) -> Table:
    return Table.objects.get(name="BJ2")


def _perfect_pairs() -> SideBetPaytable:
    return SideBetPaytable.objects.filter(kind="perfect_pairs").order_by("pk").first()


# ------------------------------------------------------------------------------------- access

OPERATOR_PAGES = [
    "/operator/",
    "/operator/tables/new/",
    "/operator/tables/BJ2/",
    "/operator/tables/BJ2/edge/",
]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "cashier", "auditor", "pit_boss"])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_configuration_pages_are_not_for_other_roles(seeded, role, htmx):
    client = _client(staff_user(role, f"{role}-9"))
    rule_set_id = Table.objects.get(name="BJ2").rule_set_id
    paytable_id = _perfect_pairs().pk
    pages = [*OPERATOR_PAGES, f"/operator/rule-sets/{rule_set_id}/", f"/operator/paytables/{paytable_id}/"]
    before = (AuditRecord.objects.count(), TableConfigVersion.objects.count())
    for url in pages:
        response = client.get(url, **(HTMX if htmx else {}))
        assert response.status_code == 403, url
        assert REFUSED_TEXT in _page(response)
    response = client.post("/operator/tables/BJ2/", {"main_max_minor": "10000"}, **(HTMX if htmx else {}))
    assert response.status_code == 403
    assert (AuditRecord.objects.count(), TableConfigVersion.objects.count()) == before


@pytest.mark.django_db
def test_anonymous_visitors_go_to_the_login_page(seeded):
    for url in [*OPERATOR_PAGES, "/operator/approvals/"]:
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), url


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "cashier", "auditor"])
def test_the_approvals_are_not_for_roles_without_the_pit(seeded, role):
    client = _client(staff_user(role, f"{role}-9"))
    assert client.get("/operator/approvals/").status_code == 403
    assert client.post("/operator/approvals/table/1/approve/").status_code == 403


# ------------------------------------------------------------------------------------- pages


@pytest.mark.django_db
def test_the_home_lists_tables_rule_sets_and_paytables(seeded, operator):
    page = _page(_client(operator).get("/operator/"))
    assert 'href="/operator/tables/BJ2/"' in page
    assert "live-american" in page and "Perfect Pairs" in page
    assert "0 changes wait for a second person" in page
    # the canasta tables lead to their own configuration page
    assert 'href="/operator/tables/CA1/canasta/"' in page and "not configured here" not in page


@pytest.mark.django_db
def test_the_table_page_shows_the_form_the_edges_and_the_history(bj2, operator):
    config = table_config_current(bj2)
    response = _client(operator).get("/operator/tables/BJ2/")
    page = _page(response)
    assert response.status_code == 200 and response["Vary"] == "HX-Request, Cookie"
    assert f'value="{config.main_max_minor // 100}.00"' in page
    assert 'id="edge-perfect-pairs"' in page and 'id="version-history"' in page
    # the seeded rule set's main-game edge was computed by the seeds: shown, not offered
    assert re.search(r'class="edge">0\.\d{3} %', page)
    assert "Compute the main game's house edge" not in page


@pytest.mark.django_db
def test_the_edge_panel_follows_the_chosen_paytable(bj2, operator, pit_boss):
    # given a second Perfect Pairs version, approved
    from tables.services import paytable_version_approve, paytable_version_create

    paytable = _perfect_pairs()
    draft = paytable_version_create(
        paytable=paytable, payouts={"perfect": 30, "coloured": 15, "mixed": 8}, actor=Actor.staff(operator)
    )
    generous = paytable_version_approve(version=draft, actor=Actor.staff(pit_boss))
    client = _client(operator)
    config = table_config_current(bj2)
    before = _page(client.get("/operator/tables/BJ2/edge/", **HTMX))
    after = _page(client.get("/operator/tables/BJ2/edge/", {"perfect_pairs_version": generous.pk}, **HTMX))
    edge = re.compile(r'id="edge-perfect-pairs">([-0-9.]+) %')
    assert "<html" not in after
    assert float(edge.search(after).group(1)) < float(edge.search(before).group(1))
    none = _page(client.get("/operator/tables/BJ2/edge/", {"perfect_pairs_version": ""}, **HTMX))
    assert 'id="edge-perfect-pairs"' not in none and "not offered" in none
    assert table_config_current(bj2).pk == config.pk


@pytest.mark.django_db
def test_a_small_change_is_a_new_version_at_once(bj2, operator):
    config = table_config_current(bj2)
    response = _client(operator).post("/operator/tables/BJ2/", _form_data(config, betting_seconds="20"))
    assert response.status_code == 302
    current = table_config_current(bj2)
    assert current.number == config.number + 1 and current.betting_seconds == 20
    assert current.main_max_minor == config.main_max_minor
    page = _page(_client(operator).get("/operator/tables/BJ2/"))
    assert f"Table BJ2, configuration version {current.number}" in page
    assert '<td class="changed">20</td>' in page


@pytest.mark.django_db
def test_a_large_raise_waits_and_the_pit_boss_approves_it(bj2, operator, pit_boss, dealer):
    config = table_config_current(bj2)
    operator_client = _client(operator)
    response = operator_client.post("/operator/tables/BJ2/", _form_data(config, main_max_minor="10000"))
    assert response.status_code == 302
    proposal = TableConfigProposal.objects.get(table=bj2)
    assert proposal.changes == {"main_max_minor": 1_000_000} and table_config_current(bj2).pk == config.pk
    waiting_page = _page(operator_client.get("/operator/tables/BJ2/"))
    assert "A change waits for approval" in waiting_page and 'accesskey="s"' not in waiting_page
    # the operator cannot approve their own, and the page offers them no button to
    assert f'action="/operator/approvals/table/{proposal.pk}/approve/"' not in _page(
        operator_client.get("/operator/approvals/")
    )
    records = AuditRecord.objects.count()
    refused = operator_client.post(f"/operator/approvals/table/{proposal.pk}/approve/", **HTMX)
    assert refused.status_code == 403 and "four_eyes_required" in _page(refused)
    assert "A second person must decide" in _page(refused)
    assert table_config_current(bj2).pk == config.pk and AuditRecord.objects.count() == records
    assert Approval.objects.get().status == "pending"
    # the pit boss sees it with old and new values and approves it
    pit_client = _client(pit_boss)
    page = _page(pit_client.get("/operator/approvals/"))
    assert "5,000.00" in page and "10,000.00" in page
    approved = pit_client.post(f"/operator/approvals/table/{proposal.pk}/approve/", **HTMX)
    assert approved.status_code == 200 and "Approved" in _page(approved) and "<html" not in _page(approved)
    current = table_config_current(bj2)
    assert current.main_max_minor == 1_000_000 and current.approved_by == pit_boss


@pytest.mark.django_db
def test_a_rejection_needs_a_reason_and_changes_nothing(bj2, operator, pit_boss):
    config = table_config_current(bj2)
    _client(operator).post("/operator/tables/BJ2/", _form_data(config, behind_max_minor="9000"))
    proposal = TableConfigProposal.objects.get(table=bj2)
    pit_client = _client(pit_boss)
    refused = pit_client.post(f"/operator/approvals/table/{proposal.pk}/reject/", {"reason": ""})
    assert refused.status_code == 302
    proposal.refresh_from_db()
    assert proposal.status == "pending"
    pit_client.post(f"/operator/approvals/table/{proposal.pk}/reject/", {"reason": "too high"})
    proposal.refresh_from_db()
    assert proposal.status == "rejected" and table_config_current(bj2).pk == config.pk


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_refused_change_shows_the_reason_and_changes_nothing(bj2, operator, htmx):
    config = table_config_current(bj2)
    before = (
        AuditRecord.objects.count(),
        TableConfigVersion.objects.count(),
        TableConfigProposal.objects.count(),
    )
    client = _client(operator)
    # the minimum above the maximum: the service refuses
    response = client.post(
        "/operator/tables/BJ2/", _form_data(config, main_min_minor="6000.00"), **(HTMX if htmx else {})
    )
    assert response.status_code == 422
    assert "the main minimum is above its maximum" in _page(response) and "invalid_configuration" in _page(
        response
    )
    # an amount that is not one: the form refuses
    response = client.post("/operator/tables/BJ2/", _form_data(config, main_max_minor="lots"))
    assert response.status_code == 422 and "Enter an amount such as 150 or 150.50." in _page(response)
    # nothing changed at all
    response = client.post("/operator/tables/BJ2/", _form_data(config))
    assert response.status_code == 422 and "Nothing changed" in _page(response)
    after = (
        AuditRecord.objects.count(),
        TableConfigVersion.objects.count(),
        TableConfigProposal.objects.count(),
    )
    assert after == before


@pytest.mark.django_db
def test_the_operator_creates_a_table(seeded, operator):
    client = _client(operator)
    page = _page(client.get("/operator/tables/new/"))
    pit = re.search(r'<option value="(\d+)"[^>]*>([^<]+)</option>', page.split('name="pit"')[1]).group(1)
    rule_set = Table.objects.get(name="BJ2").rule_set_id
    response = client.post("/operator/tables/new/", {"name": "BJ9", "pit": pit, "rule_set": rule_set})
    assert response.status_code == 302 and response["Location"] == "/operator/tables/BJ9/"
    table = Table.objects.get(name="BJ9")
    assert table.boxes.count() == 7 and not table.is_open
    assert table_config_current(table).number == 1
    assert AuditRecord.objects.filter(action="table.created", object_id=str(table.pk)).exists()
    taken = client.post("/operator/tables/new/", {"name": "BJ9", "pit": pit, "rule_set": rule_set})
    assert taken.status_code == 409 and "table_name_taken" in _page(taken)
    assert Table.objects.filter(name="BJ9").count() == 1


@pytest.mark.django_db
def test_the_main_game_edge_is_computed_once_per_rule_set_version(bj2, operator):
    version = table_config_current(bj2).rule_set_version
    client = _client(operator)
    response = client.post(f"/operator/rule-set-versions/{version.pk}/edge/", **HTMX)
    # the tests run jobs inline: the edge is there at once
    assert response.status_code == 200 and re.search(r'class="edge">0\.\d{3} %', _page(response))
    client.post(f"/operator/rule-set-versions/{version.pk}/edge/", **HTMX)
    jobs = BackgroundJob.objects.filter(kind="tables.main_game_odds", params__rule_set_version=version.pk)
    assert jobs.count() == 1
    assert re.search(r'class="edge">0\.\d{3} %', _page(client.get("/operator/tables/BJ2/")))


@pytest.mark.django_db
def test_a_rule_set_version_is_proposed_and_approved_by_another(bj2, operator, pit_boss):
    rule_set = bj2.rule_set
    base = rule_set.current_version()
    client = _client(operator)
    page = _page(client.get(f"/operator/rule-sets/{rule_set.pk}/"))
    assert 'id="rule-set-versions"' in page and "A new version from v" in page
    options = version_rules(base).to_dict()
    data = {name: value for name, value in options.items() if not isinstance(value, (dict, bool))}
    data.update({name: "on" for name, value in options.items() if value is True})
    data["resplit_aces"] = "on"
    data["base"] = str(base.pk)
    response = client.post(f"/operator/rule-sets/{rule_set.pk}/", data)
    assert response.status_code == 302
    draft = RuleSetVersion.objects.get(rule_set=rule_set, approved_at__isnull=True)
    assert draft.options["resplit_aces"] is True and draft.created_by == operator
    assert draft.options["perfect_pairs"] == base.options["perfect_pairs"]
    # an option the engine refuses
    bad = client.post(f"/operator/rule-sets/{rule_set.pk}/", {**data, "blackjack_pays": "zero"})
    assert bad.status_code == 422 and "invalid_configuration" in _page(bad)
    page = _page(_client(pit_boss).get("/operator/approvals/"))
    assert f'id="rule-set-version-{draft.pk}"' in page and "Aces may be split again" in page
    # the one option changed, and no other
    assert page.count('class="changed"') == 1
    _client(pit_boss).post(f"/operator/approvals/rule-set/{draft.pk}/approve/")
    draft.refresh_from_db()
    assert draft.approved_by == pit_boss


@pytest.mark.django_db
def test_the_paytable_preview_recomputes_the_edge(seeded, operator):
    paytable = _perfect_pairs()
    client = _client(operator)
    page = _page(client.get(f"/operator/paytables/{paytable.pk}/"))
    assert 'id="paytable-versions"' in page and 'id="preview-edge"' in page
    low = _page(
        client.get(
            f"/operator/paytables/{paytable.pk}/preview/",
            {"decks": 6, "perfect": 25, "coloured": 12, "mixed": 6},
            **HTMX,
        )
    )
    high = _page(
        client.get(
            f"/operator/paytables/{paytable.pk}/preview/",
            {"decks": 6, "perfect": 30, "coloured": 15, "mixed": 8},
            **HTMX,
        )
    )
    edge = re.compile(r'id="preview-edge">([-0-9.]+) %')
    assert edge.search(low).group(1) == "6.109"  # 19/311, docs/odds.md
    assert float(edge.search(high).group(1)) < 6.109
    bad = _page(
        client.get(f"/operator/paytables/{paytable.pk}/preview/", {"decks": 6, "perfect": "x"}, **HTMX)
    )
    assert "cannot be computed" in bad


@pytest.mark.django_db
def test_a_paytable_version_is_proposed_and_waits(seeded, operator, pit_boss):
    paytable = _perfect_pairs()
    before = SideBetPaytableVersion.objects.filter(paytable=paytable).count()
    response = _client(operator).post(
        f"/operator/paytables/{paytable.pk}/", {"decks": 6, "perfect": 30, "coloured": 10, "mixed": 5}
    )
    assert response.status_code == 302
    draft = SideBetPaytableVersion.objects.get(paytable=paytable, approved_at__isnull=True)
    assert draft.payouts == {"perfect": 30, "coloured": 10, "mixed": 5}
    assert SideBetPaytableVersion.objects.filter(paytable=paytable).count() == before + 1
    page = _page(_client(pit_boss).get("/operator/approvals/"))
    assert f'id="paytable-version-{draft.pk}"' in page and "30:1" in page
    refused = _client(operator).post(f"/operator/approvals/paytable/{draft.pk}/approve/", **HTMX)
    assert refused.status_code == 403 and "four_eyes_required" in _page(refused)
    draft.refresh_from_db()
    assert draft.approved_at is None and draft.approval.status == "pending"


@pytest.mark.django_db
def test_a_draft_rule_set_version_is_not_offered_to_tables(bj2, operator):
    base = bj2.rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=bj2.rule_set, options=dict(base.options), actor=Actor.staff(operator)
    )
    page = _page(_client(operator).get("/operator/tables/BJ2/"))
    assert f'<option value="{draft.pk}"' not in page


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_every_page_answers_the_operator_with_and_without_htmx(seeded, operator, htmx):
    client = _client(operator)
    bj2 = Table.objects.get(name="BJ2")
    version = table_config_current(bj2).rule_set_version
    headers = HTMX if htmx else {}
    whole = [
        "/operator/",
        "/operator/tables/new/",
        "/operator/tables/BJ2/",
        f"/operator/rule-sets/{bj2.rule_set_id}/",
        f"/operator/paytables/{_perfect_pairs().pk}/",
        "/operator/approvals/",
    ]
    for url in whole:
        response = client.get(url, **headers)
        assert response.status_code == 200, url
        assert response["Vary"] == "HX-Request, Cookie", url
        # the approvals are a partial for htmx; the others are whole pages either way
        assert ("<html" in _page(response)) == (not htmx or url != "/operator/approvals/"), url
    for url in ("/operator/tables/BJ2/edge/", f"/operator/rule-set-versions/{version.pk}/edge/"):
        response = client.get(url, **headers)
        assert response.status_code == 200 and "<html" not in _page(response), url


@pytest.mark.django_db
def test_the_canasta_table_has_no_blackjack_configuration_page(seeded, operator):
    response = _client(operator).get("/operator/tables/CA1/")
    assert response.status_code == 404


@pytest.mark.django_db
def test_the_pit_boss_computes_the_edge_of_a_version_to_approve(bj2, operator, pit_boss):
    base = bj2.rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=bj2.rule_set,
        options={**base.options, "dealer_hits_soft_17": True},
        actor=Actor.staff(operator),
    )
    response = _client(pit_boss).post(f"/operator/rule-set-versions/{draft.pk}/edge/", **HTMX)
    assert response.status_code == 200 and re.search(r'class="edge">0\.\d{3} %', _page(response))


@pytest.mark.django_db
def test_the_pit_desk_points_to_the_configuration_changes_waiting(bj2, operator, pit_boss):
    client = _client(pit_boss)
    assert 'id="config-waiting"' not in _page(client.get("/pit/queue/", **HTMX))
    config = table_config_current(bj2)
    _client(operator).post("/operator/tables/BJ2/", _form_data(config, main_max_minor="10000"))
    queue = _page(client.get("/pit/queue/", **HTMX))
    assert "1 configuration change waits for a second person" in queue
    assert 'href="/operator/approvals/"' in queue


@pytest.mark.django_db
def test_a_proposal_is_audited_with_the_changed_fields_only(bj2, operator):
    config = table_config_current(bj2)
    _client(operator).post("/operator/tables/BJ2/", _form_data(config, main_max_minor="10000"))
    record = AuditRecord.objects.filter(action="table.config_proposed").get()
    approval = Approval.objects.get()
    assert record.before == {"table": "BJ2", "main_max_minor": 500_000}
    assert record.after == {
        "table": "BJ2",
        "main_max_minor": 1_000_000,
        "waits_for": ["main_max_minor"],
        "approval_id": approval.pk,
    }


# ------------------------------------------------------------------------------------- four eyes on the pages


@pytest.mark.django_db
def test_raising_the_payout_threshold_on_the_table_page_waits_for_a_pit_boss(seeded, operator, pit_boss):
    # given BJ3, whose payouts above 10,000.00 wait for a pit boss
    bj3 = Table.objects.get(name="BJ3")
    config = table_config_current(bj3)
    operator_client = _client(operator)
    # when the operator raises the threshold to 10,000,000.00 on its page
    response = operator_client.post(
        "/operator/tables/BJ3/", _form_data(config, payout_approval_threshold_minor="10000000.00")
    )
    # then it does not apply: it waits, and the table page shows its values and who asked
    assert response.status_code == 302
    assert table_config_current(bj3).pk == config.pk
    proposal = TableConfigProposal.objects.get(table=bj3)
    page = _page(operator_client.get("/operator/tables/BJ3/"))
    waiting = page.split('id="pending-proposal"')[1].split("</section>")[0]
    assert "<th>Payouts whose winnings exceed this wait for a pit boss</th>" in waiting
    assert '<td class="num">10,000.00</td>' in waiting
    assert '<td class="num changed">10,000,000.00</td>' in waiting
    assert f"Asked for by {operator.username} at " in waiting and "needs a second person" in waiting
    assert "You asked for this change: a pit boss or another operator decides it." in waiting
    assert 'accesskey="s"' not in page
    # and the pit boss approves it on the approvals page
    pit_client = _client(pit_boss)
    queue = _page(pit_client.get("/operator/approvals/"))
    assert f"BJ3: asked for by {operator.username} at " in queue and "10,000,000.00" in queue
    approved = pit_client.post(f"/operator/approvals/table/{proposal.pk}/approve/")
    assert approved.status_code == 302
    version = table_config_current(bj3)
    assert version.payout_approval_threshold_minor == 1_000_000_000
    # made by one person, approved by another: the history says so
    history = _page(operator_client.get("/operator/tables/BJ3/")).split('id="version-history"')[1]
    assert f"<th>{operator.username} / {pit_boss.username}</th>" in history
    assert f"{operator.username} / {operator.username}" not in history


@pytest.mark.django_db
def test_a_change_applied_at_once_never_reads_as_approved_by_its_author(bj2, operator):
    config = table_config_current(bj2)
    _client(operator).post("/operator/tables/BJ2/", _form_data(config, betting_seconds="20"))
    history = _page(_client(operator).get("/operator/tables/BJ2/")).split('id="version-history"')[1]
    assert f"{operator.username} / " in history and "no second person needed" in history
    assert f"{operator.username} / {operator.username}" not in history


@pytest.mark.django_db
def test_a_rule_set_version_is_approved_on_the_page_only_with_its_house_edge(
    bj2, operator, pit_boss, settings
):
    # given a draft whose edge job is queued, not run (jobs run after the commit, as in production)
    settings.BACKGROUND_JOBS_INLINE = False
    draft = rule_set_version_create(
        rule_set=bj2.rule_set,
        options={**bj2.rule_set.current_version().options, "dealer_hits_soft_17": True},
        actor=Actor.staff(operator),
    )
    pit_client = _client(pit_boss)
    # the approval screen shows the edge computing, and no Approve button
    page = _page(pit_client.get("/operator/approvals/"))
    article = page.split(f'id="rule-set-version-{draft.pk}"')[1].split("</article>")[0]
    assert "It can be approved once its house edge is shown." in article
    assert f"/operator/approvals/rule-set/{draft.pk}/approve/" not in article
    assert f"/operator/approvals/rule-set/{draft.pk}/reject/" in article
    assert 'hx-trigger="sse:job, every 15s"' in article and "<progress" in article
    job = BackgroundJob.objects.get(params__rule_set_version=draft.pk)
    assert f'sse-connect="/operator/rule-set-versions/edges/stream/?job={job.pk}"' in page
    # approving anyway is refused in words, and nothing is written
    records = AuditRecord.objects.count()
    refused = pit_client.post(f"/operator/approvals/rule-set/{draft.pk}/approve/", **HTMX)
    assert refused.status_code == 409 and "house_edge_not_computed" in _page(refused)
    assert "house edge of Blackjack live-american v2 is not computed yet" in _page(refused)
    draft.refresh_from_db()
    assert draft.approved_at is None and draft.approval.status == "pending"
    assert AuditRecord.objects.count() == records
    # once computed, the screen shows the edge and the button, and the approval goes through
    job_run(BackgroundJob.objects.get(params__rule_set_version=draft.pk).pk)
    article = _page(pit_client.get("/operator/approvals/")).split(f'id="rule-set-version-{draft.pk}"')[1]
    article = article.split("</article>")[0]
    assert re.search(r'class="edge">0\.\d{3} %', article)
    assert f"/operator/approvals/rule-set/{draft.pk}/approve/" in article
    assert pit_client.post(f"/operator/approvals/rule-set/{draft.pk}/approve/", **HTMX).status_code == 200
    draft.refresh_from_db()
    assert draft.approved_by == pit_boss


def _hungarian(user: Any) -> Client:
    client = _client(user)
    session = client.session
    session[STAFF_LANGUAGE_SESSION_KEY] = "hu"
    session.save()
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "hu"])
def test_the_rule_set_page_names_every_option_in_words(bj2, operator, language):
    client = _hungarian(operator) if language == "hu" else _client(operator)
    page = _page(client.get(f"/operator/rule-sets/{bj2.rule_set_id}/"))
    table = page.split('id="rule-set-versions"')[1].split("</table>")[0]
    labels = re.findall(r'<th data-option="([a-z_0-9]+)">([^<]+)</th>', table)
    assert {name for name, _label in labels} == set(bj2.rule_set.current_version().options)
    # no option shows its key, in any language
    assert all(label != name for name, label in labels)
    with translation.override(language):
        assert f">{translation.gettext('Bets behind allowed')}</th>" in table
        assert f">{translation.gettext('Payouts rounded down to a multiple of')}</th>" in table
        assert f">{translation.gettext('Suited three of a kind')} 100:1</span>" in table
    # the 21+3 paytable: an outcome a line, each line whole
    twenty_one = table.split('data-option="twenty_one_plus_three"')[1].split("</tr>")[0]
    assert twenty_one.count('<span class="line">') == 5


@pytest.mark.django_db
def test_a_canasta_rule_set_page_names_its_options_in_words(seeded, operator):
    rule_set = RuleSet.objects.get(game="canasta", name="classic4")
    page = _page(_client(operator).get(f"/operator/rule-sets/{rule_set.pk}/"))
    labels = re.findall(r'<th data-option="([A-Za-z0-9_]+)">([^<]+)</th>', page)
    assert {name for name, _label in labels} == set(rule_set.current_version().options)
    assert all(label != name for name, label in labels)
    assert '<th data-option="sides">Sides</th>' in page and "two partnerships" in page


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "hu"])
def test_the_seeded_descriptions_are_shown_as_the_catalog_says(bj2, operator, language):
    client = _hungarian(operator) if language == "hu" else _client(operator)
    description = bj2.rule_set.description
    assert description in SEEDED_DESCRIPTIONS
    with translation.override(language):
        shown = escape(translation.gettext(description))
    assert shown in _page(client.get(f"/operator/rule-sets/{bj2.rule_set_id}/"))
    assert shown in _page(client.get("/operator/"))
