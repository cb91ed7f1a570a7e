"""The round command runner: what every command on a round shares.

- :func:`round_command` runs a serialized round command: the round's overdue default first (in a
  transaction of its own, so that it stands even if the command is then refused), then the
  command under the round's exclusive lock (``lock_round``).
- :func:`round_apply_overdue_defaults` applies the default of a deadline that passed (betting
  closed, insurance declined, stand), each recorded as a ``default_applied`` event; the Celery
  task ``tables.tasks.apply_overdue_defaults`` calls it at the deadline, and every command calls
  it first, whichever comes first (rules 2.6).
- :class:`Work`, :func:`step`, :func:`auto_deal` and :func:`finish`: a command applies engine
  actions to the round's state, collects their events, deals from a virtual shoe, and stores the
  events, the snapshot, the status and the next deadline in one go.
- :func:`bets_release`: stakes given back (cancelled, refunded, voided) in one bulk void.

Locks, in this order (``tables/locking.py``): the round (advisory lock, then its row), the player
row, the box row, then the wallet (holds, accounts) and the audit chain last.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from celery import signature
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.errors import ServiceError, game
from casino.event_log import EventDraft
from casino.gaming_day_state import gaming_day_writable
from casino.models import Player
from casino.table_access import require_terminal_at
from games.blackjack import (
    Action,
    CloseBetting,
    CloseInsurance,
    DealCard,
    Phase,
    PlaceBet,
    RoundState,
    Stand,
    apply,
    current_turn,
    new_round,
    next_card_target,
    state_from_dict,
    state_to_dict,
)
from games.blackjack import Bet as EngineBet
from games.blackjack import BetKind as EngineBetKind
from games.blackjack import Seat as EngineSeat
from games.blackjack.events import BetRefunded
from games.blackjack.rules import RuleSet as EngineRuleSet
from games.cards import Card
from games.errors import GameError
from tables.errors import RoundInProgressError, RoundNotOpenError, TableShoeExhaustedError
from tables.locking import lock_round
from tables.models import Bet, BetHold, BetKind, BetStatus, Box, Round, RoundStatus, Shoe
from tables.services.common import events_write
from tables.services.config import config_get, config_rules
from tables.services.shoes import shoe_remaining
from wallet.models import Hold, HoldStatus
from wallet.services import hold_place, holds_void

T = TypeVar("T")

# The Celery task that applies a deadline's default (tables/tasks.py).
OVERDUE_DEFAULTS_TASK = "tables.tasks.apply_overdue_defaults"

PHASE_STATUS = {
    Phase.BETTING: RoundStatus.BETTING,
    Phase.DEALING: RoundStatus.DEALING,
    Phase.INSURANCE: RoundStatus.INSURANCE,
    Phase.PLAYERS: RoundStatus.PLAYERS,
    Phase.DEALER: RoundStatus.DEALER,
    Phase.SETTLED: RoundStatus.SETTLING,
}


def engine_player(player_id: int) -> str:
    return str(player_id)


def engine_seats(boxes: Iterable[Box], accepts: dict[str, bool], rules: EngineRuleSet) -> list[EngineSeat]:
    """The engine's seats of a round (rules 2.3, 2.4): each owned box the rules use, with its
    owner and the "bets behind" setting that holds for the round (``Round.accepts_bets_behind``)."""
    return [
        EngineSeat(box.number, engine_player(box.owner_id), bool(accepts.get(str(box.number), True)))
        for box in boxes
        if box.owner_id is not None and box.number <= rules.boxes
    ]


def engine_bet(bet: Bet) -> EngineBet:
    return EngineBet(
        bet_id=str(bet.pk),
        player=engine_player(bet.player_id),
        box=bet.box_number,
        kind=EngineBetKind(bet.kind),
        stake_minor=bet.stake_minor,
        follow_double=bet.follow_double,
        follow_split=bet.follow_split,
    )


def round_state(round_: Round) -> RoundState:
    if round_.snapshot is None:
        raise RoundNotOpenError("the round has no engine state")
    return state_from_dict(round_.snapshot)


@dataclass
class Work:
    """What a command produced: events to append, holds to void after the table's writes."""

    drafts: list[EventDraft] = field(default_factory=list)
    void_bets: list[Bet] = field(default_factory=list)
    void_reason: str = ""


