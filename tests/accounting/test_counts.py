"""Tray counts: two signatures by two people (a dealer and a pit boss), the opener against the
previous closer, variance investigations, the ledger's tray balance beside the count."""

from __future__ import annotations

import pytest

from accounting.models import (
    CountKind,
    InvestigationResolution,
    SlipKind,
    TrayCount,
    TrayCountSignature,
    VarianceInvestigation,
)
from accounting.selectors import table_accounting
from accounting.services import (
    accounting_settings_change,
    accounting_settings_decide,
    chip_set_configure,
    investigation_resolution_decide,
    investigation_resolve,
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    slip_void_decide,
    tray_count_record,
    tray_count_sign,
)
from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import AuditRecord
from tests.accounting.conftest import TRAY, counted, opened, snapshot, tray_balance

pytestmark = pytest.mark.django_db


def test_an_opener_signed_by_a_dealer_and_a_pit_boss_opens_the_table(table, dealer, pit_boss):
    # when the dealer counts and the pit boss signs
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    assert table_accounting(table).pending == count
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    # then the count holds both signatures and the table is open, the tray agreeing with the ledger
    state = table_accounting(table)
    assert sorted(count.signatures.values_list("role", "signer__username")) == [
        ("dealer", "dealer-1"),
        ("pit_boss", "pitboss-1"),
    ]
    assert (state.is_open, state.pending, state.last) == (True, None, count)
    assert (count.total_minor, count.ledger_minor, count.difference_minor) == (2_000_000, 2_000_000, 0)
    assert sorted(count.lines.values_list("denomination_minor", "amount_minor")) == sorted(TRAY.items())


def test_one_person_signing_twice_is_refused_and_adds_nothing(table, dealer):
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_sign(count=count, actor=Actor.staff(dealer))
    assert refused.value.code == "same_person_signed_twice"
    assert snapshot() == before
    assert table_accounting(table).is_open is False


def test_two_pit_bosses_are_not_a_dealer_and_a_pit_boss(table, pit_boss, pit_boss_two):
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(pit_boss))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_sign(count=count, actor=Actor.staff(pit_boss_two))
    assert refused.value.code == "wrong_role"
    assert snapshot() == before


def test_a_cashier_may_not_count_a_tray(table, cashier):
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(cashier))
    assert refused.value.code == "permission_denied"
    assert snapshot() == before


def test_a_closer_needs_an_open_table_and_an_opener_a_closed_one(table, dealer, pit_boss):
    with pytest.raises(ServiceError) as closed:
        tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    opened(table, dealer, pit_boss)
    with pytest.raises(ServiceError) as already:
        tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    assert (closed.value.code, already.value.code) == ("table_not_open", "table_already_open")


def test_a_second_count_waits_for_the_first_ones_signature(table, dealer, dealer_two, pit_boss):
    opened(table, dealer, pit_boss)
    tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer_two))
    assert refused.value.code == "count_awaiting_signatures"


@pytest.mark.parametrize(
    ("amounts", "problem"),
    [({2_500: 2_600}, "not a whole number of chips"), ({300: 300}, "not a chip"), ({100: -100}, "from zero")],
)
def test_amounts_that_are_not_whole_chips_of_the_set_are_refused(table, dealer, amounts, problem):
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.OPENER, amounts=amounts, actor=Actor.staff(dealer))
    assert refused.value.code == "invalid_count"
    assert problem in refused.value.message
    assert snapshot() == before


def test_the_count_shows_its_difference_from_the_ledger_and_moves_no_money(table, dealer, pit_boss):
    short = {**TRAY, 100: 9_900}  # one chip of 1.00 missing
    count = opened(table, dealer, pit_boss, short)
    assert (count.total_minor, count.ledger_minor, count.difference_minor) == (1_999_900, 2_000_000, -100)
    assert table_accounting(table).difference_minor == -100
    assert tray_balance(table) == 2_000_000


