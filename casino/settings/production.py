"""Production: every secret from the environment, HTTPS only, PostgreSQL required.

Required: SECRET_KEY, DATABASE_URL (postgresql://...), ALLOWED_HOSTS, the audit chain's HMAC keys
(AUDIT_HMAC_KEYS or AUDIT_HMAC_KEY_DIR; anchoring, in the Celery worker, also needs
AUDIT_ANCHOR_SIGNING_KEY_FILE, and the processes that only verify anchors AUDIT_ANCHOR_PUBLIC_KEYS).
Passes `manage.py check --deploy --fail-level WARNING` when they are set. The keys themselves are
loaded by a system check (casino/checks.py): a malformed key or an empty key directory fails
`check`, `migrate` and gunicorn's start. DATABASE_OWNER_URL, given to the migrating step only, is
the schema owner's (docs/operations.md).
"""

import os

from django.core.exceptions import ImproperlyConfigured

from casino.settings.base import *  # noqa: F403
from casino.settings.base import env_bool

DEBUG = False
if len(SECRET_KEY) < 50:  # noqa: F405
    raise ImproperlyConfigured("SECRET_KEY must be set to at least 50 random characters in production")
if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL in production")
if not (os.environ.get("DATABASE_OWNER_URL") or "postgres://").startswith(("postgres://", "postgresql://")):
    raise ImproperlyConfigured("DATABASE_OWNER_URL must point at PostgreSQL in production")
if not os.environ.get("ALLOWED_HOSTS"):
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in production")
# The audit chain's keys are never generated in production: they come from the environment or files.
AUDIT_KEYS_GENERATE = False
if not os.environ.get("AUDIT_HMAC_KEYS") and not os.environ.get("AUDIT_HMAC_KEY_DIR"):
    raise ImproperlyConfigured("AUDIT_HMAC_KEYS or AUDIT_HMAC_KEY_DIR must be set in production")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
LOGGING["root"]["level"] = os.environ.get("LOG_LEVEL", "WARNING")  # noqa: F405
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING["handlers"]["console"]["formatter"] = "json" if LOG_FORMAT == "json" else "text"  # noqa: F405
