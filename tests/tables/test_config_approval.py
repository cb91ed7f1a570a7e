"""A second person's approval of configuration: limit changes above the step become proposals,
rule-set and paytable versions are drafts until a pit boss or another operator approves them; the
author never approves their own, and a refusal changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import AuditRecord
from tables.models import RuleSetVersion, SideBetPaytable, SideBetPaytableVersion, Table, TableConfigProposal
from tables.services import (
    Actor,
    paytable_version_approve,
    paytable_version_create,
    paytable_version_reject,
    round_open,
    rule_set_version_approve,
    rule_set_version_create,
    rule_set_version_reject,
    shoe_shuffle,
    table_config_change,
    table_config_current,
    table_config_proposal_approve,
    table_config_proposal_reject,
    table_limits_change,
)
from tables.services.config import limit_change_approval_step_minor
from tests.factories import staff_user
from tests.tables.conftest import refused


@pytest.fixture
def bj2(seeded: Any) -> Table:
    return Table.objects.get(name="BJ2")


@pytest.fixture
def second_operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-2")


def _counts() -> tuple[int, int, int]:
    return (
        AuditRecord.objects.count(),
        TableConfigProposal.objects.count(),
        RuleSetVersion.objects.count() + SideBetPaytableVersion.objects.count(),
    )


@pytest.mark.django_db
def test_a_limit_change_within_the_step_is_a_version_at_once(bj2, operator):
    before = table_config_current(bj2)
    step = limit_change_approval_step_minor()
    version = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": before.main_max_minor + step}
    )
    assert version.number == before.number + 1
    assert version.main_max_minor == before.main_max_minor + step
    assert version.created_by == operator and version.approved_by == operator
    assert table_config_current(bj2).pk == version.pk


@pytest.mark.django_db
def test_a_limit_raised_above_the_step_waits_for_a_second_person(bj2, operator, pit_boss, dealer):
    # given BJ2 at its seeded main maximum
    before = table_config_current(bj2)
    # when the operator raises it by more than the step
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": 1_000_000}
    )
    # then nothing changes yet: a proposal waits, audited
    assert isinstance(proposal, TableConfigProposal)
    assert proposal.status == "pending" and proposal.changes == {"main_max_minor": 1_000_000}
    assert table_config_current(bj2).pk == before.pk
    record = AuditRecord.objects.filter(action="table.config_proposed").last()
    assert record.object_id == str(proposal.pk)
    assert record.before == {"table": "BJ2", "main_max_minor": 500_000}
    assert record.after == {"table": "BJ2", "main_max_minor": 1_000_000}
    # and the author cannot approve it
    error = refused(
        "approval_by_requester_refused",
        table_config_proposal_approve,
        proposal=proposal,
        actor=Actor.staff(operator),
    )
    assert "second person" in error.message
    # nor can a dealer
    refused("permission_denied", table_config_proposal_approve, proposal=proposal, actor=Actor.staff(dealer))
    # and no other change is made while it waits
    refused(
        "config_change_pending",
        table_limits_change,
        table=bj2,
        actor=Actor.staff(operator),
        limits={"main_min_minor": 600},
    )
    assert table_config_current(bj2).pk == before.pk
    # when the pit boss approves it
    version = table_config_proposal_approve(proposal=proposal, actor=Actor.staff(pit_boss))
    # then it is the next version, made by the operator and approved by the pit boss
    assert version.number == before.number + 1 and version.main_max_minor == 1_000_000
    assert version.created_by == operator and version.approved_by == pit_boss
    assert version.main_min_minor == before.main_min_minor
    proposal.refresh_from_db()
    assert proposal.status == "approved" and proposal.version == version and proposal.decided_by == pit_boss
    assert AuditRecord.objects.filter(action="table.config_approved", object_id=str(version.pk)).exists()
    # and BJ2's next round runs with it
    shoe_shuffle(table=bj2, actor=Actor.staff(dealer))
    round_ = round_open(table=bj2, actor=Actor.staff(dealer))
    assert round_.config_id == version.pk
    # and a decided proposal is not decided again
    refused("proposal_decided", table_config_proposal_approve, proposal=proposal, actor=Actor.staff(pit_boss))


@pytest.mark.django_db
def test_a_rejected_proposal_leaves_the_table_as_it_was(bj2, operator, pit_boss):
    before = table_config_current(bj2)
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"behind_max_minor": 900_000}
    )
    counts = _counts()
    refused(
        "reason_required",
        table_config_proposal_reject,
        proposal=proposal,
        actor=Actor.staff(pit_boss),
        reason="  ",
    )
    assert _counts() == counts
    rejected = table_config_proposal_reject(
        proposal=proposal, actor=Actor.staff(pit_boss), reason="too high for BJ2"
    )
    assert rejected.status == "rejected" and rejected.decision_reason == "too high for BJ2"
    assert table_config_current(bj2).pk == before.pk
    # the table can be changed again
    version = table_limits_change(table=bj2, actor=Actor.staff(operator), limits={"main_min_minor": 600})
    assert version.number == before.number + 1


@pytest.mark.django_db
def test_the_proposer_may_withdraw_their_own_proposal(bj2, operator, second_operator):
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": 2_000_000}
    )
    withdrawn = table_config_proposal_reject(proposal=proposal, actor=Actor.staff(operator), reason="typo")
    assert withdrawn.status == "rejected" and withdrawn.decided_by == operator


@pytest.mark.django_db
def test_an_invalid_change_is_refused_before_any_proposal(bj2, operator):
    counts = _counts()
    refused(
        "invalid_configuration",
        table_config_change,
        table=bj2,
        actor=Actor.staff(operator),
        changes={"main_min_minor": 5_000_000},
    )
    assert _counts() == counts


@pytest.mark.django_db
def test_a_rule_set_version_needs_a_second_person(bj2, operator, second_operator, pit_boss):
    rule_set = bj2.rule_set
    current = rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=rule_set, options={**current.options, "resplit_aces": True}, actor=Actor.staff(operator)
    )
    assert draft.created_by == operator and draft.approved_at is None
    counts = _counts()
    refused(
        "approval_by_requester_refused", rule_set_version_approve, version=draft, actor=Actor.staff(operator)
    )
    assert _counts() == counts
    assert rule_set.current_version().pk == current.pk
    # another operator approves it (operators supervise the pit too)
    approved = rule_set_version_approve(version=draft, actor=Actor.staff(second_operator))
    assert approved.approved_by == second_operator and rule_set.current_version().pk == draft.pk
    refused("version_immutable", rule_set_version_approve, version=approved, actor=Actor.staff(pit_boss))


@pytest.mark.django_db
def test_a_rejected_rule_set_version_is_removed_and_audited(bj2, operator, pit_boss):
    rule_set = bj2.rule_set
    current = rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=rule_set, options={**current.options, "even_money": True}, actor=Actor.staff(operator)
    )
    draft_id = draft.pk
    rule_set_version_reject(version=draft, actor=Actor.staff(pit_boss), reason="not offered here")
    assert not RuleSetVersion.objects.filter(pk=draft_id).exists()
    record = AuditRecord.objects.filter(action="ruleset.version_rejected").last()
    assert record.before["options"]["even_money"] is True and record.after == {"reason": "not offered here"}


@pytest.mark.django_db
def test_a_paytable_version_needs_a_second_person(seeded, operator, pit_boss, dealer):
    paytable = SideBetPaytable.objects.filter(kind="perfect_pairs").order_by("pk").first()
    draft = paytable_version_create(
        paytable=paytable, payouts={"perfect": 30, "coloured": 10, "mixed": 5}, actor=Actor.staff(operator)
    )
    refused(
        "approval_by_requester_refused", paytable_version_approve, version=draft, actor=Actor.staff(operator)
    )
    refused("permission_denied", paytable_version_approve, version=draft, actor=Actor.staff(dealer))
    approved = paytable_version_approve(version=draft, actor=Actor.staff(pit_boss))
    assert approved.approved_by == pit_boss and paytable.current_version().pk == draft.pk
    other = paytable_version_create(
        paytable=paytable, payouts={"perfect": 20, "coloured": 10, "mixed": 5}, actor=Actor.staff(operator)
    )
    paytable_version_reject(version=other, actor=Actor.staff(pit_boss), reason="edge too high")
    assert not SideBetPaytableVersion.objects.filter(pk=other.pk).exists()
