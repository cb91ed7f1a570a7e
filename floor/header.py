"""The header's count of what waits for the signed-in person (``floor.context_processors``)
alone, for a live page to re-read it when its stream passes a hint of the casino's queue on
(``templates/base.html``, partial ``waiting-for-you``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from casino.htmx import htmx_vary


@login_required
@require_GET
def waiting(request: HttpRequest) -> HttpResponse:
    return htmx_vary(render(request, "base.html#waiting-for-you", {"waiting_live": True}))
