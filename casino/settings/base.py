"""Settings shared by every environment. Everything that differs between machines comes from
the environment; see README.md "Environment variables"."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from casino.database_roles import APPLICATION_ROLE, OWNER_COMMANDS, OWNER_ROLE
from casino.embedded_database import running_server_url, server_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "django_celery_beat",
    "csp",
    "casino",
    "wallet",
    "tables",
    "cardroom",
    "accounting",
    "floor",
]

MIDDLEWARE = [
    # /healthz and /readyz (casino/health.py), for probes calling a process by its address over
    # plain HTTP: before the host check, the HTTPS redirect and the session.
    "casino.health.HealthMiddleware",
    # The request's id (nginx's X-Request-ID, else a new one) on every log line and answered back.
    "casino.request_log.RequestIdMiddleware",
    # Under /api/, Django's own error pages become problem+json (casino/api_middleware.py), the
    # HTTPS redirect's refusal of a bad Host included: outside SecurityMiddleware, whose headers
    # it adds to its answers itself.
    "casino.api_middleware.ApiProblemMiddleware",
    # The Content-Security-Policy header (CONTENT_SECURITY_POLICY below), on every answer: the
    # outage's 503 and the refusal of a bad Host included.
    "csp.middleware.CSPMiddleware",
    # A database outage answers 503 with Retry-After and one line in the log (casino/outage.py).
    "casino.outage.DatabaseOutageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's LocaleMiddleware (the language cookie of the login page's switch, else the
    # browser's Accept-Language), except that a person signed in gets the language kept in their
    # session at login (casino/middleware.py).
    "casino.middleware.StaffLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A member signed in with a temporary password is led to the password change first.
    "casino.middleware.PasswordChangeRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "casino.context_processors.venue",
                "floor.context_processors.waiting",
            ],
        },
    }
]

# DATABASE_URL: PostgreSQL, always. `make run` and `make test` set it to the embedded server they
# start under var/postgres (casino/embedded_database.py); a command started without it (say
# `manage.py shell`) uses that server if it is running, and refuses to start otherwise.
#
# DATABASE_OWNER_URL (optional): the role that owns the schema. When it is set, `manage.py migrate`
# and `manage.py database_roles` connect with it, and then grant the role of DATABASE_URL (the
# application's, which every other process uses) its rights: casino/database_roles.py.
EMBEDDED_DATA_DIR = VAR_DIR.resolve() / "postgres"
DATABASE_URL = os.environ.get("DATABASE_URL")
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "")
if not DATABASE_URL and "pytest" in sys.modules:
    # As `make test`: the superuser, which creates the test databases.
    DATABASE_URL = running_server_url(EMBEDDED_DATA_DIR)
elif not DATABASE_URL:
    # As `make run`'s processes: the application's role, migrate as the owner.
    DATABASE_URL = running_server_url(EMBEDDED_DATA_DIR, user=APPLICATION_ROLE)
    DATABASE_OWNER_URL = DATABASE_OWNER_URL or running_server_url(EMBEDDED_DATA_DIR, user=OWNER_ROLE) or ""
if not DATABASE_URL and "mypy" in sys.modules:
    # The type checker's Django plugin (django-stubs) loads these settings and never connects.
    DATABASE_URL = server_url(EMBEDDED_DATA_DIR)
if not DATABASE_URL:
    raise ImproperlyConfigured(
        "DATABASE_URL is not set and the embedded PostgreSQL server (var/postgres) is not running. "
        "Set DATABASE_URL=postgres://..., or run the command through `make run` / `make test` or "
        "`.venv/bin/python -m casino.embedded_database -- COMMAND`, which start that server."
    )
# Set only in a process that connects as the owner: the role its migrations' grants go to.
DATABASE_APPLICATION_ROLE = ""
if DATABASE_OWNER_URL and sys.argv[1:2] and sys.argv[1] in OWNER_COMMANDS:
    DATABASE_APPLICATION_ROLE = dj_database_url.parse(DATABASE_URL)["USER"]
    DATABASE_URL = DATABASE_OWNER_URL
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL (postgres://...)")
# A database that does not answer fails a request fast, which is then answered 503 with
# Retry-After (casino/outage.py), and the next requests find it again by themselves once it is
# back; docs/operations.md ("When the database does not answer") has the figures.
# - DATABASE_CONNECT_TIMEOUT: seconds a new connection may take (libpq's connect_timeout; without
#   it, a server that drops packets holds the request until the system's TCP timeout, minutes).
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = int(
    os.environ.get("DATABASE_CONNECT_TIMEOUT", "3")
)
# psycopg 3's connection pool, off by default so test threads each get their own connection.
# - DATABASE_POOL_TIMEOUT: seconds a request waits for a connection of the pool (psycopg's default,
#   30, held every request of a restart until the pool had reconnected);
# - DATABASE_POOL_RECONNECT_TIMEOUT: seconds the pool keeps retrying a lost connection on its
#   backoff (1, 2, 4 s ...) before it gives up and lets the next request try at once (psycopg's
#   default, 300, let the backoff's waits delay the recovery by seconds after the server was back);
# - each connection is checked as the pool hands it out (CONN_HEALTH_CHECKS), so that the ones a
#   restart broke are replaced instead of failing the requests that draw them.
if env_bool("DATABASE_POOL", False):
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": int(os.environ.get("DATABASE_POOL_MIN", "2")),
        "max_size": int(os.environ.get("DATABASE_POOL_MAX", "20")),
        "timeout": int(os.environ.get("DATABASE_POOL_TIMEOUT", "2")),
        "reconnect_timeout": int(os.environ.get("DATABASE_POOL_RECONNECT_TIMEOUT", "2")),
    }
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env_bool("DATABASE_POOL_CHECK", True)
else:
    DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("DATABASE_CONN_MAX_AGE", "0"))
# Server-side parameter binding, so that psycopg prepares the statements a connection repeats
# (after DATABASE_PREPARE_THRESHOLD executions) and PostgreSQL stops parsing and planning
# them: a bet's dozen statements are the same thousands of times. It pays with persistent or
# pooled connections. Behind PgBouncer in transaction mode, use 1.21+ with
# max_prepared_statements set, or DATABASE_SERVER_SIDE_BINDING=false.
#
# Every execution is still planned for its own parameters (plan_cache_mode=force_custom_plan):
# a generic plan knows no parameter, so it cannot use a partial index whose predicate names a
# value, and the bet check's read of a box's main and side bets then scanned every bet of the
# round (1.2 ms against 0.04 ms for 4,300 bets, EXPLAIN ANALYZE on the API bench's round).
# Measured with bench/api_bets.py: server-side binding gave 9-15% more bets and bare requests
# per second than client-side binding, run against run on the same code.
if env_bool("DATABASE_SERVER_SIDE_BINDING", True):
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "server_side_binding": True,
            "prepare_threshold": int(os.environ.get("DATABASE_PREPARE_THRESHOLD", "5")),
            "options": "-c plan_cache_mode=force_custom_plan",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "casino:login"
# ModelBackend, with a member's permissions read in one query instead of two (casino/auth_backends.py).
AUTHENTICATION_BACKENDS = ["casino.auth_backends.StaffBackend"]
LOGIN_REDIRECT_URL = "casino:home"
LOGOUT_REDIRECT_URL = "casino:login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True
# The back office's languages, each named in itself (the switch in the header shows these names).
# Dates and numbers follow the active language: Django 5 always localizes (no USE_L10N).
LANGUAGES = [
    ("en", "English"),
    ("hu", "Magyar"),
    ("pl", "Polski"),
    ("ru", "Русский"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "casino" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Content-Security-Policy (django-csp): every script, style, image and font from our own origin,
# nothing inline, no eval. The templates hold no <script> without src, no <style>, no style="..."
# and no on...= or hx-on attributes (tests/casino/test_content_security_policy.py scans them);
# htmx's own indicator styles are off (base.html's htmx-config) and live in app.css. `data:` images:
# the small SVG pictures that the API docs' Swagger UI keeps in its stylesheet.
CONTENT_SECURITY_POLICY: dict[str, Any] = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("CACHE_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["CACHE_URL"],
        }
    }

# The audit chain's keys, none in the database (casino/audit_keys.py): HMAC keys by version, from
# AUDIT_HMAC_KEYS ("1:<hex>,2:<hex>") or the files <version>.key of AUDIT_HMAC_KEY_DIR; the
# anchors' Ed25519 signing key (PEM) and the public keys trusted besides its own (hex). Without
# them, AUDIT_KEYS_GENERATE (off in production) creates the keys once under var/keys. The
# anchors, signed heads of the chain, go to one file per gaming day in AUDIT_ANCHOR_DIR.
AUDIT_HMAC_KEYS = os.environ.get("AUDIT_HMAC_KEYS", "")
AUDIT_HMAC_KEY_DIR = os.environ.get("AUDIT_HMAC_KEY_DIR", str(VAR_DIR / "keys" / "audit-hmac"))
AUDIT_ANCHOR_SIGNING_KEY_FILE = os.environ.get(
    "AUDIT_ANCHOR_SIGNING_KEY_FILE", str(VAR_DIR / "keys" / "audit-anchor-ed25519.pem")
)
AUDIT_ANCHOR_PUBLIC_KEYS = env_list("AUDIT_ANCHOR_PUBLIC_KEYS", [])
AUDIT_ANCHOR_DIR = os.environ.get("AUDIT_ANCHOR_DIR", str(VAR_DIR / "anchors"))
AUDIT_ANCHOR_INTERVAL_SECONDS = int(os.environ.get("AUDIT_ANCHOR_INTERVAL_SECONDS", "300"))
AUDIT_KEYS_GENERATE = env_bool("AUDIT_KEYS_GENERATE", True)
# A database upgraded from before the chain was keyed: the last sequence written then (its records
# keep their plain SHA-256, key version 0). 0, the default, allows no unkeyed record at all.
AUDIT_UNKEYED_UP_TO = int(os.environ.get("AUDIT_UNKEYED_UP_TO", "0"))

# Celery: with a broker URL tasks go to workers; without one they run in-process, eagerly,
# so the embedded run needs nothing else installed.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# Background jobs (casino.jobs): with a broker, Celery tasks; without one, threads of the web
# process; inline (before job_start returns) when this is set, as in the tests.
BACKGROUND_JOBS_INLINE = env_bool("BACKGROUND_JOBS_INLINE", False)
CELERY_TIMEZONE = TIME_ZONE

# Hints to the live screens' streams (casino/hints.py, casino/streams.py): Redis pub/sub where
# Redis runs (the broker's server, unless HINTS_URL names another), else PostgreSQL's NOTIFY on the
# application's database ("postgres"), or "memory" (one process).
HINTS_URL = os.environ.get("HINTS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "postgres"
)
# At most one hint per topic (a table, a casino's queue, a player) in this many milliseconds.
HINTS_WINDOW_MS = int(os.environ.get("HINTS_WINDOW_MS", "250"))
# A stream closes after this long (the browser comes back with Last-Event-ID, checked again),
# sends a comment when idle this long, and asks the browser to wait this long before reconnecting.
HINTS_STREAM_SECONDS = int(os.environ.get("HINTS_STREAM_SECONDS", "300"))
HINTS_KEEPALIVE_SECONDS = int(os.environ.get("HINTS_KEEPALIVE_SECONDS", "20"))
HINTS_RETRY_MS = int(os.environ.get("HINTS_RETRY_MS", "1000"))
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BEAT_SCHEDULE = {
    "audit-verify-nightly": {"task": "casino.tasks.audit_verify_task", "schedule": 24 * 60 * 60},
    "ledger-verify-nightly": {"task": "wallet.tasks.ledger_verify_task", "schedule": 24 * 60 * 60},
    "round-verify-nightly": {"task": "tables.tasks.round_verify_task", "schedule": 24 * 60 * 60},
    "audit-anchor": {"task": "casino.tasks.audit_anchor_task", "schedule": AUDIT_ANCHOR_INTERVAL_SECONDS},
    # Each table's hold against the bands of its casino's accounting settings (accounting/hold.py).
    "hold-check": {"task": "accounting.tasks.hold_check_task", "schedule": 60 * 60},
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["casino.parsers.JSONBodyParser"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "casino.api.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Casino back office: terminal API",
    "DESCRIPTION": "The API that player terminals and card readers use to take part in a live table.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc from the project's own static files: a casino floor is a closed network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {"Decision": "tables.api.serializers.DECISION_CHOICES"},
}

# Staff login throttling: after this many failures in a row the account is locked for a while.
LOGIN_MAX_FAILURES = int(os.environ.get("LOGIN_MAX_FAILURES", "5"))
LOGIN_LOCKOUT_SECONDS = int(os.environ.get("LOGIN_LOCKOUT_SECONDS", "900"))
# Terminal credentials expire after this many days unless given another expiry when issued.
TERMINAL_CREDENTIAL_DAYS = int(os.environ.get("TERMINAL_CREDENTIAL_DAYS", "90"))

# Balance adjustments above this many minor units wait for a second pit boss's approval.
ADJUSTMENT_APPROVAL_THRESHOLD_MINOR = int(os.environ.get("ADJUSTMENT_APPROVAL_THRESHOLD_MINOR", "50000"))
# A table limit moved by more than this many minor units waits for a second person's approval
# (tables.services.config_changes.table_config_change).
TABLE_LIMIT_CHANGE_APPROVAL_MINOR = int(os.environ.get("TABLE_LIMIT_CHANGE_APPROVAL_MINOR", "100000"))

# LOG_FORMAT=json writes each log line as one JSON object with the request's id
# (casino/request_log.py; the production default), "text" the message alone.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "casino.request_log.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "casino.request_log.JsonFormatter"},
        "text": {"format": "%(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
