"""A canasta table's configuration (preset, physical or virtual deals, stake limits, house fee)
through four eyes: an operator asks, a second operator approves, and the change takes effect from
the next game; the requester never decides; a refusal writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from cardroom.models import CanastaTableSettings
from cardroom.services import canasta_config_change, canasta_config_decide, canasta_game_open
from cardroom.services.config import canasta_config_current, canasta_config_values
from casino.errors import ServiceError
from casino.models import Approval, AuditRecord, RuleSet, Table
from tables.services import Actor
from tests.factories import staff_user


def code_of(call: Any, **kwargs: Any) -> str:
    with pytest.raises(ServiceError) as refused:
        call(**kwargs)
    return refused.value.code


def written() -> tuple[int, int, int]:
    return CanastaTableSettings.objects.count(), Approval.objects.count(), AuditRecord.objects.count()


@pytest.fixture
def second_operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-2")


@pytest.mark.django_db
def test_a_change_waits_for_a_second_operator_and_applies_from_the_next_game(
    canasta_table, operator, second_operator, host
):
    before = canasta_config_values(canasta_table)
    previous = canasta_config_current(canasta_table)
    open_game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)

    approval = canasta_config_change(
        table=canasta_table,
        actor=Actor.staff(operator),
        changes={"fee_kind": "pot_share", "fee_basis_points": 250, "stake_max_minor": 10_000},
        reason="the posted fee schedule",
    )

    # it waits: the changed fields before and after, nothing applied
    assert isinstance(approval, Approval)
    assert (approval.kind, approval.subject_type, approval.subject_id, approval.place, approval.status) == (
        "canasta_config",
        "tables.table",
        str(canasta_table.pk),
        "CA1",
        "pending",
    )
    assert (approval.before, approval.after) == (
        {"fee_kind": "none", "fee_basis_points": 0},
        {"fee_kind": "pot_share", "fee_basis_points": 250},
    )
    assert (approval.requested_by_id, approval.request_reason) == (operator.pk, "the posted fee schedule")
    assert canasta_config_values(canasta_table) == before
    proposed = AuditRecord.objects.get(action="table.canasta_config_proposed")
    assert proposed.after["weakens"] == ["fee_kind"]

    version = canasta_config_decide(approval_id=approval.pk, actor=Actor.staff(second_operator), approve=True)

    assert version is not None and version == canasta_config_current(canasta_table)
    assert previous is not None
    assert (version.number, version.fee_kind, version.fee_basis_points) == (
        previous.number + 1,
        "pot_share",
        250,
    )
    assert (version.created_by_id, version.approval_id) == (operator.pk, approval.pk)
    approval.refresh_from_db()
    assert (approval.status, approval.decided_by_id) == ("approved", second_operator.pk)
    record = AuditRecord.objects.get(action="table.canasta_config_approved")
    assert (record.before["fee_basis_points"], record.after["fee_basis_points"]) == (0, 250)
    assert record.after["approval_id"] == approval.pk
    # the game already open keeps what it agreed; the next one copies the new version
    open_game.refresh_from_db()
    assert (open_game.fee_kind, open_game.fee_basis_points) == ("none", 0)


@pytest.mark.django_db
def test_the_requester_never_decides_and_nothing_is_written(canasta_table, operator):
    approval = canasta_config_change(
        table=canasta_table, actor=Actor.staff(operator), changes={"fee_kind": "per_deal", "fee_minor": 50}
    )
    counts = written()

    assert code_of(
        canasta_config_decide, approval_id=approval.pk, actor=Actor.staff(operator), approve=True
    ) == ("four_eyes_required")
    assert (
        code_of(
            canasta_config_decide,
            approval_id=approval.pk,
            actor=Actor.staff(operator),
            approve=False,
            reason="no",
        )
        == "four_eyes_required"
    )

    assert written() == counts
    approval.refresh_from_db()
    assert approval.status == "pending"


@pytest.mark.django_db
def test_operators_ask_and_the_pits_supervisors_decide(canasta_table, operator, host, pit_boss):
    counts = written()
    assert code_of(
        canasta_config_change, table=canasta_table, actor=Actor.staff(pit_boss), changes={"fee_minor": 5}
    ) == ("permission_denied")
    assert code_of(
        canasta_config_change, table=canasta_table, actor=Actor.staff(host), changes={"fee_minor": 5}
    ) == ("permission_denied")
    assert written() == counts
    approval = canasta_config_change(
        table=canasta_table, actor=Actor.staff(operator), changes={"fee_minor": 5}
    )
    counts = written()

    assert code_of(canasta_config_decide, approval_id=approval.pk, actor=Actor.staff(host), approve=True) == (
        "permission_denied"
    )
    assert written() == counts

    # The pit's supervisors decide, as they do a blackjack table's change.
    version = canasta_config_decide(approval_id=approval.pk, actor=Actor.staff(pit_boss), approve=True)
    assert version is not None and version.fee_minor == 5


@pytest.mark.django_db
def test_a_rejection_needs_a_reason_and_changes_nothing(canasta_table, operator, second_operator):
    before = canasta_config_values(canasta_table)
    approval = canasta_config_change(
        table=canasta_table, actor=Actor.staff(operator), changes={"max_loss_points": 2_000}
    )
    counts = written()
    assert code_of(
        canasta_config_decide, approval_id=approval.pk, actor=Actor.staff(second_operator), approve=False
    ) == ("reason_required")
    assert written() == counts

    decided = canasta_config_decide(
        approval_id=approval.pk, actor=Actor.staff(second_operator), approve=False, reason="holds too small"
    )

    assert decided is None and canasta_config_values(canasta_table) == before
    approval.refresh_from_db()
    assert (approval.status, approval.decision_reason) == ("rejected", "holds too small")
    record = AuditRecord.objects.get(action="table.canasta_config_rejected")
    assert (record.before["max_loss_points"], record.after["max_loss_points"]) == (10_000, 2_000)
    assert code_of(
        canasta_config_decide, approval_id=approval.pk, actor=Actor.staff(second_operator), approve=True
    ) == ("approval_decided")


@pytest.mark.django_db
def test_one_change_waits_at_a_time_and_a_change_must_change_something(canasta_table, operator):
    canasta_config_change(table=canasta_table, actor=Actor.staff(operator), changes={"fee_minor": 5})
    counts = written()

    assert code_of(
        canasta_config_change, table=canasta_table, actor=Actor.staff(operator), changes={"fee_minor": 7}
    ) == ("approval_pending")
    assert code_of(
        canasta_config_change,
        table=Table.objects.get(name="CA2"),
        actor=Actor.staff(operator),
        changes={"deal_kind": "physical"},
    ) == ("no_change")
    assert written() == counts


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stake_points": 10}, "per point"),
        ({"stake_min_minor": 0}, "stake_min_minor"),
        ({"stake_min_minor": 500, "stake_max_minor": 100}, "minimum is above"),
        ({"fee_kind": "rake"}, "fee_kind"),
        ({"fee_basis_points": 10_001}, "fee_basis_points"),
        ({"deal_kind": "robot"}, "deal_kind"),
        ({"teams": 3}, "partnerships"),
        ({"boxes": 3}, "unknown"),
        ({"rule_set_version": 0}, "approved canasta rule set version"),
    ],
)
@pytest.mark.django_db
def test_a_change_no_game_could_be_played_with_is_refused(canasta_table, operator, changes, message):
    counts = written()
    with pytest.raises(ServiceError) as refused:
        canasta_config_change(table=canasta_table, actor=Actor.staff(operator), changes=changes)

    assert refused.value.code == "invalid_configuration" and message in refused.value.message
    assert written() == counts


@pytest.mark.django_db
def test_the_preset_is_changed_with_the_configuration(canasta_table, operator, second_operator, host):
    pl4 = RuleSet.objects.get(game="canasta", name="pl4").current_version()
    blackjack = RuleSet.objects.get(game="blackjack", name="live-american").current_version()
    assert code_of(
        canasta_config_change,
        table=canasta_table,
        actor=Actor.staff(operator),
        changes={"rule_set_version": blackjack},
    ) == ("invalid_configuration")

    approval = canasta_config_change(
        table=canasta_table, actor=Actor.staff(operator), changes={"rule_set_version": pl4}
    )
    assert approval.after == {"rule_set_version": pl4.pk}
    canasta_config_decide(approval_id=approval.pk, actor=Actor.staff(second_operator), approve=True)

    game = canasta_game_open(table=canasta_table, actor=Actor.staff(host), stake_minor=100)
    assert (game.preset, game.rule_set_version_id) == ("pl4", pl4.pk)


@pytest.mark.django_db
def test_a_blackjack_table_has_no_canasta_configuration(seeded, operator):
    counts = written()

    assert code_of(
        canasta_config_change, table=Table.objects.get(name="BJ1"), actor=Actor.staff(operator), changes={}
    ) == ("not_a_canasta_table")
    assert written() == counts


@pytest.mark.django_db
def test_the_system_writes_a_version_at_once(canasta_table):
    version = canasta_config_change(
        table=canasta_table, actor=Actor.automatic("seed"), changes={"stake_max_minor": 20_000}
    )

    assert isinstance(version, CanastaTableSettings)
    assert (version.stake_max_minor, version.approval_id, version.created_by_id) == (20_000, None, None)
    assert AuditRecord.objects.filter(action="table.canasta_settings_changed").latest("pk").after[
        "stake_max_minor"
    ] == (20_000)
