"""The ASGI entry point: the live screens' streams (casino/streams.py) in production, beside
gunicorn's pages (docs/operations.md), and the whole site under ``make run``, where DEBUG is on
and the static files are served from the apps' folders as runserver would."""

import os

from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.production")
application = get_asgi_application()
if settings.DEBUG:
    application = ASGIStaticFilesHandler(application)
