"""The language switch in the header of every page (``templates/base.html``), the login page's
included: a staff member's choice is kept for them (``staff_language_set``) and in their session;
a visitor who is not signed in gets the language cookie that LocaleMiddleware reads."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from casino.errors import ServiceError, UnknownLanguageError
from casino.htmx import htmx_render, htmx_vary
from casino.middleware import language_cookie_set, staff_language_remember
from casino.refusals import refusal_text
from casino.services import staff_language_set
from casino.views import HtmxHttpRequest, staff_user


def _next(request: HttpRequest) -> str:
    """Where to go back to: the page the switch was on, when it is one of ours."""
    wanted = request.POST.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return reverse("casino:home")


@require_POST
def language_switch(request: HtmxHttpRequest) -> HttpResponseBase:
    """Switch the language of the screens to ``language`` (a code of ``settings.LANGUAGES``) and
    go back to ``next``; an unknown code is refused (400) with the switch and the reason."""
    language = request.POST.get("language", "")
    back = _next(request)
    try:
        if request.user.is_authenticated:
            staff_language_set(user=staff_user(request), language=language)
            staff_language_remember(request, language)
        elif language not in dict(settings.LANGUAGES):
            raise UnknownLanguageError(f"Unknown language {language!r}.", language=language)
    except ServiceError as error:
        context = {"language_error": refusal_text(error), "language_next": back}
        return htmx_render(request, "base.html", context, partial="language-switch", status=error.status)
    response = HttpResponseClientRedirect(back) if request.htmx else redirect(back)
    language_cookie_set(response, language)
    return htmx_vary(response)
