"""The round as an event log: open betting, bets, no more bets, cards, insurance, decisions,
overdue defaults, corrections and voids. Settlement is in ``tables.services.settlement``.

Locks: a command on a round takes the round's advisory lock exclusively and its row FOR UPDATE
(one command at a time per round); bets and their cancellation take the advisory lock shared,
so many bets run in parallel and "no more bets" waits for the bets in flight, after which every
bet sees betting closed: a bet is either committed before the close or refused with nothing
moved (see ``tables.services.common.lock_round``). After the round row: the
player row, the box row, then the wallet (holds, accounts) and the audit chain last.

Every command first applies the round's overdue default (betting closed, insurance declined,
stand), each recorded as a ``default_applied`` event; so does the Celery task
``tables.tasks.apply_overdue_defaults`` scheduled for the deadline, whichever comes first.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from casino.errors import PermissionRefusedError, ServiceError
from casino.models import Player
from casino.rows import LinkedRow, next_id_sql, part, row_loaded, rows_joined
from tables.errors import (
    AwaitingCorrectionError,
    BetBehindOwnBoxError,
    BetsBehindForbiddenError,
    BettingClosedError,
    BoxTakenError,
    DecisionDeadlinePassedError,
    InvalidConfigurationError,
    MisscanError,
    NoSuchBoxError,
    NotBoxOwnerError,
    RoundInProgressError,
    RoundNotOpenError,
    ShuffleDueError,
    SideBetWithoutMainBetError,
    StakeAboveTableMaxError,
    StakeBelowTableMinError,
    TableError,
    from_game_error,
)
from tables.games.blackjack import (
    Action,
    CloseBetting,
    CloseInsurance,
    DealCard,
    DeclineInsurance,
    Double,
    Hit,
    Phase,
    PlaceBet,
    RoundState,
    Split,
    Stand,
    Surrender,
    TakeInsurance,
    apply,
    current_turn,
    new_round,
    next_card_target,
    state_from_dict,
    state_to_dict,
)
from tables.games.blackjack import Bet as EngineBet
from tables.games.blackjack import BetKind as EngineBetKind
from tables.games.blackjack import (
    Seat as EngineSeat,
)
from tables.games.blackjack.events import BetRefunded, StakeAdded
from tables.games.cards import Card
from tables.games.errors import GameError
from tables.models import (
    BOX_NUMBERS,
    OPEN_ROUND_STATUSES,
    Bet,
    BetHold,
    BetKind,
    BetStatus,
    Box,
    Round,
    RoundEvent,
    RoundStatus,
    Seat,
    Shoe,
    Table,
)
from tables.services.common import (
    Actor,
    EventDraft,
    event_fields,
    events_write,
    lock_round,
    require_dealer_or_reader,
    require_player,
    require_staff,
    require_terminal_at,
    round_lock_take,
)
from tables.services.config import config_get, config_rules, table_config_current
from tables.services.shoes import shoe_current, shoe_remaining, shuffle_due
from wallet.idempotency import idempotent
from wallet.models import HoldStatus
from wallet.services import _hold_place_unrecorded, holds_void

T = TypeVar("T")

PHASE_STATUS = {
    Phase.BETTING: RoundStatus.BETTING,
    Phase.DEALING: RoundStatus.DEALING,
    Phase.INSURANCE: RoundStatus.INSURANCE,
    Phase.PLAYERS: RoundStatus.PLAYERS,
    Phase.DEALER: RoundStatus.DEALER,
    Phase.SETTLED: RoundStatus.SETTLING,
}
DECISIONS: dict[str, type[Any]] = {
    "hit": Hit,
    "stand": Stand,
    "double": Double,
    "split": Split,
    "surrender": Surrender,
}
PLACEABLE_KINDS = (BetKind.MAIN, BetKind.BEHIND, BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)
LIMIT_PREFIX = {
    BetKind.MAIN: "main",
    BetKind.BEHIND: "behind",
    BetKind.PERFECT_PAIRS: "perfect_pairs",
    BetKind.TWENTY_ONE_PLUS_THREE: "twenty_one_plus_three",
}


# ------------------------------------------------------------------------------------------- helpers


def _game(call: Callable[[], T]) -> T:
    try:
        return call()
    except GameError as error:
        raise from_game_error(error) from error


def engine_player(player_id: int) -> str:
    return str(player_id)


def round_state(round_: Round) -> RoundState:
    if round_.snapshot is None:
        raise RoundNotOpenError("the round has no engine state")
    return state_from_dict(round_.snapshot)


@dataclass
class _Work:
    """What a command produced: events to append, holds to void after the table's writes."""

    drafts: list[EventDraft] = field(default_factory=list)
    void_bets: list[Bet] = field(default_factory=list)
    void_reason: str = ""


