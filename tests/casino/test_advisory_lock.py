"""The advisory lock keys (casino/locking.py): a namespace above 32 bits, a key below them, so that
the keys of two namespaces never meet."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from casino.locking import advisory_lock
from tables.locking import PAYOUT_LINE_LOCK_NAMESPACE, ROUND_LOCK_NAMESPACE
from wallet.locking import TRANSFER_LOCK_NAMESPACE


def _held_keys() -> set[int]:
    """The advisory locks this backend holds, as the 64-bit keys they were taken with."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (classid::bigint << 32) | objid::bigint FROM pg_locks"
            " WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 1"
        )
        return {key for (key,) in cursor.fetchall()}


@pytest.mark.django_db
def test_a_key_is_taken_in_its_namespace() -> None:
    with transaction.atomic():
        advisory_lock(ROUND_LOCK_NAMESPACE, 7)
        advisory_lock(TRANSFER_LOCK_NAMESPACE, 2**32 - 1, shared=True)

        assert _held_keys() >= {ROUND_LOCK_NAMESPACE | 7, TRANSFER_LOCK_NAMESPACE | (2**32 - 1)}


@pytest.mark.parametrize("key", [-1, 2**32, 2**32 + 5, TRANSFER_LOCK_NAMESPACE])
def test_a_key_outside_32_bits_is_refused(key: int) -> None:
    # a key of 2**32 or more would land in another namespace (or change this one's bits)
    with pytest.raises(ValueError, match=r"outside 0 <= key < 2\*\*32"):
        advisory_lock(PAYOUT_LINE_LOCK_NAMESPACE, key)


@pytest.mark.parametrize("namespace", [0, 5, (0x7AB1E << 32) | 1, -(1 << 32), 1 << 63])
def test_a_namespace_with_bits_below_32_or_out_of_range_is_refused(namespace: int) -> None:
    with pytest.raises(ValueError, match="namespace"):
        advisory_lock(namespace, 1)


def test_the_namespaces_are_distinct_and_above_32_bits() -> None:
    namespaces = [ROUND_LOCK_NAMESPACE, PAYOUT_LINE_LOCK_NAMESPACE, TRANSFER_LOCK_NAMESPACE]

    assert len(set(namespaces)) == len(namespaces)
    assert all(namespace % 2**32 == 0 and 0 < namespace < 2**63 for namespace in namespaces)