def step(
    state: RoundState, action: Action, work: Work, kind: str, extra: dict[str, Any] | None = None
) -> tuple[RoundState, tuple[Any, ...]]:
    """Apply one engine action and record it as an event draft of ``kind``."""
    state, events = game(lambda: apply(state, action))
    payload = {"action": action.to_dict(), "events": [event.to_dict() for event in events], **(extra or {})}
    work.drafts.append(EventDraft(kind, payload))
    return state, events


def is_virtual(round_: Round) -> bool:
    return round_.shoe.kind == Shoe.Kind.VIRTUAL


def auto_deal(round_: Round, state: RoundState, work: Work) -> RoundState:
    """On a virtual shoe, deal every card the round expects now, from the shuffled order."""
    if not is_virtual(round_):
        return state
    shoe = round_.shoe
    order = shoe.order or []
    dealt = False
    while next_card_target(state) is not None:
        if shoe.position >= len(order):
            raise TableShoeExhaustedError("the shoe is exhausted; void the round and shuffle")
        card = Card.parse(order[shoe.position])
        shoe.position += 1
        dealt = True
        state, _ = step(state, DealCard(card), work, "card_dealt", {"source": "virtual_shoe"})
    if dealt:
        Shoe.objects.filter(pk=shoe.pk).update(position=shoe.position)
    return state


def _deadline(round_: Round, state: RoundState, previous_status: str, now: dt.datetime) -> dt.datetime | None:
    config = round_.config
    if state.phase is Phase.BETTING:
        return round_.decision_deadline_at
    if state.phase is Phase.INSURANCE:
        if previous_status == RoundStatus.INSURANCE and round_.decision_deadline_at is not None:
            return round_.decision_deadline_at
        return now + dt.timedelta(seconds=config.decision_seconds)
    if state.phase is Phase.PLAYERS and current_turn(state) is not None:
        return now + dt.timedelta(seconds=config.decision_seconds)
    return None


def schedule_defaults(round_id: int, deadline: dt.datetime | None) -> None:
    """Queue the Celery task for the deadline (``OVERDUE_DEFAULTS_TASK``, sent by its name: the
    task module imports this one), on commit. Eager Celery (tests, embedded mode) would run it at
    once, before the deadline: there the next command applies defaults lazily."""
    if deadline is None or getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    task = signature(OVERDUE_DEFAULTS_TASK, args=(round_id,))
    transaction.on_commit(lambda: task.apply_async(eta=deadline))


def finish(round_: Round, state: RoundState, work: Work, actor: Actor, now: dt.datetime) -> None:
    """Append the events, store snapshot, status and deadline, void holds; the caller audits."""
    previous = round_.status
    round_.status = PHASE_STATUS[state.phase]
    deadline = _deadline(round_, state, previous, now)
    changed_deadline = deadline != round_.decision_deadline_at
    round_.decision_deadline_at = deadline
    events_write(round_, work.drafts, actor, state)  # sets round_.snapshot
    if not work.drafts:
        round_.snapshot = state_to_dict(state)
    Round.objects.filter(pk=round_.pk).update(
        status=round_.status,
        decision_deadline_at=deadline,
        snapshot=round_.snapshot,
        version=round_.version,
        awaiting_correction=round_.awaiting_correction,
    )
    if changed_deadline:
        schedule_defaults(round_.pk, deadline)
    if work.void_bets:
        bets_release(
            round_=round_,
            bets=work.void_bets,
            status=BetStatus.REFUNDED,
            reason=work.void_reason,
            actor=actor,
        )


def bets_release(*, round_: Round, bets: Sequence[Bet], status: str, reason: str, actor: Actor) -> None:
    """Give the stakes of bets back (cancelled, refunded, voided): one bulk void of their open
    holds (audited by the wallet) and one update of the bets. The bets' status is what makes a
    repeat harmless: a released bet is no longer placed, and its holds are no longer open."""
    ids = [bet.pk for bet in bets]
    if not ids:
        return
    Bet.objects.filter(pk__in=ids).update(status=status)
    hold_ids = list(
        BetHold.objects.filter(bet_id__in=ids, hold__status=HoldStatus.OPEN).values_list("hold_id", flat=True)
    )
    if hold_ids:
        holds_void(hold_ids=hold_ids, reason=reason, actor=actor)


