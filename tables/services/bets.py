"""Bets and their cancellation during betting (rules/blackjack.md 2.2-2.4, 2.8, 3.1, 3.2).

Whether a bet is legal is the engine's decision (``games.blackjack.betting.bet_check``):
this module reads the rows the check needs, asks it, and writes the bet and its hold.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from casino.actors import Actor
from casino.errors import PermissionRefusedError, game
from casino.gaming_day_state import gaming_day_writable
from casino.hints import hint, player_topic, table_topics
from casino.locking import player_lock
from casino.models import Player
from casino.table_access import require_player
from games.blackjack import Bet as EngineBet
from games.blackjack import BetKind as EngineBetKind
from games.blackjack.betting import bet_check, betting_view
from games.blackjack.rules import RuleSet as EngineRuleSet
from tables.errors import (
    BettingClosedError,
    BoxNotTakenError,
    InvalidBetKindError,
    NoSuchBetError,
    NoSuchBoxError,
    NotBetOwnerError,
    NotBoxOwnerError,
    RoundNotOpenError,
)
from tables.locking import lock_round, round_lock_take
from tables.models import BOX_NUMBERS, Bet, BetKind, BetStatus, Box, Round, RoundStatus, Seat
from tables.services.commands import bets_release, engine_player, engine_seats, stake_hold
from tables.services.config import config_get, config_limits, config_rules
from tables.sql import bet_insert, bets_for_check, round_for_bet

PLACEABLE_KINDS = (BetKind.MAIN, BetKind.BEHIND, BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)
SIDE_KINDS = (BetKind.PERFECT_PAIRS, BetKind.TWENTY_ONE_PLUS_THREE)


def _exposure(kind: str, stake: int, follow_double: bool, follow_split: bool, max_hands: int) -> int:
    """What a bet behind may need at most: its presets follow the owner's doubles and splits
    (rules 2.4), so the whole exposure is held when the bet is placed (the unused part is freed at
    settlement)."""
    if kind != BetKind.BEHIND:
        return stake
    hands = max_hands if follow_split else 1
    return stake * hands * (2 if follow_double else 1)


def _round_for_bet(round_id: int) -> Round:
    """The round for a bet or its cancellation, under the round's lock in shared mode."""
    try:
        return lock_round(round_id, shared=True)
    except Round.DoesNotExist as error:
        raise RoundNotOpenError("no such round") from error


def _bets_checked(round_id: int, box_number: int, player_id: int, kind: str) -> list[EngineBet]:
    """The placed bets a new bet's check reads, as the engine's bets: the box's main and side
    bets (partial index ``bet_round_box_main_side_idx``) and the bettor's own main bets (boxes
    per player), plus, for a main bet, the bettor's own bets on the box (never behind one's own
    box) (``bet_round_player_idx``). Other players' bets behind are never read, nor the bettor's
    other bets behind: a box may have hundreds, and no rule needs them."""
    rows = bets_for_check(round_id, box_number, player_id, own_on_box=kind == BetKind.MAIN)
    return [
        EngineBet(str(pk), engine_player(player), box, EngineBetKind(bet_kind), stake, double, split)
        for pk, player, box, bet_kind, stake, double, split in rows
    ]


def bet_place(
    *,
    round_id: int,
    actor: Actor,
    box_number: int,
    kind: str,
    stake_minor: int,
    follow_double: bool = False,
    follow_split: bool = False,
    idempotency_key: str = "",
) -> Bet:
    """Place a main bet, a bet behind or a side bet; its stake is held on the player's wallet at
    once (a bet behind holds what its presets may need). ``idempotency_key`` is the request's, kept
    on the bet for the record; the caller's edge (the terminal API) makes a retry harmless.

    Locks: the round's advisory lock shared (bets run in parallel; "no more bets" and every owner
    change of a box wait for them), the gaming day's shared (``gaming_day_writable``: a bet is a
    write of the day it is placed in, refused ``gaming_day_closed`` when that day is closed), then
    the player row FOR NO KEY UPDATE (one player's bets take
    turns, so the per-player checks cannot race; in the statement that reads the round and the
    box, ``tables.sql.round_for_bet``), then the player's wallet account. Statements: the lock,
    that read, the bets the check needs, the hold, the bet with its link to the hold (a seat
    too, for a first bet behind a box). Refusals, with nothing written: the engine's (``betting_closed``, ``stake_below_table_min``,
    ``stake_above_table_max``, ``box_taken``, ``not_box_owner``, ``box_limit_reached``,
    ``bet_behind_own_box``, ``bets_behind_forbidden``, ``bet_behind_not_offered``,
    ``side_bet_not_offered``, ``side_bet_without_main_bet``, ``duplicate_side_bet``,
    ``invalid_stake``, ``no_such_box``, see ``bet_check``), the table's (``invalid_bet_kind``,
    ``round_not_open``, ``gaming_day_closed``, ``not_box_owner`` for a main bet on a box not taken, ``box_not_taken`` for
    a bet behind an empty box, ``permission_denied``) and the wallet's (``insufficient_funds``).
    """
    bettor = _bet_request_checked(kind, box_number, actor)
    # No savepoint: inside its request's transaction (the terminal API's) a bet is the whole of
    # it, and a refusal rolls that back, so the savepoint and its release would be two statements
    # of a bet's thirteen for nothing. A caller that goes on after a refused bet in a transaction
    # of its own wraps the call in ``transaction.atomic()``.
    with transaction.atomic(savepoint=False):
        round_lock_take(round_id, shared=True)
        gaming_day_writable(casino=bettor.casino)
        read = round_for_bet(round_id, box_number, bettor.pk)  # locks the player's row too
        if read is None:
            raise RoundNotOpenError("no such round")
        round_ = read.round
        player = require_player(actor, round_.table)
        is_behind = kind == BetKind.BEHIND
        wanted = _bet_wanted(player.pk, box_number, kind, stake_minor, follow_double, follow_split)
        box, rules = _bet_checked(round_, read.box, player.pk, wanted)
        if is_behind and not read.is_seated:
            Seat.objects.bulk_create([Seat(box=box, player=player)], ignore_conflicts=True)
        amount = _exposure(kind, stake_minor, wanted.follow_double, wanted.follow_split, rules.max_hands)
        # The stake is held first (``insufficient_funds`` before any bet row), then the bet and its
        # link to the hold are one statement.
        hold = stake_hold(round_, player, read.bet_id, amount)
        bet = bet_insert(
            bet_id=read.bet_id,
            hold_id=hold.pk,
            hold_amount_minor=amount,
            hold_reason="placed",
            round_id=round_.pk,
            box_number=box_number,
            player_id=player.pk,
            kind=kind,
            stake_minor=stake_minor,
            follow_double=wanted.follow_double,
            follow_split=wanted.follow_split,
            insures_id=None,
            status=BetStatus.PLACED,
            idempotency_key=idempotency_key,
            placed_at=timezone.now(),
            terminal_id=actor.terminal.pk if actor.terminal is not None else None,
        )
        hint(*table_topics(round_.table), player_topic(player.pk))
    return bet


