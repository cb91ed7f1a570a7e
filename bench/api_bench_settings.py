"""Settings of the web process that ``bench/api_bets.py`` starts: the production settings (DEBUG
off, same middleware, PostgreSQL) with what a benchmark on plain HTTP at 127.0.0.1 needs.

- no HTTPS redirect (the bench speaks HTTP to gunicorn directly, as nginx would behind TLS);
- ALLOWED_HOSTS 127.0.0.1; a fixed bench-only SECRET_KEY and audit HMAC key unless set;
- the terminal API's throttles off (one client machine plays a hundred terminals);
- persistent database connections (one per gunicorn thread, kept 10 minutes);
- the URLconf of the product plus the bare endpoint ``POST /bench/bare/`` (bench/api_bench_urls.py);
- PINs hashed with MD5, only so that signing a hundred players in during setup takes no minute:
  no request the bench measures checks a password or a PIN.
"""

import os

os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-use-" + "0123456789" * 3)
os.environ.setdefault("AUDIT_HMAC_KEYS", "1:" + "be" * 32)
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "600")

from casino.settings.production import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
SECURE_SSL_REDIRECT = False
ROOT_URLCONF = "bench.api_bench_urls"
API_THROTTLE_TERMINAL = ""
API_THROTTLE_PLAYER = ""
API_THROTTLE_SIGN_IN = ""
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
