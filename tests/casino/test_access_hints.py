"""What closes a terminal's streams (casino/streams.py) and what makes a player's terminal read its
balance again: a credential revoked hints its terminal, a player's session ended hints the session,
a player's wallet moved hints the player; a refusal hints nothing."""

from __future__ import annotations

import time

import pytest

from casino import hints
from casino.actors import Actor
from casino.hints import player_topic, session_topic, terminal_topic
from casino.models import Player, PlayerSession, TerminalCredential
from casino.player_sessions import player_session_end, player_session_start
from casino.services import player_card_lock, terminal_credential_issue, terminal_credential_revoke
from tests.api.conftest import make_device, staff
from tests.casino.test_hints import received, topics_of  # noqa: F401  (the fixture)
from tests.tables.conftest import refused
from wallet.services import system_buy_in

pytestmark = pytest.mark.django_db(transaction=True)


def heard(received: list[tuple[str, str]]) -> set[str]:  # noqa: F811
    """The topics published since the last call (each call waits out the coalescing window)."""
    assert hints.publisher().flush()
    topics = set(topics_of(received))
    time.sleep(0.3)
    received.clear()
    return topics


def test_a_revoked_credential_hints_its_terminal_and_a_refused_revocation_nothing(
    received: list[tuple[str, str]],  # noqa: F811
    seeded: None,
) -> None:
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    system = Actor.automatic("system")
    heard(received)
    credential = TerminalCredential.objects.get(terminal=device.terminal)

    terminal_credential_revoke(credential=credential, actor=system)
    assert heard(received) == {terminal_topic(device.terminal.pk)}

    refused("credential_already_revoked", terminal_credential_revoke, credential=credential, actor=system)
    assert heard(received) == set()


def test_a_new_credential_hints_its_terminal_when_it_revokes_the_earlier_ones(
    received: list[tuple[str, str]],  # noqa: F811
    seeded: None,
) -> None:
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    system = Actor.automatic("system")
    heard(received)

    terminal_credential_issue(terminal=device.terminal, actor=system, keep_earlier=True)
    assert heard(received) == set()

    terminal_credential_issue(terminal=device.terminal, actor=system)
    assert heard(received) == {terminal_topic(device.terminal.pk)}


def test_an_ended_session_hints_itself(received: list[tuple[str, str]], seeded: None) -> None:  # noqa: F811
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    first, _ = player_session_start(terminal=device.terminal, card_number="1000000001", pin="1111")
    heard(received)

    # replaced by a sign-in at the same terminal, then signed out, then the card locked
    second, _ = player_session_start(terminal=device.terminal, card_number="1000000002", pin="2222")
    assert heard(received) == {session_topic(first.pk)}
    player_session_end(session=second)
    assert heard(received) == {session_topic(second.pk)}
    player_session_end(session=second)  # ended already: nothing changes
    assert heard(received) == set()
    third, _ = player_session_start(terminal=device.terminal, card_number="1000000001", pin="1111")
    heard(received)
    player_card_lock(player=third.player, reason="lost", actor=Actor.staff(staff("cashier")))
    assert heard(received) == {session_topic(third.pk)}
    assert PlayerSession.objects.get(pk=third.pk).ended_at is None  # refused at its next use


def test_a_players_wallet_moved_hints_the_player(received: list[tuple[str, str]], seeded: None) -> None:  # noqa: F811
    player = Player.objects.get(card_number="1000000001")
    heard(received)

    system_buy_in(player=player, amount_minor=1000, actor=Actor.automatic("test"))

    assert heard(received) == {player_topic(player.pk)}