def test_an_opener_off_the_previous_closer_by_more_than_the_threshold_opens_an_investigation(
    table, dealer, pit_boss, operator, accountant
):
    # given a threshold of 5.00 (raised from 0: it waits for the accounting office), and a
    # closing count of 20 000.00
    change = accounting_settings_change(
        casino=table.casino,
        shift_starts=["06:00", "14:00", "22:00"],
        variance_threshold_minor=500,
        actor=Actor.staff(operator),
    )
    accounting_settings_decide(
        casino=table.casino, approval_id=change.waiting.pk, actor=Actor.staff(accountant), approve=True
    )
    opened(table, dealer, pit_boss)
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    # when the next opener is short by 5.00 (at the threshold): no investigation
    opener = opened(table, dealer, pit_boss, {**TRAY, 500: 89_500})
    assert not VarianceInvestigation.objects.exists()
    # and after a close at that, an opener short by 25.00 (above it)
    counted(table, CountKind.CLOSER, {**TRAY, 500: 89_500}, dealer, pit_boss)
    short = opened(table, dealer, pit_boss, {**TRAY, 500: 89_500, 2_500: 297_500})
    # then one investigation, of that opener against its closer, with the variance and threshold
    investigation = VarianceInvestigation.objects.get()
    assert (investigation.opener, investigation.variance_minor, investigation.threshold_minor) == (
        short,
        -2_500,
        500,
    )
    assert investigation.closer.total_minor == 1_999_500
    assert closer.total_minor == 2_000_000 and opener.total_minor == 1_999_500
    assert table_accounting(table).investigation == investigation


def test_the_table_opens_again_only_once_the_investigation_has_a_resolution_note(
    table, dealer, pit_boss, pit_boss_two, accountant
):
    opened(table, dealer, pit_boss)
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})  # threshold 0: any variance
    investigation = VarianceInvestigation.objects.get()
    counted(table, CountKind.CLOSER, {**TRAY, 100: 9_000}, dealer, pit_boss)
    # the next opening is refused
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    assert refused.value.code == "investigation_unresolved"
    # a resolution without a note is refused
    with pytest.raises(ServiceError) as blank:
        investigation_resolve(investigation=investigation, note="  ", actor=Actor.staff(pit_boss))
    assert blank.value.code == "reason_required"
    # a dealer may not propose it
    with pytest.raises(ServiceError) as dealer_refused:
        investigation_resolve(investigation=investigation, note="found", actor=Actor.staff(dealer))
    assert dealer_refused.value.code == "permission_denied"
    assert snapshot() == before
    # proposed with a note, it waits for a second person: the table does not open yet
    proposal = investigation_resolve(
        investigation=investigation, note="10 chips of 1.00 paid to box 3", actor=Actor.staff(pit_boss_two)
    )
    assert (proposal.kind, proposal.status, proposal.request_reason, proposal.excluded) == (
        "variance_investigation",
        "pending",
        "10 chips of 1.00 paid to box 3",
        {"opener_signers": sorted([dealer.pk, pit_boss.pk])},
    )
    assert not InvestigationResolution.objects.exists()
    with pytest.raises(ServiceError) as waiting:
        tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    assert waiting.value.code == "investigation_unresolved"
    with pytest.raises(ServiceError) as proposed_twice:
        investigation_resolve(investigation=investigation, note="again", actor=Actor.staff(pit_boss))
    assert proposed_twice.value.code == "approval_pending"
    # neither its proposer nor a signer of the opener approves it, nor a dealer
    before = snapshot()
    for person, code in (
        (pit_boss_two, "four_eyes_required"),
        (pit_boss, "four_eyes_required"),
        (dealer, "permission_denied"),
    ):
        with pytest.raises(ServiceError) as refused_decision:
            investigation_resolution_decide(
                investigation=investigation, approval_id=proposal.pk, actor=Actor.staff(person), approve=True
            )
        assert refused_decision.value.code == code
    assert snapshot() == before
    # the accounting office approves it: resolved with the proposal's note, the table opens
    resolution = investigation_resolution_decide(
        investigation=investigation, approval_id=proposal.pk, actor=Actor.staff(accountant), approve=True
    )
    assert (resolution.note, resolution.resolved_by, resolution.approval_id) == (
        "10 chips of 1.00 paid to box 3",
        accountant,
        proposal.pk,
    )
    with pytest.raises(ServiceError) as twice:
        investigation_resolve(investigation=investigation, note="again", actor=Actor.staff(pit_boss))
    assert twice.value.code == "investigation_already_resolved"
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    assert table_accounting(table).is_open is True