def _step(
    state: RoundState, action: Action, work: _Work, kind: str, extra: dict[str, Any] | None = None
) -> tuple[RoundState, tuple[Any, ...]]:
    state, events = _game(lambda: apply(state, action))
    payload = {"action": action.to_dict(), "events": [event.to_dict() for event in events], **(extra or {})}
    work.drafts.append(EventDraft(kind, payload))
    return state, events


def _is_virtual(round_: Round) -> bool:
    return round_.shoe.kind == Shoe.Kind.VIRTUAL


def _auto_deal(round_: Round, state: RoundState, work: _Work) -> RoundState:
    """On a virtual shoe, deal every card the round expects now, from the shuffled order."""
    if not _is_virtual(round_):
        return state
    shoe = round_.shoe
    order = shoe.order or []
    dealt = False
    while next_card_target(state) is not None:
        if shoe.position >= len(order):
            raise TableError("the shoe is exhausted; void the round and shuffle", code="shoe_exhausted")
        card = Card.parse(order[shoe.position])
        shoe.position += 1
        dealt = True
        state, _ = _step(state, DealCard(card), work, "card_dealt", {"source": "virtual_shoe"})
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


def _schedule_defaults(round_id: int, deadline: dt.datetime | None) -> None:
    """Queue the Celery task for the deadline, on commit. Eager Celery (tests, embedded mode)
    would run it at once, before the deadline: there the next command applies defaults lazily."""
    if deadline is None or getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return
    from tables.tasks import apply_overdue_defaults

    transaction.on_commit(lambda: apply_overdue_defaults.apply_async(args=[round_id], eta=deadline))


