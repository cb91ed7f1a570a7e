"""Read-only admin views of the ledger: money moves only through wallet/services/."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino.admin import ReadOnlyAdmin
from wallet.models import (
    Account,
    BalanceAdjustment,
    Hold,
    PendingPayout,
    Posting,
    Transfer,
)


class PostingInline(admin.TabularInline):  # type: ignore[type-arg]  # Django's admin classes are not generic at run time
    model = Posting
    extra = 0
    can_delete = False
    readonly_fields = ("account", "amount_minor")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "casino", "kind", "player", "table", "currency", "balance_minor", "held_minor")
    list_filter = ("kind", "casino")
    search_fields = ("player__card_number", "player__display_name", "table__name")


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "reference_type", "reference_id", "created_at", "created_by")
    list_filter = ("kind",)
    search_fields = ("reference_id", "memo")
    inlines = [PostingInline]


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "account",
        "amount_minor",
        "status",
        "table",
        "reference_id",
        "bet_reference",
        "created_at",
    )
    list_filter = ("status",)


@admin.register(PendingPayout)
class PendingPayoutAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "account", "amount_minor", "status", "reference_id", "created_at")
    list_filter = ("status",)


@admin.register(BalanceAdjustment)
class BalanceAdjustmentAdmin(ReadOnlyAdmin):
    list_display = ("id", "account", "amount_minor", "status", "requested_by", "decided_by", "requested_at")
    list_filter = ("status",)
