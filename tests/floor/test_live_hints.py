"""What each change hints for the pit's, the desk's and the header's live parts (casino/hints.py):
a slip's every step its casino's desk and queue (and its table's console), a count or a drop count
waiting for a signature or signed the queue, a payout held or decided and a misscan found or
corrected the queue; published after the commit, and nothing for a refusal."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from accounting.gaming_days import schedule_of, shift_of
from accounting.models import CountKind, SlipKind
from accounting.selectors import current_gaming_day, slip_void_proposal
from accounting.services import (
    slip_issue,
    slip_receive,
    slip_request,
    slip_void,
    slip_void_decide,
    tray_count_record,
    tray_count_sign,
)
from accounting.services_drop import drop_count_record, drop_count_sign
from casino.errors import ServiceError
from casino.hints import desk_topic, floor_topic, publisher, queue_topic, table_topic
from casino.models import Table
from tables.models import Round, Shoe
from tables.services import (
    Actor,
    bet_place,
    box_take,
    card_correct,
    card_enter,
    dealer_sign_on,
    payouts_decide,
    round_close_betting,
    round_open,
    shoe_shuffle,
)
from tests.accounting.conftest import TRAY, opened
from tests.factories import staff_user
from tests.hints import topics_of
from tests.tables.conftest import at_terminal, funded_player, physical, refused
from tests.tables.payouts_support import boss_dealer, busy_round

pytestmark = pytest.mark.django_db(transaction=True)

FILL = {10_000: 500_000}


def published(heard: list[tuple[str, str]], call: Callable[[], Any]) -> set[str]:
    """The topics ``call`` hinted: none before its transaction commits, each after it."""
    quiet(heard)
    with transaction.atomic():
        call()
        time.sleep(0.05)
        assert heard == [], "a hint went out before the commit"
    assert publisher().flush()
    return set(topics_of(heard))


def quiet(heard: list[tuple[str, str]]) -> None:
    """What the commands before hinted published, then forgotten."""
    assert publisher().flush()
    heard.clear()


def nothing_published(heard: list[tuple[str, str]]) -> None:
    time.sleep(0.05)
    assert publisher().flush()
    assert heard == []


@pytest.fixture
def staff(seeded: Any) -> dict[str, Any]:
    return {
        role: staff_user(role, f"{role}-hints")
        for role in ("dealer", "pit_boss", "cashier", "accountant", "operator")
    }


def test_each_step_of_a_slip_hints_the_desk_the_queue_and_its_tables_console(
    hints_received: list[tuple[str, str]], staff: dict[str, Any]
) -> None:
    table = Table.objects.select_related("casino").get(name="BJ1")
    opened(table, staff["dealer"], staff["pit_boss"])
    casino = table.casino_id
    slip_moved = {desk_topic(casino), queue_topic(casino), table_topic(table.pk)}
    by = {role: Actor.staff(user) for role, user in staff.items()}
    slip = None

    def request() -> None:
        nonlocal slip
        slip = slip_request(table=table, kind=SlipKind.FILL, amounts=FILL, actor=by["pit_boss"])

    assert published(hints_received, request) == slip_moved
    assert slip is not None
    assert published(hints_received, lambda: slip_issue(slip=slip, actor=by["cashier"])) == slip_moved
    # issued already: refused under the slip's lock, nothing hinted
    quiet(hints_received)
    refused("slip_step_refused", slip_issue, slip=slip, actor=by["cashier"])
    nothing_published(hints_received)
    assert published(hints_received, lambda: slip_receive(slip=slip, actor=by["dealer"])) == slip_moved
    # a hints_received slip is not voided: refused under the slip's lock, nothing hinted
    quiet(hints_received)
    refused("slip_step_refused", slip_void, slip=slip, actor=by["pit_boss"], reason="typo")
    nothing_published(hints_received)
    # a second slip, its void proposed, then approved by a second person (not by its proposer)
    other = slip_request(table=table, kind=SlipKind.CREDIT, amounts=FILL, actor=by["pit_boss"])
    assert (
        published(hints_received, lambda: slip_void(slip=other, actor=by["pit_boss"], reason="typo"))
        == slip_moved
    )
    proposal = slip_void_proposal(other)
    assert proposal is not None and proposal.approval_id is not None
    decide = dict(slip=other, approval_id=proposal.approval_id, approve=True)
    quiet(hints_received)
    refused("four_eyes_required", slip_void_decide, actor=by["pit_boss"], **decide)
    nothing_published(hints_received)
    assert published(hints_received, lambda: slip_void_decide(actor=by["accountant"], **decide)) == slip_moved


def test_a_count_waiting_for_its_signature_and_signed_hints_the_queue(
    hints_received: list[tuple[str, str]], staff: dict[str, Any]
) -> None:
    table = Table.objects.select_related("casino").get(name="BJ2")
    by = {role: Actor.staff(user) for role, user in staff.items()}
    count = None

    def record() -> None:
        nonlocal count
        count = tray_count_record(table=table, kind=CountKind.OPENER, amounts=TRAY, actor=by["dealer"])

    assert queue_topic(table.casino_id) in published(hints_received, record)
    assert count is not None
    quiet(hints_received)
    refused("same_person_signed_twice", tray_count_sign, count=count, actor=by["dealer"])
    nothing_published(hints_received)
    signed = published(hints_received, lambda: tray_count_sign(count=count, actor=by["pit_boss"]))
    # the signed opener opens the table too: its console and the floor
    assert {queue_topic(table.casino_id), table_topic(table.pk), floor_topic(table.casino_id)} <= signed


def test_a_drop_count_waiting_for_its_verifier_and_signed_hints_the_queue(
    hints_received: list[tuple[str, str]], staff: dict[str, Any]
) -> None:
    table = Table.objects.select_related("casino").get(name="BJ1")
    by = {role: Actor.staff(user) for role, user in staff.items()}
    day = current_gaming_day(table.casino)
    shift = shift_of(schedule_of(table.casino), timezone.now()).number
    count = None

    def record() -> None:
        nonlocal count
        count = drop_count_record(
            table=table, gaming_day=day, shift=shift, total_minor=300_000, actor=by["cashier"]
        )

    assert queue_topic(table.casino_id) in published(hints_received, record)
    assert count is not None
    quiet(hints_received)
    refused("same_person_signed_twice", drop_count_sign, count=count, actor=by["cashier"])
    nothing_published(hints_received)
    assert queue_topic(table.casino_id) in published(
        hints_received, lambda: drop_count_sign(count=count, actor=by["accountant"])
    )


def test_a_payout_held_and_decided_hints_the_queue_and_a_refused_decision_nothing(
    hints_received: list[tuple[str, str]], staff: dict[str, Any]
) -> None:
    table = Table.objects.get(name="BJ1")
    dealer = boss_dealer(staff["pit_boss"])
    held: list[Any] = []
    hinted = published(hints_received, lambda: held.extend(busy_round(table, dealer, staff["operator"])))
    assert {queue_topic(table.casino_id), table_topic(table.pk), floor_topic(table.casino_id)} <= hinted
    _alice, round_, lines = held
    lines_ids = [line.pk for line in lines]
    # the round's dealer may not decide its payouts
    quiet(hints_received)
    refused(
        "four_eyes_required",
        payouts_decide,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        approve=lines_ids,
        reject=[],
        reason="",
    )
    nothing_published(hints_received)
    decided = published(
        hints_received,
        lambda: payouts_decide(
            round_id=round_.pk, actor=Actor.staff(staff["pit_boss"]), approve=lines_ids, reject=[], reason=""
        ),
    )
    assert {queue_topic(table.casino_id), floor_topic(table.casino_id)} <= decided


def test_a_misscan_found_and_corrected_hints_the_queue(
    hints_received: list[tuple[str, str]], staff: dict[str, Any]
) -> None:
    table = Table.objects.get(name="BJ1")
    dealer = Actor.staff(staff["dealer"])
    physical(table, staff["operator"])
    dealer_sign_on(table=table, actor=dealer)
    shoe = shoe_shuffle(table=table, actor=dealer)
    Shoe.objects.filter(pk=shoe.pk).update(dealt_counts={"AS": 6})  # every ace of spades gone
    alice = at_terminal(table, funded_player(table, 10_000))
    box_take(table=table, box_number=1, actor=alice)
    round_ = round_open(table=table, actor=dealer)
    bet_place(
        round_id=round_.pk, actor=alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=dealer)

    def misscan() -> None:
        # (no savepoint around it: the misscan is recorded, its effect stands)
        with pytest.raises(ServiceError) as info:
            card_enter(round_id=round_.pk, actor=dealer, card="AS")
        assert info.value.code == "misscan"

    # the misscan waits for a pit boss: the queue shows it
    assert queue_topic(table.casino_id) in published(hints_received, misscan)
    assert Round.objects.get(pk=round_.pk).awaiting_correction is not None
    correct = dict(round_id=round_.pk, actor=Actor.staff(staff["pit_boss"]), card="TS", reason="misread")
    assert queue_topic(table.casino_id) in published(hints_received, lambda: card_correct(**correct))
    # nothing left to correct: refused under the round's lock, nothing hinted
    quiet(hints_received)
    refused("no_misscan", card_correct, **correct)
    nothing_published(hints_received)
