"""The language of each request: for a person signed in, the one kept in their session; for
anyone else, what Django's LocaleMiddleware finds (the cookie of the login page's switch, then
the browser's ``Accept-Language``).

A staff member's choice lives in ``StaffPreference`` and is read once, when they log in
(``staff_language_remember``), into the session, which every staff page loads anyway: no
statement per request. The session ends at logout; a choice made on another device meanwhile
shows at the next login there. A signed-in person without a choice keeps the language the login
page was shown in (English when they logged in some other way), so a signed-in page depends on
the session alone, not on ``Accept-Language``.

The time zone and the currency's exponent, likewise: a signed-in person's pages show the venue's
local time (its ``Casino.time_zone``) and its amounts in its minor units (its
``Casino.currency_exponent``, ``casino.money``), both read once at login into the session;
everyone else's, and the terminal API's, the server's ``TIME_ZONE`` (UTC by default) and
``casino.money.DEFAULT_EXPONENT``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.middleware.locale import LocaleMiddleware
from django.urls import reverse
from django.utils import timezone, translation

from casino.models import StaffPreference
from casino.money import currency_exponent_activate, currency_exponent_deactivate
from casino.selectors import casino_for_user

if TYPE_CHECKING:
    from django.contrib.auth.models import User

STAFF_LANGUAGE_SESSION_KEY = "casino_language"
STAFF_TIME_ZONE_SESSION_KEY = "casino_time_zone"
STAFF_CURRENCY_EXPONENT_SESSION_KEY = "casino_currency_exponent"
STAFF_PASSWORD_CHANGE_SESSION_KEY = "casino_password_change_required"


def supported_language(language: str | None) -> str | None:
    """The code of ``settings.LANGUAGES`` that ``language`` names (``hu``, ``hu-HU``), or None."""
    if not language:
        return None
    try:
        return translation.get_supported_language_variant(language)
    except LookupError:
        return None


def staff_language_remember(request: HttpRequest, language: str) -> None:
    """Keep ``language`` for the rest of the signed-in person's session, active from now on."""
    request.session[STAFF_LANGUAGE_SESSION_KEY] = language
    translation.activate(language)
    request.LANGUAGE_CODE = translation.get_language()


def staff_language_at_login(request: HttpRequest, user: User) -> str | None:
    """Right after ``login``: the language the staff member chose (one read), else the one the
    login page was shown in, kept in the session. Returns their own choice (None without one),
    which the caller also puts in the language cookie for the login page after they log out."""
    chosen = supported_language(
        StaffPreference.objects.filter(user=user).values_list("language", flat=True).first()
    )
    staff_language_remember(request, chosen or translation.get_language())
    return chosen


def staff_venue_at_login(request: HttpRequest, user: User) -> None:
    """Right after ``login``: the venue's time zone and currency exponent (one read) kept in the
    session and active from now on, so that every page of the session shows the casino's local
    time and its amounts in its minor units."""
    casino = casino_for_user(user)
    if casino is None:
        return
    request.session[STAFF_CURRENCY_EXPONENT_SESSION_KEY] = casino.currency_exponent
    currency_exponent_activate(casino.currency_exponent)
    if _known_zone(casino.time_zone):
        request.session[STAFF_TIME_ZONE_SESSION_KEY] = casino.time_zone
        timezone.activate(casino.time_zone)


def staff_password_change_at_login(request: HttpRequest, user: User) -> bool:
    """Right after ``login``: whether the member's password is a temporary one (one read), kept
    in the session, which then leads every page to the password change until it is done
    (:class:`PasswordChangeRequiredMiddleware`)."""
    required = StaffPreference.objects.filter(user=user, password_change_required=True).exists()
    if required:
        request.session[STAFF_PASSWORD_CHANGE_SESSION_KEY] = True
    return required


def _known_zone(name: object) -> bool:
    if not isinstance(name, str) or not name:
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def language_cookie_set(response: HttpResponseBase, language: str) -> None:
    """The cookie LocaleMiddleware reads for visitors who are not signed in (the login page)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


class StaffLocaleMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware, except for a signed-in person, whose language comes from their
    session (and whose pages then vary with the session cookie, not with ``Accept-Language``),
    and whose time zone and currency exponent are the venue's, from the session too."""

    def process_request(self, request: HttpRequest) -> None:
        if SESSION_KEY not in request.session:
            super().process_request(request)
            return
        language = supported_language(request.session.get(STAFF_LANGUAGE_SESSION_KEY))
        translation.activate(language or supported_language(settings.LANGUAGE_CODE) or "en")
        request.LANGUAGE_CODE = translation.get_language()
        request.staff_language = True  # type: ignore[attr-defined]  # read by process_response
        zone = request.session.get(STAFF_TIME_ZONE_SESSION_KEY)
        if isinstance(zone, str) and _known_zone(zone):
            timezone.activate(zone)
        exponent = request.session.get(STAFF_CURRENCY_EXPONENT_SESSION_KEY)
        if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent >= 0:
            currency_exponent_activate(exponent)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # The next request of this thread starts in the server's zone and the default exponent.
        timezone.deactivate()
        currency_exponent_deactivate()
        if getattr(request, "staff_language", False):
            response.headers.setdefault("Content-Language", translation.get_language())
            return response
        return super().process_response(request, response)


class PasswordChangeRequiredMiddleware:
    """A member signed in with a temporary password sees only the password change (and may log
    out or switch the language) until they have chosen their own; htmx requests are sent there
    with ``HX-Redirect``. The terminal API (token authentication) is not concerned. Reads the
    session only: no statement."""

    ALLOWED_NAMES = ("casino:password_change", "casino:logout", "casino:language", "favicon")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.session.get(STAFF_PASSWORD_CHANGE_SESSION_KEY) and not self._allowed(request.path):
            target = reverse("casino:password_change")
            if request.headers.get("HX-Request"):
                response = HttpResponse(status=204)
                response["HX-Redirect"] = target
                return response
            return HttpResponseRedirect(target)
        return self.get_response(request)

    def _allowed(self, path: str) -> bool:
        if path.startswith(("/api/", settings.STATIC_URL or "/static/")):
            return True
        return path in {reverse(name) for name in self.ALLOWED_NAMES}
