"""Opening, closing and voiding a round (rules/blackjack.md 3.1, DESIGN "The round is an event
log"). Bets are in ``tables.services.bets``, cards in ``tables.services.cards``, decisions and
insurance in ``tables.services.decisions``, settlement in ``tables.services.settlement``; what
they share (the command runner, overdue defaults) in ``tables.services.commands``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from casino.actors import Actor, require_staff
from casino.errors import InvalidConfigurationError, game
from casino.event_log import EventDraft, event_fields
from casino.gaming_day_state import gaming_day_writable
from casino.models import Table
from games.blackjack import new_round, state_to_dict
from tables.errors import (
    BettingClosedError,
    RoundInProgressError,
    RoundNotOpenError,
    ShuffleDueError,
    TableClosedError,
    TableReasonRequiredError,
)
from tables.locking import lock_round, table_lock
from tables.models import (
    OPEN_ROUND_STATUSES,
    Bet,
    BetStatus,
    Box,
    Round,
    RoundEvent,
    RoundStatus,
    Shoe,
    signed_on_dealer,
)
from tables.round_hash import VOIDED_ACTION, round_seal
from tables.services.commands import (
    AppliedDefault,
    Work,
    bets_release,
    betting_close,
    engine_seats,
    finish,
    round_command,
    round_state,
    schedule_defaults,
    shoe_consume,
)
from tables.services.common import events_write, require_dealer_or_reader, table_dealer_id
from tables.services.config import config_current_ids, config_get, config_rules
from tables.services.shoes import shoe_remaining, shoes_current, shuffle_due


def round_open(*, table: Table, actor: Actor) -> Round:
    """Open betting for the next round with the table's current configuration version and shoe.

    Needs the dealer (``casino.run_table``) or the system. Locks the gaming day (shared: a round
    is a write of the day it opens in, whose tips it brings) and the table row (``table_lock``).
    Raises ``gaming_day_closed``, ``table_closed`` (not open for play: ``table_open_for_play``), ``round_in_progress`` (a round is
    open), ``shuffle_due`` (no shoe, or ``shuffle_every_rounds``
    reached: record a shuffle first), ``invalid_configuration``. Writes the ``betting_opened``
    event (the engine snapshot with the seats and their "bets behind" settings, which hold for
    this round) and the audit record.
    """
    with transaction.atomic():
        gaming_day_writable(casino=table.casino)
        locked = table_lock(table.pk)
        if locked is None:
            raise TableClosedError("the table is closed: open it for play first")
        opening = _opening_read(locked)
        require_dealer_or_reader(actor, locked)
        if not locked.is_open:
            raise TableClosedError("the table is closed: open it for play first")
        # Rounds open one at a time, each after the one before: only the last can be open.
        if opening.last_status in OPEN_ROUND_STATUSES:
            raise RoundInProgressError("a round is already open at this table")
        config = config_get(opening.config_id) if opening.config_id is not None else None
        if config is None:
            raise InvalidConfigurationError(f"{table} has no configuration")
        shoe = opening.shoe
        if shoe is None or shuffle_due(table, shoe, config):
            raise ShuffleDueError("a shuffle is due: record it before the next round")
        rules = config_rules(config)
        boxes = list(Box.objects.filter(table=table, owner__isnull=False).order_by("number"))
        accepts = {str(box.number): box.accepts_bets_behind for box in boxes}
        seats = engine_seats(boxes, accepts, rules)
        state = game(lambda: new_round(rules, seats=seats, shoe_remaining=shoe_remaining(shoe)))
        now = timezone.now()
        snapshot = state_to_dict(state)
        # The round row is inserted with the snapshot and version of its first event.
        round_ = Round.objects.create(
            table=table,
            number=(opening.last_number or 0) + 1,
            config=config,
            shoe=shoe,
            # The dealer of the round is the one signed on (a dealer terminal's round too).
            dealer_id=table_dealer_id(locked) or (actor.user.pk if actor.user else None),
            accepts_bets_behind=accepts,
            decision_deadline_at=now + dt.timedelta(seconds=config.betting_seconds),
            snapshot=snapshot,
            version=1,
        )
        RoundEvent.objects.create(
            **event_fields(
                EventDraft(
                    "betting_opened",
                    {"config_id": config.pk, "shoe_id": shoe.pk, "rules": rules.to_dict()},
                    snapshot,
                ),
                actor,
                sequence=1,
                now=now,
                round=round_,
            )
        )
        schedule_defaults(round_.pk, round_.decision_deadline_at)
        actor.audit(
            action="round.opened",
            object_type="tables.round",
            object_id=round_.pk,
            after={
                "table": table.name,
                "number": round_.number,
                "config_version": config.number,
                "shoe_id": shoe.pk,
            },
        )
    return round_


@dataclass(frozen=True)
class _Opening:
    last_number: int | None  # the table's last round (None before the first)
    last_status: str | None
    config_id: int | None  # its current configuration version
    shoe: Shoe | None  # its shoe in use


def _opening_read(table: Table) -> _Opening:
    """What opening a round reads once the table is locked (so that it sees what the commands
    before committed), in one statement: the table's shoe in use, with the number and status of
    the table's last round, the id of its current configuration and the dealer signed on to it
    (kept on ``table``: ``table_dealer_id``). A table without a shoe in use reads the same from
    its own row (its round is then refused ``shuffle_due``)."""
    last = Round.objects.filter(table_id=OuterRef("table_id")).order_by("-number")
    annotations = {
        "last_number": Subquery(last.values("number")[:1]),
        "last_status": Subquery(last.values("status")[:1]),
        "current_config_id": Subquery(config_current_ids(OuterRef("table_id"))[:1]),
        "signed_on_dealer_id": signed_on_dealer(OuterRef("table_id")),
    }
    shoe = shoes_current(table.pk).annotate(**annotations).first()
    row = (
        shoe.__dict__
        if shoe is not None
        else Table.objects.filter(pk=table.pk)
        .annotate(table_id=F("pk"))
        .annotate(**annotations)
        .values(*annotations)
        .get()
    )
    table.signed_on_dealer_id = row["signed_on_dealer_id"]  # type: ignore[attr-defined]
    return _Opening(row["last_number"], row["last_status"], row["current_config_id"], shoe)


def round_close_betting(*, round_id: int, actor: Actor) -> Round:
    """ "No more bets": betting closes, the boxes that play are fixed, bets behind a box whose
    owner does not play are returned (holds voided), and on a virtual shoe the first cards are
    dealt. Needs the dealer or the system. Waits for the bets in flight (the round's lock taken
    exclusively against their shared hold of it). Raises ``betting_closed``. Audited."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status != RoundStatus.BETTING:
            raise BettingClosedError("betting is already closed")
        work = Work()
        state = betting_close(round_, work, actor, by_default=False)
        finish(round_, state, work, actor, timezone.now())
        actor.audit(
            action="round.betting_closed",
            object_type="tables.round",
            object_id=round_.pk,
            before={"status": RoundStatus.BETTING},
            after={
                "status": round_.status,
                "boxes": [box.number for box in state.boxes],
                "bets": len(state.bets),
            },
        )
        return round_

    return round_command(round_id, body, actor)


