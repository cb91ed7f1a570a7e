"""Drop counts and hold alerts under concurrent commands: real transactions on PostgreSQL, one
thread and one connection each, released together."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import DropCount, DropCountSignature, HoldAlert
from accounting.selectors import current_gaming_day
from accounting.services_drop import drop_count_record, drop_count_sign, hold_alert_resolve
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import Table
from tests.accounting.test_concurrency import _race
from tests.factories import staff_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def bj1(seeded: None) -> Table:
    return Table.objects.select_related("casino").get(name="BJ1")


def test_two_cashiers_counting_one_box_at_once_make_one_count(bj1: Table) -> None:
    day = current_gaming_day(bj1.casino)
    shift = shift_of(schedule_of(bj1.casino), timezone.now()).number
    cashiers = [staff_user("cashier", f"cashier-race-{index}") for index in range(2)]

    results = _race(
        [
            lambda cashier=cashier: drop_count_record(
                table=bj1, gaming_day=day, shift=shift, total_minor=300_000, actor=Actor.staff(cashier)
            )
            for cashier in cashiers
        ]
    )

    refusals = [result for result in results if isinstance(result, ServiceError)]
    assert [error.code for error in refusals] == ["drop_already_counted"]
    assert DropCount.objects.count() == 1
    assert DropCountSignature.objects.count() == 1


def test_two_verifiers_signing_at_once_sign_once(bj1: Table) -> None:
    day = current_gaming_day(bj1.casino)
    shift = shift_of(schedule_of(bj1.casino), timezone.now()).number
    count = drop_count_record(
        table=bj1,
        gaming_day=day,
        shift=shift,
        total_minor=300_000,
        actor=Actor.staff(staff_user("cashier", "cashier-race")),
    )
    verifiers = [staff_user("pit_boss", "pitboss-race"), staff_user("accountant", "accountant-race")]

    results = _race(
        [
            lambda verifier=verifier: drop_count_sign(count=count, actor=Actor.staff(verifier))
            for verifier in verifiers
        ]
    )

    assert sorted(result.code for result in results if isinstance(result, ServiceError)) == [
        "signature_not_needed"
    ]
    assert DropCountSignature.objects.filter(count=count).count() == 2


def test_two_pit_bosses_resolving_one_alert_at_once_resolve_it_once(bj1: Table) -> None:
    alert = HoldAlert.objects.create(
        table=bj1,
        gaming_day=current_gaming_day(bj1.casino),
        kind="fixed_band",
        figures={},
        raised_at=timezone.now(),
    )
    bosses = [staff_user("pit_boss", f"pitboss-race-{index}") for index in range(2)]

    results = _race(
        [
            lambda boss=boss: hold_alert_resolve(alert=alert, note="seen", actor=Actor.staff(boss))
            for boss in bosses
        ]
    )

    assert [result.code for result in results if isinstance(result, ServiceError)] == [
        "hold_alert_already_resolved"
    ]
