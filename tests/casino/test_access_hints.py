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
from tests.hints import topics_of
from tests.tables.conftest import refused
from wallet.services import system_buy_in

pytestmark = pytest.mark.django_db(transaction=True)


def heard(hints_received: list[tuple[str, str]]) -> set[str]:
    """The topics published since the last call (each call waits out the coalescing window)."""
    assert hints.publisher().flush()
    topics = set(topics_of(hints_received))
    time.sleep(0.3)
    hints_received.clear()
    return topics


def test_a_revoked_credential_hints_its_terminal_and_a_refused_revocation_nothing(
    hints_received: list[tuple[str, str]],
    seeded: None,
) -> None:
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    system = Actor.automatic("system")
    heard(hints_received)
    credential = TerminalCredential.objects.get(terminal=device.terminal)

    terminal_credential_revoke(credential=credential, actor=system)
    assert heard(hints_received) == {terminal_topic(device.terminal.pk)}

    refused("credential_already_revoked", terminal_credential_revoke, credential=credential, actor=system)
    assert heard(hints_received) == set()


def test_a_new_credential_hints_its_terminal_when_it_revokes_the_earlier_ones(
    hints_received: list[tuple[str, str]],
    seeded: None,
) -> None:
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    system = Actor.automatic("system")
    heard(hints_received)

    terminal_credential_issue(terminal=device.terminal, actor=system, keep_earlier=True)
    assert heard(hints_received) == set()

    terminal_credential_issue(terminal=device.terminal, actor=system)
    assert heard(hints_received) == {terminal_topic(device.terminal.pk)}


def test_an_ended_session_hints_itself(hints_received: list[tuple[str, str]], seeded: None) -> None:
    device = make_device("T-BJ1-1", "player_terminal", "BJ1")
    first, _ = player_session_start(terminal=device.terminal, card_number="1000000001", pin="1111")
    heard(hints_received)

    # replaced by a sign-in at the same terminal, then signed out, then the card locked
    second, _ = player_session_start(terminal=device.terminal, card_number="1000000002", pin="2222")
    assert heard(hints_received) == {session_topic(first.pk)}
    player_session_end(session=second)
    assert heard(hints_received) == {session_topic(second.pk)}
    player_session_end(session=second)  # ended already: nothing changes
    assert heard(hints_received) == set()
    third, _ = player_session_start(terminal=device.terminal, card_number="1000000001", pin="1111")
    heard(hints_received)
    player_card_lock(player=third.player, reason="lost", actor=Actor.staff(staff("cashier")))
    assert heard(hints_received) == {session_topic(third.pk)}
    assert PlayerSession.objects.get(pk=third.pk).ended_at is None  # refused at its next use


def test_a_players_wallet_moved_hints_the_player(hints_received: list[tuple[str, str]], seeded: None) -> None:
    player = Player.objects.get(card_number="1000000001")
    heard(hints_received)

    system_buy_in(player=player, amount_minor=1000, actor=Actor.automatic("test"))

    assert heard(hints_received) == {player_topic(player.pk)}
