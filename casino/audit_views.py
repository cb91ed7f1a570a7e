"""The auditor's pages (``/audit/``): the audit trail and the checks of the record."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render

from casino.audit import audit_verify
from casino.selectors import audit_record_list
from casino.views import HtmxHttpRequest, staff_page


@staff_page("view_audit")
def home(request: HtmxHttpRequest) -> HttpResponse:
    context: dict[str, Any] = {"records": audit_record_list(limit=100, action=request.GET.get("action", ""))}
    if request.GET.get("verify"):
        context["verification"] = audit_verify()
    template = "casino/audit/home.html#audit-records" if request.htmx else "casino/audit/home.html"
    return render(request, template, context)
