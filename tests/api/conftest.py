"""Fixtures for the terminal API: terminals at two tables with their credentials, signed-in
players, and a client that sends the headers a terminal sends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from casino.actors import Actor
from casino.models import Casino, Table, Terminal
from casino.services import terminal_credential_issue, terminal_register


@dataclass
class Device:
    terminal: Terminal
    token: str

    def headers(self, player_token: str | None = None, **extra: str) -> dict[str, str]:
        headers = {"Authorization": f"Terminal {self.token}", **extra}
        if player_token is not None:
            headers["X-Player-Token"] = player_token
        return headers


class ApiClient:
    """A Django test client speaking JSON with a terminal's headers."""

    def __init__(self, device: Device | None = None, player_token: str | None = None) -> None:
        self.client = Client()
        self.device = device
        self.player_token = player_token

    def _headers(self, extra: dict[str, str]) -> dict[str, str]:
        base = self.device.headers(self.player_token) if self.device else {}
        return {**base, **extra}

    def get(self, path: str, headers: dict[str, str] | None = None, **params: Any) -> Any:
        return self.client.get(path, params, headers=self._headers(headers or {}))

    def post(self, path: str, data: Any = None, headers: dict[str, str] | None = None) -> Any:
        return self.client.post(
            path,
            data if data is not None else {},
            content_type="application/json",
            headers=self._headers(headers or {}),
        )

    def put(self, path: str, data: Any = None, headers: dict[str, str] | None = None) -> Any:
        return self.client.put(
            path,
            data if data is not None else {},
            content_type="application/json",
            headers=self._headers(headers or {}),
        )

    def delete(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return self.client.delete(path, headers=self._headers(headers or {}))


def make_device(name: str, kind: str, table_name: str) -> Device:
    casino = Casino.objects.get(code="demo")
    terminal = terminal_register(
        casino=casino,
        name=name,
        kind=kind,
        table=Table.objects.get(name=table_name),
        actor=Actor.automatic("system"),
    )
    _, token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    return Device(terminal, token)


@pytest.fixture(autouse=True)
def _fresh_throttle_counters() -> None:
    cache.clear()


@pytest.fixture
def bj1_terminal(seeded: None) -> Device:
    return make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")


@pytest.fixture
def bj1_second_terminal(seeded: None) -> Device:
    return make_device("T-BJ1-2", Terminal.Kind.PLAYER_TERMINAL, "BJ1")


@pytest.fixture
def bj2_terminal(seeded: None) -> Device:
    return make_device("T-BJ2-1", Terminal.Kind.PLAYER_TERMINAL, "BJ2")


@pytest.fixture
def bj1_reader(seeded: None) -> Device:
    return make_device("R-BJ1", Terminal.Kind.CARD_READER, "BJ1")


@pytest.fixture
def bj2_reader(seeded: None) -> Device:
    return make_device("R-BJ2", Terminal.Kind.CARD_READER, "BJ2")


def sign_in(device: Device, card_number: str, pin: str) -> str:
    response = ApiClient(device).post("/api/v1/player-sessions/", {"card_number": card_number, "pin": pin})
    assert response.status_code == 201, response.content
    return response.json()["token"]


@pytest.fixture
def agi(bj1_terminal: Device) -> ApiClient:
    """Ági (card 1000000001, EUR 5,000.00) signed in at BJ1's first terminal."""
    return ApiClient(bj1_terminal, sign_in(bj1_terminal, "1000000001", "1111"))


@pytest.fixture
def bartek(bj1_second_terminal: Device) -> ApiClient:
    """Bartek (card 1000000002, EUR 2,500.00) signed in at BJ1's second terminal."""
    return ApiClient(bj1_second_terminal, sign_in(bj1_second_terminal, "1000000002", "2222"))


def staff(username: str) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


def open_round(table_name: str = "BJ1", **settings: Any) -> Any:
    """The dealer's side, which is the dealer console's job and not the terminal API's: a table on
    a physical shoe (cards come from its card reader), shuffled, betting open."""
    from tables.services.rounds import round_open
    from tables.services.shoes import shoe_shuffle
    from tests.factories import table_settings_applied

    table = Table.objects.get(name=table_name)
    table_settings_applied(
        table=table, operator=staff("operator"), settings={"shoe_kind": "physical", **settings}
    )
    dealer = Actor.staff(staff("dealer"))
    shoe_shuffle(table=table, actor=dealer)
    return round_open(table=table, actor=dealer)


@pytest.fixture
def bj1_round(seeded: None) -> Any:
    return open_round("BJ1")
