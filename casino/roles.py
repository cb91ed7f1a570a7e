"""Staff roles: Django groups with an explicit list of permissions each."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.utils.translation import pgettext_lazy

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

DEALER = "dealer"
PIT_BOSS = "pit_boss"
OPERATOR = "operator"
AUDITOR = "auditor"
CASHIER = "cashier"
ACCOUNTANT = "accountant"

ROLE_LABELS = {
    DEALER: pgettext_lazy("staff role", "Dealer"),
    PIT_BOSS: pgettext_lazy("staff role", "Pit boss"),
    OPERATOR: pgettext_lazy("staff role", "Operator"),
    AUDITOR: pgettext_lazy("staff role", "Auditor"),
    CASHIER: pgettext_lazy("staff role", "Cashier"),
    ACCOUNTANT: pgettext_lazy("staff role", "Accountant"),
}

# The other names an audit record's role takes (tables.services.common.Actor.role): staff without
# a role, a superuser, a player, a terminal of each kind, the system.
OTHER_ROLE_LABELS = {
    "staff": pgettext_lazy("staff role", "Staff"),
    "superuser": pgettext_lazy("staff role", "Superuser"),
    "player": pgettext_lazy("staff role", "Player"),
    "player_terminal": pgettext_lazy("staff role", "Player terminal"),
    "card_reader": pgettext_lazy("staff role", "Card reader"),
    "dealer_terminal": pgettext_lazy("staff role", "Dealer terminal"),
    "system": pgettext_lazy("staff role", "System"),
}


def role_label(role: str) -> str:
    """A role's name in the active language; an unknown one as it is written."""
    label = ROLE_LABELS.get(role) or OTHER_ROLE_LABELS.get(role)
    return str(label) if label is not None else role


# Codenames of permissions declared on casino.Casino (app label "casino").
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    DEALER: ("run_table",),
    PIT_BOSS: (
        "supervise_pit",
        "approve_payout",
        "void_round",
        "adjust_balance",
        "view_audit",
        "view_accounting",
    ),
    OPERATOR: ("configure_tables", "manage_terminals", "manage_staff", "supervise_pit"),
    AUDITOR: ("view_audit", "view_accounting"),
    CASHIER: ("operate_cage",),
    # The accounting office: reads the pit's accounting, signs a gaming day's close with a pit boss.
    ACCOUNTANT: ("view_accounting", "sign_gaming_day", "view_audit"),
}

# The page each role lands on after login (URL names).
ROLE_HOME = {
    DEALER: "casino:dealer_home",
    PIT_BOSS: "floor:floor",
    OPERATOR: "operator:home",
    AUDITOR: "audit:home",
    CASHIER: "cage:home",
    ACCOUNTANT: "accounting:day",
}

ROLE_ORDER = (PIT_BOSS, OPERATOR, DEALER, CASHIER, ACCOUNTANT, AUDITOR)


def role_of(user: User | AnonymousUser | None) -> str:
    """The user's role name (the first of their role groups), or "" for none."""
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    cached = getattr(user, "_casino_role", None)
    if cached is not None:
        return str(cached)
    return role_cache(user, user.groups.values_list("name", flat=True))  # type: ignore[arg-type]


def role_cache(user: User, group_names: Iterable[str]) -> str:
    """Keep on ``user`` (for the request) its role, from the names of its groups; returns it.
    ``casino.auth_backends.StaffBackend`` reads the names with the signed-in user."""
    names = set(group_names)
    role = next((name for name in ROLE_ORDER if name in names), "")
    if not role and user.is_superuser:
        role = "superuser"
    user._casino_role = role  # type: ignore[attr-defined]  # a cache on the instance, not a field
    return role
