"""The audit trail: one append service, one verifier and the anchors over a single hash chain.

Every record carries the hash of the record before it and an HMAC-SHA256 of its own canonical
encoding (sorted-key JSON of every field) under a key that is not in the database
(``casino.audit_keys``), with the key's version: new records take the highest version, and each
record verifies under its own, so keys rotate. Records written before the chain was keyed have
version 0 and a plain SHA-256; they may only come before the first keyed record, and the keyed
records after them cover them through their links. Appends are serialized so that concurrent
writers still form one chain, with a transaction-scoped PostgreSQL advisory lock. A trigger
refuses UPDATE, DELETE and TRUNCATE of the table (migration casino 0003).

``audit_anchor`` signs the chain's head with the casino's Ed25519 key and appends it to a file of
the gaming day outside the database (``casino.anchors``); ``audit_verify`` checks every record's
hash and link and every anchor against the chain, so a rewrite by someone who holds the HMAC key
but not the signing key still shows, at the first anchor it contradicts.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from casino.anchors import Anchor, StoredAnchor, anchor_latest, anchor_sign, anchor_store, anchors_read
from casino.audit_keys import UNKEYED_VERSION, HmacKeyring, hmac_keyring
from casino.errors import AuditChainBrokenError, AuditKeyMissingError
from casino.models import AuditRecord, Casino, Terminal
from casino.roles import role_of
from casino.sql import advisory_xact_lock

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
    payload = {
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
    if record.key_version != UNKEYED_VERSION:
        # Keyed records sign their version too (unkeyed ones keep the encoding they were hashed in).
        payload["key_version"] = record.key_version
    return payload


def record_hash(record: AuditRecord, keyring: HmacKeyring | None = None) -> str:
    """The record's hash: HMAC-SHA256 under the key of its version, SHA-256 for version 0.

    Raises AuditKeyMissingError when its version's key is not configured.
    """
    encoded = json.dumps(
        canonical_payload(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()
    if record.key_version == UNKEYED_VERSION:
        return hashlib.sha256(encoded).hexdigest()
    key = (keyring or hmac_keyring()).keys.get(record.key_version)
    if key is None:
        raise AuditKeyMissingError(
            f"key version {record.key_version} is not configured", key_version=record.key_version
        )
    return hmac.new(key, encoded, hashlib.sha256).hexdigest()


def _lock_chain() -> None:
    advisory_xact_lock(AUDIT_LOCK_KEY)


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
    """Append one record to the chain and return it (inside ``audit_batch``: queue it, to be
    written with the batch's others when the batch ends).

    Runs inside the caller's transaction when there is one (so the record commits or rolls
    back with the change it describes), else in its own. Takes the chain lock, which is held
    until that transaction ends: call it as the last write of a service to keep the hold short.
    No savepoint of its own: a failed append fails the caller's transaction whole, as the change
    it describes must not commit without it (and a savepoint would be two statements of every
    audited command for nothing).
    """
    user = actor if getattr(actor, "is_authenticated", False) else None
    record = AuditRecord(
        actor=user,
        actor_name=actor_name or (user.get_username() if user else ""),
        role=role or (role_of(user) if user else ""),
        terminal=terminal,
        action=action,
        object_type=object_type,
        object_id=str(object_id) if object_id is not None else "",
        before=_plain(before),
        after=_plain(after),
    )
    batch = _batch.get()
    if batch is not None:
        batch.append(record)
    else:
        _chain_write([record])
    return record


# The records of the ``audit_batch`` under way in this context, in the order appended.
_batch: ContextVar[list[AuditRecord] | None] = ContextVar("audit_batch", default=None)


@contextmanager
def audit_batch() -> Iterator[None]:
    """The audit records appended inside are written together when it ends, in the order
    appended: one chain lock, one read of the chain's head and one insert for all of them, where
    each record alone takes those three statements (a settlement's wallet record and round
    record: three statements fewer). Use it inside the transaction of the command whose records
    they are, around the command's writes: when it ends by an error nothing is written (the
    command rolls back anyway). A batch inside a batch is part of the outer one."""
    if _batch.get() is not None:
        yield
        return
    records: list[AuditRecord] = []
    token = _batch.set(records)
    try:
        yield
    finally:
        _batch.reset(token)
    if records:
        _chain_write(records)


def _chain_write(records: Sequence[AuditRecord]) -> None:
    """Link ``records`` after the chain's head, in order, and insert them, under the chain lock."""
    keyring = hmac_keyring()
    with transaction.atomic(savepoint=False):
        _lock_chain()
        last = AuditRecord.objects.order_by("-sequence").only("sequence", "hash").first()
        sequence, previous = (last.sequence, last.hash) if last else (0, GENESIS_HASH)
        # Taken under the lock: the chain's times follow its order.
        now = timezone.now()
        for record in records:
            sequence += 1
            record.recorded_at = now
            record.sequence = sequence
            record.previous_hash = previous
            record.key_version = keyring.current_version
            record.hash = previous = record_hash(record, keyring)
        AuditRecord.objects.bulk_create(records)


