"""The request id (casino/request_log.py): nginx's when plausible, else a new one, answered back
and on every JSON log line written during the request."""

from __future__ import annotations

import io
import json
import logging
import sys
from typing import Any

import pytest
from django.test import Client

from casino.request_log import JsonFormatter, RequestIdFilter

pytestmark = pytest.mark.django_db


def test_a_request_gets_an_id_and_answers_it_back(seeded: None) -> None:
    made = Client().get("/login/")
    assert len(made["X-Request-ID"]) == 32
    assert Client().get("/login/")["X-Request-ID"] != made["X-Request-ID"]
    given = "5f2b8c1e9a7d4e3f8b6a0c2d4e6f8a1b"
    assert Client().get("/login/", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given
    for implausible in ("short", "has spaces in it", "x" * 129, "new\nline-0123"):
        answered = Client().get("/login/", HTTP_X_REQUEST_ID=implausible)["X-Request-ID"]
        assert answered != implausible and len(answered) == 32


def test_the_log_lines_of_a_request_carry_its_id_as_json(seeded: None) -> None:
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        response = Client().get("/no-such-page/", HTTP_X_REQUEST_ID="trace-0123456789")
        logging.getLogger("casino").warning("outside any request")
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 404
    (line,) = [json.loads(text) for text in lines.getvalue().splitlines()]
    assert line["request_id"] == "trace-0123456789"
    assert line["level"] == "WARNING"
    assert line["logger"] == "django.request"
    assert line["message"] == "Not Found: /no-such-page/"
    assert line["time"].endswith("+00:00")


def test_a_line_outside_a_request_has_no_id_and_an_exception_its_traceback() -> None:
    record: Any
    try:
        raise ValueError("broken")
    except ValueError:
        record = logging.LogRecord(
            "casino", logging.ERROR, __file__, 1, "failed %s", ("here",), sys.exc_info()
        )
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "failed here"
    assert "request_id" not in line
    assert "ValueError: broken" in line["exception"]