def _finish(round_: Round, state: RoundState, work: _Work, actor: Actor, now: dt.datetime) -> None:
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
        _schedule_defaults(round_.pk, deadline)
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
    holds (audited by the wallet) and one update of the bets."""
    ids = [bet.pk for bet in bets]
    if not ids:
        return
    Bet.objects.filter(pk__in=ids).update(status=status)
    hold_ids = list(
        BetHold.objects.filter(bet_id__in=ids, hold__status=HoldStatus.OPEN).values_list("hold_id", flat=True)
    )
    if hold_ids:
        holds_void(
            hold_ids=hold_ids,
            reason=reason,
            idempotency_key=f"round:{round_.pk}:release:{min(ids)}:{len(ids)}:{status}",
            scope=f"table:{round_.table_id}",
            actor=actor.user,
            actor_name=actor.name,
        )


# ------------------------------------------------------------------------ overdue defaults & commands


def _is_overdue(round_: Round, now: dt.datetime) -> bool:
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
    """Apply the default of an overdue deadline (betting: closed; insurance: declined by every
    bettor still undecided; decision: stand), once per deadline, each recorded as a
    ``default_applied`` event and audited. Idempotent: nothing happens before the deadline or
    when it was already applied. Locks the round FOR UPDATE. Returns what was applied."""
    actor = Actor.automatic("decision timer")
    applied: list[AppliedDefault] = []
    with transaction.atomic():
        round_ = lock_round(round_id)
        now = now or timezone.now()
        if not _is_overdue(round_, now):
            return []
        round_.config = config_get(round_.config_id)
        work = _Work()
        overdue_since = round_.decision_deadline_at.isoformat() if round_.decision_deadline_at else None
        if round_.status == RoundStatus.BETTING:
            state = _close_betting(round_, work, actor, by_default=True)
            applied.append(AppliedDefault("close_betting"))
        else:
            state = round_state(round_)
            if state.phase is Phase.INSURANCE:
                state, _ = _step(
                    state,
                    CloseInsurance(),
                    work,
                    "default_applied",
                    {"default": "insurance_declined", "overdue_since": overdue_since},
                )
                applied.append(AppliedDefault("insurance_declined"))
            else:
                turn = current_turn(state)
                if turn is None:
                    return []
                box = state.boxes[state.turn_box]
                state, _ = _step(
                    state,
                    Stand(box.owner, box.number),
                    work,
                    "default_applied",
                    {"default": "stand", "overdue_since": overdue_since, "hand": turn[1]},
                )
                applied.append(AppliedDefault("stand", turn[0], turn[1]))
            state = _auto_deal(round_, state, work)
        _finish(round_, state, work, actor, now)
        actor.audit(
            action="round.default_applied",
            object_type="tables.round",
            object_id=round_.pk,
            after={
                "defaults": [item.__dict__ for item in applied],
                "overdue_since": overdue_since,
                "status": round_.status,
            },
        )
    return applied


class _Overdue(Exception):
    pass


def _command(round_id: int, body: Callable[[Round, list[AppliedDefault]], T], actor: Actor) -> T:
    """Run a serialized round command: overdue defaults first (in their own transaction, so they
    stand even if the command is then refused), then the command under the round's row lock.
    A terminal of another table is refused ``wrong_table`` before anything happens."""
    applied: list[AppliedDefault] = []
    for _attempt in range(5):
        try:
            with transaction.atomic():
                round_ = lock_round(round_id)
                require_terminal_at(actor, round_.table)
                if _is_overdue(round_, timezone.now()):
                    # Nothing was written: roll back, apply the default in its own transaction.
                    raise _Overdue
                round_.config = config_get(round_.config_id)
                return body(round_, applied)
        except _Overdue:
            applied.extend(round_apply_overdue_defaults(round_id=round_id))
        except ServiceError as error:
            # The command's own writes are rolled back; the defaults applied before it stand.
            error.effects_stand = error.effects_stand or bool(applied)
            raise
    raise RoundInProgressError("the round is busy; try again")


# ------------------------------------------------------------------------------------- open / close


def round_open(*, table: Table, actor: Actor) -> Round:
    """Open betting for the next round with the table's current configuration version and shoe.

    Needs the dealer (``casino.run_table``) or the system. Locks the table row. Raises
    ``round_in_progress`` (a round is open), ``shuffle_due`` (no shoe, or ``shuffle_every_rounds``
    reached: record a shuffle first), ``invalid_configuration``. Writes the ``betting_opened``
    event (the engine snapshot with the seats and their "bets behind" settings, which hold for
    this round) and the audit record.
    """
    require_dealer_or_reader(actor, table)
    with transaction.atomic():
        # NO KEY UPDATE: table-wide commands take turns, and rows referring to the table (a
        # player session, a round) still pass their foreign-key check, made at commit.
        Table.objects.select_for_update(no_key=True).get(pk=table.pk)
        if Round.objects.filter(table=table).open().exists():
            raise RoundInProgressError("a round is already open at this table")
        config = table_config_current(table)
        if config is None:
            raise InvalidConfigurationError(f"{table} has no configuration")
        shoe = shoe_current(table)
        if shoe is None or shuffle_due(table, shoe, config):
            raise ShuffleDueError("a shuffle is due: record it before the next round")
        rules = config_rules(config)
        boxes = list(Box.objects.filter(table=table, owner__isnull=False).order_by("number"))
        accepts = {str(box.number): box.accepts_bets_behind for box in boxes}
        seats = [
            EngineSeat(box.number, engine_player(box.owner_id), box.accepts_bets_behind)
            for box in boxes
            if box.number <= rules.boxes
        ]
        state = _game(lambda: new_round(rules, seats=seats, shoe_remaining=shoe_remaining(shoe)))
        last = (
            Round.objects.filter(table=table).order_by("-number").values_list("number", flat=True).first()
            or 0
        )
        now = timezone.now()
        snapshot = state_to_dict(state)
        # The round row is inserted with the snapshot and version of its first event.
        round_ = Round.objects.create(
            table=table,
            number=last + 1,
            config=config,
            shoe=shoe,
            dealer=actor.user,
            accepts_bets_behind=accepts,
            decision_deadline_at=now + dt.timedelta(seconds=config.betting_seconds),
            snapshot=snapshot,
            version=1,
        )
        RoundEvent.objects.create(
            **event_fields(
                round_,
                1,
                EventDraft(
                    "betting_opened",
                    {"config_id": config.pk, "shoe_id": shoe.pk, "rules": rules.to_dict()},
                    snapshot,
                ),
                actor,
                now,
            )
        )
        _schedule_defaults(round_.pk, round_.decision_deadline_at)
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


def _close_betting(round_: Round, work: _Work, actor: Actor, *, by_default: bool) -> RoundState:
    """Build the engine round from the seats and the bets placed (in placing order) and close
    betting; bets behind a box whose owner does not play are returned at once."""
    config = round_.config
    rules = config_rules(config)
    accepts = round_.accepts_bets_behind or {}
    boxes = list(Box.objects.filter(table_id=round_.table_id, owner__isnull=False).order_by("number"))
    seats = [
        EngineSeat(box.number, engine_player(box.owner_id), bool(accepts.get(str(box.number), True)))
        for box in boxes
        if box.number <= rules.boxes
    ]
    initial = _game(lambda: new_round(rules, seats=seats, shoe_remaining=shoe_remaining(round_.shoe)))
    state = initial
    bets = list(Bet.objects.filter(round=round_).exclude(kind=BetKind.INSURANCE).order_by("pk"))
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
        action = PlaceBet(_engine_bet(bet))
        try:
            state, events = apply(state, action)
        except GameError as error:
            # A bet the engine refuses here (e.g. a box that changed hands) goes back at once.
            refused.append(bet)
            work.drafts.append(
                EventDraft(
                    "bet_refused", {"bet_id": str(bet.pk), "code": error.code, "message": error.message}
                )
            )
            continue
        work.drafts.append(
            EventDraft("bet_placed", {"action": action.to_dict(), "placed_at": bet.placed_at.isoformat()})
        )
    state, events = _step(
        state,
        CloseBetting(),
        work,
        "default_applied" if by_default else "betting_closed",
        {"initial": state_to_dict(initial), "default": "betting_closed" if by_default else None},
    )
    refunded_ids = {int(event.bet_id) for event in events if isinstance(event, BetRefunded)}
    work.void_bets = [bet for bet in bets if bet.pk in refunded_ids] + refused
    work.void_reason = "bet behind a box whose owner does not play"
    return _auto_deal(round_, state, work)


def _engine_bet(bet: Bet) -> EngineBet:
    return EngineBet(
        bet_id=str(bet.pk),
        player=engine_player(bet.player_id),
        box=bet.box_number,
        kind=EngineBetKind(bet.kind),
        stake_minor=bet.stake_minor,
        follow_double=bet.follow_double,
        follow_split=bet.follow_split,
    )


def round_close_betting(*, round_id: int, actor: Actor) -> Round:
    """ "No more bets": betting closes, the boxes that play are fixed, bets behind a box whose
    owner does not play are returned (holds voided), and on a virtual shoe the first cards are
    dealt. Needs the dealer or the system. Waits for the bets in flight (round row FOR UPDATE
    against their FOR SHARE). Raises ``betting_closed``. Audited."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status != RoundStatus.BETTING:
            raise BettingClosedError("betting is already closed")
        work = _Work()
        state = _close_betting(round_, work, actor, by_default=False)
        _finish(round_, state, work, actor, timezone.now())
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

    return _command(round_id, body, actor)