@dataclass(frozen=True)
class AuditVerification:
    """What ``audit_verify`` found. ``broken_sequence`` is the first record the chain or an anchor
    contradicts (``reason`` says how); ``checked`` counts the records verified before it.
    ``anchor_problems`` are anchor lines that cannot be trusted (unreadable, or their signature
    fails). Records after ``last_anchored_sequence`` up to ``head_sequence`` are not yet anchored:
    they verify, but nothing outside the database vouches for them yet."""

    checked: int
    broken_sequence: int | None = None
    reason: str = ""
    unkeyed: int = 0
    anchors_checked: int = 0
    anchor_problems: tuple[str, ...] = ()
    last_anchored_sequence: int = 0
    head_sequence: int = 0

    @property
    def is_intact(self) -> bool:
        return self.broken_sequence is None and not self.anchor_problems

    @property
    def unanchored(self) -> int:
        return max(self.head_sequence - self.last_anchored_sequence, 0)


def _records(after_sequence: int | None = None, up_to_sequence: int | None = None) -> Iterator[AuditRecord]:
    """The records in sequence order: every one (a row below sequence 1 included, which then
    breaks the walk), or those after ``after_sequence`` up to ``up_to_sequence``."""
    records = AuditRecord.objects.all()
    if after_sequence is not None:
        records = records.filter(sequence__gt=after_sequence)
    if up_to_sequence is not None:
        records = records.filter(sequence__lte=up_to_sequence)
    return records.order_by("sequence").iterator(chunk_size=2000)


def _link_problem(
    record: AuditRecord, *, sequence: int, previous: AuditRecord | None, keyring: HmacKeyring
) -> str:
    """Why the record does not follow ``previous`` in a valid chain, or "" when it does."""
    if record.sequence != sequence:
        return f"expected sequence {sequence}, found {record.sequence}"
    if record.previous_hash != (previous.hash if previous else GENESIS_HASH):
        return "previous hash does not match the record before"
    if record.key_version == UNKEYED_VERSION and previous and previous.key_version != UNKEYED_VERSION:
        return "an unkeyed record after keyed ones"
    if previous and record.key_version < previous.key_version:
        return (
            f"key version {record.key_version} after version {previous.key_version}: the chain never "
            "goes back to an older key"
        )
    if record.key_version == UNKEYED_VERSION and record.sequence > settings.AUDIT_UNKEYED_UP_TO:
        return (
            f"an unkeyed record beyond AUDIT_UNKEYED_UP_TO ({settings.AUDIT_UNKEYED_UP_TO}): only "
            "records written before the chain was keyed may be unkeyed"
        )
    try:
        if record_hash(record, keyring) != record.hash:
            return "content does not match its hash"
    except AuditKeyMissingError as error:
        return f"{error.message}: the record cannot be verified"
    return ""


def _anchor_problem(anchor: StoredAnchor, record: AuditRecord) -> str:
    if (anchor.anchor.hash, anchor.anchor.record_count) == (record.hash, record.sequence):
        return ""
    return f"differs from the anchor of #{anchor.anchor.sequence} ({anchor.location})"


# Records verified between two calls of ``audit_verify``'s progress callback.
VERIFY_PROGRESS_EVERY = 500


