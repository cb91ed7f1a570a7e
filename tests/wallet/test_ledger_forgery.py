"""Every transfer is vouched for by the audit chain: its audit record carries the hash of its
postings, and ``ledger_verify`` names a transfer that no record names, one whose postings were
edited, and one a record names that is gone, even when the balances were kept in step."""

from __future__ import annotations

import logging
from io import StringIO
from typing import Any

from django.core.management import call_command

from casino.actors import Actor
from casino.audit import audit_append
from casino.models import AuditRecord
from tests.tampering import raw, triggers_off
from tests.wallet.payouts import payout_approval, pending_payout_reject, pending_payout_release
from wallet.ledger_hash import transfer_hash
from wallet.models import Account, AccountKind, PendingPayout, Posting, Transfer, TransferKind
from wallet.selectors import ForgedTransfer, ledger_forgeries, ledger_verify
from wallet.services import (
    SettlementLine,
    SettlementReference,
    adjustment_approve,
    balance_adjust,
    cage_buy_in,
    cage_cash_out,
    hold_place,
    holds_settle,
    table_credit,
    tip_from_wallet,
    transfer_between_players,
    transfer_reverse,
)
from wallet.tasks import ledger_verify_task

FORGED_MINOR = 100_000_000


def _ledger_verify_command() -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_verify", stdout=out, stderr=err)
    except SystemExit as exited:
        return int(exited.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def _forge_credit(account: Account, amount_minor: int) -> int:
    """As the database superuser, without touching a trigger: a balanced transfer cage -> the
    account with its two postings, and both cached balances moved to match. Returns its id."""
    cage = Account.objects.get(casino=account.casino, kind=AccountKind.CAGE)
    transfer = Transfer.objects.create(casino=account.casino, kind=TransferKind.ADJUSTMENT, currency="EUR")
    Posting.objects.create(transfer=transfer, account=cage, amount_minor=-amount_minor)
    Posting.objects.create(transfer=transfer, account=account, amount_minor=amount_minor)
    raw("UPDATE wallet_account SET balance_minor = balance_minor - %s WHERE id = %s", [amount_minor, cage.pk])
    raw(
        "UPDATE wallet_account SET balance_minor = balance_minor + %s WHERE id = %s",
        [amount_minor, account.pk],
    )
    return transfer.pk


def test_a_forged_balanced_transfer_is_named_by_ledger_verify(make_player: Any) -> None:
    # given a clean ledger with a funded player
    player = make_player(10_000)
    account = Account.objects.get(player=player)
    assert ledger_verify().is_clean
    # when 100,000,000 minor units are created for the player with a balanced transfer and the
    # cached balances kept in step (every trigger and constraint still on)
    forged_id = _forge_credit(account, FORGED_MINOR)
    # then every balance still matches its postings, but the transfer is named as a forgery
    result = ledger_verify()
    assert result.offender == ""
    assert result.forged == (
        ForgedTransfer(forged_id, TransferKind.ADJUSTMENT, FORGED_MINOR, "no audit record names it"),
    )
    # and the command exits 1 naming it
    code, out, err = _ledger_verify_command()
    assert (code, out) == (1, "")
    assert err.splitlines()[1:] == [
        f"forged transfer {forged_id} (adjustment, 100000000 minor units): no audit record names it"
    ]
    assert err.startswith("ledger broken: 1 transfers the audit chain does not vouch for (")


def test_a_transfer_whose_postings_were_edited_is_named(make_player: Any, cashier: Any) -> None:
    # given a buy-in of 100.00 and its audit record
    player = make_player()
    transfer = cage_buy_in(player=player, amount_minor=10_000, actor=Actor.staff(cashier))
    record = AuditRecord.objects.get(action="wallet.buy_in")
    account = Account.objects.get(player=player)
    cage = Account.objects.get(kind=AccountKind.CAGE)
    # when, with the triggers off, the buy-in's postings and the balances are raised to 1,000,100.00
    triggers_off()
    raw(
        "UPDATE wallet_posting SET amount_minor = %s WHERE transfer_id = %s AND account_id = %s",
        [FORGED_MINOR, transfer.pk, account.pk],
    )
    raw(
        "UPDATE wallet_posting SET amount_minor = %s WHERE transfer_id = %s AND account_id = %s",
        [-FORGED_MINOR, transfer.pk, cage.pk],
    )
    raw("UPDATE wallet_account SET balance_minor = %s WHERE id = %s", [FORGED_MINOR, account.pk])
    raw("UPDATE wallet_account SET balance_minor = %s WHERE id = %s", [-FORGED_MINOR, cage.pk])
    # then the balances agree with the postings, and the transfer is named against its record
    result = ledger_verify()
    assert result.offender == ""
    assert result.forged == (
        ForgedTransfer(
            transfer.pk,
            TransferKind.BUY_IN,
            FORGED_MINOR,
            f"its postings do not match the hash in audit record #{record.sequence}",
        ),
    )


def test_a_deleted_transfer_is_named_by_the_record_that_names_it(make_player: Any, cashier: Any) -> None:
    # given two buy-ins
    player = make_player(1_000)
    transfer = cage_buy_in(player=player, amount_minor=2_000, actor=Actor.staff(cashier))
    record = AuditRecord.objects.filter(action="wallet.buy_in").order_by("-sequence").first()
    # when, with the triggers off, the second one is deleted and the balances put back
    triggers_off()
    raw("DELETE FROM wallet_posting WHERE transfer_id = %s", [transfer.pk])
    raw("DELETE FROM wallet_transfer WHERE id = %s", [transfer.pk])
    raw("UPDATE wallet_account SET balance_minor = 1000 WHERE player_id = %s", [player.pk])
    raw("UPDATE wallet_account SET balance_minor = -1000 WHERE kind = 'cage'", [])
    # then the record that named it says so
    assert ledger_verify().forged == (
        ForgedTransfer(
            transfer.pk, "", 0, f"audit record #{record.sequence} names it, the ledger has no such transfer"
        ),
    )


def test_every_kind_of_transfer_carries_its_hash_in_its_audit_record(
    make_player: Any, filled_table: Any, casino: Any, cashier: Any, pit_boss: Any, other_pit_boss: Any
) -> None:
    # given one transfer of every kind, each written by its service
    alice, bob = make_player(100_000), make_player(50_000)
    cage_cash_out(player=alice, amount_minor=1_000, actor=Actor.staff(cashier))
    transfer_between_players(from_player=alice, to_player=bob, amount_minor=500, actor=Actor.staff(cashier))
    table_credit(table=filled_table, amount_minor=1_000, actor=Actor.staff(cashier))
    balance_adjust(player=alice, amount_minor=200, reason="comp", actor=Actor.staff(pit_boss))
    large = balance_adjust(player=alice, amount_minor=60_000, reason="jackpot", actor=Actor.staff(pit_boss))
    adjustment_approve(adjustment=large, actor=Actor.staff(other_pit_boss))
    holds = [
        hold_place(player=player, amount_minor=1_000, table=filled_table) for player in (alice, bob, alice)
    ]
    lines = [
        SettlementLine(
            account_id=hold.account_id,
            hold_id=hold.pk,
            stake_minor=1_000,
            payout_minor=payout,
            needs_approval=waits,
            approval_id=payout_approval(casino) if waits else None,
        )
        for hold, payout, waits in zip(holds, (0, 30_000, 20_000), (False, True, True), strict=True)
    ]
    settlement = holds_settle(
        casino=casino,
        table=filled_table,
        reference=SettlementReference("round", 1),
        lines=lines,
        actor=Actor.automatic("test"),
    )
    first, second = (PendingPayout.objects.get(pk=pk) for pk in settlement.pending_payout_ids)
    pending_payout_release(payout=first, actor=Actor.staff(pit_boss))
    pending_payout_reject(payout=second, actor=Actor.staff(pit_boss), reason="void bet")
    bought = cage_buy_in(player=bob, amount_minor=700, actor=Actor.staff(cashier))
    transfer_reverse(transfer=bought, reason="keyed twice", actor=Actor.staff(pit_boss))
    tip_from_wallet(player=bob, amount_minor=100, actor=Actor.automatic("test"))
    assert set(Transfer.objects.values_list("kind", flat=True)) == set(TransferKind.values)
    # then every transfer is named, with the hash of its postings, by exactly one audit record
    named: dict[str, list[int]] = {}
    for record in AuditRecord.objects.filter(after__has_key="transfers"):
        for transfer_id in record.after["transfers"]:
            named.setdefault(transfer_id, []).append(record.sequence)
    assert sorted(named, key=int) == [
        str(pk) for pk in Transfer.objects.order_by("pk").values_list("pk", flat=True)
    ]
    assert all(len(sequences) == 1 for sequences in named.values())
    # and the ledger verifies clean
    assert ledger_forgeries() == []
    assert ledger_verify().is_clean


def test_a_transfer_a_second_audit_record_names_is_named(make_player: Any) -> None:
    # given a genuine buy-in
    player = make_player(10_000)
    transfer = Transfer.objects.filter(kind=TransferKind.BUY_IN, postings__account__player=player).get()
    first = AuditRecord.objects.get(action="wallet.buy_in", after__transfer_id=transfer.pk)
    # when its postings are multiplied (balances kept in step) and a new audit record, appended
    # the ordinary way, names the transfer with the hash of its new postings
    triggers_off()
    raw("UPDATE wallet_posting SET amount_minor = amount_minor * 1000 WHERE transfer_id = %s", [transfer.pk])
    for posting in Posting.objects.filter(transfer=transfer):
        raw(
            "UPDATE wallet_account SET balance_minor = balance_minor + %s WHERE id = %s",
            [posting.amount_minor - posting.amount_minor // 1000, posting.account_id],
        )
    postings = list(Posting.objects.filter(transfer=transfer).values_list("account_id", "amount_minor"))
    second = audit_append(
        action="wallet.note", after={"transfers": {str(transfer.pk): transfer_hash(transfer, postings)}}
    )
    # then the balances match the postings, but the transfer named twice is named
    result = ledger_verify()
    assert result.offender == ""
    assert result.forged == (
        ForgedTransfer(
            transfer.pk,
            TransferKind.BUY_IN,
            10_000_000,
            f"more than one audit record names it (#{first.sequence}, #{second.sequence})",
        ),
    )


def test_the_nightly_task_logs_a_forged_transfer_as_an_error(make_player: Any, caplog: Any) -> None:
    # given a funded player, and the nightly task clean on a clean ledger
    account = Account.objects.get(player=make_player(10_000))
    assert ledger_verify_task.delay().get()["forged"] == []
    # when a balanced transfer is forged for the player
    forged_id = _forge_credit(account, FORGED_MINOR)
    # then the task names it, and the on-call sees it as an error
    with caplog.at_level(logging.INFO, logger="wallet.tasks"):
        summary = ledger_verify_task.delay().get()
    assert summary["forged"] == [forged_id]
    assert summary["offender"] == ""
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert errors == [
        f"forged transfer {forged_id} (adjustment, 100000000 minor units): no audit record names it"
    ]


def test_the_hash_is_of_the_postings_in_any_order() -> None:
    transfer = Transfer(pk=7, casino_id=1, kind="buy_in", currency="EUR", reference_type="", reference_id="")
    digest = transfer_hash(transfer, [(2, -500), (9, 500)])
    assert digest == transfer_hash(transfer, [(9, 500), (2, -500)])
    assert digest != transfer_hash(transfer, [(2, -501), (9, 501)])
    transfer.kind = "cash_out"
    assert digest != transfer_hash(transfer, [(2, -500), (9, 500)])
    assert len(digest) == 64