def round_void(*, round_id: int, actor: Actor, reason: str) -> Round:
    """A pit boss voids an open round: every stake is returned (open holds voided in bulk), the
    cards dealt count as used from the shoe. Needs ``casino.void_round`` and a reason. Raises
    ``round_not_open`` (settled or voided), ``reason_required``. Audited."""
    require_staff(actor, "void_round")
    reason = (reason or "").strip()
    if not reason:
        raise TableReasonRequiredError("a reason is required")
    with transaction.atomic():
        round_ = lock_round(round_id)
        if round_.status not in OPEN_ROUND_STATUSES:
            raise RoundNotOpenError(f"the round is {round_.status}")
        before = round_.status
        state = round_state(round_)
        shoe_consume(round_.shoe, state)
        round_.status = RoundStatus.VOIDED
        events_write(
            round_, [EventDraft("voided", {"reason": reason, "status_before": before})], actor, state
        )
        Round.objects.filter(pk=round_.pk).update(
            status=RoundStatus.VOIDED,
            decision_deadline_at=None,
            version=round_.version,
            awaiting_correction=None,
        )
        bets = list(Bet.objects.filter(round=round_, status=BetStatus.PLACED))
        bets_release(
            round_=round_, bets=bets, status=BetStatus.VOIDED, reason=f"round voided: {reason}", actor=actor
        )
        actor.audit(
            action=VOIDED_ACTION,
            object_type="tables.round",
            object_id=round_.pk,
            before={"status": before},
            after={
                "status": RoundStatus.VOIDED,
                "reason": reason,
                "bets_returned": len(bets),
                **round_seal(round_, []),
            },
        )
    round_.refresh_from_db()
    return round_