# ------------------------------------------------------------------------------------------- bets


def _exposure(kind: str, stake: int, follow_double: bool, follow_split: bool, max_hands: int) -> int:
    """What a bet behind may need at most: its presets follow the owner's doubles and splits, so
    the whole exposure is held when the bet is placed (the unused part is freed at settlement)."""
    if kind != BetKind.BEHIND:
        return stake
    hands = max_hands if follow_split else 1
    return stake * hands * (2 if follow_double else 1)


def _bet_round_and_box(round_id: int, player_id: int, number: int) -> tuple[Round, Box | None, int | None]:
    """For a bet, under the round's advisory lock in shared mode (see ``lock_round``): the round
    with its table (without the engine snapshot, which bets never read), the box row, and a new
    bet id (``next_id_sql``), in one statement that also locks the bettor's row (one
    player's bets are serialized, so the per-player and per-box checks cannot race with the same
    player's other bets) and the box row FOR SHARE (its owner cannot change until the bet
    commits). The round row is read after its lock was granted: nothing changes it meanwhile.
    The box is None when the table has no such box (nothing is locked then: the bet is refused).
    Raises ``round_not_open`` when there is no such round."""
    round_lock_take(round_id, shared=True)
    sql = (
        f"SELECT {{columns}}, {next_id_sql(Bet)} FROM tables_round r JOIN tables_table t ON t.id = r.table_id "
        "JOIN tables_box b ON b.table_id = r.table_id AND b.number = %s "
        "JOIN casino_player p ON p.id = %s WHERE r.id = %s"
    )
    if connection.vendor == "postgresql":
        # NO KEY UPDATE: serializes the player's bets without blocking the foreign-key checks
        # of others (a box handed over to this player checks its owner with FOR KEY SHARE).
        sql += " FOR NO KEY UPDATE OF p FOR SHARE OF b"
    parts = [part(Round, "r", skip=["snapshot"]), part(Table, "t"), part(Box, "b")]
    found = rows_joined(sql, [number, player_id, round_id], parts)
    if found is None:
        return _round_for_bet(round_id), None, None
    round_, table, box, bet_id = found
    round_.table = table
    return round_, box, bet_id


# The kinds and the status are constants of the text, not parameters: PostgreSQL plans a prepared
# statement once for any parameters (a generic plan), and only a literal ``kind <> 'behind'`` lets
# that plan use the partial index of a box's main and side bets instead of reading every bet of
# the round.
_BOX_BETS_AND_SEAT_SQL = (
    f"SELECT kind, player_id FROM tables_bet WHERE round_id = %s AND box_number = %s "
    f"AND status = '{BetStatus.PLACED.value}' AND kind <> '{BetKind.BEHIND.value}' "
    f"UNION ALL SELECT kind, player_id FROM tables_bet WHERE round_id = %s AND player_id = %s "
    f"AND box_number = %s AND status = '{BetStatus.PLACED.value}' AND kind = '{BetKind.BEHIND.value}' "
    "UNION ALL SELECT '', player_id FROM tables_seat WHERE box_id = %s AND player_id = %s"
)


