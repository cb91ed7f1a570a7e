"""Reads of the venue that are more than a get."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from casino.models import AuditRecord, Casino, Terminal

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def casino_for_user(user: User | AnonymousUser) -> Casino | None:
    """The venue a staff member works in. One venue per installation for now: the first one."""
    return Casino.objects.order_by("pk").first()


def audit_record_list(*, limit: int = 50, action: str = "") -> QuerySet[AuditRecord]:
    records = AuditRecord.objects.select_related("terminal").order_by("-sequence")
    if action:
        records = records.filter(action__startswith=action)
    return records[:limit]


def terminal_list(*, casino: Casino) -> QuerySet[Terminal]:
    return (
        Terminal.objects.filter(casino=casino)
        .select_related("table")
        .prefetch_related("credentials")
        .order_by("name")
    )
