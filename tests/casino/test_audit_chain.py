"""The keyed, anchored audit chain: HMAC keys by version, signed anchors outside the database, and a
verifier that names what a rewrite, a wrong key, a forged anchor or a deleted tail changed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from casino.actors import Actor
from casino.anchors import Anchor
from casino.audit import (
    GENESIS_HASH,
    audit_anchor,
    audit_append,
    audit_verify,
    canonical_payload,
    record_hash,
)
from casino.audit_keys import hmac_keyring, public_key_hex
from casino.errors import AuditChainBrokenError
from casino.models import AuditRecord
from casino.tasks import audit_anchor_task, audit_verify_task
from tests.factories import CasinoFactory, PlayerFactory
from wallet.services import system_buy_in

TEST_KEY = "5e" * 32  # casino/settings/test.py
KEY_ONE, KEY_TWO = "a1" * 32, "b2" * 32


@pytest.fixture(autouse=True)
def anchor_dir(settings: Any, tmp_path: Path) -> Path:
    """Each test's anchors in a directory of its own: the database is rolled back, files are not."""
    settings.AUDIT_ANCHOR_DIR = str(tmp_path / "anchors")
    return tmp_path / "anchors"


def _append(count: int) -> list[AuditRecord]:
    return [
        audit_append(
            action="test.event", actor_name="tester", object_type="test", object_id=i, after={"i": i}
        )
        for i in range(count)
    ]


