"""The cage's card lock and unlock (``player_card_lock``, ``player_card_unlock``): audited,
for the cage only, and a locked card is refused at terminal sign-in until it is unlocked."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.errors import PlayerSignInError, ServiceError
from casino.models import AuditRecord, Player
from casino.services import PLAYER_MAX_PIN_FAILURES, player_card_lock, player_card_unlock, player_check_pin
from tests.factories import CasinoFactory, PlayerFactory, staff_user


@pytest.fixture
def cashier(db: Any) -> Any:
    return staff_user("cashier", "cashier-1")


@pytest.fixture
def player(db: Any) -> Player:
    return PlayerFactory(casino=CasinoFactory(), card_number="7000000001", display_name="Zoe Zimmer")


def _refused(code: str, call: Any, **kwargs: Any) -> ServiceError:
    with pytest.raises(ServiceError) as info, transaction.atomic():
        call(**kwargs)
    assert info.value.code == code, info.value.message
    return info.value


def _state(player: Player) -> tuple[bool, int, dt.datetime | None]:
    player.refresh_from_db()
    return player.is_active, player.failed_pin_attempts, player.locked_until


@pytest.mark.django_db
def test_a_locked_card_is_refused_at_sign_in_and_signs_in_again_once_unlocked(cashier, player):
    # given a card that signs in with its PIN
    assert player_check_pin(card_number="7000000001", pin="1234").pk == player.pk
    # when the cage locks it
    locked = player_card_lock(player=player, reason="card reported lost", actor=Actor.staff(cashier))
    # then it is inactive, and the right PIN is refused as for an unknown card
    assert locked.is_active is False and _state(player) == (False, 0, None)
    error = _refused("player_sign_in_failed", player_check_pin, card_number="7000000001", pin="1234")
    assert isinstance(error, PlayerSignInError) and error.message == "Unknown card or wrong PIN."
    # and wrong PINs do not count against a locked card
    _refused("player_sign_in_failed", player_check_pin, card_number="7000000001", pin="9999")
    assert _state(player) == (False, 0, None)
    # when the cage unlocks it, it signs in again
    player_card_unlock(player=player, actor=Actor.staff(cashier))
    assert _state(player) == (True, 0, None)
    assert player_check_pin(card_number="7000000001", pin="1234").pk == player.pk


@pytest.mark.django_db
def test_lock_and_unlock_are_audited_with_before_and_after(cashier, player):
    player_card_lock(player=player, reason="  card reported lost  ", actor=Actor.staff(cashier))
    player_card_unlock(player=player, actor=Actor.staff(cashier))
    records = list(
        AuditRecord.objects.filter(action__startswith="player.card_")
        .order_by("sequence")
        .values_list("action", "actor_id", "role", "object_type", "object_id", "before", "after")
    )
    assert records == [
        (
            "player.card_locked",
            cashier.pk,
            "cashier",
            "casino.player",
            str(player.pk),
            {"is_active": True},
            {"is_active": False, "reason": "card reported lost"},
        ),
        (
            "player.card_unlocked",
            cashier.pk,
            "cashier",
            "casino.player",
            str(player.pk),
            {"is_active": False, "failed_pin_attempts": 0, "locked_until": None},
            {"is_active": True, "failed_pin_attempts": 0, "locked_until": None},
        ),
    ]


@pytest.mark.django_db
def test_unlock_clears_a_pin_lockout(cashier, player):
    # given a card locked after too many wrong PINs
    for _ in range(PLAYER_MAX_PIN_FAILURES):
        with pytest.raises(PlayerSignInError):
            player_check_pin(card_number="7000000001", pin="0000")
    is_active, attempts, until = _state(player)
    assert (is_active, attempts) == (True, 0) and until is not None and until > timezone.now()
    _refused("player_locked", player_check_pin, card_number="7000000001", pin="1234")
    # when the cage unlocks it
    player_card_unlock(player=player, actor=Actor.staff(cashier))
    # then the lockout is gone and the right PIN signs in
    assert _state(player) == (True, 0, None)
    assert player_check_pin(card_number="7000000001", pin="1234").pk == player.pk
    record = AuditRecord.objects.filter(action="player.card_unlocked").get()
    as_recorded = DjangoJSONEncoder().default(until)  # the audit trail's JSON: milliseconds
    assert record.before == {"is_active": True, "failed_pin_attempts": 0, "locked_until": as_recorded}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "pit_boss", "operator", "auditor"])
def test_only_the_cage_locks_and_unlocks_cards(player, role):
    staff = staff_user(role, f"{role}-1")
    audit = AuditRecord.objects.count()
    _refused("permission_denied", player_card_lock, player=player, reason="lost", actor=Actor.staff(staff))
    Player.objects.filter(pk=player.pk).update(is_active=False)
    _refused("permission_denied", player_card_unlock, player=player, actor=Actor.staff(staff))
    assert _state(player) == (False, 0, None) and AuditRecord.objects.count() == audit


@pytest.mark.django_db
def test_refusals_leave_the_card_as_it_was(cashier, player):
    audit = AuditRecord.objects.count()
    error = _refused(
        "reason_required", player_card_lock, player=player, reason="   ", actor=Actor.staff(cashier)
    )
    assert error.status == 422
    error = _refused("card_not_locked", player_card_unlock, player=player, actor=Actor.staff(cashier))
    assert (error.status, error.message) == (409, "Card 7000000001 is not locked.")
    assert _state(player) == (True, 0, None) and AuditRecord.objects.count() == audit
    player_card_lock(player=player, reason="lost", actor=Actor.staff(cashier))
    audit = AuditRecord.objects.count()
    error = _refused(
        "card_already_locked",
        player_card_lock,
        player=player,
        reason="lost again",
        actor=Actor.staff(cashier),
    )
    assert (error.status, error.message) == (409, "Card 7000000001 is locked already.")
    assert _state(player) == (False, 0, None) and AuditRecord.objects.count() == audit


@pytest.mark.django_db
def test_at_a_terminal_a_locked_card_neither_signs_in_nor_keeps_its_session(seeded: Any) -> None:
    from django.core.cache import cache

    from casino.models import Terminal
    from tests.api.conftest import ApiClient, make_device, sign_in

    # given Ági signed in at a terminal of BJ1
    cache.clear()
    cashier = staff_user("cashier", "cashier-2")
    agi = Player.objects.get(card_number="1000000001")
    device = make_device("T-BJ1-1", Terminal.Kind.PLAYER_TERMINAL, "BJ1")
    session = ApiClient(device, sign_in(device, "1000000001", "1111"))
    assert session.get("/api/v1/player/balance/").status_code == 200
    # when the cage locks her card
    player_card_lock(player=agi, reason="card reported stolen", actor=Actor.staff(cashier))
    # then her open session is refused, and so is a new sign-in with the right PIN
    refused = session.get("/api/v1/player/balance/")
    assert (refused.status_code, refused.json()["code"]) == (401, "player_inactive")
    again = ApiClient(device).post("/api/v1/player-sessions/", {"card_number": "1000000001", "pin": "1111"})
    assert (again.status_code, again.json()["code"]) == (401, "player_sign_in_failed")
    # and once unlocked she signs in again
    player_card_unlock(player=agi, actor=Actor.staff(cashier))
    assert (
        ApiClient(device, sign_in(device, "1000000001", "1111")).get("/api/v1/player/balance/").status_code
        == 200
    )
