"""The games' event logs, as the venue hashes them: a live round's events (tables.RoundEvent) and a
canasta deal's (cardroom.CanastaDealEvent) are each a numbered, append-only list whose digests
chain into the record's seal; one canonical encoding and one event digest serve both."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any, Protocol


class LoggedEvent(Protocol):
    """What an event of a game's log carries (``RoundEvent``, ``CanastaDealEvent``)."""

    sequence: int
    kind: str
    payload: Any
    actor_id: int | None
    actor_name: str
    role: str
    terminal_id: int | None
    player_id: int | None
    created_at: dt.datetime


def canonical_digest(value: Any) -> str:
    """SHA-256 (hex) of ``value`` as sorted-key JSON without spaces: the encoding every record
    hash of the games uses (rounds: tables.round_hash, canasta deals: cardroom.services.games)."""
    encoded = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return hashlib.sha256(encoded).hexdigest()


def event_digest(event: LoggedEvent) -> str:
    """SHA-256 (hex) of the canonical encoding of a round's or a canasta deal's event, its
    snapshot left out."""
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
