"""Throttles keyed per terminal and per player. Rates come from ``casino.api_conf`` (Django
settings or the environment); an empty rate switches a throttle off. Counters live in the default
cache: per process with the local-memory cache, shared by every web process once ``CACHE_URL``
points at Redis. A refusal is a problem+json 429 with ``Retry-After``."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from casino.api_conf import api_setting
from casino.models import PlayerSession, Terminal


class _ConfiguredRateThrottle(SimpleRateThrottle):
    setting_name = ""

    def get_rate(self) -> str | None:
        return api_setting(self.setting_name) or None


class TerminalRateThrottle(_ConfiguredRateThrottle):
    """Every request of one terminal, whoever is signed in at it."""

    scope = "terminal"
    setting_name = "API_THROTTLE_TERMINAL"

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not isinstance(request.user, Terminal):
            return None
        return f"throttle:terminal:{request.user.pk}"


class PlayerRateThrottle(_ConfiguredRateThrottle):
    """Every request made for one player, at whichever terminal."""

    scope = "player"
    setting_name = "API_THROTTLE_PLAYER"

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not isinstance(request.auth, PlayerSession):
            return None
        return f"throttle:player:{request.auth.player_id}"


class SignInRateThrottle(_ConfiguredRateThrottle):
    """Sign-in attempts per terminal, on top of the card lock after repeated wrong PINs."""

    scope = "sign_in"
    setting_name = "API_THROTTLE_SIGN_IN"

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not isinstance(request.user, Terminal):
            return None
        return f"throttle:sign_in:{request.user.pk}"