def audit_verify(*, progress: Callable[[int, int], None] | None = None) -> AuditVerification:
    """Walk the chain from the first record, check every anchor against it, and report the first
    record that breaks it. ``progress(done, total)``, when given, is called as the walk goes (every
    ``VERIFY_PROGRESS_EVERY`` records, and at the end) with the records walked and the records
    there were at the start.

    Catches an altered record (its HMAC no longer matches, or it names a key version that is not
    configured), a deleted one (a gap in the sequence or a previous-hash mismatch), reordered ones
    (sequence and links disagree), a rewrite under the HMAC key (the chain differs from an anchor:
    the first record after the last anchor that still agrees is named), and a deleted tail that
    was anchored (an anchor names a record no longer there). Takes no lock.
    """
    keyring = hmac_keyring()
    stored, problems = anchors_read()
    anchors_by_sequence: dict[int, list[StoredAnchor]] = {}
    for anchor in stored:
        anchors_by_sequence.setdefault(anchor.anchor.sequence, []).append(anchor)
    checked = unkeyed = last_anchored = 0

    def found(broken_sequence: int | None, reason: str, *, verified: int | None = None) -> AuditVerification:
        return AuditVerification(
            checked=checked if verified is None else verified,
            broken_sequence=broken_sequence,
            reason=reason,
            unkeyed=unkeyed,
            anchors_checked=len(stored),
            anchor_problems=tuple(str(problem) for problem in problems),
            last_anchored_sequence=last_anchored,
            head_sequence=checked,
        )

    total = AuditRecord.objects.count() if progress is not None else 0
    previous: AuditRecord | None = None
    for record in _records():
        if progress is not None and checked % VERIFY_PROGRESS_EVERY == 0:
            progress(checked, max(total, checked))
        reason = _link_problem(record, sequence=checked + 1, previous=previous, keyring=keyring)
        if reason:
            return found(record.sequence, reason)
        for anchor in anchors_by_sequence.get(record.sequence, []):
            reason = _anchor_problem(anchor, record)
            if reason:
                # Every record up to here verified under its key: the rewrite was made with the key,
                # somewhere after the last anchor that still agrees.
                reason += (
                    f": the records from #{last_anchored + 1} to #{record.sequence} are not the ones anchored"
                )
                return found(last_anchored + 1, reason, verified=last_anchored)
        if record.sequence in anchors_by_sequence:
            last_anchored = record.sequence
        if record.key_version == UNKEYED_VERSION:
            unkeyed += 1
        checked += 1
        previous = record
    if progress is not None:
        progress(checked, max(total, checked))
    beyond = [anchor for anchor in stored if anchor.anchor.sequence > checked]
    if beyond:
        first = min(beyond, key=lambda anchor: anchor.anchor.sequence)
        return found(
            checked + 1,
            f"the anchor of #{first.anchor.sequence} ({first.location}) names a record that is no longer "
            f"there: the records from #{checked + 1} to #{first.anchor.sequence} were deleted",
        )
    return found(None, str(problems[0]) if problems else "")


def _venue_gaming_day(moment: dt.datetime) -> dt.date:
    """The gaming day that names an anchor's file: the venue's (the first casino), or the UTC date."""
    casino = Casino.objects.order_by("pk").first()
    return casino.gaming_day(moment) if casino else moment.astimezone(dt.UTC).date()


def _segment_problem(after: AuditRecord | None, records: Iterable[AuditRecord], keyring: HmacKeyring) -> str:
    """Why the records after ``after`` do not extend it into a valid chain, or ""."""
    previous = after
    for record in records:
        reason = _link_problem(
            record, sequence=(previous.sequence if previous else 0) + 1, previous=previous, keyring=keyring
        )
        if reason:
            return f"record #{record.sequence}: {reason}"
        previous = record
    return ""


def audit_anchor(*, now: dt.datetime | None = None) -> Anchor | None:
    """Sign the chain's head (sequence, hash, record count, time) and append the anchor to the
    file of its gaming day; None when the chain is empty.

    An anchor never vouches for a chain it has not checked: the newest anchor's record must still
    be there with the hash it names, and every record after it must verify under its key.
    Raises AuditChainBrokenError otherwise, and writes nothing. Takes no lock: the head is read
    from committed records, which commit in sequence order.
    """
    keyring = hmac_keyring()
    head = AuditRecord.objects.order_by("-sequence").first()
    if head is None:
        return None
    count = AuditRecord.objects.filter(sequence__gte=1, sequence__lte=head.sequence).count()
    if count != head.sequence:
        raise AuditChainBrokenError(f"{count} records up to #{head.sequence}: records were deleted")
    latest = anchor_latest()
    anchored: AuditRecord | None = None
    if latest is not None:
        anchored = AuditRecord.objects.filter(sequence=latest.anchor.sequence).first()
        if anchored is None:
            raise AuditChainBrokenError(
                f"the anchor of #{latest.anchor.sequence} ({latest.location}) names a record that is no "
                "longer there"
            )
        reason = _anchor_problem(latest, anchored)
        if reason:
            raise AuditChainBrokenError(f"record #{anchored.sequence} {reason}")
    segment = _records(anchored.sequence if anchored else None, head.sequence)
    reason = _segment_problem(anchored, segment, keyring)
    if reason:
        raise AuditChainBrokenError(reason)
    moment = now or timezone.now()
    anchor = anchor_sign(
        sequence=head.sequence,
        hash=head.hash,
        record_count=count,
        anchored_at=moment,
        gaming_day=_venue_gaming_day(moment),
    )
    anchor_store(anchor)
    return anchor
