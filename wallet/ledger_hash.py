"""The hash of a transfer and its postings: what ties the ledger to the audit chain.

Every service that writes a transfer puts this hash in the ``after`` of the audit record that
names it (``after["transfers"] = {"<transfer id>": "<hash>"}``, one entry per transfer the
command wrote). The audit chain cannot be extended or rewritten without breaking its links, so a
transfer is genuine when an audit record carries its id with the hash of its postings as they are
now: ``wallet.selectors.ledger_verify`` names every transfer that has no such record (inserted
behind the services' back) or whose postings no longer match it (edited with the triggers off).

The encoding is canonical: sorted-key JSON, no spaces, of the transfer's id, casino, kind,
currency, the transfer it reverses, its reference, and its postings as ``[account id, amount]``
pairs in ascending order. The memo, the creation time and the author are left out: they describe
the movement, they do not move money, and the audit record itself carries who and when.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Protocol


class HashedTransfer(Protocol):
    """What the hash reads of a transfer: a ``Transfer`` row, or the same fields as read in bulk."""

    @property
    def pk(self) -> int: ...
    @property
    def casino_id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def currency(self) -> str: ...
    @property
    def reverses_id(self) -> int | None: ...
    @property
    def reference_type(self) -> str: ...
    @property
    def reference_id(self) -> str: ...


# The key of the audit records' ``after`` under which a command lists the transfers it wrote.
AUDIT_KEY = "transfers"


def transfer_hash(transfer: HashedTransfer, postings: Iterable[tuple[int, int]]) -> str:
    """SHA-256 (hex) of the canonical encoding of a transfer and its ``(account id, amount)``
    postings, in any order."""
    encoded = json.dumps(
        {
            "id": transfer.pk,
            "casino_id": transfer.casino_id,
            "kind": transfer.kind,
            "currency": transfer.currency,
            "reverses_id": transfer.reverses_id,
            "reference_type": transfer.reference_type,
            "reference_id": transfer.reference_id,
            "postings": sorted([account_id, amount] for account_id, amount in postings),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()
    return hashlib.sha256(encoded).hexdigest()


__all__ = ["AUDIT_KEY", "transfer_hash"]
