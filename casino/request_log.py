"""The request id and the JSON log lines.

Every request gets an id: nginx's (``X-Request-ID``, ``deploy/nginx.conf`` sets it from its own
``$request_id``) when it is a plausible one, else a new one. It is answered back in the same
header, and every log line written while the request runs carries it, so that a line of nginx's
access log, of gunicorn's and of the application's can be found together.

``LOG_FORMAT=json`` (the production default) writes each line as one JSON object: ``time``,
``level``, ``logger``, ``message``, ``request_id`` (when there is one) and ``exception`` (the
traceback, when there is one).
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import re
import uuid
from collections.abc import Callable

from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest
from django.http.response import HttpResponseBase

HEADER = "X-Request-ID"
# What an id from outside may look like: nginx's 32 hex digits, a UUID, or a tracing id.
ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{8,128}")

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


class RequestIdMiddleware:
    """Sets the request's id for the log lines written meanwhile, and answers it back."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        given = request.headers.get(HEADER, "")
        request_id.set(given if ACCEPTED.fullmatch(given) else uuid.uuid4().hex)
        response = self.get_response(request)
        response[HEADER] = request_id.get()
        return response


@receiver(request_finished)
def request_id_forget(**kwargs: object) -> None:
    """The id stays set until the request is over, so that what Django logs after the middleware
    (``Not Found: /...``, a 4xx's warning) carries it too; then it is forgotten."""
    request_id.set("")


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record (empty outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.__dict__["request_id"] = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        current = getattr(record, "request_id", "")
        if current:
            line["request_id"] = current
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
