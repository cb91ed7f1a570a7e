"""The host's side of the canasta API: a physical-cards game whose finished deals the host's
dealer terminal enters deal by deal (docs/canasta-deal.md as JSON text), to 5000, settled to the
cent with a pot share; a deal that cannot have happened refused with the engine's code and
nothing written; a void asked for with a reason; who may call what."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cardroom.models import CanastaDealEvent, CanastaDealScore, CanastaVoidRequest
from casino.models import Table, Terminal
from tests.api.conftest import ApiClient, make_device, sign_in, staff
from tests.api.test_canasta_game import BALANCES, CARDS, Keys, _player
from tests.cardroom.conftest import balance, configured, venue_balance
from tests.cardroom.test_host_entry import DEAL
from wallet.models import AccountKind


@pytest.fixture
def physical_room(seeded: None) -> dict[str, Any]:
    table = Table.objects.get(name="CA1")
    configured(table, staff("operator"), deal_kind="physical", fee_kind="pot_share", fee_basis_points=250)
    host = ApiClient(make_device("D-CA1", Terminal.Kind.DEALER_TERMINAL, "CA1"))
    players = []
    for number, (card, pin) in enumerate(CARDS):
        device = make_device(f"T-CA1-{number}", Terminal.Kind.PLAYER_TERMINAL, "CA1")
        players.append(ApiClient(device, sign_in(device, card, pin)))
    keys = Keys()
    base = f"/api/v1/tables/{table.pk}/canasta/"
    assert host.post(f"{base}games/", {"stake_minor": 100}, headers=keys()).status_code == 201
    for seat, client in enumerate(players):
        assert client.post(f"{base}seats/{seat}/", headers=keys()).status_code == 201
    assert host.post(f"{base}start/", headers=keys()).status_code == 201
    return {"table": table, "host": host, "players": players, "base": base, "keys": keys}


@pytest.mark.django_db
def test_the_host_enters_each_finished_deal_to_5000_and_the_game_settles_with_its_pot_share(physical_room):
    table, host, players, base, keys = (
        physical_room[name] for name in ("table", "host", "players", "base", "keys")
    )

    for number in range(1, 5):
        if number > 1:
            assert host.post(f"{base}deals/", headers=keys()).status_code == 201
        response = host.post(f"{base}finished-deal/", {"deal": json.dumps(DEAL)}, headers=keys())
        assert response.status_code == 200, response.content
        assert response.json()["game"]["totals"] == [1280 * number, 10 * number]

    game = response.json()["game"]
    assert (game["status"], game["winner_side"], game["margin"]) == ("ended", 0, 5080)
    assert [line["sides"][1]["deal_total"] for line in game["score_sheet"]] == [10, 10, 10, 10]
    # each loser pays 5080 * 100 // 100 = 5080, capped at the hold of 10000; 2.5% of the pot of
    # 10160 is 254; each winner gets (10160 - 254) / 2 = 4953
    assert game["fee_charged_minor"] == 254
    assert [balance(_player(client)) for client in players] == [
        (BALANCES[0] + 4953, 0),
        (BALANCES[1] - 5080, 0),
        (BALANCES[2] + 4953, 0),
        (BALANCES[3] - 5080, 0),
    ]
    assert venue_balance(table, AccountKind.HOUSE) == 254
    assert venue_balance(table, AccountKind.HOUSE_ROUNDING) == 0
    # a player sees the same sheet, and no hand at a physical table
    seen = players[1].get(base).json()
    assert seen["game"]["score_sheet"] == game["score_sheet"] and seen["deal"]["hand"] is None


@pytest.mark.parametrize(
    ("deal", "status", "code"),
    [
        (json.dumps({**DEAL, "went_out": {"side": 0, "player": 1}}), 409, "out_player_holds_cards"),
        (json.dumps({**DEAL, "sides": [DEAL["sides"][0]]}), 409, "wrong_side_count"),
        (json.dumps({**DEAL, "colour": "red"}), 409, "invalid_deal_data"),
        ("[1, 2]", 409, "invalid_deal_data"),
        ("{not json", 409, "invalid_deal_data"),
    ],
)
@pytest.mark.django_db
def test_an_impossible_deal_is_refused_and_writes_nothing(physical_room, deal, status, code):
    host, base, keys = physical_room["host"], physical_room["base"], physical_room["keys"]
    events = CanastaDealEvent.objects.count()

    response = host.post(f"{base}finished-deal/", {"deal": deal}, headers=keys())

    assert (response.status_code, response.json()["code"]) == (status, code)
    assert CanastaDealEvent.objects.count() == events and CanastaDealScore.objects.count() == 0
    assert host.get(base).json()["game"]["totals"] == [0, 0]


@pytest.mark.django_db
def test_players_cannot_run_the_host_commands_and_the_host_cannot_move(physical_room):
    host, players, base, keys = (physical_room[name] for name in ("host", "players", "base", "keys"))

    for path in ("games/", "start/", "deals/", "finished-deal/", "void-request/"):
        response = players[0].post(
            f"{base}{path}", {"deal": "{}", "stake_minor": 1, "reason": "x"}, headers=keys()
        )
        assert response.status_code == 403, (path, response.content)
    # a move needs a player signed in (401 without a player token)
    assert host.post(f"{base}moves/", {"type": "draw", "version": 1}, headers=keys()).status_code == 401
    # a physical deal takes no moves
    response = players[1].post(f"{base}moves/", {"type": "draw", "version": 1}, headers=keys())
    assert (response.status_code, response.json()["code"]) == (409, "wrong_deal_kind")


@pytest.mark.django_db
def test_the_host_asks_for_a_void_with_a_reason(physical_room):
    host, base, keys = physical_room["host"], physical_room["base"], physical_room["keys"]

    response = host.post(f"{base}void-request/", {"reason": "two players left"}, headers=keys())

    assert response.status_code == 201, response.content
    request = CanastaVoidRequest.objects.get()
    assert (request.reason, request.requested_by_id, request.terminal_id) == (
        "two players left",
        None,
        host.device.terminal.pk,
    )
    again = host.post(f"{base}void-request/", {"reason": "again"}, headers=keys())
    assert (again.status_code, again.json()["code"]) == (409, "approval_pending")
