"""Held payouts through the four-eyes capability: the threshold on the winnings (a push or a
returned stake never waits), a round's lines decided in one command with exceptions, who may
decide, and the approvals queue of a busy round (by box and hand, Approve and Reject apart), through
the services and the pit's pages."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.contrib.staticfiles import finders
from django.test import Client

from casino.models import Approval, AuditRecord, Table
from tables.models import Box, PayoutDecision, PayoutLine, Round
from tables.payout_approvals import payout_approvals
from tables.round_hash import round_verify
from tables.selectors import held_payouts
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    payouts_decide,
    round_close_betting,
    round_open,
    round_settle,
)
from tests.snapshots import ledger_snapshot
from tests.tables.conftest import at_terminal, balance, funded_player, refused, stack_shoe
from tests.tables.payouts_support import boss_dealer, busy_round, threshold_set
from wallet.models import PendingPayout

HTMX = {"HTTP_HX_REQUEST": "true"}


def _one_box_round(table: Table, dealer: Any, player: Any, cards: list[str], stake_minor: int) -> Round:
    """``player`` bets ``stake_minor`` on box 1, stands, and the round is settled by ``dealer``."""
    as_player = at_terminal(table, player)
    stack_shoe(table, dealer, cards)
    if not Box.objects.filter(table=table, number=1, owner=player).exists():
        box_take(table=table, box_number=1, actor=as_player)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk,
        actor=as_player,
        box_number=1,
        kind="main",
        stake_minor=stake_minor,
        idempotency_key="m",
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_player, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return round_


def _written() -> dict[str, Any]:
    """What a payout decision writes: the ledger and the audit trail (and the approvals, in the
    ledger's snapshot), and the decisions."""
    return {**ledger_snapshot(), "decisions": list(PayoutDecision.objects.values_list("pk", flat=True))}


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ------------------------------------------------------------------ the threshold on the winnings


@pytest.mark.django_db
def test_a_push_is_never_held_whatever_the_stake_returned(table, dealer, operator):
    # given winnings above 400.00 wait, and Alice's 500.00 stake pushing (19 against 19)
    threshold_set(table, operator, 40_000)
    alice = funded_player(table, 100_000)
    round_ = _one_box_round(table, dealer, alice, ["TS", "TH", "9D", "9C"], 50_000)
    # then the 500.00 returned is paid at once: no approval, nothing parked
    line = PayoutLine.objects.get(round=round_)
    assert (line.outcome, line.net_minor, line.paid_minor, line.needs_approval) == ("push", 0, 50_000, False)
    assert balance(alice) == (100_000, 0)
    assert not Approval.objects.filter(kind="payout").exists()
    assert not PendingPayout.objects.exists()


@pytest.mark.django_db
def test_winnings_above_the_threshold_wait_and_winnings_at_it_are_paid(table, dealer, operator):
    # given winnings above 400.00 wait
    threshold_set(table, operator, 40_000)
    alice = funded_player(table, 100_000)
    # when Alice wins 400.00 on 400.00 (paid 800.00, far above the threshold as a payment)
    at_threshold = _one_box_round(table, dealer, alice, ["TS", "7H", "9D", "TC"], 40_000)
    # then it is paid at once: the winnings do not exceed the threshold
    assert PayoutLine.objects.get(round=at_threshold).needs_approval is False
    assert balance(alice) == (140_000, 0)
    # and when she wins 400.01 on 400.01, it waits, as a payout approval excluding the dealer
    above = _one_box_round(table, dealer, alice, ["TS", "7H", "9D", "TC"], 40_001)
    line = PayoutLine.objects.get(round=above)
    assert (line.net_minor, line.paid_minor, line.needs_approval) == (40_001, 80_002, True)
    assert balance(alice) == (99_999, 0)
    approval = payout_approvals([line.pk])[line.pk]
    assert (
        approval.status,
        approval.amount_minor,
        approval.requested_by,
        approval.excluded,
        approval.place,
    ) == (
        "pending",
        80_002,
        dealer,
        {"round_dealer": dealer.pk},
        "BJ1",
    )
    assert PendingPayout.objects.get().approval_id == approval.pk


@pytest.mark.django_db
def test_the_table_page_states_the_threshold_on_the_winnings(table, operator):
    threshold_set(table, operator, 40_000)
    page = _client(operator).get("/operator/tables/BJ1/").content.decode()
    assert "Payouts whose winnings exceed 400.00 wait for a pit boss; a returned stake never waits." in page


# ------------------------------------------------------------------ a round decided in one command


@pytest.mark.django_db
def test_a_rounds_lines_are_decided_in_one_command_with_an_exception(table, dealer, pit_boss, operator):
    # given the busy round's three held lines
    alice, round_, (first, second, third) = busy_round(table, dealer, operator)
    records = AuditRecord.objects.count()
    # when the pit boss approves all but box 1's second hand, rejected with a reason
    decided = payouts_decide(
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        approve=[first.pk, third.pk],
        reject=[second.pk],
        reason="hand exposed",
    )
    # then two are paid and one goes back to the tray, each decision beside its line and approval
    assert [line.approval_status for line in decided] == ["approved", "rejected", "approved"]
    assert balance(alice) == (11_000, 0)
    assert list(
        PayoutDecision.objects.order_by("line_id").values_list("line_id", "status", "decided_by", "reason")
    ) == [
        (first.pk, "approved", pit_boss.pk, ""),
        (second.pk, "rejected", pit_boss.pk, "hand exposed"),
        (third.pk, "approved", pit_boss.pk, ""),
    ]
    approvals = payout_approvals([first.pk, second.pk, third.pk])
    assert [
        (approvals[line.pk].status, approvals[line.pk].decided_by) for line in (first, second, third)
    ] == [
        ("approved", pit_boss),
        ("rejected", pit_boss),
        ("approved", pit_boss),
    ]
    # and the command wrote one audit record, on the round, with each approval
    (record,) = AuditRecord.objects.order_by("sequence")[records:]
    assert (record.action, record.object_type, record.object_id, record.actor_name) == (
        "wallet.payouts_decided",
        "tables.round",
        str(round_.pk),
        "pitboss-1",
    )
    assert (record.after["released_minor"], record.after["rejected_minor"]) == (4_000, 2_000)
    assert [(item["approval_id"], item["status"]) for item in record.after["payouts"]] == [
        (approvals[first.pk].pk, "approved"),
        (approvals[second.pk].pk, "rejected"),
        (approvals[third.pk].pk, "approved"),
    ]
    # and the round still verifies
    assert round_verify(round_ids=[round_.pk]).is_intact


@pytest.mark.django_db
def test_a_refused_round_decision_writes_nothing(table, dealer, pit_boss, operator):
    # given the busy round dealt by a dealer who also holds the pit boss's permission
    deals_and_decides = boss_dealer(pit_boss)
    alice, round_, (first, second, third) = busy_round(table, deals_and_decides, operator)
    before = _written()
    everything = [first.pk, second.pk, third.pk]
    # a rejection without a reason
    refused(
        "reason_required", payouts_decide, round_id=round_.pk, actor=Actor.staff(pit_boss), reject=everything
    )
    # the round's dealer, who also holds the pit boss's permission: refused at the first line, and
    # the other lines stay undecided too
    refused(
        "four_eyes_required",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(deals_and_decides),
        approve=everything,
    )
    # a line of another round, or none, or one both approved and rejected
    refused(
        "not_found", payouts_decide, round_id=round_.pk + 1, actor=Actor.staff(pit_boss), approve=everything
    )
    refused("no_such_decision", payouts_decide, round_id=round_.pk, actor=Actor.staff(pit_boss))
    refused(
        "no_such_decision",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        approve=everything,
        reject=[first.pk],
        reason="x",
    )
    # a dealer without the permission
    refused(
        "permission_denied", payouts_decide, round_id=round_.pk, actor=Actor.staff(dealer), approve=everything
    )
    assert _written() == before
    assert balance(alice) == (7_000, 0)
    # and once one line is decided, a round decision naming it again is refused whole
    payouts_decide(round_id=round_.pk, actor=Actor.staff(pit_boss), approve=[first.pk])
    before = _written()
    refused(
        "approval_decided",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        approve=everything,
    )
    assert _written() == before
    assert balance(alice) == (9_000, 0)


@pytest.mark.django_db
def test_a_line_paid_at_once_is_not_decided(table, dealer, pit_boss, operator):
    alice = funded_player(table, 10_000)
    round_ = _one_box_round(table, dealer, alice, ["TS", "7H", "9D", "TC"], 1000)
    line = PayoutLine.objects.get(round=round_)
    before = _written()
    refused(
        "payout_not_pending",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        approve=[line.pk],
    )
    assert _written() == before


# ------------------------------------------------------------------ the queue of a busy round


def _rows(page: str) -> list[tuple[str, str, str, str]]:
    """The held lines of the queue as (box, hand, player, rule) rows, the box carried down."""
    rows, box = [], ""
    for row in re.findall(r'<tr class="held-payout".*?</tr>', page, re.S):
        found = re.search(r'class="box-number">(\d+)</th>', row)
        box = found.group(1) if found else box
        hand, player = re.search(r'<td class="hand">([^<]*)</td><td>([^<]*)</td>', row).groups()
        rule = re.search(r'<td class="rule" title="([^"]*)">', row).group(1)
        rows.append((box, hand, player, rule))
    return rows


@pytest.mark.django_db
def test_the_queue_tells_a_rounds_lines_apart_by_box_and_hand(table, dealer, pit_boss, operator):
    _alice, round_, _lines = busy_round(table, dealer, operator)
    # the selector groups the round's lines by box, hand by hand
    (held,) = held_payouts(casino_id=table.casino_id, user=pit_boss)
    assert held.round == round_ and held.may_decide
    assert [(box.number, [line.hand_number for line in box.lines]) for box in held.boxes] == [
        (1, [1, 2]),
        (2, [1]),
    ]
    # and the page shows one form for the round, with Box and Hand columns
    client = _client(pit_boss)
    for headers in ({}, HTMX):
        page = client.get("/pit/queue/", **headers).content.decode()
        assert page.count('<form class="held-round"') == 1
        assert '<th scope="col">Box</th><th scope="col">Hand</th>' in page
        assert _rows(page) == [
            ("1", "1", "Alice Archer", "7 higher total 1:1"),
            ("1", "2", "Alice Archer", "7 higher total 1:1"),
            ("2", "1", "Alice Archer", "7 higher total 1:1"),
        ]
        # Approve and Reject look different: each its own class, colour and sign
        assert (
            '<button type="submit" name="decision" value="approve" class="approve">&#10003; Approve</button>'
            in page
        )
        assert (
            '<button type="submit" name="decision" value="reject" class="reject">&#10007; Reject</button>'
            in page
        )
    css = Path(finders.find("tables/console.css")).read_text(encoding="utf-8")
    approve = re.search(r"\.pit button\.approve \{([^}]*)\}", css).group(1)
    reject = re.search(r"\.pit button\.reject \{([^}]*)\}", css).group(1)
    assert "background: var(--ok)" in approve and "color: var(--bad)" in reject and "dashed" in reject


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_one_post_decides_the_round_with_a_ticked_exception(table, dealer, pit_boss, operator, htmx):
    alice, round_, (first, second, third) = busy_round(table, dealer, operator)
    client = _client(pit_boss)
    # when the pit boss ticks box 1's second hand, gives a reason and presses Approve
    response = client.post(
        f"/pit/rounds/{round_.pk}/payouts/",
        {
            "line": [str(first.pk), str(second.pk), str(third.pk)],
            "except": [str(second.pk)],
            "reason": "hand exposed",
            "decision": "approve",
        },
        **(HTMX if htmx else {}),
    )
    # then the two others are paid and the ticked one rejected, in one command
    done = "Payouts decided: 2 approved and paid, 1 rejected."
    if htmx:
        assert response.status_code == 200 and done in response.content.decode()
        assert "No decision waits." in response.content.decode()
    else:
        assert (response.status_code, response["Location"]) == (302, "/pit/queue/")
        assert done in client.get("/pit/queue/").content.decode()
    assert balance(alice) == (11_000, 0)
    assert dict(PayoutDecision.objects.values_list("line_id", "status")) == {
        first.pk: "approved",
        second.pk: "rejected",
        third.pk: "approved",
    }
    assert AuditRecord.objects.filter(action="wallet.payouts_decided").count() == 1


@pytest.mark.django_db
def test_rejecting_a_round_with_one_exception_approves_that_one(table, dealer, pit_boss, operator):
    alice, round_, (first, second, third) = busy_round(table, dealer, operator)
    response = _client(pit_boss).post(
        f"/pit/rounds/{round_.pk}/payouts/",
        {
            "line": [str(first.pk), str(second.pk), str(third.pk)],
            "except": [str(third.pk)],
            "reason": "misdeal on box 1",
            "decision": "reject",
        },
        **HTMX,
    )
    assert "Payouts decided: 1 approved and paid, 2 rejected." in response.content.decode()
    assert balance(alice) == (9_000, 0)
    assert dict(PayoutDecision.objects.values_list("line_id", "reason")) == {
        first.pk: "misdeal on box 1",
        second.pk: "misdeal on box 1",
        third.pk: "",
    }


@pytest.mark.django_db
def test_a_refused_round_post_writes_nothing_and_shows_why(table, dealer, pit_boss, operator):
    _alice, round_, lines = busy_round(table, dealer, operator)
    before = _written()
    response = _client(pit_boss).post(
        f"/pit/rounds/{round_.pk}/payouts/",
        {"line": [str(line.pk) for line in lines], "except": [str(lines[0].pk)], "decision": "approve"},
        **HTMX,
    )
    assert response.status_code == 422
    assert 'data-code="reason_required"' in response.content.decode()
    assert response.content.decode().count('<tr class="held-payout"') == 3
    assert _written() == before


# ------------------------------------------------------------------ payouts held before approvals


@pytest.mark.django_db
def test_the_migration_gives_every_parked_payout_its_approval_with_its_history(table, pit_boss, operator):
    # given the busy round's lines, one approved, one rejected and one still waiting, as they were
    # before approvals were records of their own: parked payouts with no approval
    dealer = boss_dealer(pit_boss)
    alice, round_, (first, second, third) = busy_round(table, dealer, operator)
    payouts_decide(
        round_id=round_.pk,
        actor=Actor.staff(pit_boss),
        approve=[first.pk],
        reject=[second.pk],
        reason="exposed",
    )
    PendingPayout.objects.update(approval=None)
    Approval.objects.filter(kind="payout").delete()
    # when the migration's data step runs
    migration = importlib.import_module("wallet.migrations.0007_pending_payout_approval")
    migration.approvals_create(django_apps, None)
    # then each parked payout waits on an approval of its line, which keeps who asked and decided
    approvals = payout_approvals([first.pk, second.pk, third.pk])
    assert [
        (
            approvals[line.pk].status,
            approvals[line.pk].requested_by,
            approvals[line.pk].decided_by,
            approvals[line.pk].decision_reason,
            approvals[line.pk].amount_minor,
            approvals[line.pk].excluded,
        )
        for line in (first, second, third)
    ] == [
        ("approved", dealer, pit_boss, "", 2000, {"round_dealer": dealer.pk}),
        ("rejected", dealer, pit_boss, "exposed", 2000, {"round_dealer": dealer.pk}),
        ("pending", dealer, None, "", 2000, {"round_dealer": dealer.pk}),
    ]
    assert approvals[second.pk].summary == f"BJ1 round {round_.number}, box 1 hand 2: 7 higher total 1:1"
    assert approvals[third.pk].gaming_day == table.casino.gaming_day(approvals[third.pk].requested_at)
    assert sorted(PendingPayout.objects.values_list("approval_id", flat=True)) == sorted(
        approval.pk for approval in approvals.values()
    )
    # and the one still waiting is decided through the capability like any other, not by its dealer
    refused(
        "four_eyes_required",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        approve=[third.pk],
    )
    payouts_decide(round_id=round_.pk, actor=Actor.staff(pit_boss), approve=[third.pk])
    assert balance(alice) == (9_000 + 2_000, 0)
    assert round_verify(round_ids=[round_.pk]).is_intact
