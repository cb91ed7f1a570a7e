"""Configuration through four eyes (tables.services.config on casino.four_eyes): a change that
weakens a control (policy: casino/controls.toml) or moves a limit beyond the step waits as an
approval of kind ``table_config``; every rule-set and paytable version waits as one too. The
requester never decides; a rule-set version is approved with its house edge known; a refusal
writes nothing (no version, no approval, no audit record)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from casino.jobs import job_run
from casino.models import Approval, AuditRecord, BackgroundJob, RuleSet, RuleSetVersion, Table
from tables.models import SideBetPaytable, SideBetPaytableVersion, TableConfigProposal, TableConfigVersion
from tables.odds_jobs import MAIN_GAME_ODDS, main_game_edge
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
    table_settings_change,
)
from tables.services.config import limit_change_approval_step_minor
from tests.factories import staff_user
from tests.tables.conftest import refused


@pytest.fixture
def bj2(seeded: Any) -> Table:
    return Table.objects.get(name="BJ2")


@pytest.fixture
def bj3(seeded: Any) -> Table:
    return Table.objects.get(name="BJ3")


@pytest.fixture
def second_operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-2")


def _written() -> tuple[Any, ...]:
    """Everything a configuration command writes, to compare before and after a refusal."""
    return (
        AuditRecord.objects.count(),
        TableConfigVersion.objects.count(),
        TableConfigProposal.objects.count(),
        list(TableConfigProposal.objects.values_list("pk", "status").order_by("pk")),
        RuleSetVersion.objects.count(),
        list(RuleSetVersion.objects.values_list("pk", "approved_at").order_by("pk")),
        SideBetPaytableVersion.objects.count(),
        list(SideBetPaytableVersion.objects.values_list("pk", "approved_at").order_by("pk")),
        list(Approval.objects.values_list("pk", "status", "decided_by").order_by("pk")),
    )


# ------------------------------------------------------------------------------------ table changes


@pytest.mark.django_db
def test_a_limit_change_within_the_step_is_a_version_at_once(bj2, operator):
    before = table_config_current(bj2)
    step = limit_change_approval_step_minor()
    version = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": before.main_max_minor + step}
    )
    assert version.number == before.number + 1
    assert version.main_max_minor == before.main_max_minor + step
    # applied on its author's word: no approval, nothing waits
    assert version.created_by == operator and version.approved_by == operator and version.approval is None
    assert table_config_current(bj2).pk == version.pk
    assert Approval.objects.count() == 0


@pytest.mark.django_db
def test_raising_the_payout_approval_threshold_waits_for_a_second_person(bj3, operator, pit_boss, dealer):
    # given BJ3, whose payouts above 10,000.00 wait for a pit boss
    before = table_config_current(bj3)
    assert before.payout_approval_threshold_minor == 1_000_000
    # when the operator raises the threshold to 10,000,000.00
    proposal = table_settings_change(
        table=bj3, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 1_000_000_000}
    )
    # then nothing applies: the change waits as a table_config approval with its values
    assert isinstance(proposal, TableConfigProposal) and proposal.status == "pending"
    assert table_config_current(bj3).pk == before.pk
    approval = Approval.objects.get()
    assert proposal.approval == approval
    assert (approval.kind, approval.subject_type, approval.subject_id) == (
        "table_config",
        "tables.tableconfigproposal",
        str(proposal.pk),
    )
    assert approval.before == {"payout_approval_threshold_minor": 1_000_000}
    assert approval.after == {"payout_approval_threshold_minor": 1_000_000_000}
    assert (approval.status, approval.requested_by, approval.place) == ("pending", operator, "BJ3")
    record = AuditRecord.objects.filter(action="table.config_proposed").get()
    assert record.after == {
        "table": "BJ3",
        "payout_approval_threshold_minor": 1_000_000_000,
        "waits_for": ["payout_approval_threshold_minor"],
        "approval_id": approval.pk,
    }
    # and its requester cannot approve it, nor a dealer; nothing is written by either
    written = _written()
    refused(
        "four_eyes_required", table_config_proposal_approve, proposal=proposal, actor=Actor.staff(operator)
    )
    refused("permission_denied", table_config_proposal_approve, proposal=proposal, actor=Actor.staff(dealer))
    assert _written() == written
    # when the pit boss approves it
    version = table_config_proposal_approve(proposal=proposal, actor=Actor.staff(pit_boss))
    # then it is the next version, made by the operator and approved by the pit boss
    assert version.payout_approval_threshold_minor == 1_000_000_000
    assert (version.created_by, version.approved_by, version.approval_id) == (operator, pit_boss, approval.pk)
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by) == ("approved", pit_boss)
    assert version.approved_at == approval.decided_at
    proposal.refresh_from_db()
    assert proposal.status == "approved" and proposal.version == version
    approved = AuditRecord.objects.filter(action="table.config_approved").get()
    assert approved.object_id == str(version.pk)
    assert (
        approved.after["approval_id"] == approval.pk and approved.after["requested_by"] == operator.username
    )
    # and it is decided once
    refused("approval_decided", table_config_proposal_approve, proposal=proposal, actor=Actor.staff(pit_boss))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "weaker", "stronger"),
    [
        ("payout_approval_threshold_minor", 2_000_000, 500_000),
        ("shoe_kind", "physical", None),
        ("dealer_records_decisions", True, None),
        ("shuffle_every_rounds", 6, 4),
    ],
)
def test_a_change_that_weakens_a_control_waits_and_one_that_strengthens_it_applies(
    bj2, operator, field, weaker, stronger
):
    current = table_config_current(bj2)
    # the seeded BJ2: a virtual shoe, players deciding at their terminals, a shuffle every 5 rounds
    assert (current.shoe_kind, current.dealer_records_decisions, current.shuffle_every_rounds) == (
        "virtual",
        False,
        5,
    )
    if stronger is not None:
        version = table_settings_change(table=bj2, actor=Actor.staff(operator), settings={field: stronger})
        assert isinstance(version, TableConfigVersion) and version.approval is None
        assert getattr(table_config_current(bj2), field) == stronger
    applied = table_config_current(bj2)
    waiting = table_settings_change(table=bj2, actor=Actor.staff(operator), settings={field: weaker})
    assert isinstance(waiting, TableConfigProposal)
    assert Approval.objects.get().after == {field: weaker}
    assert table_config_current(bj2).pk == applied.pk


@pytest.mark.django_db
def test_the_way_back_from_a_weaker_setting_applies_at_once(bj2, operator, pit_boss):
    # given BJ2 moved to a physical shoe with the dealer entering decisions, approved
    weaker = table_settings_change(
        table=bj2,
        actor=Actor.staff(operator),
        settings={"shoe_kind": "physical", "dealer_records_decisions": True},
    )
    table_config_proposal_approve(proposal=weaker, actor=Actor.staff(pit_boss))
    # when the operator goes back to the virtual shoe and the terminals
    version = table_settings_change(
        table=bj2,
        actor=Actor.staff(operator),
        settings={"shoe_kind": "virtual", "dealer_records_decisions": False},
    )
    # then it is a version at once
    assert isinstance(version, TableConfigVersion) and version.shoe_kind == "virtual"
    assert version.approval is None and Approval.objects.filter(status="pending").count() == 0


@pytest.mark.django_db
def test_a_limit_raised_above_the_step_waits_and_no_other_change_is_made_meanwhile(
    bj2, operator, pit_boss, dealer
):
    before = table_config_current(bj2)
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": 1_000_000}
    )
    assert isinstance(proposal, TableConfigProposal) and proposal.changes == {"main_max_minor": 1_000_000}
    assert proposal.approval.before == {"main_max_minor": 500_000}
    record = AuditRecord.objects.filter(action="table.config_proposed").get()
    assert record.before == {"table": "BJ2", "main_max_minor": 500_000}
    assert record.after["waits_for"] == ["main_max_minor"]
    written = _written()
    refused(
        "config_change_pending",
        table_limits_change,
        table=bj2,
        actor=Actor.staff(operator),
        limits={"main_min_minor": 600},
    )
    assert _written() == written
    version = table_config_proposal_approve(proposal=proposal, actor=Actor.staff(pit_boss))
    assert version.number == before.number + 1 and version.main_max_minor == 1_000_000
    assert version.main_min_minor == before.main_min_minor
    # and BJ2's next round runs with it
    shoe_shuffle(table=bj2, actor=Actor.staff(dealer))
    assert round_open(table=bj2, actor=Actor.staff(dealer)).config_id == version.pk


@pytest.mark.django_db
def test_a_rejected_proposal_leaves_the_table_as_it_was(bj2, operator, pit_boss):
    before = table_config_current(bj2)
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"behind_max_minor": 900_000}
    )
    written = _written()
    refused(
        "reason_required",
        table_config_proposal_reject,
        proposal=proposal,
        actor=Actor.staff(pit_boss),
        reason="  ",
    )
    assert _written() == written
    rejected = table_config_proposal_reject(
        proposal=proposal, actor=Actor.staff(pit_boss), reason="too high for BJ2"
    )
    assert rejected.status == "rejected" and rejected.version is None
    assert (rejected.approval.status, rejected.approval.decided_by, rejected.approval.decision_reason) == (
        "rejected",
        pit_boss,
        "too high for BJ2",
    )
    assert table_config_current(bj2).pk == before.pk
    record = AuditRecord.objects.filter(action="table.config_rejected").get()
    assert record.after["reason"] == "too high for BJ2" and record.after["status"] == "rejected"
    # the table can be changed again
    version = table_limits_change(table=bj2, actor=Actor.staff(operator), limits={"main_min_minor": 600})
    assert version.number == before.number + 1


@pytest.mark.django_db
def test_the_requester_cannot_reject_their_own_change_either(bj2, operator, second_operator):
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": 2_000_000}
    )
    written = _written()
    refused(
        "four_eyes_required",
        table_config_proposal_reject,
        proposal=proposal,
        actor=Actor.staff(operator),
        reason="typo",
    )
    assert _written() == written
    # another operator rejects it for them
    rejected = table_config_proposal_reject(
        proposal=proposal, actor=Actor.staff(second_operator), reason="typo"
    )
    assert rejected.approval.decided_by == second_operator


@pytest.mark.django_db
def test_an_invalid_change_is_refused_before_anything_waits(bj2, operator):
    written = _written()
    refused(
        "invalid_configuration",
        table_config_change,
        table=bj2,
        actor=Actor.staff(operator),
        changes={"main_min_minor": 5_000_000, "payout_approval_threshold_minor": 9_000_000},
    )
    assert _written() == written


@pytest.mark.django_db
def test_the_database_refuses_one_person_as_maker_and_approver_of_what_waited(bj2, operator, pit_boss):
    proposal = table_limits_change(
        table=bj2, actor=Actor.staff(operator), limits={"main_max_minor": 1_000_000}
    )
    version = table_config_proposal_approve(proposal=proposal, actor=Actor.staff(pit_boss))
    with pytest.raises(IntegrityError), transaction.atomic():
        TableConfigVersion.objects.filter(pk=version.pk).update(approved_by=operator)
    draft = rule_set_version_create(
        rule_set=bj2.rule_set,
        options=dict(bj2.rule_set.current_version().options),
        actor=Actor.staff(operator),
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleSetVersion.objects.filter(pk=draft.pk).update(approved_by=operator)


# ------------------------------------------------------------------------------------ rule-set versions


@pytest.mark.django_db
def test_a_rule_set_version_waits_with_its_house_edge_and_another_person_approves_it(
    bj2, operator, second_operator, pit_boss
):
    rule_set = bj2.rule_set
    current = rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=rule_set,
        options={**current.options, "resplit_aces": True},
        actor=Actor.staff(operator),
        source="resplit aces as the pit asked",
    )
    assert draft.created_by == operator and draft.approved_at is None
    approval = draft.approval
    assert (approval.kind, approval.subject_id, approval.status) == (
        "rule_set_version",
        str(draft.pk),
        "pending",
    )
    assert approval.before == current.options and approval.after["resplit_aces"] is True
    assert approval.request_reason == "resplit aces as the pit asked"
    # its edge was computed as it was made (the tests run jobs at once)
    edge = main_game_edge(draft)
    assert edge is not None and 0 < edge < 0.01
    written = _written()
    refused("four_eyes_required", rule_set_version_approve, version=draft, actor=Actor.staff(operator))
    assert _written() == written
    assert rule_set.current_version().pk == current.pk
    # another operator approves it (operators supervise the pit too)
    approved = rule_set_version_approve(version=draft, actor=Actor.staff(second_operator))
    assert approved.approved_by == second_operator and rule_set.current_version().pk == draft.pk
    assert (approved.approval.status, approved.approval.decided_by) == ("approved", second_operator)
    record = AuditRecord.objects.filter(action="ruleset.version_approved", object_id=str(draft.pk)).get()
    assert record.after["house_edge"] == f"{float(edge):.6f}" and record.after["approval_id"] == approval.pk
    refused("approval_decided", rule_set_version_approve, version=approved, actor=Actor.staff(pit_boss))


@pytest.mark.django_db
def test_a_rule_set_version_is_not_approved_before_its_house_edge_is_known(bj2, operator, pit_boss, settings):
    # given the jobs run after the commit, as in production: the draft's edge job is queued
    settings.BACKGROUND_JOBS_INLINE = False
    draft = rule_set_version_create(
        rule_set=bj2.rule_set,
        options={**bj2.rule_set.current_version().options, "dealer_hits_soft_17": True},
        actor=Actor.staff(operator),
    )
    job = BackgroundJob.objects.get(kind=MAIN_GAME_ODDS, params__rule_set_version=draft.pk)
    assert job.status == "queued" and main_game_edge(draft) is None
    # when the pit boss approves it: refused, and nothing is written
    written = _written()
    error = refused(
        "house_edge_not_computed", rule_set_version_approve, version=draft, actor=Actor.staff(pit_boss)
    )
    assert "not computed" in error.message
    assert _written() == written
    draft.refresh_from_db()
    assert draft.approved_at is None and draft.approval.status == "pending"
    # once the job has run, the same approval goes through
    job_run(job.pk)
    approved = rule_set_version_approve(version=draft, actor=Actor.staff(pit_boss))
    assert approved.approved_by == pit_boss


@pytest.mark.django_db
def test_a_rejected_rule_set_version_stays_rejected_and_audited(bj2, operator, pit_boss):
    rule_set = bj2.rule_set
    current = rule_set.current_version()
    draft = rule_set_version_create(
        rule_set=rule_set, options={**current.options, "even_money": True}, actor=Actor.staff(operator)
    )
    written = _written()
    refused("reason_required", rule_set_version_reject, version=draft, actor=Actor.staff(pit_boss), reason="")
    assert _written() == written
    rejected = rule_set_version_reject(version=draft, actor=Actor.staff(pit_boss), reason="not offered here")
    assert rejected.approved_at is None and rejected.approval.status == "rejected"
    assert rejected.approval.decision_reason == "not offered here"
    assert rule_set.current_version().pk == current.pk
    record = AuditRecord.objects.filter(action="ruleset.version_rejected", object_id=str(draft.pk)).get()
    assert record.before["options"]["even_money"] is True and record.after["reason"] == "not offered here"
    refused("approval_decided", rule_set_version_approve, version=rejected, actor=Actor.staff(pit_boss))
    # the next version takes the next number
    following = rule_set_version_create(
        rule_set=rule_set, options=dict(current.options), actor=Actor.staff(operator)
    )
    assert following.number == rejected.number + 1


@pytest.mark.django_db
def test_a_seeded_version_waited_for_nobody_and_is_not_decided_again(bj2, pit_boss):
    seeded_version = bj2.rule_set.current_version()
    assert seeded_version.approval is None and seeded_version.created_by is None
    written = _written()
    refused("approval_decided", rule_set_version_approve, version=seeded_version, actor=Actor.staff(pit_boss))
    assert _written() == written


@pytest.mark.django_db
def test_a_canasta_rule_set_version_needs_no_house_edge(seeded, operator, pit_boss):
    rule_set = RuleSet.objects.get(game="canasta", name="classic4")
    draft = rule_set_version_create(
        rule_set=rule_set, options=dict(rule_set.current_version().options), actor=Actor.staff(operator)
    )
    assert not BackgroundJob.objects.filter(kind=MAIN_GAME_ODDS, params__rule_set_version=draft.pk).exists()
    assert rule_set_version_approve(version=draft, actor=Actor.staff(pit_boss)).approved_by == pit_boss


# ------------------------------------------------------------------------------------ paytable versions


@pytest.mark.django_db
def test_a_paytable_version_needs_a_second_person(seeded, operator, pit_boss, dealer):
    paytable = SideBetPaytable.objects.filter(kind="perfect_pairs").order_by("pk").first()
    current = paytable.current_version()
    draft = paytable_version_create(
        paytable=paytable, payouts={"perfect": 30, "coloured": 10, "mixed": 5}, actor=Actor.staff(operator)
    )
    assert draft.approval.kind == "paytable_version" and draft.approval.before == current.payouts
    written = _written()
    refused("four_eyes_required", paytable_version_approve, version=draft, actor=Actor.staff(operator))
    refused("permission_denied", paytable_version_approve, version=draft, actor=Actor.staff(dealer))
    assert _written() == written
    approved = paytable_version_approve(version=draft, actor=Actor.staff(pit_boss))
    assert approved.approved_by == pit_boss and paytable.current_version().pk == draft.pk
    assert approved.approval.decided_by == pit_boss
    other = paytable_version_create(
        paytable=paytable, payouts={"perfect": 20, "coloured": 10, "mixed": 5}, actor=Actor.staff(operator)
    )
    rejected = paytable_version_reject(version=other, actor=Actor.staff(pit_boss), reason="edge too high")
    assert rejected.approval.status == "rejected" and paytable.current_version().pk == draft.pk
