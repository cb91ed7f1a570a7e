"""Roles by their names in the active language, wherever a page shows one (the audit trail)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from casino.roles import role_label
from tests.factories import staff_user


def test_every_role_an_audit_record_names_has_a_name_in_each_language():
    roles = [
        "dealer",
        "pit_boss",
        "operator",
        "auditor",
        "cashier",
        "staff",
        "superuser",
        "player",
        "player_terminal",
        "card_reader",
        "dealer_terminal",
        "system",
    ]
    assert [role_label(role) for role in ("dealer", "pit_boss", "system")] == ["Dealer", "Pit boss", "System"]
    with translation.override("hu"):
        assert [role_label(role) for role in ("dealer", "card_reader", "system")] == [
            "Krupié",
            "Kártyaolvasó",
            "Rendszer",
        ]
    for language in ("hu", "pl", "ru"):
        with translation.override(language):
            assert all(role_label(role) != role for role in roles), language
    assert role_label("unknown_role") == "unknown_role"


@pytest.mark.django_db
def test_the_audit_trail_names_roles_not_their_codes(seeded):
    client = Client()
    client.force_login(staff_user("auditor", "auditor-roles"))
    page = client.get("/audit/").content.decode()
    # the seeding's records: actor "seed", role "system"
    assert "<td>seed</td><td>System</td>" in page and "<td>seed</td><td>system</td>" not in page
