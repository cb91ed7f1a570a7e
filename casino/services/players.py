"""Players: a card issued with its PIN, the PIN checked at a terminal, a card locked and unlocked."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.audit import audit_append
from casino.errors import (
    CardNumberTakenError,
    InvalidPinError,
    NotFoundError,
    PlayerCardAlreadyLockedError,
    PlayerCardNotLockedError,
    PlayerLockedError,
    PlayerSignInError,
    reason_required,
)
from casino.hints import hint, session_topic
from casino.locking import active_player_by_card_lock, row_lock
from casino.models import Casino, Player, PlayerSession, Terminal

# The staff accounts: AUTH_USER_MODEL, Django's own User (asked of get_user_model() when running).
if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()


PLAYER_MAX_PIN_FAILURES = 5
PLAYER_LOCK_MINUTES = 15


def player_create(*, casino: Casino, card_number: str, display_name: str, pin: str, actor: Actor) -> Player:
    if not pin.isdigit() or not 4 <= len(pin) <= 8:
        raise InvalidPinError("A PIN is 4 to 8 digits.")
    if Player.objects.filter(card_number=card_number).exists():
        raise CardNumberTakenError(f"Card {card_number} is already issued.")
    with transaction.atomic():
        player = Player.objects.create(
            casino=casino, card_number=card_number, display_name=display_name, pin_hash=make_password(pin)
        )
        actor.audit(
            action="player.created",
            object_type="casino.player",
            object_id=player.pk,
            after={"card_number": card_number, "display_name": display_name},
        )
    return player


def player_check_pin(*, card_number: str, pin: str, terminal: Terminal | None = None) -> Player:
    """Check a player's card and PIN at a terminal. Locks the card after repeated failures.

    At a terminal, only a card of the terminal's casino is looked up: another casino's card is
    unknown there, so a terminal can neither test its PINs nor lock it.

    Raises PlayerSignInError with code ``player_sign_in_failed`` or ``player_locked``.
    """
    now = timezone.now()
    with transaction.atomic():
        player = active_player_by_card_lock(
            card_number=card_number, casino_id=terminal.casino_id if terminal is not None else None
        )
        if player is None:
            raise PlayerSignInError("Unknown card or wrong PIN.")
        if player.locked_until and player.locked_until > now:
            raise PlayerLockedError("This card is locked after too many wrong PINs; ask staff for help.")
        if check_password(pin, player.pin_hash):
            if player.failed_pin_attempts or player.locked_until:
                player.failed_pin_attempts = 0
                player.locked_until = None
                player.save(update_fields=["failed_pin_attempts", "locked_until"])
            return player
        player.failed_pin_attempts += 1
        locked = player.failed_pin_attempts >= PLAYER_MAX_PIN_FAILURES
        if locked:
            player.locked_until = now + dt.timedelta(minutes=PLAYER_LOCK_MINUTES)
            player.failed_pin_attempts = 0
        player.save(update_fields=["failed_pin_attempts", "locked_until"])
        if locked:
            audit_append(
                action="player.locked",
                actor_name=card_number,
                terminal=terminal,
                object_type="casino.player",
                object_id=player.pk,
                after={"locked_until": player.locked_until},
            )
    # Outside the atomic block: the failure count above must commit even though we refuse.
    if locked:
        raise PlayerLockedError("This card is locked after too many wrong PINs; ask staff for help.")
    raise PlayerSignInError("Unknown card or wrong PIN.")


def player_card_lock(*, player: Player, reason: str, actor: Actor) -> Player:
    """The cage locks a player's card (lost, stolen, the player's own request): ``is_active``
    becomes False, so the card is refused at terminal sign-in (``player_check_pin`` finds no
    active card) and an open player session is refused on its next request (``player_inactive``);
    its streams close with that code.

    Needs ``casino.operate_cage`` and a reason. Locks the player row, then the audit chain.
    Raises ``permission_denied``, ``reason_required``, ``card_already_locked``.
    """
    require_staff(actor, "operate_cage")
    reason = reason_required(reason, "A reason is required to lock a card.")
    with transaction.atomic():
        locked = row_lock(Player.objects.filter(pk=player.pk))
        if locked is None:
            raise NotFoundError(f"No player {player.pk}.")
        if not locked.is_active:
            raise PlayerCardAlreadyLockedError(f"Card {locked.card_number} is locked already.")
        locked.is_active = False
        locked.save(update_fields=["is_active"])
        actor.audit(
            action="player.card_locked",
            object_type="casino.player",
            object_id=locked.pk,
            before={"is_active": True},
            after={"is_active": False, "reason": reason},
        )
        open_sessions = PlayerSession.objects.filter(player=locked, ended_at__isnull=True)
        hint(*(session_topic(session_id) for session_id in open_sessions.values_list("pk", flat=True)))
    return locked


def player_card_unlock(*, player: Player, actor: Actor) -> Player:
    """The cage unlocks a player's card: active again, and the PIN lockout cleared
    (``failed_pin_attempts`` 0, ``locked_until`` None), so the player may sign in at once.

    Needs ``casino.operate_cage``. Locks the player row, then the audit chain. Raises
    ``permission_denied``, ``card_not_locked`` (active and not PIN-locked: nothing to undo).
    """
    require_staff(actor, "operate_cage")
    with transaction.atomic():
        locked = row_lock(Player.objects.filter(pk=player.pk))
        if locked is None:
            raise NotFoundError(f"No player {player.pk}.")
        if locked.is_active and not locked.failed_pin_attempts and locked.locked_until is None:
            raise PlayerCardNotLockedError(f"Card {locked.card_number} is not locked.")
        before = {
            "is_active": locked.is_active,
            "failed_pin_attempts": locked.failed_pin_attempts,
            "locked_until": locked.locked_until,
        }
        locked.is_active = True
        locked.failed_pin_attempts = 0
        locked.locked_until = None
        locked.save(update_fields=["is_active", "failed_pin_attempts", "locked_until"])
        actor.audit(
            action="player.card_unlocked",
            object_type="casino.player",
            object_id=locked.pk,
            before=before,
            after={"is_active": True, "failed_pin_attempts": 0, "locked_until": None},
        )
    return locked
