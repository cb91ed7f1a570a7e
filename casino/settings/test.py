"""Test settings: fast password hashing, in-process Celery unless a broker is configured."""

import atexit
import os
import secrets
import shutil
import tempfile
from pathlib import Path

from casino.settings.base import *  # noqa: F403

DEBUG = False
SECRET_KEY = SECRET_KEY or "test-only-secret-key-not-for-production-use-0123456789"  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tests always run tasks in-process so that they see the results in the same transaction.
CELERY_TASK_ALWAYS_EAGER = True

# The tests do not wait for each commit to reach the disk (synchronous_commit off): transactions,
# row locks, constraints and triggers behave exactly the same; only durability after a server
# crash differs, which no test is about. It takes the suite's thousands of commits off the disk's
# fsync latency.
_options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
_options["options"] = f"{_options.get('options', '')} -c synchronous_commit=off".strip()

# The audit chain's keys: a fixed HMAC key (tests of rotation set their own), and the anchors and
# their signing key in a directory of this process's own, never the development ones of var/.
# It is created on first use only (loading the settings, as the type checker does, writes nothing).
AUDIT_HMAC_KEYS = "1:" + "5e" * 32
_AUDIT_DIR = Path(tempfile.gettempdir()) / f"casino-test-audit-{os.getpid()}-{secrets.token_hex(4)}"
atexit.register(shutil.rmtree, _AUDIT_DIR, ignore_errors=True)
AUDIT_ANCHOR_DIR = str(_AUDIT_DIR / "anchors")
AUDIT_ANCHOR_SIGNING_KEY_FILE = str(_AUDIT_DIR / "anchor-signing-key.pem")
AUDIT_ANCHOR_PUBLIC_KEYS = []
AUDIT_KEYS_GENERATE = True

# Background jobs (casino.jobs) run inline, before job_start returns, in the test's transaction.
BACKGROUND_JOBS_INLINE = True

# Hints go to this process's streams only (the tests of the transports set their own).
HINTS_URL = "memory"
