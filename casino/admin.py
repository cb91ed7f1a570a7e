"""The admin's read-only views, and the venue's: raw data to read, written only by the services
(the request idempotency records: at the API edge, casino/idempotency.py)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino.models import IdempotencyRecord


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # Django's admin classes are not generic at run time
    """A model's rows to read in the admin: nothing can be added, changed or deleted there."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("id", "scope", "key", "created_at")
    search_fields = ("scope", "key")
