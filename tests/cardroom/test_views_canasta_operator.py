"""The operator's page of a canasta table (``/operator/tables/<table>/canasta/``): a change asked
with the form waits for a second operator, who approves or rejects it on the same page; the
requester cannot; refusals in words, nothing written; only operators of the table's casino."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from cardroom.models import CanastaTableSettings
from casino.models import Approval, AuditRecord, RuleSet
from tests.factories import staff_user

URL = "/operator/tables/CA2/canasta/"


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(**changes: Any) -> dict[str, Any]:
    """CA2's form as seeded (physical deals, a 2.50 % share of the pot), with ``changes``."""
    classic4 = RuleSet.objects.get(game="canasta", name="classic4").current_version()
    assert classic4 is not None
    return {
        "rule_set_version": classic4.pk,
        "deal_kind": "physical",
        "teams": "",
        "stake_points": "100",
        "stake_min_minor": "0.10",
        "stake_max_minor": "100.00",
        "max_loss_points": "10000",
        "fee_kind": "pot_share",
        "fee_percent": "2.50",
        "fee_minor": "0",
        "reason": "",
        **changes,
    }


def written() -> tuple[int, int, int]:
    return CanastaTableSettings.objects.count(), Approval.objects.count(), AuditRecord.objects.count()


@pytest.fixture
def operators(seeded: Any) -> tuple[Client, Client]:
    return client_of(staff_user("operator", "operator-1")), client_of(staff_user("operator", "operator-2"))


@pytest.mark.django_db
def test_a_change_asked_on_the_page_waits_and_a_second_operator_approves_it(operators):
    asker, approver = operators

    asked = asker.post(
        URL, form(fee_percent="1.50", deal_kind="virtual", reason="new fee schedule"), follow=True
    )

    html = asked.content.decode()
    assert asked.status_code == 200
    assert "The change waits for a second operator&#x27;s approval" in html
    approval = Approval.objects.get(kind="canasta_config")
    assert (approval.before, approval.after) == (
        {"deal_kind": "physical", "fee_basis_points": 250},
        {"deal_kind": "virtual", "fee_basis_points": 150},
    )
    assert 'id="pending-change"' in html and "Why: new fee schedule" in html
    assert "2.50 %" in html and "1.50 %" in html and "weakens a control" in html
    assert "Approve</button>" not in html and "Another operator decides it" in html
    assert 'id="canasta-config-form"' not in html  # one change waits at a time
    assert CanastaTableSettings.objects.filter(table__name="CA2").count() == 1

    page = approver.get(URL).content.decode()
    assert "Approve</button>" in page and "Reject</button>" in page
    approved = approver.post(f"{URL}{approval.pk}/approve/", follow=True)

    html = approved.content.decode()
    assert approved.status_code == 200 and "Version 2 of CA2 approved" in html
    version = CanastaTableSettings.objects.get(table__name="CA2", number=2)
    assert (version.deal_kind, version.fee_basis_points, version.approval_id) == ("virtual", 150, approval.pk)
    assert "operator-1 / operator-2" in html and 'id="decided-changes"' in html


@pytest.mark.django_db
def test_the_requester_cannot_decide_on_the_page_and_nothing_is_written(operators):
    asker, _ = operators
    asker.post(URL, form(fee_percent="3.00"))
    approval = Approval.objects.get(kind="canasta_config")
    counts = written()

    response = asker.post(f"{URL}{approval.pk}/approve/")

    assert response.status_code == 403
    assert (
        "A second person must decide: whoever asked for it cannot, nor, for a payout, the round&#x27;s dealer."
        in response.content.decode()
    )
    assert written() == counts
    approval.refresh_from_db()
    assert approval.status == "pending"


@pytest.mark.django_db
def test_a_rejection_on_the_page_needs_a_reason(operators):
    asker, approver = operators
    asker.post(URL, form(max_loss_points="2000"))
    approval = Approval.objects.get(kind="canasta_config")
    counts = written()

    refused = approver.post(f"{URL}{approval.pk}/reject/", {"reason": "  "})
    assert refused.status_code == 422 and "A rejection needs a reason." in refused.content.decode()
    assert written() == counts

    rejected = approver.post(f"{URL}{approval.pk}/reject/", {"reason": "holds too small"}, follow=True)

    html = rejected.content.decode()
    assert "Change rejected" in html and "holds too small" in html
    assert CanastaTableSettings.objects.filter(table__name="CA2").count() == 1
    assert 'id="canasta-config-form"' in html


@pytest.mark.parametrize(
    ("changes", "status", "words"),
    [
        ({"stake_min_minor": "500", "stake_max_minor": "100"}, 422, "the stake minimum is above its maximum"),
        ({}, 422, "Nothing changed: the form holds the current configuration."),
        ({"stake_max_minor": "ten"}, 422, "Enter an amount"),
    ],
)
@pytest.mark.django_db
def test_a_change_the_page_refuses_is_said_in_words_and_writes_nothing(operators, changes, status, words):
    asker, _ = operators
    counts = written()

    response = asker.post(URL, form(**changes))

    assert response.status_code == status and words in response.content.decode()
    assert written() == counts


@pytest.mark.django_db
def test_the_page_is_for_operators_of_a_canasta_table(seeded, operators):
    asker, _ = operators
    for role in ("pit_boss", "dealer", "cashier"):
        assert client_of(staff_user(role, f"{role}-x")).get(URL).status_code == 403
    assert asker.get("/operator/tables/BJ1/canasta/").status_code == 404
    assert Client().get(URL).status_code == 302
    full, partial = asker.get(URL), asker.get(URL, headers={"HX-Request": "true"})
    assert "<html" in full.content.decode() and "HX-Request" in full["Vary"]
    assert partial.content.decode().lstrip().startswith('<div id="canasta-config"')
    # the operator's home leads to it
    assert 'href="/operator/tables/CA2/canasta/"' in asker.get("/operator/").content.decode()
