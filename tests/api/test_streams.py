"""The terminals' streams under the ASGI server: the table's (``/tables/<id>/stream/``) with the
state's credential, player token and table, and the player's own (``/player/stream/``); each
closes with ``event: closed`` and the refusal's code when its credential is revoked or its session
ends, and a refused stream writes nothing."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from casino.actors import Actor
from casino.models import Player, PlayerSession, TerminalCredential
from casino.services import player_card_lock, terminal_credential_revoke
from tests.api.conftest import ApiClient, Device, make_device, sign_in, staff
from tests.asgi_server import AsgiServer
from tests.casino.test_streams import events, open_stream
from tests.snapshots import refused_snapshot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _keepalive_often(settings: Any) -> None:
    """A comment line every 0.2 s: a test may wait for "no event" and go on reading the stream
    (a read that met the socket's timeout would leave it unreadable)."""
    settings.HINTS_KEEPALIVE_SECONDS = 0.2


def table_stream(round_: Any) -> str:
    return f"/api/v1/tables/{round_.table_id}/stream/"


def answer(server: AsgiServer, path: str, headers: dict[str, str]) -> tuple[int, str, str]:
    """A plain GET through the ASGI server: status, content type and the problem's code."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    content_type = response.getheader("Content-Type", "")
    code = json.loads(body).get("code", "") if content_type == "application/problem+json" else ""
    return response.status, content_type, code


def opened(stream: Any) -> dict[str, str]:
    """The stream's first event, once the hints of what the test set up before it have passed
    (the last of a burst comes at the end of its coalescing window)."""
    first = events(stream, 1)[0]
    events(stream, 10, seconds=0.5)
    return first


def revoke(device: Device) -> None:
    terminal_credential_revoke(
        credential=TerminalCredential.objects.get(terminal=device.terminal, revoked_at__isnull=True),
        actor=Actor.automatic("system"),
    )


def credentials_and_sessions() -> dict[str, Any]:
    """What authenticating writes besides the snapshot: a credential's and a session's times."""
    return {
        "credentials": list(
            TerminalCredential.objects.order_by("pk").values_list("pk", "revoked_at", "last_used_at")
        ),
        "sessions": list(PlayerSession.objects.order_by("pk").values_list("pk", "ended_at", "expires_at")),
    }


def test_the_table_stream_sends_an_event_at_once_then_one_for_each_change(
    bj1_terminal: Device, agi: ApiClient, bj1_round: Any, asgi_server: AsgiServer
) -> None:
    stream = open_stream(asgi_server, table_stream(bj1_round), bj1_terminal.headers())
    assert stream.status == 200
    assert stream.getheader("Content-Type").startswith("text/event-stream")
    (first,) = events(stream, 1)
    assert first["event"] == "table"
    assert first["data"].startswith(f"table:{bj1_round.table_id} ")

    assert agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/").status_code == 200

    (moved,) = events(stream, 1)
    assert moved["event"] == "table"
    assert moved["data"] != first["data"]
    assert moved["id"] == f"table:{bj1_round.table_id}={moved['data'].split()[1]}"
    stream.close()


def test_a_stream_is_refused_as_the_view_it_feeds_and_the_refusal_writes_nothing(
    bj1_terminal: Device, bj2_terminal: Device, agi: ApiClient, bj1_round: Any, asgi_server: AsgiServer
) -> None:
    revoked = make_device("T-BJ1-old", "player_terminal", "BJ1")
    revoke(revoked)
    ended_token = sign_in(bj1_terminal, "1000000004", "4444")  # ends Ági's session at this terminal
    assert ApiClient(bj1_terminal, ended_token).delete("/api/v1/player-sessions/current/").status_code == 204
    callers = {
        "anonymous": {},
        "unknown credential": {"Authorization": "Terminal not-a-credential-at-all"},
        "revoked credential": revoked.headers(),
        "other table's terminal": bj2_terminal.headers(),
        "ended session": bj1_terminal.headers(agi.player_token),
        "unknown player token": bj1_terminal.headers("not-a-player-token-at-all"),
    }
    state = table_stream(bj1_round).replace("/stream/", "/state/")
    views = {
        "table": (state, table_stream(bj1_round)),
        "player": ("/api/v1/player/balance/", "/api/v1/player/stream/"),
    }
    expected = {
        "anonymous": (401, "not_authenticated"),
        "unknown credential": (401, "credential_invalid"),
        "revoked credential": (401, "credential_revoked"),
        "other table's terminal": (403, "wrong_table"),
        "ended session": (401, "player_session_ended"),
        "unknown player token": (401, "player_token_invalid"),
    }
    # The views themselves first: what authenticating a terminal writes (its last use) is written.
    read = {
        (view, who): answer(asgi_server, paths[0], headers)
        for view, paths in views.items()
        for who, headers in callers.items()
    }
    before = refused_snapshot(), credentials_and_sessions()

    streamed = {
        (view, who): answer(asgi_server, paths[1], headers)
        for view, paths in views.items()
        for who, headers in callers.items()
    }

    assert streamed == read
    assert {who: streamed["table", who][::2] for who in callers} == expected
    assert {who: code for (view, who), (_, _, code) in streamed.items() if view == "player"} == {
        **{who: code for who, (_, code) in expected.items()},
        "other table's terminal": "player_token_missing",  # no player signed in: not the table's refusal
    }
    assert {content_type for _, content_type, _ in streamed.values()} == {"application/problem+json"}
    assert (refused_snapshot(), credentials_and_sessions()) == before


def test_an_open_table_stream_closes_when_its_credential_is_revoked(
    bj1_terminal: Device, bj2_terminal: Device, bj1_round: Any, asgi_server: AsgiServer
) -> None:
    stream = open_stream(asgi_server, table_stream(bj1_round), bj1_terminal.headers())
    opened(stream)

    # Another terminal's credential revoked: this stream goes on.
    revoke(bj2_terminal)
    assert events(stream, 1, seconds=1.0) == []

    revoke(bj1_terminal)

    (closed,) = events(stream, 1)
    assert closed == {"event": "closed", "data": "credential_revoked"}
    assert stream.read() == b""  # and the server ended it
    refused = open_stream(asgi_server, table_stream(bj1_round), bj1_terminal.headers())
    assert refused.status == 401
    assert json.loads(refused.read())["code"] == "credential_revoked"


def test_open_streams_close_when_the_players_session_ends(
    agi: ApiClient, bj1_round: Any, asgi_server: AsgiServer
) -> None:
    assert agi.device is not None
    headers = agi.device.headers(agi.player_token)
    player = open_stream(asgi_server, "/api/v1/player/stream/", headers)
    table = open_stream(asgi_server, table_stream(bj1_round), headers)
    assert (player.status, table.status) == (200, 200)
    assert [opened(player)["event"], opened(table)["event"]] == ["player", "table"]

    assert agi.delete("/api/v1/player-sessions/current/").status_code == 204

    assert events(player, 1) == [{"event": "closed", "data": "player_session_ended"}]
    assert events(table, 1) == [{"event": "closed", "data": "player_session_ended"}]
    # The terminal's own stream, without a player, is not the session's.
    terminal = open_stream(asgi_server, table_stream(bj1_round), agi.device.headers())
    assert terminal.status == 200
    terminal.close()


def test_a_players_stream_closes_when_the_cage_locks_the_card(
    agi: ApiClient, asgi_server: AsgiServer
) -> None:
    assert agi.device is not None
    stream = open_stream(asgi_server, "/api/v1/player/stream/", agi.device.headers(agi.player_token))
    opened(stream)

    player_card_lock(
        player=Player.objects.get(card_number="1000000001"),
        reason="lost",
        actor=Actor.staff(staff("cashier")),
    )

    assert events(stream, 1) == [{"event": "closed", "data": "player_inactive"}]


def test_the_player_stream_carries_only_the_players_own_topic(
    agi: ApiClient, bartek: ApiClient, bj1_round: Any, asgi_server: AsgiServer
) -> None:
    assert agi.device is not None
    agi_id = Player.objects.get(card_number="1000000001").pk
    stream = open_stream(asgi_server, "/api/v1/player/stream/", agi.device.headers(agi.player_token))
    first = opened(stream)
    assert (first["event"], first["data"].split()[0]) == ("player", f"player:{agi_id}")
    rounds = f"/api/v1/tables/{bj1_round.table_id}/rounds/{bj1_round.pk}/bets/"

    # Bartek's box and bet move the table and his wallet, not Ági's.
    assert bartek.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/2/take/").status_code == 200
    placed = bartek.post(
        rounds, {"box": 2, "kind": "main", "stake_minor": 1000}, headers={"Idempotency-Key": "b1"}
    )
    assert placed.status_code == 201
    assert events(stream, 1, seconds=1.0) == []

    # Her own bet does.
    assert agi.post(f"/api/v1/tables/{bj1_round.table_id}/boxes/1/take/").status_code == 200
    placed = agi.post(
        rounds, {"box": 1, "kind": "main", "stake_minor": 1000}, headers={"Idempotency-Key": "a1"}
    )
    assert placed.status_code == 201
    (moved,) = events(stream, 1)
    assert moved["event"] == "player"
    assert moved["data"].startswith(f"player:{agi_id} ")
    stream.close()


def test_under_wsgi_a_stream_is_a_503_problem_and_the_terminal_polls(agi: ApiClient, bj1_round: Any) -> None:
    for path in (table_stream(bj1_round), "/api/v1/player/stream/"):
        response = agi.get(path, headers={"Accept": "text/event-stream"})

        assert response.status_code == 503
        assert response["Content-Type"] == "application/problem+json"
        assert response["Retry-After"] == "15"
        assert response.json()["code"] == "streams_not_served_here"