def test_a_rejected_resolution_leaves_the_investigation_open_for_another(
    table, dealer, pit_boss, pit_boss_two, accountant
):
    opened(table, dealer, pit_boss)
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    investigation = VarianceInvestigation.objects.get()
    first = investigation_resolve(
        investigation=investigation, note="miscounted", actor=Actor.staff(pit_boss_two)
    )
    assert (
        investigation_resolution_decide(
            investigation=investigation,
            approval_id=first.pk,
            actor=Actor.staff(accountant),
            approve=False,
            reason="the recount says otherwise",
        )
        is None
    )
    assert not InvestigationResolution.objects.exists()
    assert table_accounting(table).investigation == investigation
    second = investigation_resolve(
        investigation=investigation, note="a chip under the float", actor=Actor.staff(pit_boss_two)
    )
    investigation_resolution_decide(
        investigation=investigation, approval_id=second.pk, actor=Actor.staff(accountant), approve=True
    )
    assert InvestigationResolution.objects.get().note == "a chip under the float"
    assert list(
        AuditRecord.objects.filter(object_type="accounting.varianceinvestigation").values_list(
            "action", flat=True
        )
    ) == [
        "accounting.investigation_resolution_proposed",
        "accounting.investigation_resolution_rejected",
        "accounting.investigation_resolution_proposed",
        "accounting.investigation_resolved",
    ]


def test_a_correction_is_a_new_count_naming_the_old_and_the_state_stays(table, dealer, pit_boss):
    opener = opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    with pytest.raises(ServiceError) as no_reason:
        tray_count_record(
            table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer), corrects=opener
        )
    assert no_reason.value.code == "reason_required"
    correction = tray_count_record(
        table=table,
        kind=CountKind.CLOSER,
        amounts=TRAY,
        actor=Actor.staff(dealer),
        corrects=opener,
        reason="a stack miscounted",
    )
    tray_count_sign(count=correction, actor=Actor.staff(pit_boss))
    state = table_accounting(table)
    assert (correction.kind, correction.corrects, correction.correction_reason) == (
        CountKind.OPENER,
        opener,
        "a stack miscounted",
    )
    assert (state.is_open, state.last) == (True, correction)
    assert TrayCount.objects.get(pk=opener.pk).total_minor == 1_999_000


def test_the_chip_set_is_configured_per_casino(table, dealer, operator, pit_boss):
    chip_set_configure(casino=table.casino, values_minor=[100, 500, 1_000], actor=Actor.staff(operator))
    with pytest.raises(ServiceError) as refused:
        tray_count_record(
            table=table, kind=CountKind.OPENER, amounts={2_500: 2_500}, actor=Actor.staff(dealer)
        )
    assert refused.value.code == "invalid_count"
    count = opened(table, dealer, pit_boss, {1_000: 5_000})
    assert count.total_minor == 5_000
    with pytest.raises(ServiceError) as not_operator:
        chip_set_configure(casino=table.casino, values_minor=[100], actor=Actor.staff(pit_boss))
    assert not_operator.value.code == "permission_denied"


def test_the_counts_open_and_close_the_table_for_play(table, dealer, pit_boss):
    from casino.models import AuditRecord, Table

    # given BJ1 closed for play (as the seed leaves it)
    Table.objects.filter(pk=table.pk).update(is_open=False)
    # when its opener is recorded, the table stays closed until the second signature
    count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=Actor.staff(dealer))
    assert Table.objects.get(pk=table.pk).is_open is False
    tray_count_sign(count=count, actor=Actor.staff(pit_boss))
    # then it is open for play, audited with the count that opened it
    assert Table.objects.get(pk=table.pk).is_open is True
    opened_record = AuditRecord.objects.filter(action="table.opened").latest("sequence")
    assert (opened_record.actor_name, opened_record.after["by_count"]) == ("pitboss-1", count.pk)
    # and a signed closer closes it
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    assert Table.objects.get(pk=table.pk).is_open is False
    assert AuditRecord.objects.filter(action="table.closed").latest("sequence").after["by_count"] == closer.pk
    # and a correction of the closer leaves the table as it is
    tray_count_sign(
        count=tray_count_record(
            table=table,
            kind=CountKind.CLOSER,
            amounts=TRAY,
            actor=Actor.staff(dealer),
            corrects=closer,
            reason="recount",
        ),
        actor=Actor.staff(pit_boss),
    )
    assert Table.objects.get(pk=table.pk).is_open is False


def test_no_closing_count_while_a_round_is_in_progress(table, dealer, pit_boss):
    from tables.models import Round
    from tables.services import Actor, dealer_sign_on, round_open, round_void, shoe_shuffle

    opened(table, dealer, pit_boss)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    assert refused.value.code == "round_in_progress"
    assert snapshot() == before
    # once the round is over the closer is recorded and closes the table
    round_void(round_id=round_.pk, actor=Actor.staff(pit_boss), reason="test")
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    assert not Round.objects.filter(table=table).open().exists()
    assert type(table).objects.get(pk=table.pk).is_open is False


