"""The cage's pages (``/cage/``): players, balances and the cashier's transactions."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import Player
from casino.selectors import casino_for_user
from casino.views import staff_page


@staff_page("operate_cage")
def home(request: HttpRequest) -> HttpResponse:
    casino = casino_for_user(request.user)
    players = Player.objects.filter(casino=casino).order_by("display_name")
    return render(request, "wallet/cage/home.html", {"players": players})
