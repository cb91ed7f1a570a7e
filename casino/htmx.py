"""The htmx responder of every staff page: an htmx request gets the page's partial, any other
request the whole page, and every answer says ``Vary: HX-Request`` so that a cache keeps the two
apart: the pages work without JavaScript and redraw in place with htmx. Partials are named
blocks of the page's template (django-template-partials: ``page.html#partial``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

Response = TypeVar("Response", bound=HttpResponseBase)


def _is_htmx(request: HttpRequest) -> bool:
    """Whether htmx sent the request (``HX-Request``, read by django_htmx's middleware)."""
    return bool(getattr(request, "htmx", False))


def htmx_vary(response: Response) -> Response:
    """``Vary: HX-Request`` added to ``response`` (a redirect, a 204 or a page drawn otherwise)."""
    patch_vary_headers(response, ("HX-Request",))
    return response


def htmx_render(
    request: HttpRequest,
    template: str,
    context: Mapping[str, Any] | None = None,
    *,
    partial: str,
    status: int = 200,
) -> HttpResponse:
    """``template#partial`` for an htmx request, the whole ``template`` otherwise, with
    ``Vary: HX-Request``."""
    name = f"{template}#{partial}" if _is_htmx(request) else template
    return htmx_vary(render(request, name, context, status=status))