def _box_bets_and_seat(round_id: int, box: Box, player_id: int) -> tuple[list[tuple[str, int]], bool]:
    """What a bet on the box checks, read after the locks, in one statement: the box's placed
    main and side bets, the bettor's own placed bets behind it, (kind, player) of each, and
    whether the bettor has a seat at the box (bets behind need one). Other players' bets behind
    are never read: a box may have hundreds, and no check needs them (both parts are index
    scans of a few rows, see ``Bet.Meta.indexes``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            _BOX_BETS_AND_SEAT_SQL, [round_id, box.number, round_id, player_id, box.number, box.pk, player_id]
        )
        rows = cursor.fetchall()
    return [(kind, bettor) for kind, bettor in rows if kind], any(not kind for kind, _ in rows)


def _round_for_bet(round_id: int) -> Round:
    """The round for a bet or its cancellation, under the round's lock in shared mode (see
    ``lock_round``): the row with its table, without the engine snapshot (bets never read it)."""
    try:
        return lock_round(round_id, shared=True)
    except Round.DoesNotExist as error:
        raise RoundNotOpenError("no such round") from error


def bet_place(
    *,
    round_id: int,
    actor: Actor,
    box_number: int,
    kind: str,
    stake_minor: int,
    idempotency_key: str,
    follow_double: bool = False,
    follow_split: bool = False,
) -> Bet:
    """Place a main bet, a bet behind or a side bet; its stake is held on the player's wallet at
    once. Idempotent per player (scope ``bet:player:<id>``): a retry returns the same bet.

    Locks: the round's lock shared (bets run in parallel; "no more bets" waits for them), the
    player row, the box row FOR SHARE, then the player's wallet account. Nothing is written on
    the round row. Raises ``betting_closed``, ``stake_below_table_min``, ``stake_above_table_max``,
    ``not_box_owner`` (a main bet on a box not yours), ``box_taken`` (the box has its main bet),
    ``box_not_taken`` (a bet behind an empty box), ``bet_behind_own_box``,
    ``bets_behind_forbidden``, ``bet_behind_not_offered``, ``side_bet_not_offered``,
    ``side_bet_without_main_bet``, ``duplicate_side_bet``, ``no_such_box``, ``invalid_stake``,
    ``insufficient_funds``, ``idempotency_key_reused``.

    Statements on PostgreSQL (6, 7 for a first bet behind a box, besides BEGIN and COMMIT): the
    idempotency record, the round lock, the round row with its table and box and the player and
    box locks and the new bet's id, the box's placed bets with the bettor's seat, the hold with
    its account update and the bet and the bet's hold link (written only if the wallet covers the
    stake), the stored response. The wallet's hold is covered by the bet's idempotency record and
    writes none of its own; called by an idempotent request (the terminal API), the bet is
    covered by the request's record in turn. The hot reads and inserts are raw statements
    (``casino.rows``): compiling their ORM queries cost more than running them.
    """
    if kind not in PLACEABLE_KINDS:
        raise TableError(f"unknown bet kind {kind!r}", code="invalid_bet_kind")
    if isinstance(stake_minor, bool) or not isinstance(stake_minor, int) or stake_minor <= 0:
        raise TableError("a stake is a positive whole number of minor units", code="invalid_stake")
    if isinstance(box_number, bool) or not isinstance(box_number, int) or box_number not in BOX_NUMBERS:
        raise NoSuchBoxError("boxes are numbered 1 to 7")
    if actor.player is None:
        raise PermissionRefusedError("A player must be logged in at a terminal.")
    player = actor.player
    scope = f"bet:player:{player.pk}"
    created: list[Bet] = []

    def perform() -> dict[str, Any]:
        round_, box, bet_id = _bet_round_and_box(round_id, player.pk, box_number)
        require_player(actor, round_.table)
        if not round_.betting_is_open(timezone.now()):
            raise BettingClosedError("no more bets")
        config = config_get(round_.config_id)
        rules = config_rules(config)
        prefix = LIMIT_PREFIX[BetKind(kind)]
        low, high = getattr(config, f"{prefix}_min_minor"), getattr(config, f"{prefix}_max_minor")
        if stake_minor < low:
            raise StakeBelowTableMinError(f"the {prefix} minimum is {low}", minimum_minor=low)
        if stake_minor > high:
            raise StakeAboveTableMaxError(f"the {prefix} maximum is {high}", maximum_minor=high)
        if box_number > rules.boxes:
            raise NoSuchBoxError(f"the table has boxes 1 to {rules.boxes}")
        if box is None or bet_id is None:
            raise NoSuchBoxError(f"no box {box_number}")
        placed, seated = _box_bets_and_seat(round_.pk, box, player.pk)
        if kind == BetKind.MAIN:
            if box.owner_id != player.pk:
                raise NotBoxOwnerError(f"box {box_number} is not yours: take it first")
            if any(placed_kind == BetKind.MAIN for placed_kind, _ in placed):
                raise BoxTakenError(f"box {box_number} already has its main bet")
            if any(bettor == player.pk for _, bettor in placed):
                raise BetBehindOwnBoxError("you have a bet behind this box")
        elif kind == BetKind.BEHIND:
            if not rules.bet_behind:
                raise TableError("this table takes no bets behind", code="bet_behind_not_offered")
            if box.owner_id is None:
                raise TableError(f"box {box_number} has no player to bet behind", code="box_not_taken")
            if box.owner_id == player.pk:
                raise BetBehindOwnBoxError("a player never bets behind their own box")
            if not (round_.accepts_bets_behind or {}).get(str(box_number), True):
                raise BetsBehindForbiddenError(f"the owner of box {box_number} takes no bets behind")
            if not seated:
                # One INSERT ... ON CONFLICT DO NOTHING: no savepoint, unlike get_or_create.
                Seat.objects.bulk_create([Seat(box=box, player=player)], ignore_conflicts=True)
        else:
            paytable = rules.perfect_pairs if kind == BetKind.PERFECT_PAIRS else rules.twenty_one_plus_three
            if paytable is None:
                raise TableError(f"this table has no {kind} bet", code="side_bet_not_offered")
            if not any(placed_kind == BetKind.MAIN and bettor == player.pk for placed_kind, bettor in placed):
                raise SideBetWithoutMainBetError("a side bet needs your main bet on the same box")
            if any(placed_kind == kind for placed_kind, _ in placed):
                raise TableError(f"box {box_number} already has a {kind} bet", code="duplicate_side_bet")
        is_behind = kind == BetKind.BEHIND
        values = dict(
            id=bet_id,
            round_id=round_.pk,
            box_number=box_number,
            player_id=player.pk,
            kind=kind,
            stake_minor=stake_minor,
            follow_double=bool(follow_double) and is_behind,
            follow_split=bool(follow_split) and is_behind,
            insures_id=None,
            status=BetStatus.PLACED,
            idempotency_key=idempotency_key,
            placed_at=timezone.now(),
            terminal_id=actor.terminal.pk if actor.terminal is not None else None,
        )
        bet = row_loaded(Bet, **values)
        amount = _exposure(kind, stake_minor, bet.follow_double, bet.follow_split, rules.max_hands)
        # The hold, the bet and the bet's link to its hold: one statement (PostgreSQL), written only
        # if the wallet covers the stake. The bet's idempotency record (this command's) covers the
        # hold: no record of its own.
        _hold_place_unrecorded(
            player=player,
            amount_minor=amount,
            table=round_.table,
            reference_id=round_.pk,
            bet_reference=str(bet.pk),
            with_rows=[
                LinkedRow(Bet, values),
                LinkedRow(BetHold, {"bet_id": bet.pk, "amount_minor": amount, "reason": "placed"}, "hold_id"),
            ],
        )
        created.append(bet)
        return {"bet_id": bet.pk}

    result = idempotent(
        scope=scope,
        key=idempotency_key,
        payload={
            "command": "bet_place",
            "round_id": round_id,
            "box": box_number,
            "kind": kind,
            "stake_minor": stake_minor,
            "follow_double": bool(follow_double),
            "follow_split": bool(follow_split),
        },
        perform=perform,
    )
    return created[0] if created else Bet.objects.get(pk=result.response["bet_id"])


def bet_cancel(*, round_id: int, actor: Actor, bet_id: int) -> list[Bet]:
    """Take back a bet before "no more bets"; a main bet takes the player's side bets on the box
    with it. The holds are voided (stakes available again). Locks the round FOR SHARE and the
    player row. Raises ``betting_closed``, ``no_such_bet``, ``not_bet_owner``."""
    with transaction.atomic():
        round_ = _round_for_bet(round_id)
        player = require_player(actor, round_.table)
        if not round_.betting_is_open(timezone.now()):
            raise BettingClosedError("no more bets")
        Player.objects.select_for_update(no_key=True).filter(pk=player.pk).first()
        bet = Bet.objects.filter(pk=bet_id, round_id=round_id, status=BetStatus.PLACED).first()
        if bet is None:
            raise TableError(f"no open bet {bet_id}", code="no_such_bet")
        if bet.player_id != player.pk:
            raise TableError("only the bettor cancels a bet", code="not_bet_owner")
        bets = [bet]
        if bet.kind == BetKind.MAIN:
            bets.extend(
                Bet.objects.filter(
                    round_id=round_id,
                    box_number=bet.box_number,
                    player=player,
                    status=BetStatus.PLACED,
                    kind__literal_in=[BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE],
                )
            )
        bets_release(
            round_=round_, bets=bets, status=BetStatus.CANCELLED, reason="bet cancelled", actor=actor
        )
    return list(Bet.objects.filter(pk__in=[item.pk for item in bets]))


# ------------------------------------------------------------------------------------------ cards


def card_enter(*, round_id: int, actor: Actor, card: str) -> Round:
    """A card leaves a physical shoe (dealer console or card reader); the engine places it where
    the deal expects it. A card that the remaining shoe cannot hold, that is not a card, or that
    arrives when none is expected is a misscan: it is recorded (``misscan`` event, audited), the
    round waits for a pit boss's ``card_correct``, and the call raises ``misscan`` (details:
    ``reason`` = the engine's code). Raises ``awaiting_correction``, ``virtual_shoe``."""
    refusal: list[MisscanError] = []

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status not in (
            RoundStatus.DEALING,
            RoundStatus.PLAYERS,
            RoundStatus.DEALER,
            RoundStatus.INSURANCE,
        ):
            raise RoundNotOpenError(f"no card is expected: the round is {round_.status}")
        if _is_virtual(round_):
            raise TableError("this table deals from a virtual shoe", code="virtual_shoe")
        if round_.awaiting_correction is not None:
            raise AwaitingCorrectionError("a misscanned card waits for a pit boss's correction")
        state = round_state(round_)
        work = _Work()
        try:
            parsed = Card.parse(card)
            state, _ = _step(state, DealCard(parsed), work, "card_dealt", {"source": "physical_shoe"})
        except (GameError, TableError) as error:
            code = getattr(error, "code", "misscan")
            round_.awaiting_correction = {
                "card": str(card)[:10],
                "reason": code,
                "at": timezone.now().isoformat(),
            }
            work = _Work(drafts=[EventDraft("misscan", {"card": str(card)[:10], "reason": code})])
            state = round_state(round_)
            _finish(round_, state, work, actor, timezone.now())
            actor.audit(
                action="round.misscan",
                object_type="tables.round",
                object_id=round_.pk,
                after={"card": str(card)[:10], "reason": code},
            )
            misscan = MisscanError(
                f"misscan: {card!r} ({code}); the round waits for a correction", reason=code
            )
            misscan.effects_stand = True  # the misscan is recorded: the round waits for its correction
            refusal.append(misscan)
            return round_
        _finish(round_, state, work, actor, timezone.now())
        return round_

    result = _command(round_id, body, actor)
    if refusal:
        raise refusal[0]
    return result


