"""gunicorn settings for the web process (overridable from the environment)."""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 30
keepalive = 5
max_requests = 5000
max_requests_jitter = 500
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def on_starting(server: object) -> None:
    """Django's system checks before any worker starts, as ``manage.py check`` runs them: a
    configuration error (an audit HMAC key that is malformed or missing, casino/checks.py)
    stops gunicorn at once instead of failing the first audited request."""
    import django
    from django.core.management import call_command

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.production")
    django.setup()
    call_command("check")
