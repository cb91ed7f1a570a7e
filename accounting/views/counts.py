"""A table's accounting (``/accounting/tables/<name>/``): its opening and closing counts and
their two signatures, the variance against the ledger, and the investigation of a variance with
its resolution approved by a second person."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounting.errors import CountNotFoundError
from accounting.models import CountKind, TrayCount, VarianceInvestigation
from accounting.selectors import (
    chip_values,
    denomination_differences,
    investigation_waiting,
    table_accounting,
)
from accounting.services import (
    investigation_resolution_decide,
    investigation_resolve,
    tray_count_record,
    tray_count_sign,
)
from accounting.views.common import amounts_read, answered, any_permission, decision_read, page
from casino.actors import Actor
from casino.errors import NotFoundError, ServiceError
from casino.four_eyes import may_decide
from casino.models import Approval, Table
from casino.views import HtmxHttpRequest, staff_table, staff_user

TABLE = "accounting/table.html"


def _table_context(table: Table, user: Any) -> dict[str, Any]:
    state = table_accounting(table)
    previous = None
    waiting: Approval | None = None
    if state.investigation is not None:
        previous = denomination_differences(state.investigation.opener, state.investigation.closer)
        waiting = investigation_waiting(state.investigation)
    return {
        "table": table,
        "state": state,
        "chips": chip_values(table.casino),
        "counts": list(reversed(state.counts))[:10],
        "next_kind": CountKind.CLOSER if state.is_open else CountKind.OPENER,
        "differences": previous,
        "resolution_waiting": waiting,
        "may_decide_resolution": waiting is not None and may_decide(approval=waiting, user=user),
        "casino": table.casino,
    }


def _table_page(
    request: HtmxHttpRequest, table: Table, error: ServiceError | None = None, done: str = ""
) -> HttpResponse:
    context = _table_context(table, request.user)
    return page(request, TABLE, "table-accounting", context, error=error, done=done)


@any_permission("supervise_pit", "run_table", "view_accounting")
@require_GET
def table_page(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    return _table_page(request, staff_table(request, table_name))


@any_permission("supervise_pit", "run_table")
@require_POST
def count_record(request: HtmxHttpRequest, table_name: str) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    kind = request.POST.get("kind", "")
    try:
        amounts = amounts_read(request, chip_values(table.casino))
        corrects = None
        corrects_id = request.POST.get("corrects", "")
        if corrects_id:
            corrects = (
                TrayCount.objects.filter(table=table, pk=int(corrects_id)).first()
                if corrects_id.isdigit()
                else None
            )
            if corrects is None:
                raise CountNotFoundError(_("No such count of this table."))
        tray_count_record(
            table=table,
            kind=kind,
            amounts=amounts,
            actor=Actor.staff(staff_user(request)),
            corrects=corrects,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = _("Count recorded with your signature: it needs the second one.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


@any_permission("supervise_pit", "run_table")
@require_POST
def count_sign(request: HtmxHttpRequest, table_name: str, count_id: int) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    try:
        count = TrayCount.objects.filter(table=table, pk=count_id).select_related("table__casino").first()
        if count is None:
            raise CountNotFoundError(_("No such count of this table."))
        tray_count_sign(count=count, actor=Actor.staff(staff_user(request)))
    except ServiceError as refused:
        error = refused
    done = _("Count signed.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


def _investigation_of(table: Table, investigation_id: int) -> VarianceInvestigation:
    """The table's investigation ``investigation_id``. Raises ``not_found``."""
    investigation = VarianceInvestigation.objects.filter(table=table, pk=investigation_id).first()
    if investigation is None:
        raise NotFoundError(_("No such investigation at this table."))
    return investigation


@any_permission("supervise_pit")
@require_POST
def investigation_resolve_view(
    request: HtmxHttpRequest, table_name: str, investigation_id: int
) -> HttpResponse:
    table = staff_table(request, table_name)
    error = None
    try:
        investigation = _investigation_of(table, investigation_id)
        investigation_resolve(
            investigation=investigation,
            note=request.POST.get("note", ""),
            actor=Actor.staff(staff_user(request)),
        )
    except ServiceError as refused:
        error = refused
    done = _("Resolution proposed: it waits for a second person's approval.")
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)


@any_permission("view_accounting")
@require_POST
def investigation_decide_view(
    request: HtmxHttpRequest, table_name: str, investigation_id: int, approval_id: int, decision: str
) -> HttpResponse:
    """A second person approves or rejects (with a reason) a proposed resolution."""
    table = staff_table(request, table_name)
    approve = decision_read(decision)
    error = None
    try:
        investigation = _investigation_of(table, investigation_id)
        investigation_resolution_decide(
            investigation=investigation,
            approval_id=approval_id,
            actor=Actor.staff(staff_user(request)),
            approve=approve,
            reason=request.POST.get("reason", ""),
        )
    except ServiceError as refused:
        error = refused
    done = (
        _("Investigation resolved: the table may open again.")
        if approve
        else _("Resolution rejected: the investigation stays open.")
    )
    back = reverse("accounting:table", args=[table.name])
    return answered(request, error, done, lambda *outcome: _table_page(request, table, *outcome), back)
