"""Settled rounds in the audit chain: the ``round.settled`` record carries the hash of the round's
events and payout lines, ``round_verify`` names an event or a line edited behind the services'
back, the database refuses to update or delete them, and a pit boss's decision on a held payout
is a row of its own (no payout line is ever updated)."""

from __future__ import annotations

import logging
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.utils import DatabaseError

from casino.audit import audit_append
from casino.errors import ServiceError
from casino.models import AuditRecord
from tables.models import PayoutDecision, PayoutLine, Round, RoundEvent
from tables.payout_approvals import payout_approvals
from tables.round_hash import RoundDifference, round_seal, round_verify
from tables.selectors import held_payouts
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    payout_approve,
    payout_reject,
    round_close_betting,
    round_open,
    round_settle,
    round_void,
    table_settings_change,
)
from tables.simulation import simulate_table
from tables.tasks import round_verify_task
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe
from tests.tampering import raw, triggers_off
from wallet.models import Transfer, TransferKind
from wallet.selectors import ledger_verify
from wallet.services import balance_adjust, transfer_reverse


def _held_round(table: Any, dealer: Any, operator: Any, box_number: int = 1) -> tuple[Any, Round, PayoutLine]:
    """A settled round whose one payout (2000 on a 1000 stake: winnings 1000, above a threshold of
    500) waits for a pit boss."""
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    player = funded_player(table, 10_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_player = at_terminal(table, player)
    box_take(table=table, box_number=box_number, actor=as_player)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk,
        actor=as_player,
        box_number=box_number,
        kind="main",
        stake_minor=1000,
        idempotency_key="m1",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_player, box_number=box_number, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return player, round_, PayoutLine.objects.get(round=round_)


def _settled_record(round_: Round) -> AuditRecord:
    return AuditRecord.objects.get(action="round.settled", object_id=str(round_.pk))


def _verify_command() -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command("round_verify", stdout=out, stderr=err)
    except SystemExit as exited:
        return int(exited.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_a_normal_day_of_play_verifies_clean(table: Any, dealer: Any, operator: Any, pit_boss: Any) -> None:
    # given a seeded casino, simulated rounds, a round whose held payout a pit boss approves, a
    # reversed buy-in and an adjustment
    simulate_table(table=table, rounds=4, players=3, seed=5)
    player, round_, line = _held_round(table, dealer, operator, box_number=7)
    payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    buy_in = Transfer.objects.filter(kind=TransferKind.BUY_IN).order_by("-pk").first()
    transfer_reverse(transfer=buy_in, reason="keyed twice", actor=Actor.staff(pit_boss))
    balance_adjust(player=player, amount_minor=250, reason="comp", actor=Actor.staff(pit_boss))
    # then the round's audit record carries the hash of its events and lines
    record = _settled_record(round_)
    events = RoundEvent.objects.filter(round=round_).count()
    assert record.after["round_hash"] == round_seal(round_, [line])["round_hash"]
    assert len(record.after["event_digests"]) == events
    assert [line_id for line_id, _ in record.after["line_digests"]] == [line.pk]
    # and every round and the whole ledger verify clean
    settled = Round.objects.filter(status="settled").count()
    assert settled == 5
    assert round_verify().differences == ()
    assert _verify_command() == (0, f"{settled} rounds verified, each matches its audit record\n", "")
    assert ledger_verify().is_clean


@pytest.mark.django_db
def test_an_edited_round_event_is_named(table: Any) -> None:
    # given settled rounds
    result = simulate_table(table=table, rounds=2, players=2, seed=3)
    round_ = Round.objects.select_related("table").get(pk=result.round_ids[0])
    record = _settled_record(round_)
    event = RoundEvent.objects.get(round=round_, sequence=3)
    # when, with the triggers off, one of its events is edited
    triggers_off()
    raw(
        "UPDATE tables_roundevent SET actor_name = 'somebody else' WHERE round_id = %s AND sequence = 3",
        [round_.pk],
    )
    # then the verifier names that event of that round, and only it
    assert round_verify().differences == (
        RoundDifference(
            round_.pk,
            "BJ1",
            round_.number,
            f"event #3 ({event.kind}) differs from audit record #{record.sequence}",
        ),
    )
    code, _, err = _verify_command()
    assert code == 1
    assert err.splitlines() == [
        f"round {round_.pk} (BJ1 #{round_.number}): event #3 ({event.kind}) differs from audit record "
        f"#{record.sequence}",
        "2 rounds verified, 1 differ from the audit chain",
    ]


@pytest.mark.django_db
def test_a_voided_round_is_sealed_by_its_void_record_and_an_edit_is_named(
    table: Any, dealer: Any, pit_boss: Any
) -> None:
    # given a round voided by the pit boss after a bet, beside a settled round
    simulate_table(table=table, rounds=1, players=1, seed=5)
    player = funded_player(table, 10_000)
    as_player = at_terminal(table, player)
    box_take(table=table, box_number=3, actor=as_player)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_player, box_number=3, kind="main", stake_minor=1000, idempotency_key="v1"
    )
    round_void(round_id=round_.pk, actor=Actor.staff(pit_boss), reason="dealer exposed the hole card")
    record = AuditRecord.objects.get(action="round.voided", object_id=str(round_.pk))
    # then its void record carries the round's hash, and both rounds verify
    assert record.after["round_hash"] == round_seal(round_, [])["round_hash"]
    assert round_verify().is_intact
    assert round_verify().checked == 2
    # when, with the triggers off, the void's reason is rewritten
    triggers_off()
    raw(
        'UPDATE tables_roundevent SET payload = payload || \'{"reason": "x"}\' '
        "WHERE round_id = %s AND kind = 'voided'",
        [round_.pk],
    )
    # then the verifier names that event of the voided round
    voided = RoundEvent.objects.get(round=round_, kind="voided")
    assert round_verify().differences == (
        RoundDifference(
            round_.pk,
            table.name,
            round_.number,
            f"event #{voided.sequence} (voided) differs from audit record #{record.sequence}",
        ),
    )


@pytest.mark.django_db
def test_a_round_a_second_record_seals_is_named(table: Any) -> None:
    # given a settled round
    result = simulate_table(table=table, rounds=1, players=1, seed=13)
    round_ = Round.objects.select_related("table").get(pk=result.round_ids[0])
    first = _settled_record(round_)
    # when one of its lines is edited and a new record, appended the ordinary way, seals the
    # round again with the hash of what it now holds
    triggers_off()
    raw("UPDATE tables_payoutline SET paid_minor = paid_minor + 100 WHERE round_id = %s", [round_.pk])
    lines = list(PayoutLine.objects.filter(round=round_))
    second = audit_append(
        action="round.settled",
        object_type="tables.round",
        object_id=round_.pk,
        after=round_seal(round_, lines),
    )
    # then the round sealed twice is named
    assert round_verify().differences == (
        RoundDifference(
            round_.pk,
            "BJ1",
            round_.number,
            f"more than one audit record seals it (#{first.sequence}, #{second.sequence})",
        ),
    )


@pytest.mark.django_db
def test_the_nightly_task_logs_a_round_that_differs_as_an_error(table: Any, caplog: Any) -> None:
    # given settled rounds, and the nightly task clean
    result = simulate_table(table=table, rounds=2, players=1, seed=11)
    assert round_verify_task.delay().get() == {"checked": 2, "differing_rounds": []}
    # when one of their payout lines is edited with the triggers off
    round_id = result.round_ids[1]
    triggers_off()
    raw("UPDATE tables_payoutline SET paid_minor = paid_minor + 100 WHERE round_id = %s", [round_id])
    # then the task names the round and logs each difference as an error
    with caplog.at_level(logging.INFO, logger="tables.tasks"):
        assert round_verify_task.delay().get() == {"checked": 2, "differing_rounds": [round_id]}
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert errors and all(f"round {round_id} (BJ1 #" in message for message in errors)


@pytest.mark.django_db
def test_a_deleted_round_event_is_named(table: Any) -> None:
    result = simulate_table(table=table, rounds=1, players=2, seed=4)
    round_ = Round.objects.get(pk=result.round_ids[0])
    record = _settled_record(round_)
    last = RoundEvent.objects.filter(round=round_).order_by("-sequence").first()
    triggers_off()
    raw("DELETE FROM tables_roundevent WHERE id = %s", [last.pk])
    assert [str(difference) for difference in round_verify().differences] == [
        f"round {round_.pk} (BJ1 #{round_.number}): event #{last.sequence} of audit record "
        f"#{record.sequence} is missing"
    ]


@pytest.mark.django_db
def test_an_edited_payout_line_is_named(table: Any) -> None:
    # given settled rounds
    result = simulate_table(table=table, rounds=2, players=2, seed=3)
    round_ = Round.objects.get(pk=result.round_ids[1])
    record = _settled_record(round_)
    line = PayoutLine.objects.filter(round=round_).order_by("pk").last()
    # when, with the triggers off, a payout line is raised
    triggers_off()
    raw("UPDATE tables_payoutline SET paid_minor = paid_minor + 100000 WHERE id = %s", [line.pk])
    # then the verifier names the line
    assert [str(difference) for difference in round_verify().differences] == [
        f"round {round_.pk} (BJ1 #{round_.number}): payout line {line.pk} ({line.outcome}, paid "
        f"{line.paid_minor + 100_000}) differs from audit record #{record.sequence}"
    ]
    assert round_verify(round_ids=[result.round_ids[0]]).is_intact


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE tables_roundevent SET kind = kind",
        "DELETE FROM tables_roundevent",
        "TRUNCATE tables_roundevent CASCADE",
        "UPDATE tables_payoutline SET paid_minor = paid_minor + 1",
        "DELETE FROM tables_payoutline",
        "TRUNCATE tables_payoutline CASCADE",
        "UPDATE tables_payoutdecision SET status = 'rejected'",
        "DELETE FROM tables_payoutdecision",
        "TRUNCATE tables_payoutdecision",
    ],
)
def test_round_events_payout_lines_and_decisions_are_append_only(
    statement: str, table: Any, dealer: Any, operator: Any, pit_boss: Any
) -> None:
    # given a settled round whose held payout was approved
    _player, _round, line = _held_round(table, dealer, operator)
    payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    before = (
        list(RoundEvent.objects.order_by("pk").values_list("pk", "kind", "payload")),
        list(PayoutLine.objects.order_by("pk").values_list("pk", "paid_minor")),
        list(PayoutDecision.objects.order_by("pk").values_list("pk", "status")),
    )
    # (the deferred ledger checks queued so far run now: TRUNCATE refuses pending trigger events)
    raw("SET CONSTRAINTS ALL IMMEDIATE")
    # when the statement runs, the database refuses it
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw(statement)
    # and nothing changed
    assert before == (
        list(RoundEvent.objects.order_by("pk").values_list("pk", "kind", "payload")),
        list(PayoutLine.objects.order_by("pk").values_list("pk", "paid_minor")),
        list(PayoutDecision.objects.order_by("pk").values_list("pk", "status")),
    )


