"""Holds (bets) and bulk round settlement, pending payouts."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from casino.actors import Actor
from casino.errors import ServiceError
from casino.four_eyes import approval_decide
from casino.models import Approval, AuditRecord
from tests.wallet.factories import CasinoFactory, TableFactory
from tests.wallet.payouts import (
    payout_approval,
    payout_decided,
    pending_payout_reject,
    pending_payout_release,
)
from wallet.models import Account, AccountKind, Hold, HoldStatus, PayoutStatus, PendingPayout, TransferKind
from wallet.selectors import account_balance, player_account, table_wagers_in_play
from wallet.services import (
    SettlementLine,
    SettlementReference,
    hold_place,
    holds_settle,
    holds_void,
    pending_payouts_decide,
)


def _table_account(table: Any, kind: str) -> Account:
    return Account.objects.get(table=table, kind=kind)


def test_a_hold_makes_the_stake_unavailable_at_once(make_player: Any, table: Any) -> None:
    # given a player with 100.00
    player = make_player(10_000)
    audit_before = AuditRecord.objects.count()
    # when a bet of 25.00 is placed
    hold = hold_place(player=player, amount_minor=2_500, table=table, reference_id="r1")
    # then the balance is unchanged, 25.00 is held, 75.00 available; nothing posted, nothing audited
    assert hold.status == HoldStatus.OPEN
    assert (hold.amount_minor, hold.table_id, hold.reference_id) == (2_500, table.pk, "r1")
    assert account_balance(player) == type(account_balance(player))(10_000, 2_500, 7_500, "EUR")
    assert table_wagers_in_play(table) == 2_500
    assert AuditRecord.objects.count() == audit_before


def test_a_hold_beyond_the_available_balance_is_refused(make_player: Any, table: Any, snapshot: Any) -> None:
    player = make_player(10_000)
    hold_place(player=player, amount_minor=6_000, table=table)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        hold_place(player=player, amount_minor=4_001, table=table)
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before


def test_a_player_without_a_wallet_cannot_bet(make_player: Any, table: Any, snapshot: Any) -> None:
    player = make_player()
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        hold_place(player=player, amount_minor=1, table=table)
    assert refused.value.code == "account_not_found"
    assert snapshot() == before


@pytest.mark.parametrize("amount", [0, -5, 2.5])
def test_a_hold_of_no_whole_positive_amount_is_refused_and_leaves_no_record(
    amount: Any, make_player: Any, table: Any, snapshot: Any
) -> None:
    player = make_player(10_000)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        hold_place(player=player, amount_minor=amount, table=table)
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before


def test_a_hold_at_another_casinos_table_is_refused_and_leaves_no_record(
    make_player: Any, snapshot: Any
) -> None:
    player = make_player(10_000)
    elsewhere = TableFactory(casino=CasinoFactory(code="other", name="Other Casino"), name="BJ9")
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        hold_place(player=player, amount_minor=100, table=elsewhere)
    assert refused.value.code == "casino_mismatch"
    assert snapshot() == before


def test_a_hold_is_one_statement_writing_only_the_players_own_row(make_player: Any, table: Any) -> None:
    # given a player with a wallet
    player = make_player(10_000)
    # when a bet is held
    with CaptureQueriesContext(connection) as queries:
        hold = hold_place(player=player, amount_minor=1_000, table=table, reference_id=7, bet_reference="b")
    # then one statement raised that wallet's held amount and inserted the hold
    assert [query["sql"].split(" SET ")[0] for query in queries.captured_queries] == [
        "WITH account AS (UPDATE wallet_account"
    ]
    # and the hold returned is the row written
    fields = ("pk", "account_id", "amount_minor", "status", "table_id", "reference_type", "reference_id")
    stored = Hold.objects.get(pk=hold.pk)
    assert [getattr(hold, name) for name in fields] == [getattr(stored, name) for name in fields]
    assert (hold.account_id, hold.reference_id, hold.bet_reference) == (player_account(player).pk, "7", "b")
    assert (hold.created_at, hold._state.adding) == (stored.created_at, False)


def test_a_refused_hold_leaves_the_callers_transaction_usable(
    make_player: Any, table: Any, snapshot: Any
) -> None:
    # given a player with 10.00, and a caller placing two bets in one transaction
    player = make_player(1_000)
    before = snapshot()
    with transaction.atomic():
        # when the first is refused and the caller goes on with a smaller one
        with pytest.raises(ServiceError) as refused:
            hold_place(player=player, amount_minor=1_001, table=table)
        assert refused.value.code == "insufficient_funds"
        assert snapshot() == before
        hold = hold_place(player=player, amount_minor=1_000, table=table)
    # then the refused one wrote nothing and the second holds
    assert account_balance(player) == type(account_balance(player))(1_000, 1_000, 0, "EUR")
    assert list(Hold.objects.values_list("pk", "amount_minor")) == [(hold.pk, 1_000)]


def test_holds_void_releases_the_stakes_in_bulk(make_player: Any, table: Any) -> None:
    # given two bets of two players
    alice, bob = make_player(10_000), make_player(5_000)
    first = hold_place(player=alice, amount_minor=1_000, table=table)
    second = hold_place(player=bob, amount_minor=2_000, table=table)
    # when the round is voided
    voided = holds_void(
        hold_ids=[first.pk, second.pk],
        reason="round voided",
        actor=Actor.automatic("test"),
    )
    # then both stakes are available again, nothing was posted, one audit record
    assert voided == [first.pk, second.pk]
    assert account_balance(alice).available_minor == 10_000
    assert account_balance(bob).available_minor == 5_000
    assert set(Hold.objects.values_list("status", flat=True)) == {HoldStatus.VOIDED}
    assert AuditRecord.objects.order_by("-sequence").first().action == "wallet.holds_voided"


def test_voiding_a_closed_hold_voids_nothing(make_player: Any, table: Any, snapshot: Any) -> None:
    player = make_player(10_000)
    first = hold_place(player=player, amount_minor=1_000, table=table)
    second = hold_place(player=player, amount_minor=1_000, table=table)
    holds_void(hold_ids=[first.pk], reason="cancelled", actor=Actor.automatic("test"))
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        holds_void(hold_ids=[second.pk, first.pk], reason="cancelled", actor=Actor.automatic("test"))
    assert refused.value.code == "hold_not_open"
    assert snapshot() == before
    assert Hold.objects.get(pk=second.pk).status == HoldStatus.OPEN


def test_voiding_the_same_holds_twice_is_refused_and_moves_nothing(
    make_player: Any, table: Any, snapshot: Any
) -> None:
    # given a round's holds voided once
    player = make_player(10_000)
    hold = hold_place(player=player, amount_minor=1_000, table=table)
    holds_void(hold_ids=[hold.pk], reason="round voided", actor=Actor.automatic("test"))
    before = snapshot()
    # when the void comes again
    with pytest.raises(ServiceError) as refused:
        holds_void(hold_ids=[hold.pk], reason="round voided", actor=Actor.automatic("test"))
    # then the hold's state refuses it: nothing moved
    assert (refused.value.code, refused.value.details) == ("hold_not_open", {"hold_id": hold.pk})
    assert snapshot() == before
    assert account_balance(player).available_minor == 10_000


def test_round_settle_moves_every_bet_in_one_transfer(
    make_player: Any, filled_table: Any, casino: Any
) -> None:
    # given four bettors at a table whose tray holds 1 000.00
    table = filled_table
    loser, pusher, winner, big_winner = (make_player(10_000) for _ in range(4))
    holds = [
        hold_place(player=player, amount_minor=amount, table=table, reference_id="r7")
        for player, amount in ((loser, 1_000), (pusher, 2_000), (winner, 1_500), (big_winner, 5_000))
    ]
    lines = [
        SettlementLine(
            account_id=holds[0].account_id, hold_id=holds[0].pk, stake_minor=1_000, payout_minor=0
        ),
        SettlementLine(
            account_id=holds[1].account_id, hold_id=holds[1].pk, stake_minor=2_000, payout_minor=2_000
        ),
        # a blackjack on 15.00 pays 3:2 = 22.50; the table pays whole euros: 37.00 back, 0.50 kept
        SettlementLine(
            account_id=holds[2].account_id,
            hold_id=holds[2].pk,
            stake_minor=1_500,
            payout_minor=3_700,
            rounding_minor=50,
        ),
        SettlementLine(
            account_id=holds[3].account_id,
            hold_id=holds[3].pk,
            stake_minor=5_000,
            payout_minor=55_000,
            needs_approval=True,
            bet_reference="box3-main",
            approval_id=payout_approval(casino),
        ),
    ]
    # when the round is settled
    result = holds_settle(
        casino=casino,
        table=table,
        reference=SettlementReference("round", 7),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    # then one transfer carries the round, the holds are posted, and every account moved exactly
    transfer = result.transfer
    assert (transfer.kind, transfer.reference_type, transfer.reference_id) == (
        TransferKind.ROUND_SETTLEMENT,
        "round",
        "7",
    )
    assert sum(transfer.postings.values_list("amount_minor", flat=True)) == 0
    assert account_balance(loser) == type(account_balance(loser))(9_000, 0, 9_000, "EUR")
    assert account_balance(pusher).balance_minor == 10_000
    assert account_balance(winner).balance_minor == 12_200
    assert account_balance(big_winner).balance_minor == 5_000
    assert _table_account(table, AccountKind.TABLE_PAYOUTS_PENDING).balance_minor == 55_000
    assert Account.objects.get(casino=casino, kind=AccountKind.HOUSE_ROUNDING).balance_minor == 50
    # tray: 100 000 + stakes 9 500 - payouts 60 700 - rounding 50
    assert _table_account(table, AccountKind.TABLE_TRAY).balance_minor == 48_750
    assert set(Hold.objects.values_list("status", "closed_by_transfer")) == {(HoldStatus.POSTED, transfer.pk)}
    assert table_wagers_in_play(table) == 0
    payout = PendingPayout.objects.get()
    assert result.pending_payout_ids == [payout.pk]
    assert (payout.amount_minor, payout.status, payout.bet_reference) == (
        55_000,
        PayoutStatus.PENDING,
        "box3-main",
    )
    # the pusher's net is zero: no posting for them
    assert not transfer.postings.filter(account=player_account(pusher)).exists()
    record = AuditRecord.objects.order_by("-sequence").first()
    assert record.action == "wallet.round_settled"
    assert record.after["tray_minor"] == -51_250


def test_a_game_between_players_settles_through_the_same_holds_with_the_house_fee(
    make_player: Any, table: Any, casino: Any, snapshot: Any
) -> None:
    # given a game of three: two losers held 50.00 each, a winner held 50.00
    losers = [make_player(10_000), make_player(10_000)]
    winner = make_player(10_000)
    holds = [hold_place(player=player, amount_minor=5_000, table=table) for player in [*losers, winner]]
    # when the losers pay 30.00 and 20.01, the house takes a fee of 5.00 and the winner the rest
    # but for what the rounding kept back (0.01)
    lines = [
        SettlementLine(
            account_id=holds[0].account_id, hold_id=holds[0].pk, stake_minor=3_000, payout_minor=0
        ),
        SettlementLine(
            account_id=holds[1].account_id, hold_id=holds[1].pk, stake_minor=2_001, payout_minor=0
        ),
        SettlementLine(
            account_id=holds[2].account_id,
            hold_id=holds[2].pk,
            stake_minor=0,
            payout_minor=4_500,
            rounding_minor=1,
        ),
    ]
    result = holds_settle(
        casino=casino,
        table=table,
        reference=SettlementReference("canasta_game", 42),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    # then one transfer names the game, every hold is posted, and the house has its fee
    transfer = result.transfer
    assert (transfer.kind, transfer.reference_type, transfer.reference_id, transfer.memo) == (
        TransferKind.ROUND_SETTLEMENT,
        "canasta_game",
        "42",
        "BJ1 game 42",
    )
    assert result.pending_payout_ids == []
    assert [account_balance(player).balance_minor for player in [*losers, winner]] == [7_000, 7_999, 14_500]
    assert [account_balance(player).held_minor for player in [*losers, winner]] == [0, 0, 0]
    assert Account.objects.get(casino=casino, kind=AccountKind.HOUSE).balance_minor == 500
    assert Account.objects.get(casino=casino, kind=AccountKind.HOUSE_ROUNDING).balance_minor == 1
    record = AuditRecord.objects.order_by("-sequence").first()
    assert (record.action, record.after["fee_minor"], record.after["reference"]) == (
        "wallet.game_settled",
        500,
        "42",
    )
    # and a second settlement of the game finds its holds posted, moving nothing
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=table,
            reference=SettlementReference("canasta_game", 42),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "hold_not_open"
    assert snapshot() == before


def test_a_round_of_no_held_stake_is_settled_once(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    # given a round settled with a stake taken from the available balance (no hold)
    player = make_player(10_000)
    lines = [SettlementLine(account_id=player_account(player).pk, stake_minor=1_000, payout_minor=2_000)]
    holds_settle(
        casino=casino,
        table=filled_table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    before = snapshot()
    # when the same round is settled again
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    # then the first settlement's transfer refuses it: nothing moved
    assert (refused.value.code, refused.value.status) == ("round_already_settled", 409)
    assert snapshot() == before
    assert account_balance(player).balance_minor == 11_000


def test_a_settled_hold_cannot_be_settled_again(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    player = make_player(10_000)
    hold = hold_place(player=player, amount_minor=1_000, table=filled_table)
    lines = [
        SettlementLine(account_id=hold.account_id, hold_id=hold.pk, stake_minor=1_000, payout_minor=2_000)
    ]
    holds_settle(
        casino=casino,
        table=filled_table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "hold_not_open"
    assert snapshot() == before


def test_a_round_the_tray_cannot_pay_is_refused(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    # given a tray of 1 000.00 and a bet that would win 1 500.00
    player = make_player(100_000)
    hold = hold_place(player=player, amount_minor=50_000, table=filled_table)
    before = snapshot()
    lines = [
        SettlementLine(account_id=hold.account_id, hold_id=hold.pk, stake_minor=50_000, payout_minor=200_000)
    ]
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "insufficient_funds"
    assert refused.value.details["account_id"] == _table_account(filled_table, AccountKind.TABLE_TRAY).pk
    assert snapshot() == before


def test_a_stake_that_was_not_held_is_taken_from_the_available_balance(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    player = make_player(1_000)
    account_id = player_account(player).pk
    lines = [SettlementLine(account_id=account_id, stake_minor=1_001, payout_minor=0)]
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "insufficient_funds"
    assert snapshot() == before
    lines = [SettlementLine(account_id=account_id, stake_minor=1_000, payout_minor=0)]
    holds_settle(
        casino=casino,
        table=filled_table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    assert account_balance(player).balance_minor == 0


def test_a_line_naming_another_players_hold_is_refused(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    alice, bob = make_player(1_000), make_player(1_000)
    hold = hold_place(player=alice, amount_minor=500, table=filled_table)
    before = snapshot()
    lines = [
        SettlementLine(account_id=player_account(bob).pk, hold_id=hold.pk, stake_minor=500, payout_minor=0)
    ]
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "hold_mismatch"
    assert snapshot() == before


def test_a_stake_above_its_hold_is_refused(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    player = make_player(1_000)
    hold = hold_place(player=player, amount_minor=500, table=filled_table)
    before = snapshot()
    lines = [SettlementLine(account_id=hold.account_id, hold_id=hold.pk, stake_minor=501, payout_minor=0)]
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before


def _settle_with_pending(make_player: Any, table: Any, casino: Any) -> tuple[Any, PendingPayout]:
    player = make_player(10_000)
    hold = hold_place(player=player, amount_minor=1_000, table=table)
    lines = [
        SettlementLine(
            account_id=hold.account_id,
            hold_id=hold.pk,
            stake_minor=1_000,
            payout_minor=30_000,
            needs_approval=True,
            approval_id=payout_approval(casino),
        )
    ]
    result = holds_settle(
        casino=casino,
        table=table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    return player, PendingPayout.objects.get(pk=result.pending_payout_ids[0])


def test_payout_release_moves_the_payout_to_the_player(
    make_player: Any, filled_table: Any, casino: Any, pit_boss: Any
) -> None:
    player, payout = _settle_with_pending(make_player, filled_table, casino)
    assert account_balance(player).balance_minor == 9_000
    transfer = pending_payout_release(payout=payout, actor=Actor.staff(pit_boss))
    assert transfer.kind == TransferKind.PAYOUT_RELEASE
    assert account_balance(player).balance_minor == 39_000
    assert _table_account(filled_table, AccountKind.TABLE_PAYOUTS_PENDING).balance_minor == 0
    payout.refresh_from_db()
    assert (payout.status, payout.decided_by, payout.decided_transfer_id) == (
        PayoutStatus.RELEASED,
        pit_boss,
        transfer.pk,
    )


def test_payout_reject_sends_the_payout_back_to_the_tray(
    make_player: Any, filled_table: Any, casino: Any, pit_boss: Any, snapshot: Any
) -> None:
    player, payout = _settle_with_pending(make_player, filled_table, casino)
    tray_before = _table_account(filled_table, AccountKind.TABLE_TRAY).balance_minor
    pending_payout_reject(payout=payout, actor=Actor.staff(pit_boss), reason="misdeal")
    assert account_balance(player).balance_minor == 9_000
    assert _table_account(filled_table, AccountKind.TABLE_TRAY).balance_minor == tray_before + 30_000
    payout.refresh_from_db()
    assert (payout.status, payout.decided_by, payout.reason) == (PayoutStatus.REJECTED, pit_boss, "misdeal")
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        pending_payout_release(payout=payout, actor=Actor.staff(pit_boss))
    assert refused.value.code == "approval_decided"
    assert snapshot() == before


def test_a_payout_released_twice_moves_once(
    make_player: Any, filled_table: Any, casino: Any, pit_boss: Any, snapshot: Any
) -> None:
    # given a parked payout released once
    player, payout = _settle_with_pending(make_player, filled_table, casino)
    pending_payout_release(payout=payout, actor=Actor.staff(pit_boss))
    approval = Approval.objects.get(pk=payout.approval_id)
    before = snapshot()
    # when the effect of its approval comes again, or a decision after it
    with pytest.raises(ServiceError) as released_again:
        pending_payouts_decide(approvals=[approval], actor=Actor.staff(pit_boss))
    with pytest.raises(ServiceError) as rejected_after:
        pending_payout_reject(payout=payout, actor=Actor.staff(pit_boss), reason="misdeal")
    # then the payout's state refuses the first, the approval's the second: nothing moved
    assert (released_again.value.code, rejected_after.value.code) == (
        "payout_not_pending",
        "approval_decided",
    )
    assert snapshot() == before
    assert account_balance(player).balance_minor == 39_000


def test_a_payout_moves_only_on_a_decided_approval_of_its_own(
    make_player: Any, filled_table: Any, casino: Any, pit_boss: Any, snapshot: Any
) -> None:
    # given a parked payout, and another payout's approval approved
    _, payout = _settle_with_pending(make_player, filled_table, casino)
    other = approval_decide(approval_id=payout_approval(casino), actor=Actor.staff(pit_boss), approve=True)
    before = snapshot()
    # when the wallet is given the payout's approval still pending: a caller's bug
    with pytest.raises(ValueError):
        pending_payouts_decide(
            approvals=[Approval.objects.get(pk=payout.approval_id)], actor=Actor.staff(pit_boss)
        )
    # or the other approval: no payout waits on it
    with pytest.raises(ServiceError) as refused:
        pending_payouts_decide(approvals=[other], actor=Actor.staff(pit_boss))
    # then nothing moved
    assert refused.value.code == "payout_not_pending"
    assert snapshot() == before


def test_a_dealer_cannot_release_a_payout(
    make_player: Any, filled_table: Any, casino: Any, dealer: Any, snapshot: Any
) -> None:
    _, payout = _settle_with_pending(make_player, filled_table, casino)
    before = snapshot()
    with pytest.raises(ServiceError) as refused:
        payout_decided(payout, actor=Actor.staff(dealer))
    assert refused.value.code == "permission_denied"
    assert snapshot() == before
    assert Approval.objects.get(pk=payout.approval_id).status == Approval.Status.PENDING


def _settle_round_of(size: int, make_player: Any, table: Any, casino: Any, round_id: int) -> int:
    players = [make_player(10_000) for _ in range(size)]
    holds = [
        hold_place(player=player, amount_minor=1_000, table=table) for index, player in enumerate(players)
    ]
    lines = [
        SettlementLine(
            account_id=hold.account_id, hold_id=hold.pk, stake_minor=1_000, payout_minor=(index % 3) * 1_000
        )
        for index, hold in enumerate(holds)
    ]
    with CaptureQueriesContext(connection) as queries:
        holds_settle(
            casino=casino,
            table=table,
            reference=SettlementReference("round", round_id),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    return len(queries.captured_queries)


def test_settlement_runs_a_constant_number_of_statements(
    make_player: Any, filled_table: Any, casino: Any
) -> None:
    # given a round of 3 bets and a round of 60 bets (after a first round that opened the accounts)
    _settle_round_of(2, make_player, filled_table, casino, 1)
    small = _settle_round_of(3, make_player, filled_table, casino, 2)
    large = _settle_round_of(60, make_player, filled_table, casino, 3)
    # then both take the same number of SQL statements
    assert small == large
    assert large <= 16


def test_a_settlement_line_beyond_the_ledger_range_is_refused(
    make_player: Any, filled_table: Any, casino: Any, snapshot: Any
) -> None:
    player = make_player(1_000)
    hold = hold_place(player=player, amount_minor=500, table=filled_table)
    before = snapshot()
    lines = [SettlementLine(account_id=hold.account_id, hold_id=hold.pk, stake_minor=500, payout_minor=2**63)]
    with pytest.raises(ServiceError) as refused:
        holds_settle(
            casino=casino,
            table=filled_table,
            reference=SettlementReference("round", 1),
            lines=lines,
            actor=Actor.automatic("test"),
        )
    assert refused.value.code == "invalid_amount"
    assert snapshot() == before
