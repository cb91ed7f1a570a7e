"""The audit trail: one hash chain, verified end to end, refused changes on PostgreSQL (its keys
and anchors: test_audit_chain.py)."""

from __future__ import annotations

import itertools
import threading
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from casino.audit import GENESIS_HASH, audit_append, audit_batch, audit_verify, record_hash
from casino.models import AuditRecord


def _append(count: int) -> list[AuditRecord]:
    return [
        audit_append(
            action="test.event", actor_name="tester", object_type="test", object_id=i, after={"i": i}
        )
        for i in range(count)
    ]


def _tamper(sql: str, params: list[object]) -> None:
    """Change records behind the application's back (as a database superuser could)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)


@pytest.mark.django_db
def test_appends_form_one_chain_that_verifies():
    records = _append(5)

    assert [r.sequence for r in records] == [1, 2, 3, 4, 5]
    assert records[0].previous_hash == GENESIS_HASH
    assert all(b.previous_hash == a.hash for a, b in itertools.pairwise(records))
    assert all(record_hash(r) == r.hash for r in records)
    assert audit_verify().is_intact
    assert audit_verify().checked == 5


@pytest.mark.django_db
def test_verify_catches_an_altered_record():
    _append(4)

    _tamper("UPDATE casino_auditrecord SET after = %s WHERE sequence = 3", ['{"i": 99}'])

    result = audit_verify()
    assert result.broken_sequence == 3
    assert result.reason == "content does not match its hash"
    assert result.checked == 2


@pytest.mark.django_db
def test_verify_catches_a_deleted_record():
    _append(4)

    _tamper("DELETE FROM casino_auditrecord WHERE sequence = 2", [])

    result = audit_verify()
    assert result.broken_sequence == 3
    assert result.reason == "expected sequence 2, found 3"


@pytest.mark.django_db
def test_verify_catches_a_deleted_last_record_only_by_count():
    # Removing the newest record leaves a valid shorter chain: the count printed is the tell.
    _append(3)

    _tamper("DELETE FROM casino_auditrecord WHERE sequence = 3", [])

    assert audit_verify().checked == 2


@pytest.mark.django_db
def test_verify_catches_reordered_records():
    _append(4)

    _tamper("UPDATE casino_auditrecord SET sequence = 1000000 WHERE sequence = 2", [])
    _tamper("UPDATE casino_auditrecord SET sequence = 2 WHERE sequence = 3", [])
    _tamper("UPDATE casino_auditrecord SET sequence = 3 WHERE sequence = 1000000", [])

    result = audit_verify()
    assert result.broken_sequence == 2
    assert result.reason == "previous hash does not match the record before"


@pytest.mark.django_db
def test_audit_verify_command_exit_codes():
    _append(3)
    out = StringIO()
    call_command("audit_verify", stdout=out)
    assert out.getvalue().splitlines() == [
        "audit trail intact: 3 records checked",
        "0 anchors checked",
        "records #1 to #3 not yet anchored",
    ]

    _tamper("UPDATE casino_auditrecord SET action = %s WHERE sequence = 2", ["test.forged"])
    err = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("audit_verify", stderr=err)
    assert exit_info.value.code == 1
    assert "record #2" in err.getvalue()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE casino_auditrecord SET action = 'forged' WHERE sequence = 1",
        "DELETE FROM casino_auditrecord WHERE sequence = 1",
        "TRUNCATE casino_auditrecord CASCADE",
    ],
)
def test_postgres_trigger_refuses_update_delete_and_truncate(statement):
    _append(2)

    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)

    assert AuditRecord.objects.count() == 2
    assert audit_verify().is_intact


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_keep_one_valid_chain():
    threads_count, per_thread = 8, 25
    errors: list[BaseException] = []
    start = threading.Barrier(threads_count)

    def worker(n: int) -> None:
        try:
            start.wait()
            for i in range(per_thread):
                audit_append(action="test.concurrent", actor_name=f"t{n}", object_id=f"{n}-{i}")
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert list(AuditRecord.objects.values_list("sequence", flat=True)) == list(
        range(1, threads_count * per_thread + 1)
    )
    result = audit_verify()
    assert result.is_intact
    assert result.checked == threads_count * per_thread


@pytest.mark.django_db
def test_a_batch_writes_its_records_in_order_with_one_lock_one_read_one_insert():
    # given a chain of two records
    first = _append(2)

    # when a command appends three records in a batch (one of them inside a nested batch)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries, audit_batch():
        audit_append(action="test.batch", actor_name="tester", object_id="a")
        with audit_batch():
            audit_append(action="test.batch", actor_name="tester", object_id="b")
        assert AuditRecord.objects.count() == 2  # nothing written before the batch ends
        audit_append(action="test.batch", actor_name="tester", object_id="c")

    # then they follow the chain in the order appended, written in three statements (the count
    # above is the fourth), and the chain verifies
    batch = list(AuditRecord.objects.filter(action="test.batch").order_by("sequence"))
    assert [(r.sequence, r.object_id) for r in batch] == [(3, "a"), (4, "b"), (5, "c")]
    assert batch[0].previous_hash == first[-1].hash
    assert all(b.previous_hash == a.hash for a, b in itertools.pairwise(batch))
    assert len(queries.captured_queries) == 4
    assert audit_verify().is_intact and audit_verify().checked == 5


@pytest.mark.django_db
def test_a_batch_that_ends_by_an_error_writes_nothing_and_the_next_append_is_alone():
    _append(1)
    with pytest.raises(ZeroDivisionError), transaction.atomic(), audit_batch():
        audit_append(action="test.batch", actor_name="tester", object_id="lost")
        _ = 1 / 0
    assert not AuditRecord.objects.filter(action="test.batch").exists()

    record = audit_append(action="test.after", actor_name="tester")
    assert record.sequence == 2 and audit_verify().is_intact