def stake_hold(round_: Round, player: Player, bet_id: int, amount_minor: int) -> Hold:
    """Hold a stake of the bet ``bet_id`` of ``round_`` on its bettor's wallet. Raises the
    wallet's ``insufficient_funds``, with nothing written."""
    return hold_place(
        player=player,
        amount_minor=amount_minor,
        table=round_.table,
        reference_id=str(round_.pk),
        bet_reference=str(bet_id),
    )


def bet_hold(round_: Round, player: Player, bet: Bet, amount_minor: int, reason: str) -> None:
    """Hold a stake of ``bet`` on its bettor's wallet (doubled, split, insured) and link the hold
    to the bet, which settlement closes or a release voids: a stake of the gaming day it is made
    in, which must be open (``gaming_day_writable``). Raises the wallet's ``insufficient_funds``,
    ``gaming_day_closed``, with nothing written. (A new bet is held before it is written, and
    written with its link: ``tables.services.bets.bet_place``, which checks the day itself.)"""
    gaming_day_writable(casino=round_.table.casino)
    hold = stake_hold(round_, player, bet.pk, amount_minor)
    BetHold.objects.create(bet=bet, hold=hold, amount_minor=amount_minor, reason=reason)


def shoe_consume(shoe: Shoe, state: RoundState) -> None:
    """Count the round's cards as dealt from the shoe, and the round as one more dealt."""
    counts = dict(shoe.dealt_counts or {})
    for card_ in state.cards_on_table():
        counts[card_.code] = int(counts.get(card_.code, 0)) + 1
    Shoe.objects.filter(pk=shoe.pk).update(dealt_counts=counts, rounds_dealt=shoe.rounds_dealt + 1)


# ------------------------------------------------------------------------------- closing betting


def betting_close(round_: Round, work: Work, actor: Actor, *, by_default: bool) -> RoundState:
    """ "No more bets" on the engine (rules 3.1): build the round from the seats and the bets placed
    (in placing order) and close betting; bets behind a box whose owner does not play are
    returned at once (rules 2.4), and so is a bet the engine refuses now (a box that changed hands)."""
    rules = config_rules(round_.config)
    boxes = Box.objects.filter(table_id=round_.table_id, owner__isnull=False).order_by("number")
    seats = engine_seats(boxes, round_.accepts_bets_behind or {}, rules)
    initial = game(lambda: new_round(rules, seats=seats, shoe_remaining=shoe_remaining(round_.shoe)))
    state = initial
    bets = list(
        Bet.objects.filter(round=round_)
        .exclude(kind=BetKind.INSURANCE)
        .select_related("player", "terminal")
        .order_by("pk")
    )
    refused: list[Bet] = []
    for bet in bets:
        if bet.status != BetStatus.PLACED:
            work.drafts.append(
                EventDraft(
                    "bet_cancelled",
                    {"bet_id": str(bet.pk), "player": engine_player(bet.player_id), "status": bet.status},
                )
            )
            continue
        action = PlaceBet(engine_bet(bet))
        try:
            state, _ = apply(state, action)
        except GameError as error:
            refused.append(bet)
            work.drafts.append(
                EventDraft(
                    "bet_refused", {"bet_id": str(bet.pk), "code": error.code, "message": error.message}
                )
            )
            continue
        # Logged now, at "no more bets", but given by the bettor at their terminal.
        work.drafts.append(
            EventDraft(
                "bet_placed",
                {"action": action.to_dict(), "placed_at": bet.placed_at.isoformat()},
                actor=Actor(terminal=bet.terminal, player=bet.player),
            )
        )
    state, events = step(
        state,
        CloseBetting(),
        work,
        "default_applied" if by_default else "betting_closed",
        {"initial": state_to_dict(initial), "default": "betting_closed" if by_default else None},
    )
    refunded_ids = {int(event.bet_id) for event in events if isinstance(event, BetRefunded)}
    work.void_bets = [bet for bet in bets if bet.pk in refunded_ids] + refused
    work.void_reason = "bet behind a box whose owner does not play"
    return auto_deal(round_, state, work)


