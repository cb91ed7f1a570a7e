"""The anchoring task when the process lacks its key, and verification in a process that holds
the public key only (the web pods: they verify anchors and never sign)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from casino.audit import audit_anchor, audit_append, audit_verify
from casino.audit_keys import anchor_signing_key, public_key_hex
from casino.tasks import audit_anchor_task


@pytest.fixture(autouse=True)
def anchor_dir(settings: Any, tmp_path: Path) -> Path:
    settings.AUDIT_ANCHOR_DIR = str(tmp_path / "anchors")
    return tmp_path / "anchors"


def _append() -> None:
    audit_append(action="test.event", actor_name="tester", object_type="test", object_id=1)


@pytest.mark.django_db
def test_without_its_signing_key_the_anchor_task_logs_an_error_naming_the_setting(
    settings: Any, tmp_path: Path, anchor_dir: Path, caplog: Any
):
    # given production's rule (no key is generated) and no signing key file where the setting points
    settings.AUDIT_KEYS_GENERATE = False
    settings.AUDIT_ANCHOR_SIGNING_KEY_FILE = str(tmp_path / "missing.pem")
    _append()

    # when beat's schedule runs the task
    with caplog.at_level(logging.ERROR, logger="casino.tasks"):
        line = audit_anchor_task.delay().get()

    # then it anchors nothing and says why, instead of raising at every run
    assert line == ""
    assert not anchor_dir.exists() or list(anchor_dir.iterdir()) == []
    (record,) = [record for record in caplog.records if record.name == "casino.tasks"]
    assert record.levelno == logging.ERROR
    assert "audit trail not anchored" in record.getMessage()
    assert "AUDIT_ANCHOR_SIGNING_KEY_FILE" in record.getMessage()
    assert not (tmp_path / "missing.pem").exists()


@pytest.mark.django_db
def test_a_process_without_the_signing_key_verifies_anchors_with_the_public_key_alone(
    settings: Any, tmp_path: Path
):
    # given an anchor signed by the worker, which holds the signing key
    _append()
    assert audit_anchor() is not None
    public = public_key_hex(anchor_signing_key().public_key())
    # when a process that has no signing key file but the public key verifies the chain
    settings.AUDIT_KEYS_GENERATE = False
    settings.AUDIT_ANCHOR_SIGNING_KEY_FILE = str(tmp_path / "not-mounted.pem")
    settings.AUDIT_ANCHOR_PUBLIC_KEYS = [public]
    trusted = audit_verify()
    # then the anchor is trusted; without the public key it would not be
    settings.AUDIT_ANCHOR_PUBLIC_KEYS = []
    untrusted = audit_verify()

    assert (trusted.broken_sequence, trusted.anchor_problems, trusted.anchors_checked) == (None, (), 1)
    assert len(untrusted.anchor_problems) == 1
    assert "signed with a key that is not trusted" in untrusted.anchor_problems[0]
    assert not (tmp_path / "not-mounted.pem").exists()
