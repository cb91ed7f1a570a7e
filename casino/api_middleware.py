"""Under ``/api/``, what Django answers by itself is problem+json too.

The API's views answer every refusal as problem+json (``casino.api.exception_handler``), but some
answers never pass through them: Django's HTML 400 page for a request it refuses before any view
runs (a ``Host`` header not in ``ALLOWED_HOSTS``), its HTML 500 page for a view that crashed (the
exception is logged as usual). This middleware replaces any error answer under ``/api/`` that is
not problem+json already with a problem of the same status, coded by its HTTP reason phrase
(``bad_request``, ``internal_server_error`` ...). It never changes a success, nor anything outside
``/api/``.

It is the outermost middleware, outside ``SecurityMiddleware``: with ``SECURE_SSL_REDIRECT`` that
one reads the ``Host`` of every plain-HTTP request to build its redirect, and a host not in
``ALLOWED_HOSTS`` is refused there, in an answer that passes no other middleware. Such an answer
never got ``SecurityMiddleware``'s headers, so the problem gets them here (the same settings,
``nosniff``, the referrer and opener policies, HSTS over HTTPS); a header already set is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.security import SecurityMiddleware

from casino.api import problem_body
from casino.schema import PROBLEM_CONTENT_TYPE

API_PREFIX = "/api/"
# Headers of the replaced answer that describe its body, not the request's outcome.
_BODY_HEADERS = {"content-type", "content-length", "content-language", "content-encoding"}


class ApiProblemMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        # Only its process_response is used: the security headers, each unless already set.
        self.security = SecurityMiddleware(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path_info.startswith(API_PREFIX)
            or response.get("Content-Type", "").startswith(PROBLEM_CONTENT_TYPE)
        ):
            return response
        return self.security.process_response(request, problem_replacing(response))


def problem_replacing(response: HttpResponseBase) -> HttpResponse:
    """A problem+json answer of ``response``'s status, keeping its headers but those of its body."""
    try:
        phrase = HTTPStatus(response.status_code).phrase
    except ValueError:
        phrase = "Error"
    code = phrase.lower().replace(" ", "_").replace("-", "_")
    body = problem_body(status=response.status_code, code=code, title=phrase, detail=f"{phrase}.")
    problem = HttpResponse(json.dumps(body), status=response.status_code, content_type=PROBLEM_CONTENT_TYPE)
    for header, value in response.items():
        if header.lower() not in _BODY_HEADERS:
            problem[header] = value
    return problem
