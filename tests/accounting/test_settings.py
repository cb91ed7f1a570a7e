"""The accounting settings: a change that weakens a control (a threshold raised, the hold band
widened) waits for the accounting office's approval; a change that weakens nothing applies at
once; both audited with the values before and after."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from accounting.models import AccountingSettings
from accounting.selectors import chip_values, settings_change_waiting, settings_of
from accounting.services import accounting_configure, accounting_settings_change, accounting_settings_decide
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Approval, AuditRecord, Table
from tests.accounting.conftest import snapshot

pytestmark = pytest.mark.django_db

SHIFTS = ["06:00", "14:00", "22:00"]


def values(table: Table) -> dict[str, int]:
    settings = settings_of(table.casino)
    return {
        name: getattr(settings, name)
        for name in (
            "variance_threshold_minor",
            "hold_band_low_bp",
            "hold_band_high_bp",
            "hold_band_sigmas",
            "mtl_threshold_minor",
            "large_cash_threshold_minor",
        )
    }


DEFAULTS = {
    "variance_threshold_minor": 0,
    "hold_band_low_bp": 500,
    "hold_band_high_bp": 3_000,
    "hold_band_sigmas": 3,
    "mtl_threshold_minor": 300_000,
    "large_cash_threshold_minor": 1_000_000,
}


def test_a_change_that_weakens_nothing_applies_at_once(table: Table, operator: Any) -> None:
    change = accounting_settings_change(
        casino=table.casino,
        shift_starts=SHIFTS,
        hold_band_low_bp=800,  # a narrower band alerts more
        hold_band_sigmas=2,
        mtl_threshold_minor=250_000,  # more transactions logged
        actor=Actor.staff(operator),
    )
    assert change.waiting is None
    assert values(table) == {
        **DEFAULTS,
        "hold_band_low_bp": 800,
        "hold_band_sigmas": 2,
        "mtl_threshold_minor": 250_000,
    }
    record = AuditRecord.objects.filter(action="accounting.settings_changed").latest("sequence")
    assert (record.before["hold_band_low_bp"], record.after["hold_band_low_bp"], record.after["waiting"]) == (
        500,
        800,
        None,
    )
    assert not Approval.objects.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("variance_threshold_minor", 2_000),
        ("hold_band_low_bp", 200),
        ("hold_band_high_bp", 4_000),
        ("hold_band_sigmas", 4),
        ("mtl_threshold_minor", 500_000),
        ("large_cash_threshold_minor", 2_000_000),
    ],
)
def test_a_change_that_weakens_a_control_waits_for_the_accounting_office(
    table: Table, operator: Any, accountant: Any, field: str, value: int
) -> None:
    # when the operator weakens one control and moves the shift times in the same change
    change = accounting_settings_change(
        casino=table.casino, shift_starts=["06:00", "18:00"], actor=Actor.staff(operator), **{field: value}
    )
    # then nothing of the thresholds applies (the shift times do): it waits, before and after
    waiting = change.waiting
    assert waiting is not None and waiting == settings_change_waiting(table.casino)
    assert (waiting.kind, waiting.status, waiting.requested_by, waiting.before, waiting.after) == (
        "accounting_settings",
        "pending",
        operator,
        {field: DEFAULTS[field]},
        {field: value},
    )
    assert values(table) == DEFAULTS
    assert settings_of(table.casino).shift_starts == ["06:00", "18:00"]
    record = AuditRecord.objects.filter(action="accounting.settings_changed").latest("sequence")
    assert record.after["waiting"]["approval_id"] == waiting.pk
    assert record.after["waiting"]["after"] == {field: value}
    # and the accounting office approves it: it applies, audited before and after
    accounting_settings_decide(
        casino=table.casino, approval_id=waiting.pk, actor=Actor.staff(accountant), approve=True
    )
    assert values(table) == {**DEFAULTS, field: value}
    approved = AuditRecord.objects.filter(action="accounting.settings_change_approved").get()
    assert (approved.actor_name, approved.before, approved.after[field]) == (
        "accountant-1",
        {field: DEFAULTS[field]},
        value,
    )
    assert settings_change_waiting(table.casino) is None


def test_the_whole_change_of_the_thresholds_waits_when_part_of_it_weakens_a_control(
    table: Table, operator: Any, accountant: Any
) -> None:
    change = accounting_settings_change(
        casino=table.casino,
        shift_starts=SHIFTS,
        mtl_threshold_minor=200_000,  # stronger
        large_cash_threshold_minor=3_000_000,  # weaker
        actor=Actor.staff(operator),
    )
    assert change.waiting is not None
    assert change.waiting.after == {"mtl_threshold_minor": 200_000, "large_cash_threshold_minor": 3_000_000}
    assert values(table) == DEFAULTS
    # rejected with a reason, the settings stay as they were
    before = snapshot()
    with pytest.raises(ServiceError) as no_reason:
        accounting_settings_decide(
            casino=table.casino, approval_id=change.waiting.pk, actor=Actor.staff(accountant), approve=False
        )
    assert no_reason.value.code == "reason_required"
    assert snapshot() == before
    accounting_settings_decide(
        casino=table.casino,
        approval_id=change.waiting.pk,
        actor=Actor.staff(accountant),
        approve=False,
        reason="the report stays",
    )
    assert values(table) == DEFAULTS
    assert Approval.objects.get().status == "rejected"
    assert AuditRecord.objects.filter(action="accounting.settings_change_rejected").count() == 1


def test_who_may_not_decide_a_waiting_change_and_what_it_leaves(
    table: Table, operator: Any, pit_boss: Any, accountant: Any
) -> None:
    change = accounting_settings_change(
        casino=table.casino, shift_starts=SHIFTS, variance_threshold_minor=10_000, actor=Actor.staff(operator)
    )
    assert change.waiting is not None
    # the operator, even holding the accounting office's permission, does not approve their own
    operator.user_permissions.add(Permission.objects.get(codename="sign_gaming_day"))
    both = get_user_model().objects.get(pk=operator.pk)
    before = snapshot()
    refusals = []
    for person in (both, pit_boss):
        with pytest.raises(ServiceError) as refused:
            accounting_settings_decide(
                casino=table.casino, approval_id=change.waiting.pk, actor=Actor.staff(person), approve=True
            )
        refusals.append(refused.value.code)
    with pytest.raises(ServiceError) as missing:
        accounting_settings_decide(
            casino=table.casino,
            approval_id=change.waiting.pk + 1000,
            actor=Actor.staff(accountant),
            approve=True,
        )
    refusals.append(missing.value.code)
    assert refusals == ["four_eyes_required", "permission_denied", "approval_not_found"]
    assert snapshot() == before
    assert values(table) == DEFAULTS
    # a second weakening change while one waits is refused whole: the chip set stays too
    with pytest.raises(ServiceError) as pending:
        accounting_configure(
            casino=table.casino,
            chip_values_minor=[100, 500],
            shift_starts=SHIFTS,
            hold_band_high_bp=9_000,
            actor=Actor.staff(operator),
        )
    assert pending.value.code == "approval_pending"
    assert snapshot() == before
    assert chip_values(table.casino) == [50_000, 10_000, 2_500, 500, 100]


def test_a_waiting_change_no_longer_valid_is_not_approved(
    table: Table, operator: Any, accountant: Any
) -> None:
    # given a raise of the log's threshold waiting, and then the report's threshold lowered below it
    change = accounting_settings_change(
        casino=table.casino, shift_starts=SHIFTS, mtl_threshold_minor=900_000, actor=Actor.staff(operator)
    )
    assert change.waiting is not None
    accounting_settings_change(
        casino=table.casino,
        shift_starts=SHIFTS,
        large_cash_threshold_minor=500_000,
        actor=Actor.staff(operator),
    )
    before = snapshot()
    # when the accounting office approves it, it is refused: the settings would not hold
    with pytest.raises(ServiceError) as refused:
        accounting_settings_decide(
            casino=table.casino, approval_id=change.waiting.pk, actor=Actor.staff(accountant), approve=True
        )
    assert refused.value.code == "invalid_settings"
    assert snapshot() == before
    assert Approval.objects.get().status == "pending"
    assert AccountingSettings.objects.get(casino=table.casino).mtl_threshold_minor == 300_000
