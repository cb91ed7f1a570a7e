"""Reads of the venue that are more than a get."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet, Subquery
from django.utils import timezone

from casino.errors import TableNotFoundError
from casino.models import AuditRecord, Casino, Table, Terminal, TerminalCredential

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def casino_for_user(user: User | AnonymousUser) -> Casino | None:
    """The venue a staff member works in. One venue per installation for now: the first one."""
    return Casino.objects.order_by("pk").first()


def casino_id_for_user(user: User | AnonymousUser) -> Subquery:
    """The id of ``casino_for_user``'s venue, as a subquery: a query of the venue's rows names
    it without reading it first (``tables.views.access.staff_table``)."""
    return Subquery(Casino.objects.order_by("pk").values("pk")[:1])


def audit_record_list(*, limit: int = 50, action: str = "") -> QuerySet[AuditRecord]:
    return audit_record_search(action=action)[:limit]


def audit_record_search(
    *,
    actor_name: str = "",
    role: str = "",
    action: str = "",
    object_type: str = "",
    object_id: str = "",
    recorded_from: dt.datetime | None = None,
    recorded_to: dt.datetime | None = None,
) -> QuerySet[AuditRecord]:
    """The audit records, newest first, with their terminals: those whose actor's name contains
    ``actor_name`` (any case), of exactly ``role``, whose action starts with ``action``, about exactly
    ``object_type`` and ``object_id``, recorded from ``recorded_from`` (included) to
    ``recorded_to`` (excluded). An empty filter filters nothing."""
    records = AuditRecord.objects.select_related("terminal").order_by("-sequence")
    if actor_name:
        records = records.filter(actor_name__icontains=actor_name)
    if role:
        records = records.filter(role=role)
    if action:
        records = records.filter(action__startswith=action)
    if object_type:
        records = records.filter(object_type=object_type)
    if object_id:
        records = records.filter(object_id=object_id)
    if recorded_from is not None:
        records = records.filter(recorded_at__gte=recorded_from)
    if recorded_to is not None:
        records = records.filter(recorded_at__lt=recorded_to)
    return records


def audit_record_neighbours(record: AuditRecord) -> tuple[AuditRecord | None, AuditRecord | None]:
    """The records just before and just after ``record`` in the chain, None where there is none."""
    around = AuditRecord.objects.filter(sequence__in=[record.sequence - 1, record.sequence + 1]).only(
        "sequence", "action", "hash"
    )
    by_sequence = {neighbour.sequence: neighbour for neighbour in around}
    return by_sequence.get(record.sequence - 1), by_sequence.get(record.sequence + 1)


def audit_roles() -> list[str]:
    """The roles the audit records name, in order."""
    return sorted(
        role for role in AuditRecord.objects.order_by().values_list("role", flat=True).distinct() if role
    )


def terminal_list(*, casino: Casino) -> QuerySet[Terminal]:
    return (
        Terminal.objects.filter(casino=casino)
        .select_related("table")
        .prefetch_related("credentials")
        .order_by("name")
    )


def terminal_credentials_valid(*, terminal_id: int) -> QuerySet[TerminalCredential]:
    """The terminal's credentials that authenticate now (neither revoked nor expired), oldest first."""
    return TerminalCredential.objects.filter(
        terminal_id=terminal_id, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).order_by("pk")


def access_table(
    *, table_id: int | str, casino_id: Any = None, tables: QuerySet[Table] | None = None
) -> Table:
    """The table by id or name (within a casino when given, an id or a subquery of it; of
    ``tables`` when given); ``table_not_found`` otherwise."""
    tables = (Table.objects.all() if tables is None else tables).select_related("casino", "rule_set")
    if casino_id is not None:
        tables = tables.filter(casino_id=casino_id)
    table = tables.filter(pk=int(table_id)).first() if str(table_id).isdigit() else None
    if table is None:
        table = tables.filter(name=str(table_id)).first()
    if table is None:
        raise TableNotFoundError(f"no table {table_id}")
    return table
