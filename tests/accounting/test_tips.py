"""Tips (accounting/tips.py): chips recorded by the table's dealer after a settled round, "no
tips", a player's tip from their wallet; each refusal with nothing written; the wallet tip's
balances; the pool of a shift and its split on a worked example."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from accounting.gaming_days import schedule_of, shift_of, shifts_of_day
from accounting.models import Tip, TipSource
from accounting.tips import (
    pool_split,
    round_tips,
    shift_tips_report,
    tip_from_player,
    tip_record,
    tippable_round,
    tips_none_record,
)
from casino.models import AuditRecord, Table
from tables.models import Round, TableDealer
from tables.services import Actor, round_open
from tests.accounting.conftest import day_closed
from tests.accounting.tips_support import pool_balance, settled_round, wallet_of, written
from tests.factories import TerminalFactory, staff_user
from tests.tables.conftest import funded_player, refused
from wallet.models import Posting, Transfer, TransferKind
from wallet.selectors import ledger_forgeries, ledger_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def settled(table: Table, dealer: Any) -> Round:
    return settled_round(table, dealer)


def _terminal(table: Table) -> Any:
    return TerminalFactory(casino=table.casino, table=table)


# ------------------------------------------------------------------------------ chips at the table


def test_the_dealer_records_chips_handed_over_after_a_settled_round(table, dealer, settled):
    # given a settled round dealt by dealer-1, still signed on
    transfers = Transfer.objects.count()
    # when the dealer records 5.00 in chips from box 1
    tip = tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer), box=1)
    # then the tip names the round, its table, its dealer, the gaming day and shift it opened in
    shift = shift_of(schedule_of(table.casino), settled.opened_at)
    tip.refresh_from_db()
    assert (tip.round_id, tip.table_id, tip.dealer_id, tip.recorded_by_id) == (
        settled.pk,
        table.pk,
        dealer.pk,
        dealer.pk,
    )
    assert (tip.gaming_day, tip.shift) == (shift.gaming_day, shift.number)
    assert (tip.amount_minor, tip.source, tip.box, tip.transfer_id) == (500, TipSource.CHIPS, 1, None)
    # and nothing moved in the ledger: the chips are in the toke box
    assert Transfer.objects.count() == transfers
    record = AuditRecord.objects.order_by("-pk").first()
    assert record is not None and record.action == "accounting.tip_recorded"
    assert (record.after["amount_minor"], record.after["source"], record.after["round_id"]) == (
        500,
        "chips",
        settled.pk,
    )
    # and a second tip of the round is recorded too
    tip_record(round_=settled, amount_minor=250, actor=Actor.staff(dealer))
    assert [tip.amount_minor for tip in round_tips(settled.pk)] == [500, 250]


@pytest.mark.parametrize("amount", [0, -500, True, "5"])
def test_a_tip_not_above_zero_is_refused_with_nothing_written(settled, dealer, amount):
    before = written()
    refused("invalid_tip_amount", tip_record, round_=settled, amount_minor=amount, actor=Actor.staff(dealer))
    assert written() == before


def test_a_box_the_table_has_not_is_refused(settled, dealer):
    before = written()
    refused(
        "invalid_tip_amount", tip_record, round_=settled, amount_minor=500, actor=Actor.staff(dealer), box=8
    )
    assert written() == before


def test_only_the_dealer_signed_on_at_the_table_records_its_tips(settled, dealer, dealer_two, cashier):
    before = written()
    # another dealer, not signed on at BJ1
    refused(
        "not_the_tables_dealer", tip_record, round_=settled, amount_minor=500, actor=Actor.staff(dealer_two)
    )
    refused("not_the_tables_dealer", tips_none_record, round_=settled, actor=Actor.staff(dealer_two))
    # a cashier holds no dealer's permission at all
    refused("permission_denied", tip_record, round_=settled, amount_minor=500, actor=Actor.staff(cashier))
    assert written() == before
    # yes: the dealer signed on
    tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer))
    assert written()["tips"] == before["tips"] + 1


def test_a_dealer_who_took_over_records_the_tips_for_the_round_of_the_one_before(table, settled, dealer_two):
    from tables.services import dealer_sign_on

    dealer_sign_on(table=table, actor=Actor.staff(dealer_two))
    tip = tip_record(round_=settled, amount_minor=300, actor=Actor.staff(dealer_two))
    assert (tip.dealer_id, tip.recorded_by_id) == (settled.dealer_id, dealer_two.pk)


def test_a_round_not_settled_takes_no_tips_from_the_dealer(table, dealer, settled):
    # given the next round open (betting)
    current = round_open(table=table, actor=Actor.staff(dealer))
    before = written()
    refused("round_not_settled", tip_record, round_=current, amount_minor=500, actor=Actor.staff(dealer))
    refused("round_not_settled", tips_none_record, round_=current, actor=Actor.staff(dealer))
    # and the settled round before it takes none any more
    refused("tips_round_closed", tip_record, round_=settled, amount_minor=500, actor=Actor.staff(dealer))
    assert written() == before
    assert tippable_round(table) is None


def test_a_closed_gaming_day_takes_no_tips(table, dealer, settled, pit_boss, accountant):
    # given the round opened yesterday (as the owner could move it), whose day is closed now
    tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer))
    opened_at = settled.opened_at - dt.timedelta(days=1)
    type(settled).objects.filter(pk=settled.pk).update(opened_at=opened_at)
    settled.opened_at = opened_at
    day = shift_of(schedule_of(table.casino), settled.opened_at).gaming_day
    day_closed(table.casino, day, pit_boss, accountant)
    player = funded_player(table, 5_000)
    before = written()
    refused("gaming_day_closed", tip_record, round_=settled, amount_minor=500, actor=Actor.staff(dealer))
    refused("gaming_day_closed", tips_none_record, round_=settled, actor=Actor.staff(dealer))
    refused(
        "gaming_day_closed",
        tip_from_player,
        table=table,
        amount_minor=500,
        actor=Actor.at_terminal(_terminal(table), player),
    )
    assert written() == before
    assert wallet_of(player) == 5_000


def test_no_tips_closes_the_step_once(table, dealer, settled):
    # yes: the round brought none
    record = tips_none_record(round_=settled, actor=Actor.staff(dealer))
    assert (record.source, record.amount_minor, record.dealer_id) == (TipSource.NONE, 0, dealer.pk)
    before = written()
    # no: twice
    refused("tips_already_recorded", tips_none_record, round_=settled, actor=Actor.staff(dealer))
    assert written() == before


def test_no_tips_is_refused_once_the_round_has_a_tip(dealer, settled):
    tip_record(round_=settled, amount_minor=500, actor=Actor.staff(dealer))
    before = written()
    refused("tips_already_recorded", tips_none_record, round_=settled, actor=Actor.staff(dealer))
    assert written() == before


# ------------------------------------------------------------------------------ from a wallet


def test_a_player_tips_the_dealer_of_the_last_settled_round_from_the_wallet(table, dealer, settled):
    # given alice won 10.00 on her 10.00: 110.00 in her wallet
    alice = settled.bets.first().player
    assert wallet_of(alice) == 11_000
    # when she tips 5.00 at her terminal
    tip = tip_from_player(table=table, amount_minor=500, actor=Actor.at_terminal(_terminal(table), alice))
    # then 5.00 moved from her wallet to the casino's tips pool, in one balanced transfer
    assert (wallet_of(alice), pool_balance(table.casino)) == (10_500, 500)
    transfer = Transfer.objects.get(pk=tip.transfer_id)
    assert transfer.kind == TransferKind.TIP
    amounts = sorted(Posting.objects.filter(transfer=transfer).values_list("amount_minor", flat=True))
    assert amounts == [-500, 500]
    assert (tip.source, tip.dealer_id, tip.player_id, tip.round_id) == (
        TipSource.WALLET,
        dealer.pk,
        alice.pk,
        settled.pk,
    )


def test_a_wallet_tip_is_named_by_one_audit_record_and_the_ledger_verifies(table, settled):
    alice = settled.bets.first().player
    tip = tip_from_player(table=table, amount_minor=500, actor=Actor.at_terminal(_terminal(table), alice))
    naming = [
        record.action
        for record in AuditRecord.objects.filter(after__has_key="transfers")
        if str(tip.transfer_id) in record.after["transfers"]
    ]
    assert naming == ["wallet.tip"]
    assert AuditRecord.objects.filter(action="accounting.tip_recorded", object_id=str(tip.pk)).count() == 1
    assert ledger_forgeries() == [] and ledger_verify().is_clean


def test_a_player_tips_the_dealer_of_the_round_in_play(table, dealer, settled):
    current = round_open(table=table, actor=Actor.staff(dealer))
    alice = settled.bets.first().player
    tip = tip_from_player(table=table, amount_minor=100, actor=Actor.at_terminal(_terminal(table), alice))
    assert (tip.round_id, tip.dealer_id) == (current.pk, dealer.pk)


def test_a_wallet_tip_above_the_available_money_is_refused_with_nothing_written(table, settled):
    alice = settled.bets.first().player
    before = written()
    refused(
        "insufficient_funds",
        tip_from_player,
        table=table,
        amount_minor=11_001,
        actor=Actor.at_terminal(_terminal(table), alice),
    )
    assert written() == before
    assert (wallet_of(alice), pool_balance(table.casino)) == (11_000, 0)


def test_a_wallet_tip_not_above_zero_is_refused(table, settled):
    alice = settled.bets.first().player
    before = written()
    refused(
        "invalid_tip_amount",
        tip_from_player,
        table=table,
        amount_minor=0,
        actor=Actor.at_terminal(_terminal(table), alice),
    )
    assert written() == before


def test_a_table_without_a_round_has_no_dealer_to_tip(seeded):
    table = Table.objects.select_related("casino").get(name="BJ2")
    player = funded_player(table, 5_000)
    before = written()
    refused(
        "no_round_to_tip",
        tip_from_player,
        table=table,
        amount_minor=100,
        actor=Actor.at_terminal(_terminal(table), player),
    )
    assert written() == before
    assert wallet_of(player) == 5_000


# ------------------------------------------------------------------------------ the pool and its split


def test_the_pool_is_split_by_largest_remainder_worked_example():
    # 100.01 among three dealers who dealt 4 h, 2 h and 2 h (in seconds): 50.005, 25.0025, 25.0025
    # -> 50.00, 25.00, 25.00 and the cent left over to the largest remainder (the first)
    assert pool_split(10_001, {1: 14_400, 2: 7_200, 3: 7_200}) == {1: 5_001, 2: 2_500, 3: 2_500}
    # 100.02: 50.01 exactly, 25.005 twice -> the cent left goes to the smaller key of the tie
    assert pool_split(10_002, {1: 14_400, 2: 7_200, 3: 7_200}) == {1: 5_001, 2: 2_501, 3: 2_500}
    # nobody dealt: equal shares; nobody at all: nothing
    assert pool_split(100, {7: 0, 9: 0, 8: 0}) == {7: 34, 8: 33, 9: 33}
    assert pool_split(100, {}) == {}
    # a dealer with no time gets no share
    assert pool_split(999, {1: 3, 2: 0}) == {1: 999, 2: 0}


@pytest.mark.parametrize("pool", [0, 1, 7, 9_999, 123_457])
def test_the_shares_add_up_to_the_pool(pool):
    shares = pool_split(pool, {1: 3_601, 2: 1_799, 3: 17, 4: 0})
    assert sum(shares.values()) == pool and min(shares.values()) >= 0


def test_a_shift_pool_is_shared_by_time_dealt_across_tables(seeded, dealer, dealer_two):
    # given yesterday's first shift (06:00 to 14:00, Europe/Budapest) at the demo casino
    bj1 = Table.objects.select_related("casino").get(name="BJ1")
    bj2 = Table.objects.get(name="BJ2")
    casino = bj1.casino
    today = shift_of(schedule_of(casino), dt.datetime.now(dt.UTC)).gaming_day
    shift = shifts_of_day(schedule_of(casino), today - dt.timedelta(days=1))[0]
    hour = dt.timedelta(hours=1)
    third = staff_user("dealer", "dealer-3")
    # dealer-1 dealt 6 h at BJ1 (from an hour before the shift, counted from its start);
    # dealer-2 2 h at BJ2 and then 1 h at BJ1; dealer-3 1 h at BJ2
    spells = [
        (bj1, dealer, shift.starts_at - hour, shift.starts_at + 6 * hour),
        (bj2, dealer_two, shift.starts_at, shift.starts_at + 2 * hour),
        (bj1, dealer_two, shift.starts_at + 6 * hour, shift.starts_at + 7 * hour),
        (bj2, third, shift.starts_at + 7 * hour, shift.ends_at + hour),
    ]
    for table, who, on, off in spells:
        TableDealer.objects.create(table=table, dealer=who, signed_on_at=on, signed_off_at=off)
    # and the tips of the shift: 40.00 in chips to dealer-1, 20.01 from a wallet to dealer-2
    round_ = settled_round(bj1, dealer)
    for amount, source, who in ((4_000, TipSource.CHIPS, dealer), (2_001, TipSource.CHIPS, dealer_two)):
        Tip.objects.create(
            casino=casino,
            round=round_,
            table=bj1,
            dealer=who,
            gaming_day=shift.gaming_day,
            shift=shift.number,
            amount_minor=amount,
            source=source,
            recorded_by=who,
            recorded_at=shift.starts_at + 2 * hour,
        )
    # when the report is drawn
    report = shift_tips_report(casino, shift)
    # then the pool 60.01 is shared 6 h : 3 h : 1 h of 10 h: 36.006, 18.003, 6.001
    # -> 36.00, 18.00, 6.00 and the cent left to dealer-1 (largest remainder)
    assert report.pool_minor == 6_001
    shares = {
        share.dealer_name: (share.seconds_dealt, share.tips_minor, share.share_minor)
        for share in report.shares
    }
    assert shares == {
        "dealer-1": (6 * 3600, 4_000, 3_601),
        "dealer-2": (3 * 3600, 2_001, 1_800),
        "dealer-3": (1 * 3600, 0, 600),
    }
    assert sum(share.share_minor for share in report.shares) == report.pool_minor