def _tamper(sql: str, params: list[object]) -> None:
    """Change records behind the application's back, as the database superuser can: the
    append-only triggers do not fire in replica mode."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)


def _encoded(record: AuditRecord) -> bytes:
    return json.dumps(
        canonical_payload(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hmac_under(key_hex: str) -> Callable[[bytes], str]:
    return lambda data: hmac.new(bytes.fromhex(key_hex), data, hashlib.sha256).hexdigest()


def _rehash_from(sequence: int, digest: Callable[[bytes], str]) -> None:
    """Recompute the hash and link of every record from ``sequence`` on, as an attacker covering a
    change would."""
    previous = AuditRecord.objects.get(sequence=sequence - 1).hash if sequence > 1 else GENESIS_HASH
    for record in AuditRecord.objects.filter(sequence__gte=sequence).order_by("sequence"):
        record.previous_hash = previous
        new_hash = digest(_encoded(record))
        _tamper(
            "UPDATE casino_auditrecord SET previous_hash = %s, hash = %s WHERE sequence = %s",
            [previous, new_hash, record.sequence],
        )
        previous = new_hash


def _buy_in_record(amount_minor: int) -> AuditRecord:
    player = PlayerFactory()
    system_buy_in(player=player, amount_minor=amount_minor, actor=Actor.automatic("test"))
    return AuditRecord.objects.get(action="wallet.buy_in", after__player_id=player.pk)


def _raise_amount(record: AuditRecord, amount_minor: int) -> None:
    _tamper(
        "UPDATE casino_auditrecord SET after = jsonb_set(after, '{amount_minor}', %s::jsonb) WHERE sequence = %s",
        [str(amount_minor), record.sequence],
    )


def _anchor_lines(directory: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(directory.glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def _write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


# ------------------------------------------------------------------ keyed records


@pytest.mark.django_db
def test_records_are_hmacs_under_the_current_key_version():
    record = _append(1)[0]

    assert record.key_version == 1
    assert record.hash == _hmac_under(TEST_KEY)(_encoded(record))
    assert record.hash != _sha256(_encoded(record))
    assert json.loads(_encoded(record))["key_version"] == 1
    assert record_hash(record) == record.hash


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("digest", "name"),
    [(_sha256, "plain SHA-256"), (_hmac_under("77" * 32), "HMAC under a wrong key")],
)
def test_rehash_attack_on_a_buy_in_is_named(digest: Callable[[bytes], str], name: str):
    # given a buy-in among other records, as the application wrote them
    _append(2)
    buy_in = _buy_in_record(25_000)
    _append(3)
    assert audit_verify().is_intact

    # when the superuser raises its amount and recomputes every later hash and link
    _raise_amount(buy_in, 100_000_000)
    _rehash_from(buy_in.sequence, digest)

    # then the links hold (the attacker saw to that), but the verifier names the buy-in
    assert AuditRecord.objects.get(sequence=buy_in.sequence).after["amount_minor"] == 100_000_000
    result = audit_verify()
    assert not result.is_intact, name
    assert result.broken_sequence == buy_in.sequence
    assert result.reason == "content does not match its hash"
    assert result.checked == buy_in.sequence - 1


@pytest.mark.django_db
def test_rehash_attack_as_unkeyed_records_is_named():
    # The attacker marks the rewritten records as unkeyed, from before the chain had a key.
    _append(2)
    buy_in = _buy_in_record(25_000)
    _append(2)

    _raise_amount(buy_in, 100_000_000)
    _tamper("UPDATE casino_auditrecord SET key_version = 0 WHERE sequence >= %s", [buy_in.sequence])
    _rehash_from(buy_in.sequence, _sha256)

    result = audit_verify()
    assert result.broken_sequence == buy_in.sequence
    assert result.reason == "an unkeyed record after keyed ones"


@pytest.mark.django_db
def test_rehash_under_the_right_key_is_named_by_the_anchor_it_contradicts(capsys: Any):
    # given records anchored at #3 and at #6
    _append(3)
    audit_anchor()
    _append(3)
    audit_anchor()
    assert audit_verify().is_intact

    # when someone holding the HMAC key (not the signing key) rewrites #5 and rehashes after it
    _tamper("UPDATE casino_auditrecord SET after = '{\"i\": 99}' WHERE sequence = 5", [])
    _rehash_from(5, _hmac_under(TEST_KEY))

    # then every HMAC verifies, but the anchor of #6 does not: the records after #3 are named
    result = audit_verify()
    assert result.broken_sequence == 4
    assert result.reason.startswith("differs from the anchor of #6 (")
    assert result.reason.endswith("the records from #4 to #6 are not the ones anchored")
    assert result.last_anchored_sequence == 3
    assert result.checked == 3
    # and the next anchor refuses to vouch for the rewritten chain
    with pytest.raises(AuditChainBrokenError, match="record #6 differs from the anchor of #6"):
        audit_anchor()


@pytest.mark.django_db
def test_rotated_keys_both_verify(settings: Any):
    # given two records under key 1, then two under key 2 after the rotation
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE}"
    _append(2)
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE},2:{KEY_TWO}"
    _append(2)

    # then each verifies under its own version
    assert list(AuditRecord.objects.values_list("key_version", flat=True)) == [1, 1, 2, 2]
    record = AuditRecord.objects.get(sequence=3)
    assert record.hash == _hmac_under(KEY_TWO)(_encoded(record))
    result = audit_verify()
    assert result.is_intact
    assert result.checked == 4


@pytest.mark.django_db
def test_a_record_whose_key_version_is_missing_is_reported(settings: Any):
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE}"
    _append(2)
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE},2:{KEY_TWO}"
    _append(1)

    settings.AUDIT_HMAC_KEYS = f"2:{KEY_TWO}"  # key 1 lost
    result = audit_verify()

    assert not result.is_intact
    assert result.broken_sequence == 1
    assert result.reason == "key version 1 is not configured: the record cannot be verified"
    assert result.checked == 0


@pytest.mark.django_db
def test_keys_from_a_directory_the_highest_version_signs(settings: Any, tmp_path: Path):
    settings.AUDIT_HMAC_KEYS = ""
    settings.AUDIT_HMAC_KEY_DIR = str(tmp_path / "hmac")
    (tmp_path / "hmac").mkdir()
    (tmp_path / "hmac" / "1.key").write_text(KEY_ONE + "\n")
    (tmp_path / "hmac" / "3.key").write_text(KEY_TWO + "\n")

    record = _append(1)[0]

    assert record.key_version == 3
    assert record.hash == _hmac_under(KEY_TWO)(_encoded(record))
    assert audit_verify().is_intact


def test_a_development_key_is_generated_once(settings: Any, tmp_path: Path):
    settings.AUDIT_HMAC_KEYS = ""
    settings.AUDIT_HMAC_KEY_DIR = str(tmp_path / "keys")
    settings.AUDIT_KEYS_GENERATE = True

    keyring = hmac_keyring()

    path = tmp_path / "keys" / "1.key"
    assert keyring.current_version == 1
    assert keyring.keys[1] == bytes.fromhex(path.read_text())
    assert len(keyring.keys[1]) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in (tmp_path / "keys").iterdir()] == ["1.key"]


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ("", "no audit HMAC key"),
        ("1:abcd", "shorter than 32 bytes"),
        (f"0:{KEY_ONE}", "the version must be an integer from 1"),
        (f"1:{KEY_ONE},1:{KEY_TWO}", "names version 1 twice"),
        ("1:" + "zz" * 32, "is not hexadecimal"),
    ],
)
def test_a_missing_or_bad_key_is_a_configuration_error(
    settings: Any, tmp_path: Path, keys: str, message: str
):
    settings.AUDIT_HMAC_KEYS = keys
    settings.AUDIT_HMAC_KEY_DIR = str(tmp_path / "empty")
    settings.AUDIT_KEYS_GENERATE = False

    with pytest.raises(ImproperlyConfigured, match=message):
        hmac_keyring()

    assert not (tmp_path / "empty").exists()


def _production_check(**audit_env: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AUDIT_")} | {
        "DJANGO_SETTINGS_MODULE": "casino.settings.production",
        "SECRET_KEY": "x" * 20 + "production-secret-for-the-check-only-" + "y" * 20,
        "DATABASE_URL": "postgres://casino@db.invalid:5432/casino",
        "ALLOWED_HOSTS": "backoffice.example.com",
        **audit_env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_an_hmac_key():
    refused = _production_check()
    started = _production_check(AUDIT_HMAC_KEYS=f"1:{KEY_ONE}")

    assert refused.returncode != 0
    assert "AUDIT_HMAC_KEYS or AUDIT_HMAC_KEY_DIR must be set in production" in refused.stderr
    assert started.returncode == 0, started.stderr


@pytest.mark.django_db
def test_production_never_generates_a_signing_key(settings: Any, tmp_path: Path):
    _append(1)
    settings.AUDIT_KEYS_GENERATE = False
    settings.AUDIT_ANCHOR_SIGNING_KEY_FILE = str(tmp_path / "missing.pem")

    with pytest.raises(ImproperlyConfigured, match="AUDIT_ANCHOR_SIGNING_KEY_FILE"):
        call_command("audit_anchor", stdout=StringIO())

    assert not (tmp_path / "missing.pem").exists()


def _unkeyed(count: int) -> None:
    """Records as the chain wrote them before it was keyed (version 0, plain SHA-256)."""
    previous = GENESIS_HASH
    for sequence in range(1, count + 1):
        record = AuditRecord(
            sequence=sequence,
            recorded_at=dt.datetime(2026, 11, 1, 12, sequence, tzinfo=dt.UTC),
            action="legacy.event",
            previous_hash=previous,
            key_version=0,
        )
        record.hash = _sha256(_encoded(record))
        record.save(force_insert=True)
        previous = record.hash


@pytest.mark.django_db
def test_records_from_before_the_key_verify_as_unkeyed(settings: Any):
    # given two records the unkeyed chain wrote, then keyed ones, on a database upgraded with
    # AUDIT_UNKEYED_UP_TO naming the last record written before the key
    settings.AUDIT_UNKEYED_UP_TO = 2
    _unkeyed(2)
    _append(2)

    result = audit_verify()
    assert result.is_intact
    assert (result.checked, result.unkeyed) == (4, 2)
    out = StringIO()
    call_command("audit_verify", stdout=out)
    assert "2 unkeyed records (key version 0" in out.getvalue()


@pytest.mark.django_db
def test_a_whole_chain_rewritten_as_unkeyed_is_named(settings: Any):
    # given a keyed chain with a buy-in, on a database that never had unkeyed records
    _append(2)
    buy_in = _buy_in_record(25_000)
    _append(2)
    # when the superuser raises the amount and rewrites every record as unkeyed, from #1
    _raise_amount(buy_in, 100_000_000)
    _tamper("UPDATE casino_auditrecord SET key_version = 0", [])
    _rehash_from(1, _sha256)
    # then no record may be unkeyed, and the first one is named
    result = audit_verify()
    assert result.broken_sequence == 1
    assert result.reason.startswith("an unkeyed record beyond AUDIT_UNKEYED_UP_TO (0)")
    # and on an upgraded database, only the records up to the boundary may be
    settings.AUDIT_UNKEYED_UP_TO = 2
    assert audit_verify().broken_sequence == 3


@pytest.mark.django_db
def test_a_record_under_an_older_key_after_a_newer_one_is_named(settings: Any):
    # given two records under key 1, then two under key 2
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE}"
    _append(2)
    settings.AUDIT_HMAC_KEYS = f"1:{KEY_ONE},2:{KEY_TWO}"
    _append(2)
    # when someone holding the retired key 1 rewrites the newest record under it
    _tamper("UPDATE casino_auditrecord SET key_version = 1, after = '{\"i\": 9}' WHERE sequence = 4", [])
    record = AuditRecord.objects.get(sequence=4)
    _tamper(
        "UPDATE casino_auditrecord SET hash = %s WHERE sequence = 4", [_hmac_under(KEY_ONE)(_encoded(record))]
    )
    # then its HMAC holds, but the chain never goes back to an older key
    result = audit_verify()
    assert result.broken_sequence == 4
    assert result.reason == "key version 1 after version 2: the chain never goes back to an older key"


@pytest.mark.django_db
def test_no_record_stands_below_sequence_one():
    # given a chain
    _append(2)
    # then the database refuses a record outside it, even from the superuser with the triggers off
    with pytest.raises(IntegrityError, match="audit_sequence_from_one"):
        _tamper(
            "INSERT INTO casino_auditrecord (sequence, recorded_at, actor_name, role, action, object_type, "
            "object_id, previous_hash, hash, key_version) "
            "VALUES (-1, now(), '', '', 'wallet.buy_in', 'wallet.transfer', '1', %s, %s, 1)",
            [GENESIS_HASH, "e" * 64],
        )
    # and with the constraint dropped, the walk meets the row first and names it
    _tamper("SET CONSTRAINTS ALL IMMEDIATE", [])
    _tamper("ALTER TABLE casino_auditrecord DROP CONSTRAINT audit_sequence_from_one", [])
    _tamper(
        "INSERT INTO casino_auditrecord (sequence, recorded_at, actor_name, role, action, object_type, "
        "object_id, previous_hash, hash, key_version) "
        "VALUES (-1, now(), '', '', 'wallet.buy_in', 'wallet.transfer', '1', %s, %s, 1)",
        [GENESIS_HASH, "e" * 64],
    )
    result = audit_verify()
    assert (result.broken_sequence, result.reason) == (-1, "expected sequence 1, found -1")


# ------------------------------------------------------------------ anchors


@pytest.mark.django_db
def test_anchor_signs_the_head_into_the_gaming_days_file(anchor_dir: Path):
    # given a casino whose gaming day starts at 06:00 in Budapest, and three records
    CasinoFactory(time_zone="Europe/Budapest", gaming_day_starts_at=dt.time(6, 0))
    records = _append(3)

    # when the chain is anchored at 04:00 local time on 1 December
    anchor = audit_anchor(now=dt.datetime(2026, 12, 1, 3, 0, tzinfo=dt.UTC))

    # then the anchor names the head, is signed, and is the one line of the previous gaming day's file
    assert anchor is not None
    assert (anchor.sequence, anchor.hash, anchor.record_count) == (3, records[-1].hash, 3)
    assert anchor.anchored_at == "2026-12-01T03:00:00+00:00"
    assert anchor.gaming_day == "2026-11-30"
    assert [path.name for path in anchor_dir.iterdir()] == ["2026-11-30.jsonl"]
    assert _anchor_lines(anchor_dir) == [json.loads(anchor.line())]
    key = serialization.load_pem_private_key(
        Path(django_settings.AUDIT_ANCHOR_SIGNING_KEY_FILE).read_bytes(), password=None
    )
    assert isinstance(key, Ed25519PrivateKey)
    assert anchor.public_key == public_key_hex(key.public_key())
    key.public_key().verify(bytes.fromhex(anchor.signature), anchor.statement())
    result = audit_verify()
    assert result.is_intact
    assert (result.anchors_checked, result.last_anchored_sequence, result.unanchored) == (1, 3, 0)


@pytest.mark.django_db
def test_anchor_command_prints_the_anchor_and_appends(anchor_dir: Path):
    _append(2)
    first, second = StringIO(), StringIO()

    call_command("audit_anchor", stdout=first)
    _append(1)
    call_command("audit_anchor", stdout=second)

    lines = _anchor_lines(anchor_dir)
    assert [line["sequence"] for line in lines] == [2, 3]
    assert json.loads(first.getvalue()) == lines[0]
    assert json.loads(second.getvalue()) == lines[1]


@pytest.mark.django_db
def test_anchor_of_an_empty_chain_writes_nothing(anchor_dir: Path):
    out = StringIO()

    call_command("audit_anchor", stdout=out)

    assert out.getvalue().strip() == "audit trail empty: nothing to anchor"
    assert not anchor_dir.exists()


@pytest.mark.django_db
def test_unanchored_tail_is_named():
    _append(3)
    audit_anchor()
    _append(2)

    result = audit_verify()
    out = StringIO()
    call_command("audit_verify", stdout=out)

    assert result.is_intact
    assert (result.last_anchored_sequence, result.head_sequence, result.unanchored) == (3, 5, 2)
    assert out.getvalue().splitlines() == [
        "audit trail intact: 5 records checked",
        "1 anchors checked, the last agreeing at #3",
        "records #4 to #5 not yet anchored",
    ]


@pytest.mark.django_db
def test_an_edited_anchor_file_is_reported(anchor_dir: Path):
    # given an anchor of #3, then the file edited to name another hash (a cover for a rewrite)
    _append(3)
    audit_anchor()
    (path,) = anchor_dir.glob("*.jsonl")
    (line,) = _anchor_lines(anchor_dir)
    _write_lines(path, [{**line, "hash": "f" * 64}])

    # then the anchor is not trusted, the chain itself still verifies
    result = audit_verify()
    assert not result.is_intact
    assert result.broken_sequence is None
    assert result.anchor_problems == (f"{path.name} line 1: the signature does not match the anchor",)
    assert result.reason == result.anchor_problems[0]
    assert result.checked == 3
    err = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("audit_verify", stdout=StringIO(), stderr=err)
    assert exit_info.value.code == 1
    assert (
        f"anchor not trusted: {path.name} line 1: the signature does not match the anchor" in err.getvalue()
    )


@pytest.mark.django_db
def test_an_anchor_signed_with_another_key_is_reported(anchor_dir: Path):
    # given an anchor forged by someone with a key pair of their own, naming the real head
    head = _append(2)[-1]
    forger = Ed25519PrivateKey.generate()
    unsigned = Anchor(
        sequence=2,
        hash=head.hash,
        record_count=2,
        anchored_at="2026-12-01T10:00:00+00:00",
        gaming_day="2026-12-01",
        public_key=public_key_hex(forger.public_key()),
    )
    forged = dataclasses.replace(unsigned, signature=forger.sign(unsigned.statement()).hex())
    anchor_dir.mkdir()
    (anchor_dir / "2026-12-01.jsonl").write_text(forged.line() + "\n")

    result = audit_verify()

    assert not result.is_intact
    assert len(result.anchor_problems) == 1
    assert "2026-12-01.jsonl line 1: signed with a key that is not trusted" in result.anchor_problems[0]
    assert result.anchors_checked == 0


@pytest.mark.django_db
def test_an_unreadable_anchor_line_is_reported(anchor_dir: Path):
    _append(1)
    anchor_dir.mkdir()
    (anchor_dir / "2026-12-01.jsonl").write_text("{not json\n")

    assert audit_verify().anchor_problems == ("2026-12-01.jsonl line 1: not JSON",)


@pytest.mark.django_db
def test_anchors_of_a_retired_signing_key_verify_through_its_public_key(settings: Any, tmp_path: Path):
    # given an anchor made with the old signing key, then the key replaced by a new one
    _append(2)
    old = audit_anchor()
    assert old is not None
    settings.AUDIT_ANCHOR_SIGNING_KEY_FILE = str(tmp_path / "new-key.pem")
    _append(1)

    # then the old anchor is not trusted until its public key is configured
    assert audit_verify().anchor_problems != ()
    settings.AUDIT_ANCHOR_PUBLIC_KEYS = [old.public_key]
    new = audit_anchor()
    assert new is not None
    assert new.public_key != old.public_key
    result = audit_verify()
    assert result.is_intact
    assert result.anchors_checked == 2


@pytest.mark.django_db
def test_a_deleted_tail_after_an_anchor_is_reported():
    # given five records anchored at #5
    _append(5)
    audit_anchor()

    # when the two newest are deleted
    _tamper("DELETE FROM casino_auditrecord WHERE sequence >= 4", [])

    # then the anchor names records that are gone, and the next anchor is refused
    result = audit_verify()
    assert not result.is_intact
    assert result.broken_sequence == 4
    assert result.reason.startswith("the anchor of #5 (")
    assert result.reason.endswith(
        "names a record that is no longer there: the records from #4 to #5 were deleted"
    )
    assert result.checked == 3
    with pytest.raises(AuditChainBrokenError, match="names a record that is no longer there"):
        audit_anchor()


@pytest.mark.django_db
def test_a_deleted_tail_replaced_by_new_records_is_reported():
    # given records anchored at #3 and #5; then #4 and #5 deleted and two new records appended
    _append(3)
    audit_anchor()
    _append(2)
    audit_anchor()
    _tamper("DELETE FROM casino_auditrecord WHERE sequence >= 4", [])
    _append(2)

    result = audit_verify()

    assert result.broken_sequence == 4
    assert result.reason.startswith("differs from the anchor of #5 (")


@pytest.mark.django_db
def test_anchor_refuses_a_chain_that_does_not_verify(anchor_dir: Path):
    _append(3)
    _tamper("UPDATE casino_auditrecord SET action = 'test.forged' WHERE sequence = 2", [])

    with pytest.raises(AuditChainBrokenError, match="record #2: content does not match its hash"):
        audit_anchor()

    assert not anchor_dir.exists()


@pytest.mark.django_db
def test_anchor_refuses_when_records_before_the_head_were_deleted(anchor_dir: Path):
    _append(4)
    _tamper("DELETE FROM casino_auditrecord WHERE sequence = 2", [])

    with pytest.raises(AuditChainBrokenError, match="3 records up to #4: records were deleted"):
        audit_anchor()

    assert not anchor_dir.exists()


@pytest.mark.django_db
def test_anchor_and_verify_tasks(anchor_dir: Path):
    _append(2)

    line = audit_anchor_task.delay().get()
    summary = audit_verify_task.delay().get()

    assert json.loads(line) == _anchor_lines(anchor_dir)[0]
    assert summary == {"checked": 2, "broken_sequence": None, "anchor_problems": [], "unanchored": 0}
    assert django_settings.CELERY_BEAT_SCHEDULE["audit-anchor"] == {
        "task": "casino.tasks.audit_anchor_task",
        "schedule": django_settings.AUDIT_ANCHOR_INTERVAL_SECONDS,
    }


@pytest.mark.django_db
def test_audit_page_names_the_unanchored_tail_and_an_untrusted_anchor(
    client: Any, seeded: Any, anchor_dir: Path
):
    client.post("/login/", {"username": "auditor", "password": "auditor-demo"})
    anchor = audit_anchor()
    assert anchor is not None
    _append(2)

    page = client.post("/audit/checks/chain/start/", follow=True).content.decode()
    # the two appended, and the record of the check's own start (job.started)
    assert f"Records #{anchor.sequence + 1} to #{anchor.sequence + 3} are not yet anchored." in page

    (path,) = anchor_dir.glob("*.jsonl")
    _write_lines(path, [{**json.loads(anchor.line()), "sequence": anchor.sequence + 1}])
    page = client.post("/audit/checks/chain/start/", follow=True).content.decode()
    assert f"Anchor not trusted: {path.name} line 1: the signature does not match the anchor" in page
