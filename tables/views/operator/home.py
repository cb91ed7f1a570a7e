"""The operator's home (``/operator/``): the casino's tables with their current configuration
and the changes waiting, the rule sets and the paytables with their approved and draft versions."""

from __future__ import annotations

from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from casino.htmx import htmx_vary
from casino.models import Approval, RuleSet, Table
from casino.money import money
from casino.views import HtmxHttpRequest, staff_casino_id, staff_page
from tables.models import SideBetPaytable, TableConfigProposal
from tables.selectors import config_approvals_waiting
from tables.services import table_config_current


@staff_page("configure_tables")
@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    casino_id = staff_casino_id(request)
    tables = list(
        Table.objects.filter(casino_id=casino_id)
        .select_related("pit", "rule_set")
        .annotate(
            waiting=Count(
                "config_proposals", filter=Q(config_proposals__status=TableConfigProposal.Status.PENDING)
            )
        )
        .order_by("name")
    )
    rows = [{"table": table, "config": table_config_current(table)} for table in tables]
    context = {
        "rows": rows,
        "rule_sets": RuleSet.objects.annotate(
            approved=Count("versions", filter=Q(versions__approved_at__isnull=False)),
            drafts=Count("versions", filter=Q(versions__approval__status=Approval.Status.PENDING)),
        ).order_by("game", "name"),
        "paytables": SideBetPaytable.objects.annotate(
            approved=Count("versions", filter=Q(versions__approved_at__isnull=False)),
            drafts=Count("versions", filter=Q(versions__approval__status=Approval.Status.PENDING)),
        ).order_by("kind", "name"),
        "waiting": config_approvals_waiting(casino_id=casino_id).count(),
        "money": money,
    }
    return htmx_vary(render(request, "tables/operator/home.html", context))