FILL = {10_000: 100_000}  # 1 000.00 in 100.00 chips


def test_no_closing_count_while_a_fill_is_on_its_way(table, dealer, pit_boss, cashier):
    # given BJ1 open on 20 000.00, a fill of 1 000.00 requested and issued by the cage, not received
    opened(table, dealer, pit_boss)
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    slip_issue(slip=slip, actor=Actor.staff(cashier))
    before = snapshot()
    # when the dealer counts the tray for its close
    with pytest.raises(ServiceError) as refused:
        tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    # then it is refused, naming the slip, and nothing is written
    assert refused.value.code == "slip_in_flight"
    assert refused.value.message == (
        f"Slip {slip.year}-{slip.number} of this table is not received yet: receive it, or void it "
        "before the cage issues it, then count the table at its close."
    )
    assert snapshot() == before
    # and once the fill is received, the closer counts the tray with it and closes the table
    slip_receive(slip=slip, actor=Actor.staff(dealer))
    closer = counted(table, CountKind.CLOSER, {**TRAY, 10_000: TRAY[10_000] + 100_000}, dealer, pit_boss)
    assert (closer.total_minor, closer.ledger_minor, closer.difference_minor) == (2_100_000, 2_100_000, 0)
    assert type(table).objects.get(pk=table.pk).is_open is False


def test_a_closer_counted_before_a_fill_is_not_signed_until_the_fill_is_received_or_voided(
    table, dealer, pit_boss, pit_boss_two, accountant
):
    # given BJ1 open, a fill requested, and its closer counted by the dealer with the fill on its
    # way (as the back office let happen before a closer waited for the table's slips)
    opened(table, dealer, pit_boss)
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    closer = TrayCount.objects.create(
        table=table,
        kind=CountKind.CLOSER,
        gaming_day=slip.gaming_day,
        shift=slip.shift,
        counted_at=slip.created_at,
        counted_by=dealer,
        total_minor=sum(TRAY.values()),
        ledger_minor=tray_balance(table),
    )
    TrayCountSignature.objects.create(count=closer, role="dealer", signer=dealer, signed_at=slip.created_at)
    before = snapshot()
    # when the pit boss signs the closer, it is refused with nothing written: the table stays open
    with pytest.raises(ServiceError) as refused:
        tray_count_sign(count=closer, actor=Actor.staff(pit_boss))
    assert refused.value.code == "slip_in_flight"
    assert snapshot() == before
    assert type(table).objects.get(pk=table.pk).is_open is True
    # and once the fill is voided by two people, the closer is signed and closes the table
    proposal = slip_void(slip=slip, actor=Actor.staff(pit_boss), reason="asked for the wrong table")
    slip_void_decide(slip=slip, approval_id=proposal.approval_id, actor=Actor.staff(accountant), approve=True)
    tray_count_sign(count=closer, actor=Actor.staff(pit_boss))
    assert type(table).objects.get(pk=table.pk).is_open is False


def test_no_fill_while_the_closer_waits_for_its_signature(table, dealer, pit_boss):
    # given BJ1 open and its closer counted by the dealer
    opened(table, dealer, pit_boss)
    closer = tray_count_record(table=table, kind=CountKind.CLOSER, amounts=TRAY, actor=Actor.staff(dealer))
    before = snapshot()
    # when the pit boss asks for a fill, it is refused: the closer has counted the tray
    with pytest.raises(ServiceError) as refused:
        slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    assert refused.value.code == "slip_table_closed"
    assert snapshot() == before
    # and the closer is signed, closing the table
    tray_count_sign(count=closer, actor=Actor.staff(pit_boss))
    assert type(table).objects.get(pk=table.pk).is_open is False


def test_a_correction_of_a_closer_is_not_held_by_a_fill_on_its_way(table, dealer, pit_boss):
    # given BJ1 closed, opened again and a fill requested
    opened(table, dealer, pit_boss)
    closer = counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss)
    slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=Actor.staff(pit_boss))
    # when the earlier closer is corrected, then the correction is recorded and signed: it counts
    # the tray as it was then, which the fill does not change
    correction = tray_count_record(
        table=table,
        kind=CountKind.CLOSER,
        amounts=TRAY,
        actor=Actor.staff(dealer),
        corrects=closer,
        reason="recount",
    )
    tray_count_sign(count=correction, actor=Actor.staff(pit_boss))
    assert correction.corrects_id == closer.pk
