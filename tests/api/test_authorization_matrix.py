"""Every endpoint x (anonymous, revoked terminal, other table's terminal, other player, right
player; for the card and dealer endpoints the other kinds of terminal too): nobody but the right
caller succeeds, and a refused call changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from casino.actors import Actor
from casino.models import TerminalCredential
from casino.services import terminal_credential_revoke
from tests.api.conftest import ApiClient, make_device, open_round, sign_in
from tests.snapshots import refused_snapshot


@dataclass
class World:
    round: Any
    bet_id: int
    right: ApiClient
    reader: ApiClient
    other_table: ApiClient
    other_table_reader: ApiClient
    other_player: ApiClient
    revoked: ApiClient
    revoked_reader: ApiClient
    dealer: ApiClient
    other_table_dealer: ApiClient
    revoked_dealer: ApiClient
    anonymous: ApiClient


@pytest.fixture
def world(seeded) -> World:
    round_ = open_round("BJ1")
    open_round("BJ2")
    agi_terminal = make_device("T-BJ1-1", "player_terminal", "BJ1")
    right = ApiClient(agi_terminal, sign_in(agi_terminal, "1000000001", "1111"))
    assert right.post(f"/api/v1/tables/{round_.table_id}/boxes/1/take/").status_code == 200
    placed = right.post(
        f"/api/v1/tables/{round_.table_id}/rounds/{round_.pk}/bets/",
        {"box": 1, "kind": "main", "stake_minor": 1000},
        headers={"Idempotency-Key": "setup"},
    )
    assert placed.status_code == 201
    bartek_terminal = make_device("T-BJ1-2", "player_terminal", "BJ1")
    clara_terminal = make_device("T-BJ2-1", "player_terminal", "BJ2")
    revoked_terminal = make_device("T-BJ1-3", "player_terminal", "BJ1")
    revoked_player = sign_in(revoked_terminal, "1000000004", "4444")
    revoked_reader = make_device("R-BJ1-old", "card_reader", "BJ1")
    revoked_dealer = make_device("D-BJ1-old", "dealer_terminal", "BJ1")
    for device in (revoked_terminal, revoked_reader, revoked_dealer):
        terminal_credential_revoke(
            credential=TerminalCredential.objects.get(terminal=device.terminal),
            actor=Actor.automatic("system"),
        )
    return World(
        round=round_,
        bet_id=placed.json()["id"],
        right=right,
        reader=ApiClient(make_device("R-BJ1", "card_reader", "BJ1")),
        other_table=ApiClient(clara_terminal, sign_in(clara_terminal, "1000000003", "3333")),
        other_table_reader=ApiClient(make_device("R-BJ2", "card_reader", "BJ2")),
        other_player=ApiClient(bartek_terminal, sign_in(bartek_terminal, "1000000002", "2222")),
        revoked=ApiClient(revoked_terminal, revoked_player),
        revoked_reader=ApiClient(revoked_reader),
        dealer=ApiClient(make_device("D-BJ1", "dealer_terminal", "BJ1")),
        other_table_dealer=ApiClient(make_device("D-BJ2", "dealer_terminal", "BJ2")),
        revoked_dealer=ApiClient(revoked_dealer),
        anonymous=ApiClient(),
    )


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str
    body: dict[str, Any] | None = None
    money: bool = False
    reader: bool = False
    dealer: bool = False
    table_scoped: bool = True


def endpoints(world: World) -> list[Endpoint]:
    table, round_ = world.round.table_id, world.round.pk
    base = f"/api/v1/tables/{table}"
    return [
        Endpoint("terminal identity", "get", "/api/v1/terminal/", table_scoped=False),
        Endpoint("player session", "get", "/api/v1/player-sessions/current/", table_scoped=False),
        Endpoint("balance", "get", "/api/v1/player/balance/", table_scoped=False),
        Endpoint("statement", "get", "/api/v1/player/statement/", table_scoped=False),
        Endpoint("table state", "get", f"{base}/state/"),
        Endpoint("table stream", "get", f"{base}/stream/"),
        Endpoint("player stream", "get", "/api/v1/player/stream/", table_scoped=False),
        Endpoint("bets behind", "put", f"{base}/boxes/1/bets-behind/", {"accepts": False}),
        Endpoint(
            "bet place",
            "post",
            f"{base}/rounds/{round_}/bets/",
            {"box": 1, "kind": "main", "stake_minor": 500},
            money=True,
        ),
        Endpoint(
            "side bet",
            "post",
            f"{base}/rounds/{round_}/bets/",
            {"box": 1, "kind": "perfect_pairs", "stake_minor": 500},
            money=True,
        ),
        Endpoint("bet cancel", "delete", f"{base}/rounds/{round_}/bets/{world.bet_id}/", money=True),
        Endpoint(
            "insurance",
            "post",
            f"{base}/rounds/{round_}/insurance/",
            {"bet_id": world.bet_id, "take": True},
            money=True,
        ),
        Endpoint(
            "decision",
            "post",
            f"{base}/rounds/{round_}/decisions/",
            {"box": 1, "decision": "hit"},
            money=True,
        ),
        Endpoint("box leave", "post", f"{base}/boxes/1/leave/"),
        Endpoint("box take", "post", f"{base}/boxes/1/take/"),
        Endpoint("card", "post", f"{base}/rounds/{round_}/cards/", {"card": "AS"}, money=True, reader=True),
        Endpoint("sign out", "delete", "/api/v1/player-sessions/current/", table_scoped=False),
        # The dealer's commands, last: no more bets changes the round for what follows it
        Endpoint("round open", "post", f"{base}/rounds/", money=True, dealer=True),
        Endpoint("shuffle", "post", f"{base}/shuffles/", money=True, dealer=True),
        Endpoint("settle", "post", f"{base}/rounds/{round_}/settle/", money=True, dealer=True),
        Endpoint(
            "insurance close", "post", f"{base}/rounds/{round_}/close-insurance/", money=True, dealer=True
        ),
        Endpoint(
            "card correction",
            "post",
            f"{base}/rounds/{round_}/card-correction/",
            {"card": "AS", "reason": "seen"},
            money=True,
            dealer=True,
        ),
        Endpoint("close betting", "post", f"{base}/rounds/{round_}/close-betting/", money=True, dealer=True),
    ]


def call(client: ApiClient, endpoint: Endpoint, key: str) -> Any:
    headers = {"Idempotency-Key": key} if endpoint.money else {}
    if endpoint.method in ("get", "delete"):
        return getattr(client, endpoint.method)(endpoint.path, headers=headers)
    return getattr(client, endpoint.method)(endpoint.path, endpoint.body, headers=headers)


def wrong_callers(world: World, endpoint: Endpoint) -> dict[str, ApiClient]:
    callers = {"anonymous": world.anonymous}
    if endpoint.dealer:
        callers |= {
            "revoked terminal": world.revoked_dealer,
            "other table's terminal": world.other_table_dealer,
            "player terminal": world.right,
            "card reader": world.reader,
        }
    elif endpoint.reader:
        callers |= {
            "revoked terminal": world.revoked_reader,
            "other table's terminal": world.other_table_reader,
            "player terminal": world.right,
            "other table's dealer terminal": world.other_table_dealer,
        }
    else:
        callers["revoked terminal"] = world.revoked
        if endpoint.table_scoped:
            callers["other table's terminal"] = world.other_table
    return callers


def test_nobody_but_the_right_caller_succeeds(world):
    before = refused_snapshot()
    unauthorized_successes = []

    for endpoint in endpoints(world):
        for who, client in wrong_callers(world, endpoint).items():
            response = call(client, endpoint, key=f"{who}-{endpoint.name}".replace(" ", "-").replace("'", ""))
            if response.status_code < 400 or response.status_code >= 500:
                unauthorized_successes.append((endpoint.name, who, response.status_code))
            assert response["Content-Type"] == "application/problem+json", (endpoint.name, who)
            if who == "anonymous":
                assert response.status_code == 401, (endpoint.name, response.json())

    assert unauthorized_successes == []
    assert refused_snapshot() == before
    # What is not scoped to a table answers for the caller itself: its own terminal and player.
    assert world.other_table.get("/api/v1/terminal/").json()["table"] == "BJ2"
    assert world.other_table.get("/api/v1/player/balance/").json()["available_minor"] == 100000  # Clara's


def test_other_players_token_only_ever_acts_for_its_own_player(world):
    before = refused_snapshot()
    client = world.other_player

    balance = client.get("/api/v1/player/balance/")
    session = client.get("/api/v1/player-sessions/current/")
    refused = {}
    for endpoint in endpoints(world):
        if (
            endpoint.reader
            or endpoint.dealer
            or endpoint.method == "get"
            or endpoint.name in ("sign out", "box take")
        ):
            continue
        response = call(client, endpoint, key=f"other-{endpoint.name}".replace(" ", "-"))
        refused[endpoint.name] = (response.status_code, response.json()["code"])

    assert balance.json()["available_minor"] == 250000  # Bartek's own wallet, not Ági's
    assert session.json()["player"]["display_name"] == "Bartek Nowak"
    assert refused == {
        "bets behind": (403, "not_box_owner"),
        "bet place": (403, "not_box_owner"),
        "side bet": (409, "side_bet_without_main_bet"),
        "bet cancel": (409, "not_bet_owner"),
        "insurance": (409, "insurance_not_offered"),
        "decision": (409, "not_your_turn"),
        "box leave": (409, "not_seated"),
    }
    assert refused_snapshot() == before


def test_the_right_callers_succeed(world):
    statuses = {}
    for endpoint in endpoints(world):
        if endpoint.name in ("insurance", "decision", "box take"):
            continue  # need another phase of the round or a free box: played in test_full_round
        client = world.dealer if endpoint.dealer else world.reader if endpoint.reader else world.right
        statuses[endpoint.name] = call(
            client, endpoint, key=f"right-{endpoint.name}".replace(" ", "-")
        ).status_code

    assert statuses == {
        "terminal identity": 200,
        "player session": 200,
        "balance": 200,
        "statement": 200,
        "table state": 200,
        # Let through, then refused by the server: the test client is WSGI (tests/api/test_streams.py)
        "table stream": 503,
        "player stream": 503,
        "bets behind": 200,
        "bet place": 409,  # box 1 already has Ági's main bet: refused by the table, not by authorization
        "side bet": 201,
        "bet cancel": 200,
        "box leave": 200,
        "card": 409,  # betting is open: no card is expected yet
        "sign out": 204,
        # The dealer terminal is let through; the round, open for bets, refuses what it cannot do now
        "round open": 409,
        "shuffle": 409,
        "settle": 409,
        "insurance close": 409,
        "card correction": 409,
        "close betting": 200,
    }
    # The table state is the table's, not a player's: the table's card reader reads it too.
    state = next(endpoint for endpoint in endpoints(world) if endpoint.name == "table state")
    assert call(world.reader, state, key="reader-state").status_code == 200
