from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.test import Client
from django.utils import timezone

from casino.actors import Actor
from casino.errors import ServiceError
from casino.models import AuditRecord, Casino, Table, Terminal, TerminalCredential
from casino.services import terminal_credential_issue, terminal_credential_revoke, terminal_register


@pytest.fixture
def terminal(seeded) -> Terminal:
    casino = Casino.objects.get(code="demo")
    return terminal_register(
        casino=casino,
        name="T-BJ1-1",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=Table.objects.get(name="BJ1"),
        actor=Actor.automatic("system"),
    )


def _identity(client: Client, token: str):
    return client.get("/api/v1/terminal/", headers={"Authorization": f"Terminal {token}"})


def test_issued_credential_authenticates_and_is_stored_hashed(client, terminal):
    credential, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))

    response = _identity(client, token)

    assert response.status_code == 200
    assert response.json()["name"] == "T-BJ1-1"
    assert response.json()["table"] == "BJ1"
    assert credential.token_digest == hashlib.sha256(token.encode()).hexdigest()
    assert not TerminalCredential.objects.filter(token_digest=token).exists()
    assert token not in str(AuditRecord.objects.filter(action="terminal.credential_issued").values())


def test_revoked_credential_is_refused_with_a_clear_error(client, terminal):
    credential, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    terminal_credential_revoke(credential=credential, actor=Actor.automatic("system"))

    response = _identity(client, token)

    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "credential_revoked"
    assert response.json()["detail"] == "This terminal credential has been revoked."


def test_expired_credential_is_refused_with_a_clear_error(client, terminal):
    credential, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    TerminalCredential.objects.filter(pk=credential.pk).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )

    response = _identity(client, token)

    assert response.status_code == 401
    assert response.json()["code"] == "credential_expired"


def test_unknown_and_missing_credentials_are_refused(client, terminal):
    assert _identity(client, "not-a-real-credential-at-all").json()["code"] == "credential_invalid"
    missing = client.get("/api/v1/terminal/")
    assert missing.status_code == 401
    assert missing.json()["code"] == "not_authenticated"


def test_deactivated_terminal_is_refused(client, terminal):
    _, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    Terminal.objects.filter(pk=terminal.pk).update(is_active=False)

    assert _identity(client, token).json()["code"] == "terminal_inactive"


def test_revoking_twice_is_refused_and_changes_nothing(terminal):
    credential, _ = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    terminal_credential_revoke(credential=credential, actor=Actor.automatic("system"))
    audit_count = AuditRecord.objects.count()
    revoked_at = TerminalCredential.objects.get(pk=credential.pk).revoked_at

    with pytest.raises(ServiceError) as error:
        terminal_credential_revoke(credential=credential, actor=Actor.automatic("system"))

    assert error.value.code == "credential_already_revoked"
    assert AuditRecord.objects.count() == audit_count
    assert TerminalCredential.objects.get(pk=credential.pk).revoked_at == revoked_at


def test_operator_issues_a_credential_shown_once(client, terminal):
    client.post("/login/", {"username": "operator", "password": "operator-demo"})

    response = client.post(f"/operator/terminals/{terminal.pk}/credentials/")

    token = response.context["token"]
    assert response.status_code == 200
    assert token.encode() in response.content
    assert _identity(client, token).status_code == 200
    assert token.encode() not in client.get("/operator/terminals/").content


def test_dealer_cannot_issue_credentials(client, terminal):
    client.post("/login/", {"username": "dealer", "password": "dealer-demo"})

    response = client.post(f"/operator/terminals/{terminal.pk}/credentials/")

    assert response.status_code == 403
    assert not TerminalCredential.objects.exists()


