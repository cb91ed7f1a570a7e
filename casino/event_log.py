"""Append-only event logs and their hashes: a round's (``tables.RoundEvent``) and a canasta deal's
(``tables.CanastaDealEvent``) are written and hashed here, the same way.

A log row belongs to its owner (a round, a deal: a foreign key) and carries its ``sequence`` (the
owner's version once the event is written: 1, 2, 3 ...), its ``kind`` and ``payload``, who
recorded it (user, name, role, terminal, player, from a ``casino.actors.Actor``) and when; a
round's rows may carry the engine's snapshot too. The database refuses to update or delete a row.

An event's digest (:func:`event_digest`) covers everything but the snapshot (derived from the
actions, and most of the bytes), in the canonical encoding of :func:`canonical_digest`: SHA-256 of
sorted-key JSON without spaces, times in UTC ISO 8601. The audit record that closes a round or
scores a deal carries the digests of its events (``tables.round_hash``, the canasta deal's hash).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from django.db import models
from django.db.models import DateTimeField, Value
from django.utils import timezone

from casino.actors import Actor

EventRow = TypeVar("EventRow", bound=models.Model)


@dataclass
class EventDraft:
    """An event to append: its kind, its payload and, for a round's event, the engine snapshot
    after it."""

    kind: str
    payload: dict[str, Any]
    snapshot: dict[str, Any] | None = None
    # Who gave it, when not the command that writes it: a bet, logged when betting closes, is its
    # bettor's at their terminal.
    actor: Actor | None = None


class LoggedEvent(Protocol):
    """What an event's digest covers: the fields every log row has."""

    @property
    def sequence(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> Any: ...
    @property
    def actor_id(self) -> int | None: ...
    @property
    def actor_name(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def terminal_id(self) -> int | None: ...
    @property
    def player_id(self) -> int | None: ...
    @property
    def created_at(self) -> dt.datetime: ...


def canonical_digest(value: Any) -> str:
    """SHA-256 (hex) of ``value`` as sorted-key JSON without spaces: the encoding of every record
    hash of the event logs (events, a round's payout lines and seal, a deal's hash)."""
    encoded = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return hashlib.sha256(encoded).hexdigest()


def event_digest(event: LoggedEvent) -> str:
    """SHA-256 (hex) of the canonical encoding of a logged event, its snapshot left out."""
    return canonical_digest(
        {
            "sequence": event.sequence,
            "kind": event.kind,
            "payload": event.payload,
            "actor_id": event.actor_id,
            "actor_name": event.actor_name,
            "role": event.role,
            "terminal_id": event.terminal_id,
            "player_id": event.player_id,
            "created_at": event.created_at.astimezone(dt.UTC).isoformat(),
        }
    )


def event_fields(
    draft: EventDraft, actor: Actor, *, sequence: int, now: dt.datetime, **owner: models.Model
) -> dict[str, Any]:
    """The fields of the log row of ``draft`` at ``sequence`` in the log of ``owner`` (its
    foreign key by name: ``round=round_``, ``deal=deal``), recorded by the draft's actor or else
    ``actor``, at ``now``. A snapshot is a field only when the draft has one (a round's log)."""
    recorder = draft.actor if draft.actor is not None else actor
    fields: dict[str, Any] = {
        **owner,
        "sequence": sequence,
        "kind": draft.kind,
        "payload": draft.payload,
        "actor": recorder.user,
        "actor_name": recorder.name,
        "role": recorder.role,
        "terminal": recorder.terminal,
        "player": recorder.player,
        "created_at": now,
    }
    if draft.snapshot is not None:
        fields["snapshot"] = draft.snapshot
    return fields


def events_append(
    model: type[EventRow],
    drafts: Sequence[EventDraft],
    actor: Actor,
    *,
    after: int,
    now: dt.datetime | None = None,
    **owner: models.Model,
) -> list[EventRow]:
    """Append ``drafts`` to the log ``model`` of ``owner`` (``round=round_``, ``deal=deal``) after
    sequence ``after`` (the owner's version), in one INSERT, all at the same moment. The caller
    moves the owner's version on by the number of rows and saves the owner's row (under its lock)."""
    if not drafts:
        return []
    moment = now or timezone.now()
    rows = [
        model(**event_fields(draft, actor, sequence=after + index, now=moment, **owner))
        for index, draft in enumerate(drafts, start=1)
    ]
    if len(rows) > 1:
        # An expression in a row keeps Django's multi-row INSERT ... VALUES: its bulk insert
        # through UNNEST would send the JSON payloads inside array literals, which PostgreSQL
        # parses twice (measured ~30% slower for a command's few events with one snapshot).
        for row in rows:
            row.created_at = Value(moment, output_field=DateTimeField())  # type: ignore[attr-defined]
    created = model._default_manager.bulk_create(rows)
    for row in created:
        row.created_at = moment  # type: ignore[attr-defined]
    return created