def _held(table: Any, user: Any) -> list[PayoutLine]:
    """The payout lines the approvals queue shows as waiting."""
    return [held.line for group in held_payouts(casino_id=table.casino_id, user=user) for held in group.lines]


def _line_row(line: PayoutLine) -> dict[str, Any]:
    return PayoutLine.objects.filter(pk=line.pk).values().get()


@pytest.mark.django_db
def test_an_approval_is_a_decision_of_its_own_and_leaves_the_line_as_settled(
    table: Any, dealer: Any, operator: Any, pit_boss: Any
) -> None:
    # given a held payout awaiting a pit boss
    player, _round, line = _held_round(table, dealer, operator)
    settled = _line_row(line)
    assert (line.approval_status, _held(table, pit_boss)) == ("pending", [line])
    # when a pit boss approves it
    approved = payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    # then the player is paid, the decision is recorded beside the line, and the line is unchanged
    assert balance(player) == (11_000, 0)
    assert approved.approval_status == "approved"
    decision = PayoutDecision.objects.get()
    assert (decision.line_id, decision.status, decision.decided_by, decision.reason) == (
        line.pk,
        "approved",
        pit_boss,
        "",
    )
    assert _line_row(line) == settled
    assert _held(table, pit_boss) == []
    # and the decision is the line's four-eyes approval's, asked by the dealer who settled
    approval = payout_approvals([line.pk])[line.pk]
    assert (approval.status, approval.requested_by, approval.decided_by, approval.excluded) == (
        "approved",
        dealer,
        pit_boss,
        {"round_dealer": dealer.pk},
    )
    # and a second decision is refused, writing nothing
    with pytest.raises(ServiceError) as refused:
        payout_reject(payout_line_id=line.pk, actor=Actor.staff(pit_boss), reason="late")
    assert refused.value.code == "approval_decided"
    assert PayoutDecision.objects.count() == 1
    # and the round still verifies
    assert round_verify().is_intact


@pytest.mark.django_db
def test_a_rejection_is_a_decision_with_its_reason(
    table: Any, dealer: Any, operator: Any, pit_boss: Any
) -> None:
    player, _round, line = _held_round(table, dealer, operator)
    settled = _line_row(line)
    rejected = payout_reject(payout_line_id=line.pk, actor=Actor.staff(pit_boss), reason="  misdeal ")
    assert (rejected.approval_status, balance(player)) == ("rejected", (9_000, 0))
    decision = PayoutDecision.objects.get()
    assert (decision.status, decision.reason) == ("rejected", "misdeal")
    assert _line_row(line) == settled
    assert ledger_verify().is_clean
