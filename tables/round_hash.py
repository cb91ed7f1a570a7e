"""The hash of a finished round, carried by its audit record, and the verifier that recomputes it.

When a round settles or is voided, its audit record (``round.settled``, ``round.voided``) carries
in ``after``:

- ``round_hash``: SHA-256 of the round's id, table and number with the digest of every event (in
  sequence order) and of every payout line (in id order);
- ``event_digests``: the first 16 hex digits of each event's digest, in sequence order, and
  ``line_digests``: ``[line id, first 16 hex digits]`` per payout line, so that the verifier
  can name the row that changed (the full ``round_hash`` is what proves the round unchanged).

An event's digest (``casino.event_log.event_digest``, the same for a canasta deal's events)
covers its sequence, kind, payload (the engine action and what it decided), who recorded it
(user, name, role, terminal, player) and when. Its engine snapshot is left out: it is derived
from the actions (a replay rebuilds it, ``tables/replay.py``), nothing reads an event's snapshot
back, and it is most of the log's bytes. A payout line's digest covers the bet,
hand, outcome, rule, exact multiplier, stake, net, paid amount, rounding remainder and whether it
waited for approval. Encodings are sorted-key JSON without spaces, times in UTC ISO 8601.

The audit chain cannot be rewritten without breaking its links, so ``round_verify`` names every
settled or voided round whose events or payout lines no longer match what its audit record
carries (an event or a line edited, inserted or deleted with the append-only triggers off), and
such a round no audit record vouches for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from casino.event_log import canonical_digest, event_digest
from casino.models import AuditRecord
from tables.models import PayoutLine, Round, RoundEvent, RoundStatus

SETTLED_ACTION = "round.settled"
VOIDED_ACTION = "round.voided"
# The audit action that seals a round in each finished status.
SEALING_ACTIONS = {RoundStatus.SETTLED: SETTLED_ACTION, RoundStatus.VOIDED: VOIDED_ACTION}
# Hex digits of each row's digest kept in the audit record: enough to name the row that changed.
SHORT_DIGEST = 16


def line_digest(line: PayoutLine) -> str:
    """SHA-256 (hex) of the canonical encoding of a payout line."""
    return canonical_digest(
        {
            "id": line.pk,
            "bet_id": line.bet_id,
            "hand": line.hand,
            "outcome": line.outcome,
            "rule": line.rule,
            "multiplier": [line.multiplier_numerator, line.multiplier_denominator],
            "stake_minor": line.stake_minor,
            "net_minor": line.net_minor,
            "paid_minor": line.paid_minor,
            "rounding_remainder": line.rounding_remainder,
            "needs_approval": line.needs_approval,
        }
    )


def round_digest(round_: Round, event_digests: Sequence[str], line_digests: Sequence[str]) -> str:
    """SHA-256 (hex) of a round's identity and the full digests of its events and lines."""
    return canonical_digest(
        {
            "round_id": round_.pk,
            "table_id": round_.table_id,
            "number": round_.number,
            "events": list(event_digests),
            "lines": list(line_digests),
        }
    )


def _events(round_ids: Iterable[int]) -> dict[int, list[RoundEvent]]:
    events: dict[int, list[RoundEvent]] = defaultdict(list)
    rows = (
        RoundEvent.objects.filter(round_id__in=list(round_ids))
        .defer("snapshot")
        .order_by("round_id", "sequence")
    )
    for event in rows:
        events[event.round_id].append(event)
    return events


def _lines(round_ids: Iterable[int]) -> dict[int, list[PayoutLine]]:
    lines: dict[int, list[PayoutLine]] = defaultdict(list)
    for line in PayoutLine.objects.filter(round_id__in=list(round_ids)).order_by("round_id", "pk"):
        lines[line.round_id].append(line)
    return lines


def _seal(round_: Round, events: Sequence[RoundEvent], lines: Sequence[PayoutLine]) -> dict[str, Any]:
    event_digests = [event_digest(event) for event in events]
    line_digests = [line_digest(line) for line in lines]
    return {
        "round_hash": round_digest(round_, event_digests, line_digests),
        "event_digests": [digest[:SHORT_DIGEST] for digest in event_digests],
        "line_digests": [
            [line.pk, digest[:SHORT_DIGEST]] for line, digest in zip(lines, line_digests, strict=True)
        ],
    }


def round_seal(round_: Round, lines: Sequence[PayoutLine]) -> dict[str, Any]:
    """What the round's ``round.settled`` or ``round.voided`` audit record carries (see the module
    docstring), from its events as stored (one read, snapshots left out) and its payout lines just
    written (in id order; none for a void). Call it after the round's last event is written."""
    return _seal(round_, _events([round_.pk]).get(round_.pk, []), sorted(lines, key=lambda line: line.pk))


@dataclass(frozen=True)
class RoundDifference:
    """A finished round the audit chain does not vouch for, and what differs."""

    round_id: int
    table: str
    number: int
    message: str

    def __str__(self) -> str:
        return f"round {self.round_id} ({self.table} #{self.number}): {self.message}"


@dataclass(frozen=True)
class RoundVerification:
    checked: int
    differences: tuple[RoundDifference, ...] = ()

    @property
    def is_intact(self) -> bool:
        return not self.differences


@dataclass(frozen=True)
class _Recorded:
    sequence: int
    status: str
    round_hash: str
    events: list[str]
    lines: list[list[Any]]
    # Every record that seals the round, when there are more than one (a round finishes once).
    sealed_again: tuple[int, ...] = ()