# ------------------------------------------------------------------------------ overdue defaults


def is_overdue(round_: Round, now: dt.datetime) -> bool:
    return (
        round_.decision_deadline_at is not None
        and round_.decision_deadline_at <= now
        and round_.awaiting_correction is None
        and round_.status in (RoundStatus.BETTING, RoundStatus.INSURANCE, RoundStatus.PLAYERS)
    )


@dataclass(frozen=True)
class AppliedDefault:
    kind: str
    box: int | None = None
    hand: int | None = None


def round_apply_overdue_defaults(*, round_id: int, now: dt.datetime | None = None) -> list[AppliedDefault]:
    """Apply the default of an overdue deadline (rules 2.6: betting closed; insurance declined by
    every bettor still undecided; decision: stand), once per deadline, each recorded as a
    ``default_applied`` event and audited. Safe to repeat: nothing happens before the deadline or
    when it was already applied (the deadline moved on). Locks the round as every command does.
    Returns what was applied."""
    actor = Actor.automatic("decision timer")
    with transaction.atomic():
        round_ = lock_round(round_id)
        now = now or timezone.now()
        if not is_overdue(round_, now):
            return []
        round_.config = config_get(round_.config_id)
        work = Work()
        overdue_since = round_.decision_deadline_at.isoformat() if round_.decision_deadline_at else None
        applied, state = _default_apply(round_, work, actor, overdue_since)
        if applied is None:
            return []
        finish(round_, state, work, actor, now)
        actor.audit(
            action="round.default_applied",
            object_type="tables.round",
            object_id=round_.pk,
            after={"defaults": [applied.__dict__], "overdue_since": overdue_since, "status": round_.status},
        )
    return [applied]


def _default_apply(
    round_: Round, work: Work, actor: Actor, overdue_since: str | None
) -> tuple[AppliedDefault | None, RoundState]:
    """The one default due now, applied to the engine state (None when no decision is due)."""
    if round_.status == RoundStatus.BETTING:
        return AppliedDefault("close_betting"), betting_close(round_, work, actor, by_default=True)
    state = round_state(round_)
    if state.phase is Phase.INSURANCE:
        extra: dict[str, str | int | None] = {"default": "insurance_declined", "overdue_since": overdue_since}
        state, _ = step(state, CloseInsurance(), work, "default_applied", extra)
        return AppliedDefault("insurance_declined"), auto_deal(round_, state, work)
    turn = current_turn(state)
    if turn is None:
        return None, state
    box = state.boxes[state.turn_box]
    extra = {"default": "stand", "overdue_since": overdue_since, "hand": turn[1]}
    state, _ = step(state, Stand(box.owner, box.number), work, "default_applied", extra)
    return AppliedDefault("stand", turn[0], turn[1]), auto_deal(round_, state, work)


# ------------------------------------------------------------------------------------ the runner


def round_command(round_id: int, body: Callable[[Round, list[AppliedDefault]], T], actor: Actor) -> T:
    """Run a serialized round command: overdue defaults first (each in a transaction of its own,
    so they stand even if the command is then refused), then ``body`` under the round's
    exclusive lock, with the defaults applied for it. A terminal of another table is refused
    ``wrong_table`` before anything happens. A refusal after defaults were applied says so
    (``effects_stand``): a caller rolling back refused requests keeps them."""
    applied: list[AppliedDefault] = []
    for _attempt in range(5):
        try:
            with transaction.atomic():
                round_ = lock_round(round_id)
                require_terminal_at(actor, round_.table)
                if not is_overdue(round_, timezone.now()):
                    round_.config = config_get(round_.config_id)
                    return body(round_, applied)
        except ServiceError as error:
            error.effects_stand = error.effects_stand or bool(applied)
            raise
        # Overdue, and nothing was written: apply the default, then try the command again.
        applied.extend(round_apply_overdue_defaults(round_id=round_id))
    raise RoundInProgressError("the round is busy; try again")
