"""The operator's configuration pages (``/operator/``): tables, rule sets and paytables."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.selectors import casino_for_user
from casino.views import staff_page
from tables.models import RuleSet, SideBetPaytable, Table


@staff_page("configure_tables")
def home(request: HttpRequest) -> HttpResponse:
    casino = casino_for_user(request.user)
    context = {
        "tables": Table.objects.filter(casino=casino).select_related("pit", "rule_set").order_by("name"),
        "rule_sets": RuleSet.objects.prefetch_related("versions").order_by("game", "name"),
        "paytables": SideBetPaytable.objects.prefetch_related("versions").order_by("kind", "name"),
    }
    return render(request, "tables/operator/home.html", context)
