"""What the database itself refuses, whatever the Python code does."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import IntegrityError, InternalError, connection, connections, transaction
from django.db.utils import DatabaseError

from casino.actors import Actor
from wallet.models import Account, AccountKind, Posting, Transfer, TransferKind
from wallet.selectors import ledger_verify
from wallet.services import cage_buy_in


def test_a_player_account_cannot_go_below_its_held_amount(make_player: Any) -> None:
    # given a player account with 10.00 of which 4.00 is held
    player = make_player(1_000)
    Account.objects.filter(player=player).update(held_minor=400)
    # when anything tries to leave it with less than is held, the CHECK constraint refuses
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(player=player).update(balance_minor=399)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(player=player).update(held_minor=-1, balance_minor=0)
    assert Account.objects.get(player=player).balance_minor == 1_000


def test_a_player_account_cannot_be_allowed_to_go_negative(make_player: Any) -> None:
    # given a funded player
    player = make_player(1_000)
    # when anything flags the wallet as one that may go negative, the CHECK constraint refuses
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(player=player).update(may_go_negative=True)
    assert Account.objects.get(player=player).may_go_negative is False


def test_the_cage_may_go_negative(casino: Any, make_player: Any) -> None:
    make_player(1_000)
    assert Account.objects.get(casino=casino, kind=AccountKind.CAGE).balance_minor == -1_000


def test_a_zero_posting_is_refused(make_player: Any) -> None:
    player = make_player(1_000)
    transfer = Transfer.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Posting.objects.create(transfer=transfer, account=Account.objects.get(player=player), amount_minor=0)


def test_an_account_owner_must_match_its_kind(casino: Any, make_player: Any) -> None:
    player = make_player()
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(casino=casino, kind=AccountKind.CAGE, player=player, currency="EUR")


# ---------------------------------------------------------------- PostgreSQL triggers


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE wallet_posting SET amount_minor = amount_minor + 1",
        "DELETE FROM wallet_posting",
        "TRUNCATE wallet_posting CASCADE",
        "UPDATE wallet_transfer SET memo = 'edited'",
        "DELETE FROM wallet_transfer",
        "TRUNCATE wallet_transfer CASCADE",
    ],
)
def test_postings_and_transfers_are_append_only(statement: str, make_player: Any) -> None:
    make_player(1_000)
    before = list(Posting.objects.order_by("pk").values_list("pk", "amount_minor"))
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)
    assert list(Posting.objects.order_by("pk").values_list("pk", "amount_minor")) == before
    assert Transfer.objects.get().memo == ""


@pytest.mark.django_db(transaction=True)
def test_a_transaction_whose_transfer_does_not_balance_is_refused_at_commit(
    make_player: Any, snapshot: Any
) -> None:
    # given a funded player
    player = make_player(1_000)
    account = Account.objects.get(player=player)
    before = snapshot()
    # when a transaction writes a transfer whose postings sum to 5 and tries to commit
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        transfer = Transfer.objects.create(
            casino=account.casino, kind=TransferKind.ADJUSTMENT, currency="EUR"
        )
        Posting.objects.create(transfer=transfer, account=account, amount_minor=5)
    # then the deferred trigger refused the whole transaction: nothing is left
    assert snapshot() == before
    assert ledger_verify().is_clean


@pytest.mark.django_db(transaction=True)
def test_a_transaction_killed_after_its_first_posting_leaves_nothing(make_player: Any, snapshot: Any) -> None:
    # given a funded player
    player = make_player(1_000)
    account_id = Account.objects.get(player=player).pk
    house = Account.objects.create(
        casino=player.casino, kind=AccountKind.HOUSE, currency="EUR", may_go_negative=True
    )
    before = snapshot()
    first_posting_written = threading.Event()
    killed = threading.Event()
    outcome: dict[str, Any] = {}

    def writer() -> None:
        try:
            with transaction.atomic():
                transfer = Transfer.objects.create(
                    casino_id=player.casino_id, kind=TransferKind.ADJUSTMENT, currency="EUR"
                )
                Posting.objects.create(transfer=transfer, account_id=account_id, amount_minor=-100)
                Account.objects.filter(pk=account_id).update(balance_minor=900)
                outcome["pid"] = connection.connection.info.backend_pid
                first_posting_written.set()
                killed.wait(10)
                Posting.objects.create(transfer=transfer, account_id=house.pk, amount_minor=100)
        except Exception as error:  # the connection died under it
            outcome["error"] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    assert first_posting_written.wait(10)
    # when the server process of that transaction is killed half way
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [outcome["pid"]])
    killed.set()
    thread.join(10)
    # then the transaction failed and nothing it wrote is left
    assert isinstance(outcome["error"], (DatabaseError, InternalError))
    assert snapshot() == before
    assert ledger_verify().is_clean


@pytest.mark.django_db(transaction=True)
def test_an_exception_after_the_first_posting_leaves_nothing(
    make_player: Any, cashier: Any, snapshot: Any
) -> None:
    # given a funded player
    player = make_player(1_000)
    before = snapshot()
    # when a service's transaction raises after its postings are written
    with pytest.raises(RuntimeError), transaction.atomic():
        cage_buy_in(player=player, amount_minor=500, actor=Actor.staff(cashier))
        raise RuntimeError("crash after the postings")
    # then nothing of it is left
    assert snapshot() == before
    assert Account.objects.get(player=player).balance_minor == 1_000
