"""Boxes and seats (rules/blackjack.md 2): taking and leaving a box, the owner's "no bets behind
me" setting, and the handover of a box to the next bettor in arrival order."""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.models import Table
from casino.table_access import require_player
from tables.errors import (
    BoxLimitReachedError,
    BoxTakenError,
    NoSuchBoxError,
    NotBoxOwnerError,
    NotSeatedError,
    RoundInProgressError,
)
from tables.locking import box_lock, lock_round, table_lock
from tables.models import BOX_NUMBERS, OPEN_ROUND_STATUSES, Bet, BetStatus, Box, Round, Seat
from tables.services.commands import bets_release
from tables.services.config import table_config_current


def boxes_ensure(*, table: Table) -> list[Box]:
    """Create the table's seven boxes if missing (idempotent, moves nothing)."""
    existing = set(Box.objects.filter(table=table).values_list("number", flat=True))
    Box.objects.bulk_create([Box(table=table, number=n) for n in BOX_NUMBERS if n not in existing])
    return list(Box.objects.filter(table=table).order_by("number"))


def _box(table: Table, number: int) -> Box:
    config = table_config_current(table)
    limit = config.boxes if config else 7
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= limit:
        raise NoSuchBoxError(f"the table has boxes 1 to {limit}")
    box = box_lock(table.pk, number)
    if box is None:
        raise NoSuchBoxError(f"box {number} does not exist")
    return box


def _box_owners_lock(table: Table) -> None:
    """Box owners change one at a time per table (a take, a leave and its handover): the table row
    (``table_lock``), so that the boxes a player owns, counted against ``boxes_per_player``,
    cannot change meanwhile. Bets never take it: only owner changes, a few a minute, wait."""
    table_lock(table.pk)


def _boxes_per_player(table: Table) -> int:
    config = table_config_current(table)
    return config.boxes_per_player if config else 2


def box_take(*, table: Table, box_number: int, actor: Actor) -> Box:
    """The player at the terminal takes an empty box and becomes its owner.

    Locks the table's box owners (``_box_owners_lock``: two players racing for one box, or one
    player for two, take turns, and the second sees the first's box), then the box row. The
    player row is not locked: a handover to this player meanwhile checks its foreign key to it.
    Raises ``box_taken``, ``box_limit_reached`` (``boxes_per_player``, 2 by default),
    ``no_such_box``, ``permission_denied``. Audited.
    """
    player = require_player(actor, table)
    with transaction.atomic():
        _box_owners_lock(table)
        box = _box(table, box_number)
        if box.owner_id is not None:
            raise BoxTakenError(f"box {box_number} is taken")
        per_player = _boxes_per_player(table)
        owned = Box.objects.filter(table=table, owner=player).count()
        if owned >= per_player:
            raise BoxLimitReachedError(f"at most {per_player} boxes per player")
        Box.objects.filter(pk=box.pk).update(owner=player, accepts_bets_behind=True)
        Seat.objects.get_or_create(box=box, player=player)
        actor.audit(
            action="box.taken",
            object_type="tables.box",
            object_id=box.pk,
            before={"owner_id": None},
            after={"table": table.name, "box": box_number, "owner_id": player.pk},
        )
    box.refresh_from_db()
    return box


def _cancel_bets(round_: Round, bets: list[Bet], actor: Actor, reason: str) -> None:
    """Cancel bets of an open betting round and free their holds (one bulk void)."""

    bets_release(round_=round_, bets=bets, status=BetStatus.CANCELLED, reason=reason, actor=actor)


def _open_round_locked(table: Table) -> Round | None:
    """The table's open round under ``lock_round`` (exclusive), or None. The round's advisory
    lock, not only its row, is what waits for the bets in flight and holds new ones back: a box
    change must not run while a bet's check of the box is under way."""
    round_id = Round.objects.filter(table=table).open().order_by("pk").values_list("pk", flat=True).first()
    if round_id is None:
        return None
    round_ = lock_round(round_id)
    return round_ if round_.status in OPEN_ROUND_STATUSES else None