def _recorded() -> dict[int, _Recorded]:
    """Round id -> what its sealing audit record (settled or voided) carries: one pass over those
    records."""
    statuses = {action: status for status, action in SEALING_ACTIONS.items()}
    recorded: dict[int, _Recorded] = {}
    rows = (
        AuditRecord.objects.filter(action__in=list(statuses), object_type="tables.round", sequence__gte=1)
        .order_by("sequence")
        .values_list(
            "sequence",
            "action",
            "object_id",
            "after__round_hash",
            "after__event_digests",
            "after__line_digests",
        )
    )
    for sequence, action, object_id, round_hash, events, lines in rows.iterator(chunk_size=2000):
        earlier = recorded.get(int(object_id))
        again = (*(earlier.sealed_again or (earlier.sequence,)), sequence) if earlier else ()
        recorded[int(object_id)] = _Recorded(
            sequence, statuses[action], str(round_hash or ""), list(events or []), list(lines or []), again
        )
    return recorded


def _compare(
    round_: Round, record: _Recorded, events: Sequence[RoundEvent], lines: Sequence[PayoutLine]
) -> list[str]:
    """What differs between a round's rows and its audit record, row by row."""
    sealed = _seal(round_, events, lines)
    if sealed["round_hash"] == record.round_hash:
        return []
    found: list[str] = []
    where = f"audit record #{record.sequence}"
    stored = {event.sequence: event for event in events}
    short = {event.sequence: digest for event, digest in zip(events, sealed["event_digests"], strict=True)}
    for sequence, digest in enumerate(record.events, start=1):
        event = stored.pop(sequence, None)
        if event is None:
            found.append(f"event #{sequence} of {where} is missing")
        elif short[sequence] != digest:
            found.append(f"event #{sequence} ({event.kind}) differs from {where}")
    for event in stored.values():
        found.append(f"event #{event.sequence} ({event.kind}) is not in {where}")
    recorded_lines = {int(line_id): digest for line_id, digest in record.lines}
    for line, (line_id, digest) in zip(lines, sealed["line_digests"], strict=True):
        if line_id not in recorded_lines:
            found.append(f"payout line {line_id} is not in {where}")
        elif recorded_lines.pop(line_id) != digest:
            found.append(
                f"payout line {line_id} ({line.outcome}, paid {line.paid_minor}) differs from {where}"
            )
    for line_id in sorted(recorded_lines):
        found.append(f"payout line {line_id} of {where} is missing")
    return found or [f"its events and payout lines do not match the hash in {where}"]


def round_verify(*, round_ids: Iterable[int] | None = None, chunk: int = 500) -> RoundVerification:
    """Recompute every settled or voided round's hash (or those of ``round_ids``) and compare it
    with its audit record's; name each round that differs, with the events and payout lines that
    do. A round the records call settled or voided that is not, a finished round no record
    vouches for, and one more than one record seals, are named too. Reads the rounds in chunks: per chunk one query for the events (snapshots left
    out) and one for the payout lines."""
    recorded = _recorded()
    rounds = Round.objects.select_related("table").order_by("pk")
    if round_ids is not None:
        wanted = sorted(set(round_ids))
        rounds = rounds.filter(pk__in=wanted)
        recorded = {round_id: recorded[round_id] for round_id in wanted if round_id in recorded}
    finished = rounds.filter(status__in=list(SEALING_ACTIONS))
    differences: list[RoundDifference] = []
    checked = 0
    batch: list[Round] = []

    def check(batch: list[Round]) -> None:
        events, lines = _events(r.pk for r in batch), _lines(r.pk for r in batch)
        for round_ in batch:
            record = recorded.pop(round_.pk, None)
            if record is not None and record.sealed_again:
                sequences = ", ".join(f"#{sequence}" for sequence in record.sealed_again)
                messages = [f"more than one audit record seals it ({sequences})"]
            elif record is not None and record.status != round_.status:
                messages = [
                    f"audit record #{record.sequence} says it was {record.status}, it is {round_.status}"
                ]
            elif record is None:
                messages = ["no audit record carries its hash"]
            else:
                messages = _compare(round_, record, events.get(round_.pk, []), lines.get(round_.pk, []))
            differences.extend(
                RoundDifference(round_.pk, round_.table.name, round_.number, m) for m in messages
            )

    for round_ in finished.iterator(chunk_size=chunk):
        checked += 1
        batch.append(round_)
        if len(batch) >= chunk:
            check(batch)
            batch = []
    if batch:
        check(batch)
    existing = {round_.pk: round_ for round_ in rounds.filter(pk__in=sorted(recorded))}
    for round_id, record in sorted(recorded.items()):
        found = existing.get(round_id)
        where = f"audit record #{record.sequence}"
        if found is None:
            differences.append(
                RoundDifference(round_id, "", 0, f"{where} says it was {record.status}, it is gone")
            )
        else:
            message = f"{where} says it was {record.status}, it is {found.status}"
            differences.append(RoundDifference(round_id, found.table.name, found.number, message))
    differences.sort(key=lambda difference: difference.round_id)
    return RoundVerification(checked, tuple(differences))


__all__ = [
    "VOIDED_ACTION",
    "RoundDifference",
    "RoundVerification",
    "line_digest",
    "round_digest",
    "round_seal",
    "round_verify",
]