def _bet_request_checked(kind: str, box_number: int, actor: Actor) -> Player:
    """The bet's kind and box as the request names them, and its bettor (the player logged in at
    the terminal), before anything is read: ``invalid_bet_kind``, ``no_such_box`` (boxes 1 to 7),
    ``permission_denied``."""
    if kind not in PLACEABLE_KINDS:
        raise InvalidBetKindError(f"unknown bet kind {kind!r}")
    if isinstance(box_number, bool) or not isinstance(box_number, int) or box_number not in BOX_NUMBERS:
        raise NoSuchBoxError("boxes are numbered 1 to 7")
    if actor.player is None:
        raise PermissionRefusedError("A player must be logged in at a terminal.")
    return actor.player


def _bet_wanted(
    player_id: int, box_number: int, kind: str, stake_minor: int, follow_double: bool, follow_split: bool
) -> EngineBet:
    """The bet asked for, as the engine checks it (its id not given yet): the presets to follow
    the owner's doubles and splits only on a bet behind."""
    is_behind = kind == BetKind.BEHIND
    return EngineBet(
        bet_id="new",
        player=engine_player(player_id),
        box=box_number,
        kind=EngineBetKind(kind),
        stake_minor=stake_minor,
        follow_double=bool(follow_double) and is_behind,
        follow_split=bool(follow_split) and is_behind,
    )


def _bet_checked(
    round_: Round, box: Box | None, player_id: int, wanted: EngineBet
) -> tuple[Box, EngineRuleSet]:
    """Ask the engine whether ``wanted`` may be placed, from the rows its check reads (the box,
    the bets of ``_bets_checked``, the round's "bets behind" settings, deadline and
    configuration); return the box and the round's rules, or raise the refusal."""
    config = config_get(round_.config_id)
    rules = config_rules(config)
    placed = _bets_checked(round_.pk, wanted.box, player_id, wanted.kind.value)
    seats = engine_seats([box] if box is not None else [], round_.accepts_bets_behind or {}, rules)
    is_betting = round_.status == RoundStatus.BETTING
    state = betting_view(rules, is_betting=is_betting, seats=seats, bets=placed)
    limits = config_limits(config)
    now = timezone.now()
    game(lambda: bet_check(state, wanted, limits=limits, closes_at=round_.decision_deadline_at, now=now))
    if box is None:
        raise NoSuchBoxError(f"no box {wanted.box}")
    # A box is taken before it is played (``box_take``); the engine alone would let the first
    # main bet make its player the owner.
    if box.owner_id is None and wanted.kind is EngineBetKind.MAIN:
        raise NotBoxOwnerError(f"box {wanted.box} is not yours: take it first")
    if box.owner_id is None and wanted.kind is EngineBetKind.BEHIND:
        raise BoxNotTakenError(f"box {wanted.box} has no player to bet behind")
    return box, rules


def bet_cancel(*, round_id: int, actor: Actor, bet_id: int) -> list[Bet]:
    """Take back a bet before "no more bets"; a main bet takes the player's side bets on the box
    with it (rules 3.2). The holds are voided (stakes available again). Locks the round's lock
    shared and the player row, as a bet does. Raises ``betting_closed``, ``no_such_bet``,
    ``not_bet_owner``."""
    with transaction.atomic():
        round_ = _round_for_bet(round_id)
        player = require_player(actor, round_.table)
        if not round_.betting_is_open(timezone.now()):
            raise BettingClosedError("no more bets")
        player_lock(player_id=player.pk)
        bet = Bet.objects.filter(pk=bet_id, round_id=round_id, status=BetStatus.PLACED).first()
        if bet is None:
            raise NoSuchBetError(f"no open bet {bet_id}")
        if bet.player_id != player.pk:
            raise NotBetOwnerError("only the bettor cancels a bet")
        bets = [bet]
        if bet.kind == BetKind.MAIN:
            bets.extend(
                Bet.objects.filter(
                    round_id=round_id,
                    box_number=bet.box_number,
                    player=player,
                    status=BetStatus.PLACED,
                    kind__in=SIDE_KINDS,
                )
            )
        bets_release(
            round_=round_, bets=bets, status=BetStatus.CANCELLED, reason="bet cancelled", actor=actor
        )
    return list(Bet.objects.filter(pk__in=[item.pk for item in bets]))