def box_leave(*, table: Table, box_number: int, actor: Actor) -> Box:
    """The player leaves a box (owner or bettor behind); their seat and win streak go.

    An owner leaving hands the box to the next seated bettor in arrival order who owns fewer than
    ``boxes_per_player`` boxes, or empties it.
    During betting the leaver's bets on the box are cancelled (stakes freed), and so are the
    new owner's bets behind it; after betting closed, a player with a bet in play cannot leave
    (``round_in_progress``). Locks the open round as every round command does (its advisory
    lock exclusively, which waits for the bets in flight and holds new ones back, then its row),
    the table's box owners (``_box_owners_lock``), then the box. Between them they hold back
    everything that changes the player's seats and bets at the table. Audited.
    """
    player = require_player(actor, table)
    with transaction.atomic():
        open_round = _open_round_locked(table)
        _box_owners_lock(table)
        box = _box(table, box_number)
        seat = Seat.objects.filter(box=box, player=player).first()
        if seat is None:
            raise NotSeatedError(f"you are not seated at box {box_number}")
        to_cancel: list[Bet] = []
        betting = open_round is not None and open_round.betting_is_open(timezone.now())
        if open_round is not None:
            mine = list(
                Bet.objects.filter(
                    round=open_round, box_number=box_number, player=player, status=BetStatus.PLACED
                )
            )
            if mine and not betting:
                raise RoundInProgressError("your bets on this box are in play; leave after the round")
            to_cancel.extend(mine)
        seat.delete()
        new_owner_id = box.owner_id
        if box.owner_id == player.pk:
            new_owner_id = _successor(table, box)
            if open_round is not None and new_owner_id is not None:
                behind = list(
                    Bet.objects.filter(
                        round=open_round,
                        box_number=box_number,
                        player_id=new_owner_id,
                        status=BetStatus.PLACED,
                    )
                )
                if betting:
                    to_cancel.extend(behind)
                # Otherwise the box plays on with the bets of this round; the handover waits for none.
            Box.objects.filter(pk=box.pk).update(owner_id=new_owner_id, accepts_bets_behind=True)
        if to_cancel and open_round is not None:
            _cancel_bets(open_round, to_cancel, actor, "player left the box")
        actor.audit(
            action="box.left",
            object_type="tables.box",
            object_id=box.pk,
            before={"owner_id": box.owner_id, "player_id": player.pk, "win_streak": seat.win_streak},
            after={"table": table.name, "box": box_number, "owner_id": new_owner_id},
        )
    box.refresh_from_db()
    return box


def _successor(table: Table, box: Box) -> int | None:
    """Who owns the box after its owner left: the player seated at it first (arrival order) who
    owns fewer than ``boxes_per_player`` boxes at the table; None (the box is free) if nobody."""
    per_player = _boxes_per_player(table)
    owned = Counter(Box.objects.filter(table=table, owner__isnull=False).values_list("owner_id", flat=True))
    for player_id in Seat.objects.filter(box=box).order_by("id").values_list("player_id", flat=True):
        if owned[player_id] < per_player:
            return player_id
    return None


def box_bets_behind_set(*, table: Table, box_number: int, actor: Actor, accepts: bool) -> Box:
    """The box owner allows or forbids bets behind their box, from the next round on.
    Raises ``not_box_owner``. Audited with the old and new setting."""
    player = require_player(actor, table)
    with transaction.atomic():
        box = _box(table, box_number)
        if box.owner_id != player.pk:
            raise NotBoxOwnerError(f"box {box_number} is not yours")
        before = box.accepts_bets_behind
        Box.objects.filter(pk=box.pk).update(accepts_bets_behind=bool(accepts))
        actor.audit(
            action="box.bets_behind_set",
            object_type="tables.box",
            object_id=box.pk,
            before={"accepts_bets_behind": before},
            after={"table": table.name, "box": box_number, "accepts_bets_behind": bool(accepts)},
        )
    box.refresh_from_db()
    return box