def test_a_reissued_credential_revokes_the_earlier_one(client, terminal):
    # Given: the terminal's first credential, in use
    first, first_token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    assert _identity(client, first_token).status_code == 200

    # When: a new one is issued
    second, second_token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))

    # Then: the first no longer authenticates, the second does, and one audit record says so
    refused = _identity(client, first_token)
    assert (refused.status_code, refused.json()["code"]) == (401, "credential_revoked")
    assert _identity(client, second_token).status_code == 200
    assert TerminalCredential.objects.get(pk=first.pk).revoked_at == second.issued_at
    record = AuditRecord.objects.filter(action="terminal.credential_issued").latest("sequence")
    assert record.before == {"valid_credential_ids": [first.pk]}
    assert record.after["credential_id"] == second.pk
    assert record.after["revoked_credential_ids"] == [first.pk]
    assert record.after["kept_credential_ids"] == []
    assert not AuditRecord.objects.filter(action="terminal.credential_revoked").exists()


def test_a_credential_issued_keeping_the_earlier_one_leaves_both_valid(client, terminal):
    first, first_token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))

    _, second_token = terminal_credential_issue(
        terminal=terminal, actor=Actor.automatic("system"), keep_earlier=True
    )

    assert _identity(client, first_token).status_code == 200
    assert _identity(client, second_token).status_code == 200
    assert TerminalCredential.objects.get(pk=first.pk).revoked_at is None
    record = AuditRecord.objects.filter(action="terminal.credential_issued").latest("sequence")
    assert (record.after["revoked_credential_ids"], record.after["kept_credential_ids"]) == ([], [first.pk])


def test_a_reissue_leaves_revoked_and_expired_credentials_as_they_were(terminal):
    revoked, _ = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    terminal_credential_revoke(credential=revoked, actor=Actor.automatic("system"))
    expired, _ = terminal_credential_issue(
        terminal=terminal, actor=Actor.automatic("system"), keep_earlier=True
    )
    TerminalCredential.objects.filter(pk=expired.pk).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    revoked_at = TerminalCredential.objects.get(pk=revoked.pk).revoked_at

    terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))

    assert TerminalCredential.objects.get(pk=revoked.pk).revoked_at == revoked_at
    assert TerminalCredential.objects.get(pk=expired.pk).revoked_at is None
    record = AuditRecord.objects.filter(action="terminal.credential_issued").latest("sequence")
    assert record.after["revoked_credential_ids"] == []


def test_a_refused_issue_revokes_nothing_and_writes_nothing(client, terminal):
    first, _ = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    Terminal.objects.filter(pk=terminal.pk).update(is_active=False)
    terminal.refresh_from_db()
    audit_count = AuditRecord.objects.count()

    with pytest.raises(ServiceError) as error:
        terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))

    assert error.value.code == "terminal_inactive"
    assert list(TerminalCredential.objects.values_list("pk", "revoked_at")) == [(first.pk, None)]
    assert AuditRecord.objects.count() == audit_count


def test_the_operator_reissues_a_credential_and_the_old_one_stops_working(client, terminal):
    client.post("/login/", {"username": "operator", "password": "operator-demo"})
    first_token = client.post(f"/operator/terminals/{terminal.pk}/credentials/").context["token"]

    response = client.post(f"/operator/terminals/{terminal.pk}/credentials/")

    second_token = response.context["token"]
    assert b'id="earlier-revoked"' in response.content
    assert _identity(client, first_token).json()["code"] == "credential_revoked"
    assert _identity(client, second_token).status_code == 200
    page = client.get("/operator/terminals/").content.decode()
    assert 'name="keep_earlier"' in page
    assert "Keep the earlier credential valid" in page


def test_the_operator_may_keep_the_earlier_credential_valid(client, terminal):
    client.post("/login/", {"username": "operator", "password": "operator-demo"})
    first_token = client.post(f"/operator/terminals/{terminal.pk}/credentials/").context["token"]

    response = client.post(f"/operator/terminals/{terminal.pk}/credentials/", {"keep_earlier": "on"})

    assert b'id="earlier-kept"' in response.content
    assert _identity(client, first_token).status_code == 200
    assert _identity(client, response.context["token"]).status_code == 200
