"""Read-only admin views of the tables' raw data, for superusers: configuration, shoes, rounds with
their events, bets and payout lines. Everything is written through ``tables/services`` only; here
nothing can be added, changed or deleted. A live virtual shoe's order and secret stay hidden until
the shoe is retired (they would tell the cards to come)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino.models import RuleSet, RuleSetVersion, Table
from tables.models import (
    Bet,
    PayoutLine,
    Round,
    RoundEvent,
    Shoe,
    SideBetPaytable,
    SideBetPaytableVersion,
    TableConfigVersion,
)


def _superuser(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and user.is_superuser)


class SuperuserReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # Django's admin classes are not generic at run time
    """Viewed by superusers only; never added, changed or deleted."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _superuser(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _superuser(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]  # Django's admin classes are not generic at run time
    extra = 0
    can_delete = False
    show_change_link = True

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _superuser(request)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# ------------------------------------------------------------------------------ configuration


class RuleSetVersionInline(ReadOnlyInline):
    model = RuleSetVersion
    fields = ("number", "source", "created_at", "approved_at", "approved_by")
    readonly_fields = fields


@admin.register(RuleSet)
class RuleSetAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "game", "name", "created_at")
    list_filter = ("game",)
    search_fields = ("name", "description")
    inlines = [RuleSetVersionInline]


@admin.register(RuleSetVersion)
class RuleSetVersionAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "rule_set", "number", "source", "created_at", "approved_at", "approved_by")
    list_filter = ("rule_set__game", "rule_set")
    list_select_related = ("rule_set", "approved_by")
    search_fields = ("rule_set__name", "source")


class SideBetPaytableVersionInline(ReadOnlyInline):
    model = SideBetPaytableVersion
    fields = ("number", "payouts", "created_at", "approved_at", "approved_by")
    readonly_fields = fields


@admin.register(SideBetPaytable)
class SideBetPaytableAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "kind", "name", "created_at")
    list_filter = ("kind",)
    search_fields = ("name",)
    inlines = [SideBetPaytableVersionInline]


@admin.register(SideBetPaytableVersion)
class SideBetPaytableVersionAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "paytable", "number", "created_at", "approved_at", "approved_by")
    list_filter = ("paytable__kind", "paytable")
    list_select_related = ("paytable", "approved_by")
    search_fields = ("paytable__name",)


@admin.register(Table)
class TableAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "name", "casino", "pit", "game", "rule_set", "is_open", "created_at")
    list_filter = ("casino", "pit", "game", "is_open")
    list_select_related = ("casino", "pit", "rule_set")
    search_fields = ("name",)


@admin.register(TableConfigVersion)
class TableConfigVersionAdmin(SuperuserReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "number",
        "rule_set_version",
        "main_min_minor",
        "main_max_minor",
        "payout_approval_threshold_minor",
        "shoe_kind",
        "approved_at",
        "approved_by",
    )
    list_filter = ("shoe_kind", "table")
    list_select_related = ("table", "rule_set_version__rule_set", "approved_by")
    search_fields = ("table__name",)


# ------------------------------------------------------------------------------------- shoes


@admin.register(Shoe)
class ShoeAdmin(SuperuserReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "kind",
        "decks",
        "position",
        "rounds_dealt",
        "shuffled_at",
        "shuffled_by",
        "retired_at",
    )
    list_filter = ("kind", "table")
    list_select_related = ("table", "shuffled_by")
    search_fields = ("table__name", "commitment")

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The order and secret of a shoe in play would tell the cards to come.
        if obj is not None and obj.retired_at is not None:
            return ()
        return ("order", "secret")


# ------------------------------------------------------------------------------------ rounds


class RoundEventInline(ReadOnlyInline):
    model = RoundEvent
    fields = ("sequence", "kind", "actor_name", "role", "terminal", "player", "created_at", "payload")
    readonly_fields = fields
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).select_related("terminal", "player")


@admin.register(Round)
class RoundAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "table", "number", "status", "dealer", "version", "opened_at", "settled_at")
    list_filter = ("status", "table")
    list_select_related = ("table", "dealer")
    search_fields = ("table__name",)
    date_hierarchy = "opened_at"
    show_full_result_count = False
    inlines = [RoundEventInline]


@admin.register(RoundEvent)
class RoundEventAdmin(SuperuserReadOnlyAdmin):
    list_display = (
        "id",
        "round",
        "sequence",
        "kind",
        "actor_name",
        "role",
        "terminal",
        "player",
        "created_at",
    )
    list_filter = ("kind", "role")
    list_select_related = ("round__table", "terminal", "player")
    search_fields = ("kind", "actor_name", "round__table__name")
    show_full_result_count = False


@admin.register(Bet)
class BetAdmin(SuperuserReadOnlyAdmin):
    list_display = ("id", "round", "box_number", "player", "kind", "stake_minor", "status", "placed_at")
    list_filter = ("kind", "status")
    list_select_related = ("round__table", "player")
    search_fields = ("player__card_number", "player__display_name", "idempotency_key")
    show_full_result_count = False


@admin.register(PayoutLine)
class PayoutLineAdmin(SuperuserReadOnlyAdmin):
    list_display = (
        "id",
        "round",
        "bet",
        "hand",
        "outcome",
        "rule",
        "stake_minor",
        "net_minor",
        "paid_minor",
        "needs_approval",
        "approval_status",
    )
    list_filter = ("outcome", "needs_approval")
    list_select_related = ("round__table", "bet", "decision")
    search_fields = ("bet__player__card_number", "rule", "outcome")
    show_full_result_count = False
