"""Each role sees only its pages."""

from __future__ import annotations

import pytest
from django.test import Client

from casino.seeding import load_seed

PAGES = ["/dealer/", "/pit/", "/operator/", "/operator/terminals/", "/audit/", "/cage/", "/accounting/"]
ALLOWED = {
    "dealer": {"/dealer/", "/accounting/"},
    "pit_boss": {"/pit/", "/audit/", "/accounting/"},
    "operator": {"/operator/", "/operator/terminals/", "/pit/", "/accounting/"},
    "auditor": {"/audit/", "/accounting/"},
    "cashier": {"/cage/", "/accounting/"},
    "accountant": {"/audit/", "/accounting/"},
}
MATRIX = [(staff, page) for staff in load_seed("demo_casino.json")["staff"] for page in PAGES]


@pytest.mark.parametrize(("staff", "page"), MATRIX, ids=[f"{s['username']}{p}" for s, p in MATRIX])
def test_role_page_matrix(client: Client, seeded, staff, page):
    client.force_login_user = None
    client.post("/login/", {"username": staff["username"], "password": staff["password"]})

    response = client.get(page)

    expected = 200 if page in ALLOWED[staff["role"]] else 403
    assert response.status_code == expected


@pytest.mark.parametrize("page", PAGES)
def test_anonymous_is_sent_to_login(client: Client, db, page):
    response = client.get(page)

    assert response.status_code == 302
    assert response.url.startswith("/login/")


def test_audit_page_verifies_the_chain(client: Client, seeded):
    client.post("/login/", {"username": "auditor", "password": "auditor-demo"})

    response = client.post("/audit/checks/chain/start/", follow=True)

    assert response.status_code == 200
    assert b"Chain intact" in response.content


def test_audit_page_filters_as_a_partial_with_htmx(client: Client, seeded):
    client.post("/login/", {"username": "auditor", "password": "auditor-demo"})

    full = client.get("/audit/?action=table.")
    partial = client.get("/audit/?action=table.", headers={"HX-Request": "true"})

    assert b"<html" in full.content
    assert b"<html" not in partial.content
    assert partial.content.count(b"table.created") == 6  # BJ1-BJ4, CA1, CA2
