"""The audit trail: one append service and one verifier over a single hash chain.

Every record carries the hash of the record before it and a SHA-256 of its own canonical
encoding (sorted-key JSON of every field). Appends are serialized so that concurrent writers
still form one chain, with a transaction-scoped PostgreSQL advisory lock. A trigger refuses
UPDATE, DELETE and TRUNCATE of the table (migration casino 0003).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from casino.models import AuditRecord, Terminal

if TYPE_CHECKING:
    from django.contrib.auth.models import User

GENESIS_HASH = "0" * 64
# Arbitrary but fixed key of the PostgreSQL advisory lock that orders audit appends.
AUDIT_LOCK_KEY = 0x0A0D17


def _plain(value: Any) -> Any:
    """JSON-native copy of a value (dates, decimals, UUIDs as strings), as it will read back."""
    if value is None:
        return None
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def canonical_payload(record: AuditRecord) -> dict[str, Any]:
    return {
        "sequence": record.sequence,
        "recorded_at": record.recorded_at.astimezone(dt.UTC).isoformat(),
        "actor_id": record.actor_id,
        "actor_name": record.actor_name,
        "role": record.role,
        "terminal_id": record.terminal_id,
        "action": record.action,
        "object_type": record.object_type,
        "object_id": record.object_id,
        "before": record.before,
        "after": record.after,
        "previous_hash": record.previous_hash,
    }


def record_hash(record: AuditRecord) -> str:
    encoded = json.dumps(
        canonical_payload(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()
    return hashlib.sha256(encoded).hexdigest()


def _lock_chain() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [AUDIT_LOCK_KEY])


def audit_append(
    *,
    action: str,
    actor: User | None = None,
    role: str = "",
    terminal: Terminal | None = None,
    object_type: str = "",
    object_id: Any = "",
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    actor_name: str = "",
) -> AuditRecord:
    """Append one record to the chain and return it.

    Runs inside the caller's transaction when there is one (so the record commits or rolls
    back with the change it describes), else in its own. Takes the chain lock, which is held
    until that transaction ends: call it as the last write of a service to keep the hold short.
    """
    from casino.roles import role_of

    with transaction.atomic():
        _lock_chain()
        last = AuditRecord.objects.order_by("-sequence").only("sequence", "hash").first()
        user = actor if getattr(actor, "is_authenticated", False) else None
        record = AuditRecord(
            sequence=(last.sequence + 1) if last else 1,
            recorded_at=timezone.now(),
            actor=user,
            actor_name=actor_name or (user.get_username() if user else ""),
            role=role or (role_of(user) if user else ""),
            terminal=terminal,
            action=action,
            object_type=object_type,
            object_id=str(object_id) if object_id is not None else "",
            before=_plain(before),
            after=_plain(after),
            previous_hash=last.hash if last else GENESIS_HASH,
        )
        record.hash = record_hash(record)
        record.save(force_insert=True)
        return record


@dataclass(frozen=True)
class AuditVerification:
    checked: int
    broken_sequence: int | None = None
    reason: str = ""

    @property
    def is_intact(self) -> bool:
        return self.broken_sequence is None


def _records() -> Iterator[AuditRecord]:
    return AuditRecord.objects.order_by("sequence").iterator(chunk_size=2000)


def audit_verify() -> AuditVerification:
    """Walk the chain from the first record; report the first record that breaks it.

    Catches an altered record (its hash no longer matches), a deleted one (a gap in the
    sequence or a previous-hash mismatch) and reordered ones (sequence and links disagree).
    """
    expected_sequence = 1
    previous_hash = GENESIS_HASH
    checked = 0
    for record in _records():
        if record.sequence != expected_sequence:
            return AuditVerification(
                checked, record.sequence, f"expected sequence {expected_sequence}, found {record.sequence}"
            )
        if record.previous_hash != previous_hash:
            return AuditVerification(
                checked, record.sequence, "previous hash does not match the record before"
            )
        if record_hash(record) != record.hash:
            return AuditVerification(checked, record.sequence, "content does not match its hash")
        checked += 1
        expected_sequence += 1
        previous_hash = record.hash
    return AuditVerification(checked)
