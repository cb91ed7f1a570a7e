"""Anchors: signed statements of the audit chain's head, kept outside the database.

An anchor is one line of JSON: the head's ``sequence`` and ``hash``, the ``record_count`` up to
it, when it was made (``anchored_at``, and the venue's ``gaming_day``), the signer's
``public_key`` and an Ed25519 ``signature`` over the sorted-key, compact JSON of every other field.
Each is appended (one ``write`` on a file opened for appending, then ``fsync``) to the file of its
gaming day, ``<AUDIT_ANCHOR_DIR>/<gaming day>.jsonl``; put that directory where the database's
users cannot write, or ship its lines on (they are also printed and logged).

This module knows the format, the signature and the files; ``casino.audit`` decides what is
anchored and compares the anchors with the chain.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings

from casino.audit_keys import anchor_public_keys, anchor_signing_key, public_key_hex

ANCHOR_FORMAT = 1


@dataclass(frozen=True)
class Anchor:
    sequence: int
    hash: str
    record_count: int
    anchored_at: str
    gaming_day: str
    public_key: str
    signature: str = ""

    def statement(self) -> bytes:
        """The signed bytes: every field but the signature, with the format's number."""
        fields: dict[str, Any] = {**asdict(self), "format": ANCHOR_FORMAT}
        del fields["signature"]
        return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()

    def line(self) -> str:
        return json.dumps({**asdict(self), "format": ANCHOR_FORMAT}, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class StoredAnchor:
    """An anchor read back from its file, with where it was found (``2026-12-01.jsonl line 3``)."""

    anchor: Anchor
    location: str


@dataclass(frozen=True)
class AnchorProblem:
    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


def anchor_sign(
    *, sequence: int, hash: str, record_count: int, anchored_at: dt.datetime, gaming_day: dt.date
) -> Anchor:
    key = anchor_signing_key()
    unsigned = Anchor(
        sequence=sequence,
        hash=hash,
        record_count=record_count,
        anchored_at=anchored_at.astimezone(dt.UTC).isoformat(),
        gaming_day=gaming_day.isoformat(),
        public_key=public_key_hex(key.public_key()),
    )
    return Anchor(**{**asdict(unsigned), "signature": key.sign(unsigned.statement()).hex()})


def anchor_store(anchor: Anchor) -> Path:
    """Append the anchor to its gaming day's file and return the file's path."""
    directory = Path(settings.AUDIT_ANCHOR_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{anchor.gaming_day}.jsonl"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # One write of one line: appends from several processes never interleave.
        os.write(descriptor, (anchor.line() + "\n").encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return path


def _files(*, newest_first: bool = False) -> list[Path]:
    return sorted(Path(settings.AUDIT_ANCHOR_DIR).glob("*.jsonl"), reverse=newest_first)


def _parse(text: str) -> Anchor | str:
    """The anchor a line holds, or why it holds none."""
    try:
        fields = json.loads(text)
    except ValueError:
        return "not JSON"
    if not isinstance(fields, dict) or fields.pop("format", None) != ANCHOR_FORMAT:
        return "not an anchor of this format"
    try:
        anchor = Anchor(**fields)
    except TypeError:
        return "fields missing or unknown"
    numbers = (anchor.sequence, anchor.record_count)
    texts = (anchor.hash, anchor.anchored_at, anchor.gaming_day, anchor.public_key, anchor.signature)
    if not all(isinstance(value, int) for value in numbers) or not all(
        isinstance(value, str) for value in texts
    ):
        return "a field of the wrong type"
    return anchor


def _check(anchor: Anchor, trusted: dict[str, Ed25519PublicKey]) -> str:
    """Why the anchor's signature cannot be trusted, or "" when it can."""
    key = trusted.get(anchor.public_key.lower())
    if key is None:
        return f"signed with a key that is not trusted ({anchor.public_key[:16]}...)"
    try:
        key.verify(bytes.fromhex(anchor.signature), anchor.statement())
    except (InvalidSignature, ValueError):
        return "the signature does not match the anchor"
    return ""


def _lines(path: Path, *, newest_first: bool = False) -> Iterator[tuple[str, str]]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    numbered = [
        (f"{path.name} line {number}", text) for number, text in enumerate(lines, start=1) if text.strip()
    ]
    return reversed(numbered) if newest_first else iter(numbered)


def anchors_read() -> tuple[list[StoredAnchor], list[AnchorProblem]]:
    """Every anchor of every file, oldest first: those whose signature verifies under a trusted
    key, and a problem for each line that does not."""
    trusted = anchor_public_keys()
    anchors: list[StoredAnchor] = []
    problems: list[AnchorProblem] = []
    for path in _files():
        for location, text in _lines(path):
            parsed = _parse(text)
            reason = parsed if isinstance(parsed, str) else _check(parsed, trusted)
            if reason:
                problems.append(AnchorProblem(location, reason))
            elif not isinstance(parsed, str):
                anchors.append(StoredAnchor(parsed, location))
    return anchors, problems


def anchor_latest() -> StoredAnchor | None:
    """The newest anchor whose signature verifies (reading from the newest file backwards)."""
    trusted = anchor_public_keys()
    for path in _files(newest_first=True):
        for location, text in _lines(path, newest_first=True):
            parsed = _parse(text)
            if not isinstance(parsed, str) and not _check(parsed, trusted):
                return StoredAnchor(parsed, location)
    return None
