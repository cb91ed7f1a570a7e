"""The audit trail's key material, none of it in the database.

- **HMAC keys**, by version (an integer from 1): ``AUDIT_HMAC_KEYS`` (``"1:<hex>,2:<hex>"``) when
  set is the whole keyring, otherwise the files ``<version>.key`` (the key in hex) of
  ``AUDIT_HMAC_KEY_DIR``. The highest version hashes new records; every record verifies under the
  version it names, so a key is rotated by adding a higher version and keeping the old ones.
  Version 0 is no key: the plain SHA-256 of records written before the chain was keyed.
- **The anchors' Ed25519 key pair**: the private key as a PEM file
  (``AUDIT_ANCHOR_SIGNING_KEY_FILE``); the public keys that verification trusts are
  ``AUDIT_ANCHOR_PUBLIC_KEYS`` (hex of the 32-byte keys, comma-separated) and that file's own.

With ``AUDIT_KEYS_GENERATE`` (development, tests, the embedded run) a key directory without a key
gets version 1 and a missing signing key file a new key pair, once; production never generates a
key and refuses to start without HMAC keys (``casino/settings/production.py``). The keyring is
read once per process: restart the processes after adding a key version.
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

UNKEYED_VERSION = 0
MINIMUM_KEY_BYTES = 32


@dataclass(frozen=True)
class HmacKeyring:
    keys: Mapping[int, bytes]

    @property
    def current_version(self) -> int:
        return max(self.keys)


def hmac_keyring() -> HmacKeyring:
    """The configured HMAC keys (generated into the key directory when allowed and none is there)."""
    return _keyring(settings.AUDIT_HMAC_KEYS, str(settings.AUDIT_HMAC_KEY_DIR), settings.AUDIT_KEYS_GENERATE)


def _hex_key(text: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise ImproperlyConfigured(f"audit HMAC key {where} is not hexadecimal") from None
    if len(key) < MINIMUM_KEY_BYTES:
        raise ImproperlyConfigured(f"audit HMAC key {where} is shorter than {MINIMUM_KEY_BYTES} bytes")
    return key


def _version(text: str, where: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise ImproperlyConfigured(f"audit HMAC key {where}: the version must be an integer from 1")
    return int(text)


@functools.cache
def _keyring(keys_text: str, key_dir: str, generate: bool) -> HmacKeyring:
    keys: dict[int, bytes] = {}
    if keys_text:
        for item in keys_text.split(","):
            version_text, _, key_text = item.strip().partition(":")
            version = _version(version_text, f"{version_text!r} of AUDIT_HMAC_KEYS")
            if version in keys:
                raise ImproperlyConfigured(f"AUDIT_HMAC_KEYS names version {version} twice")
            keys[version] = _hex_key(key_text, f"version {version} of AUDIT_HMAC_KEYS")
        return HmacKeyring(keys)
    directory = Path(key_dir)
    if generate and not any(directory.glob("*.key")):
        _create_secret_file(directory / "1.key", secrets.token_hex(MINIMUM_KEY_BYTES).encode())
    for path in sorted(directory.glob("*.key")):
        keys[_version(path.stem, str(path))] = _hex_key(path.read_text(), str(path))
    if not keys:
        raise ImproperlyConfigured(
            "no audit HMAC key: set AUDIT_HMAC_KEYS=1:<64 hex digits> or put 1.key in AUDIT_HMAC_KEY_DIR "
            f"({key_dir})"
        )
    return HmacKeyring(keys)


def _create_secret_file(path: Path, content: bytes) -> None:
    """Write a file readable by its owner only, unless another process has just written it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(content)
    try:
        os.link(draft, path)  # atomic, and refused if the file exists: the first writer wins
    except FileExistsError:
        pass
    finally:
        draft.unlink()


def anchor_signing_key() -> Ed25519PrivateKey:
    """The anchors' private key (a new pair is generated into its file when allowed)."""
    path = Path(settings.AUDIT_ANCHOR_SIGNING_KEY_FILE)
    if not path.exists():
        if not settings.AUDIT_KEYS_GENERATE:
            raise ImproperlyConfigured(
                f"the audit anchor signing key {path} (AUDIT_ANCHOR_SIGNING_KEY_FILE) is missing"
            )
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _create_secret_file(path, pem)
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ImproperlyConfigured(f"the audit anchor signing key {path} is not an Ed25519 key")
    return key


def public_key_hex(key: Ed25519PublicKey) -> str:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def anchor_public_keys() -> dict[str, Ed25519PublicKey]:
    """The public keys an anchor may be signed with, by their hex: the configured ones and the
    signing key file's own (when there is one; verification never generates a key)."""
    trusted: dict[str, Ed25519PublicKey] = {}
    for text in settings.AUDIT_ANCHOR_PUBLIC_KEYS:
        try:
            trusted[text.lower()] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
        except ValueError:
            raise ImproperlyConfigured(
                f"AUDIT_ANCHOR_PUBLIC_KEYS: {text!r} is not a 32-byte hex key"
            ) from None
    if Path(settings.AUDIT_ANCHOR_SIGNING_KEY_FILE).exists():
        own = anchor_signing_key().public_key()
        trusted[public_key_hex(own)] = own
    return trusted