def card_correct(*, round_id: int, actor: Actor, card: str | None, reason: str) -> Round:
    """A pit boss resolves a misscan: ``card`` is the card that really left the shoe (placed as
    the deal expects it), or None when no card left it (a double read). Needs
    ``casino.void_round`` and a reason. Raises ``no_misscan``, ``reason_required`` or the
    engine's code if the corrected card is refused too. Audited with the misscan and the card."""
    require_staff(actor, "void_round")
    reason = (reason or "").strip()
    if not reason:
        raise TableError("a reason is required", code="reason_required")

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        if round_.awaiting_correction is None:
            raise TableError("no misscan to correct", code="no_misscan")
        misscan = round_.awaiting_correction
        state = round_state(round_)
        work = _Work()
        if card is not None:
            parsed = _game(lambda: Card.parse(card))
            state, _ = _step(
                state, DealCard(parsed), work, "card_corrected", {"misscan": misscan, "reason": reason}
            )
        else:
            work.drafts.append(
                EventDraft("card_corrected", {"misscan": misscan, "reason": reason, "card": None})
            )
        round_.awaiting_correction = None
        _finish(round_, state, work, actor, timezone.now())
        actor.audit(
            action="round.card_corrected",
            object_type="tables.round",
            object_id=round_.pk,
            before={"misscan": misscan},
            after={"card": card, "reason": reason},
        )
        return round_

    return _command(round_id, body, actor)


