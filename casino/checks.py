"""System checks of the back office's own configuration, run by ``manage.py check`` (and
``check --deploy``), by every management command that runs the checks (``migrate``,
``runserver`` ...), and before gunicorn starts its workers (``deploy/gunicorn.conf.py``).

The audit chain's HMAC keys are loaded here, as the first audited command would load them: a key
that is no hex or too short (``change-me-to-64-hex-digits``), a version that is no integer, or no
key at all (an empty ``AUDIT_HMAC_KEY_DIR``) is an error at start, not at the first login or bet.
So are the anchors' trusted public keys (``AUDIT_ANCHOR_PUBLIC_KEYS``) and, where its file is
there, the signing key: a process without that file (web) is fine, it only verifies; the worker
that signs must have it, which its task says at each run (``casino.tasks``).
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from casino.audit_keys import MINIMUM_KEY_BYTES, anchor_public_keys, hmac_keyring

AUDIT_KEYS_ERROR = "casino.E001"
ANCHOR_KEYS_ERROR = "casino.E002"


def audit_hmac_keys_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """An error when the audit chain's HMAC keys cannot be loaded."""
    try:
        hmac_keyring()
    except ImproperlyConfigured as error:
        return [
            checks.Error(
                str(error),
                hint=(
                    f"AUDIT_HMAC_KEYS=1:<{2 * MINIMUM_KEY_BYTES} hex digits> (`openssl rand -hex "
                    f"{MINIMUM_KEY_BYTES}`), or files <version>.key holding such a key in AUDIT_HMAC_KEY_DIR"
                ),
                id=AUDIT_KEYS_ERROR,
            )
        ]
    except OSError as error:  # a key directory or file that cannot be read
        return [checks.Error(f"audit HMAC keys cannot be read: {error}", id=AUDIT_KEYS_ERROR)]
    return []


def anchor_keys_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """An error when the anchors' public keys, or the signing key file that is there, cannot be
    read. Never generates a key."""
    try:
        anchor_public_keys()
    except ImproperlyConfigured as error:
        return [checks.Error(str(error), id=ANCHOR_KEYS_ERROR)]
    except (OSError, ValueError) as error:  # a signing key file that cannot be read, or no PEM
        return [
            checks.Error(
                f"the audit anchor signing key (AUDIT_ANCHOR_SIGNING_KEY_FILE) cannot be loaded: {error}",
                id=ANCHOR_KEYS_ERROR,
            )
        ]
    return []
