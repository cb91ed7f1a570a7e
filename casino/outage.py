"""A database outage is an answer, not a crash.

When PostgreSQL does not answer (down, restarting, refusing connections, the pool out of
connections for ``DATABASE_POOL_TIMEOUT`` seconds), every request that needs it fails. Such a
request is answered ``503 Service Unavailable`` with ``Retry-After``: under ``/api/`` a problem
(``application/problem+json``, code ``database_unavailable``), elsewhere a short page. It is logged
as one line (``django.request``, level error: the path and the database's own words), never a
traceback: an outage of a minute must not fill the log with thousands of stack traces that all say
the same, nor look like a bug. docs/operations.md says how the connection's and the pool's
timeouts make the failure fast and the recovery automatic.

Two places receive the error, both answered by :func:`outage_response`:

- a view's (the API's views re-raise what their own handler does not answer):
  :class:`DatabaseOutageMiddleware`'s ``process_exception``;
- a middleware's (the session, read by the language middleware before any view runs): Django's
  handler of uncaught exceptions, ``handler500`` = :func:`server_error`.

Only an outage is answered so: an error of a statement (a deadlock, a constraint, a bug in a
query) is not (:func:`is_database_outage`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.loader import render_to_string
from django.utils.log import log_response
from django.views import defaults

from casino.api import RETRY_AFTER_SECONDS, problem_body
from casino.api_middleware import API_PREFIX
from casino.refusals import REFUSALS
from casino.schema import PROBLEM_CONTENT_TYPE

OUTAGE_CODE = "database_unavailable"
# PostgreSQL's codes of a server that cannot serve, as opposed to a statement it refused: class 08,
# connection exception (cannot connect, connection lost); 57P01-57P03, the server shutting down,
# crashed or starting up; class 53, insufficient resources (too many connections, disk full).
OUTAGE_SQLSTATE_PREFIXES = ("08", "57P01", "57P02", "57P03", "53")


def is_database_outage(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot serve now: an ``InterfaceError`` (the connection
    is closed), or an ``OperationalError`` whose driver error has no SQLSTATE (the connection
    failed or was lost on the client's side, the pool timed out) or one of
    :data:`OUTAGE_SQLSTATE_PREFIXES`. A deadlock (40P01), a serialization failure (40001) or a
    statement timeout (57014) is no outage."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    return sqlstate is None or str(sqlstate).startswith(OUTAGE_SQLSTATE_PREFIXES)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def outage_response(request: HttpRequest, error: BaseException) -> HttpResponse:
    """The 503 answer of a request that met a database outage, logged as one line."""
    retry_after = str(RETRY_AFTER_SECONDS[OUTAGE_CODE])
    if request.path_info.startswith(API_PREFIX):
        body = problem_body(
            status=503, code=OUTAGE_CODE, title="Service unavailable", detail=str(REFUSALS[OUTAGE_CODE].text)
        )
        response = HttpResponse(json.dumps(body), status=503, content_type=PROBLEM_CONTENT_TYPE)
    else:
        # Rendered without the request: the context processors would ask the database again. A
        # page asked for is asked again by itself; a form sent is not sent again unseen.
        again_url = request.get_full_path() if request.method == "GET" else ""
        context = {"retry_after": retry_after, "again_url": again_url}
        response = HttpResponse(render_to_string("503.html", context), status=503)
    response["Retry-After"] = retry_after
    log_response(
        "Service Unavailable (database: %s): %s",
        _first_line(error),
        request.path,
        response=response,
        request=request,
    )
    return response


class DatabaseOutageMiddleware:
    """A view that met a database outage answers :func:`outage_response`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return outage_response(request, exception) if is_database_outage(exception) else None


def server_error(request: HttpRequest, template_name: str = defaults.ERROR_500_TEMPLATE_NAME) -> HttpResponse:
    """Django's 500 page (``handler500``), but for an outage met outside any view: the 503."""
    error = sys.exc_info()[1]
    if error is not None and is_database_outage(error):
        return outage_response(request, error)
    return defaults.server_error(request, template_name)