# ----------------------------------------------------------------------------- insurance & decisions


def insurance_decide(
    *, round_id: int, actor: Actor, bet_id: int, take: bool, idempotency_key: str = ""
) -> Round:
    """The bettor of a main bet or a bet behind takes insurance (exactly half the stake, held on
    the wallet) or declines it, while the dealer shows an ace. Raises ``insurance_not_offered``,
    ``insurance_already_decided``, ``insurance_stake_not_exact``, ``not_bet_owner``,
    ``insufficient_funds``."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        player = require_player(actor, round_.table)
        if round_.status != RoundStatus.INSURANCE:
            raise TableError("insurance is not on offer now", code="insurance_not_offered")
        insured = Bet.objects.filter(pk=bet_id, round=round_, status=BetStatus.PLACED).first()
        if insured is None:
            raise TableError(f"no bet {bet_id} in this round", code="no_such_bet")
        if insured.player_id != player.pk:
            raise TableError("only the bettor insures a bet", code="not_bet_owner")
        state = round_state(round_)
        work = _Work()
        now = timezone.now()
        if take:
            stake = insured.stake_minor // 2
            insurance = Bet.objects.create(
                round=round_,
                box_number=insured.box_number,
                player=player,
                kind=BetKind.INSURANCE,
                stake_minor=max(stake, 1),
                insures=insured,
                idempotency_key=idempotency_key,
                terminal=actor.terminal,
            )
            state, _ = _step(
                state,
                TakeInsurance(engine_player(player.pk), str(insured.pk), str(insurance.pk)),
                work,
                "insurance_taken",
            )
            # Serialized by the round's lock; the engine refuses a second insurance decision.
            hold = _hold_place_unrecorded(
                player=player,
                amount_minor=stake,
                table=round_.table,
                reference_id=round_.pk,
                bet_reference=str(insurance.pk),
            )
            BetHold.objects.create(bet=insurance, hold=hold, amount_minor=stake, reason="placed")
        else:
            state, _ = _step(
                state, DeclineInsurance(engine_player(player.pk), str(insured.pk)), work, "insurance_declined"
            )
        state = _auto_deal(round_, state, work)
        _finish(round_, state, work, actor, now)
        return round_

    return _command(round_id, body, actor)


def insurance_close(*, round_id: int, actor: Actor) -> Round:
    """The dealer ends the insurance offer; every bettor still undecided declines."""

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        require_dealer_or_reader(actor, round_.table)
        if round_.status != RoundStatus.INSURANCE:
            raise TableError("insurance is not on offer now", code="insurance_not_offered")
        work = _Work()
        state, _ = _step(round_state(round_), CloseInsurance(), work, "insurance_closed")
        state = _auto_deal(round_, state, work)
        _finish(round_, state, work, actor, timezone.now())
        return round_

    return _command(round_id, body, actor)


def decision_make(*, round_id: int, actor: Actor, box_number: int, decision: str) -> Round:
    """The box owner decides for the box's current hand: ``hit``, ``stand``, ``double``,
    ``split`` (``surrender`` where the rules allow it). A double or split holds the added stake
    on the owner's wallet (bets behind hold their presets' exposure when placed). On a virtual
    shoe the cards follow at once, and the dealer plays when the last box is done.

    Raises ``not_box_owner`` (someone else's box), ``not_your_turn``, ``<decision>_not_allowed``,
    ``card_expected``, ``decision_deadline_passed`` (the stand default was applied first),
    ``awaiting_correction``, ``insufficient_funds``.
    """
    action_class = DECISIONS.get(decision)
    if action_class is None:
        raise TableError(f"unknown decision {decision!r}", code="illegal_action")

    def body(round_: Round, applied: list[AppliedDefault]) -> Round:
        player = require_player(actor, round_.table)
        if any(item.kind == "stand" and item.box == box_number for item in applied):
            raise DecisionDeadlinePassedError("the decision time ran out: the box stood by default")
        if round_.awaiting_correction is not None:
            raise AwaitingCorrectionError("a misscanned card waits for a pit boss's correction")
        if round_.status != RoundStatus.PLAYERS:
            raise TableError("no player decision now", code="not_your_turn")
        state = round_state(round_)
        box = next((item for item in state.boxes if item.number == box_number), None)
        if box is not None and box.owner != engine_player(player.pk):
            raise NotBoxOwnerError(f"box {box_number} belongs to another player")
        work = _Work()
        state, events = _step(state, action_class(engine_player(player.pk), box_number), work, "decision")
        added = [event for event in events if isinstance(event, StakeAdded)]
        bets = (
            {
                str(bet.pk): bet
                for bet in Bet.objects.filter(round=round_, kind=BetKind.MAIN, box_number=box_number)
            }
            if added
            else {}
        )
        for event in added:
            if event.bet_id in bets:
                bet = bets[event.bet_id]
                # Serialized by the round's lock; a repeated decision is refused by the engine.
                hold = _hold_place_unrecorded(
                    player=player,
                    amount_minor=event.stake_minor,
                    table=round_.table,
                    reference_id=round_.pk,
                    bet_reference=str(bet.pk),
                )
                BetHold.objects.create(
                    bet=bet, hold=hold, amount_minor=event.stake_minor, reason=event.reason
                )
        state = _auto_deal(round_, state, work)
        _finish(round_, state, work, actor, timezone.now())
        return round_

    return _command(round_id, body, actor)


# -------------------------------------------------------------------------------------------- void


def round_void(*, round_id: int, actor: Actor, reason: str) -> Round:
    """A pit boss voids an open round: every stake is returned (open holds voided in bulk), the
    cards dealt count as used from the shoe. Needs ``casino.void_round`` and a reason. Raises
    ``round_not_open`` (settled or voided), ``reason_required``. Audited."""
    require_staff(actor, "void_round")
    reason = (reason or "").strip()
    if not reason:
        raise TableError("a reason is required", code="reason_required")
    with transaction.atomic():
        round_ = lock_round(round_id)
        if round_.status not in OPEN_ROUND_STATUSES:
            raise RoundNotOpenError(f"the round is {round_.status}")
        before = round_.status
        state = round_state(round_)
        _shoe_consume(round_.shoe, state)
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
            action="round.voided",
            object_type="tables.round",
            object_id=round_.pk,
            before={"status": before},
            after={"status": RoundStatus.VOIDED, "reason": reason, "bets_returned": len(bets)},
        )
    round_.refresh_from_db()
    return round_


def _shoe_consume(shoe: Shoe, state: RoundState) -> None:
    """Count the round's cards as dealt from the shoe, and the round as one more dealt."""
    counts = dict(shoe.dealt_counts or {})
    for card_ in state.cards_on_table():
        counts[card_.code] = int(counts.get(card_.code, 0)) + 1
    Shoe.objects.filter(pk=shoe.pk).update(dealt_counts=counts, rounds_dealt=shoe.rounds_dealt + 1)
