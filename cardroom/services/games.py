"""Canasta games at card-room tables: seats, the game's start, deals played move by move or
entered by the host, and each deal's score (docs/canasta-tables.md).

A game is opened by the host with the stake agreed (``canasta_game_open``: status ``seating``);
each player sits down with his hold placed at once (``canasta_seat_take``: a player without the
balance cannot sit); the host starts the game when every seat is taken (``canasta_game_start``)
and each deal (``canasta_deal_start``). A virtual deal is shuffled by the server (``secrets``)
and played through the terminals (``canasta_move``); at a physical-cards table the host enters
the finished deal (``canasta_deal_enter``). A scored deal adds to the score sheet; the deal that
ends the game (``game_standing``: a tie for first plays on) settles it in the same transaction
(``cardroom.services.settlement``).

Locks, in this order: the game row (every command on a game, its deal read under it), the
player's wallet row (``hold_place``), the wallet's holds and accounts at settlement, the audit
chain last. Refusals (``ServiceError`` codes): ``not_a_canasta_table``,
``canasta_game_in_progress``, ``no_canasta_game``, ``game_not_seating``, ``game_not_playing``,
``no_such_seat``, ``seat_taken``, ``already_seated``, ``not_seated``, ``seats_not_filled``,
``stake_out_of_range``, ``deal_in_progress``, ``no_deal_in_progress``, ``wrong_deal_kind``,
``stale_move``, ``invalid_move``, the engine's codes for a move or a finished deal, the wallet's
``insufficient_funds``; a refused command writes nothing. Seats are indexes from 0 in the
services and the API's paths and fields; a refusal's words number them from 1, as the table and
its page do (``seat_number`` in the details).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from cardroom.errors import (
    AlreadySeatedError,
    CanastaError,
    CanastaGameInProgressError,
    CanastaNoSuchSeatError,
    CanastaNotSeatedError,
    CannotGoOutError,
    DealInProgressError,
    InvalidDealDataError,
    InvalidMoveError,
    NoDealInProgressError,
    SeatsNotFilledError,
    SeatTakenError,
    StakeOutOfRangeError,
    StaleMoveError,
    WrongDealKindError,
)
from cardroom.models import (
    OPEN_CANASTA_GAME_STATUSES,
    CanastaDeal,
    CanastaDealEvent,
    CanastaDealKind,
    CanastaDealStatus,
    CanastaGame,
    CanastaGamePlayer,
    CanastaGameStatus,
)
from cardroom.services.common import game_lock, game_rules, require_host
from cardroom.services.config import canasta_config_values, canasta_table_checked
from cardroom.services.settlement import deal_score_record
from casino.actors import Actor
from casino.errors import PermissionRefusedError
from casino.errors import game as engine_call
from casino.event_log import EventDraft, events_append
from casino.hints import hint, table_topics
from casino.locking import row_lock
from casino.models import Player, RuleSetVersion, Table
from casino.table_access import require_player
from games.canasta import (
    Action,
    DealScore,
    DealState,
    Phase,
    action_from_dict,
    apply,
    deal_from_dict,
    pack,
    preset,
    score_deal,
    score_finished,
    seating,
    start_deal,
    state_from_dict,
    state_to_dict,
)
from games.canasta.cards import parse_card
from games.errors import GameError
from wallet.services import hold_place, holds_void

# ------------------------------------------------------------------------------------ helpers


def game_current(table: Table) -> CanastaGame | None:
    """The table's game seating or playing, else its last game (None before the first)."""
    game = CanastaGame.objects.filter(table=table, status__in=OPEN_CANASTA_GAME_STATUSES).first()
    return game or CanastaGame.objects.filter(table=table).order_by("-number").first()


def _status_required(game: CanastaGame, status: str, code: str) -> None:
    if game.status != status:
        raise CanastaError(f"the game is {game.status}", code=code)


# --------------------------------------------------------------------------- the deal's event log


def deal_events_write(
    deal: CanastaDeal, drafts: Sequence[EventDraft], actor: Actor
) -> list[CanastaDealEvent]:
    """Append events after ``deal.version`` (``casino.event_log.events_append``: one INSERT);
    the caller saves the deal row."""
    events = events_append(CanastaDealEvent, drafts, actor, after=deal.version, deal=deal)
    deal.version += len(events)
    return events


def deal_replay(deal: CanastaDeal) -> DealState:
    """A virtual deal's state rebuilt from its events: the shuffle, dealer and scores of
    ``deal_started`` dealt again, then every move's actions applied (``games.canasta``)."""
    events = list(CanastaDealEvent.objects.filter(deal=deal).order_by("sequence"))
    if not events or events[0].kind != "deal_started" or events[0].payload.get("shuffle") is None:
        raise WrongDealKindError("this deal has no shuffle to replay")
    game = deal.game
    first = events[0].payload
    rules = game_rules(game)
    state, _ = start_deal(
        rules,
        [parse_card(key) for key in first["shuffle"]],
        dealer=first["dealer"],
        scores=first["scores"],
        teams=game.teams,
    )
    for event in events[1:]:
        for data in event.payload.get("actions", []):
            state, _ = apply(state, action_from_dict(data))
    return state


# ------------------------------------------------------------------------------- game and seats


def canasta_game_open(
    *, table: Table, actor: Actor, stake_minor: int, options: Mapping[str, Any] | None = None
) -> CanastaGame:
    """The host opens a game at a canasta table with the stake agreed (``stake_minor`` per the
    table's ``stake_points``, within its limits) and optional preset ``options`` (rules section
    10, by name). It copies the table's rule set version, its canasta settings and fee; each
    player's hold is ``max_loss_points * stake_minor / stake_points`` (rounded down: what the
    most a player can lose comes to). Status ``seating``. Locks the table row (and hints the
    table's screens, as ``game_lock`` does for every later command of the game). Audited
    ``canasta.game_opened``. Raises ``permission_denied``, ``not_a_canasta_table``,
    ``canasta_game_in_progress``, ``stake_out_of_range``, ``invalid_configuration`` and the
    engine's ``unknown_option`` / ``invalid_ruleset``."""
    canasta_table_checked(table)
    require_host(actor, table)
    if isinstance(stake_minor, bool) or not isinstance(stake_minor, int):
        raise StakeOutOfRangeError("the stake is a whole number of minor units")
    with transaction.atomic():
        row_lock(Table.objects.filter(pk=table.pk))
        hint(*table_topics(table))
        if CanastaGame.objects.filter(table=table, status__in=OPEN_CANASTA_GAME_STATUSES).exists():
            raise CanastaGameInProgressError("a game is open at this table")
        settings = canasta_config_values(table)
        _stake_within_limits(settings, stake_minor)
        version = RuleSetVersion.objects.select_related("rule_set").get(pk=settings["rule_set_version"])
        played = {**version.options, **dict(options or {})}
        rules = engine_call(lambda: preset(version.rule_set.name, played))
        seats = engine_call(lambda: seating(rules, settings["teams"]))
        hold_minor = settings["max_loss_points"] * stake_minor // settings["stake_points"]
        if hold_minor <= 0:
            raise StakeOutOfRangeError("the stake is too small to hold")
        number = (
            CanastaGame.objects.filter(table=table)
            .order_by("-number")
            .values_list("number", flat=True)
            .first()
            or 0
        ) + 1
        game = CanastaGame.objects.create(
            table=table,
            number=number,
            rule_set_version=version,
            preset=version.rule_set.name,
            options=played,
            teams=settings["teams"],
            players=len(seats),
            deal_kind=settings["deal_kind"],
            stake_minor=stake_minor,
            stake_points=settings["stake_points"],
            max_loss_points=settings["max_loss_points"],
            hold_minor=hold_minor,
            fee_kind=settings["fee_kind"],
            fee_basis_points=settings["fee_basis_points"],
            fee_minor=settings["fee_minor"],
            totals=[0] * (max(seats) + 1),
            opened_by=actor.user,
            opened_by_name=actor.name,
            opened_at=timezone.now(),
        )
        _game_opened_audit(actor, game)
    return game


def _stake_within_limits(settings: Mapping[str, Any], stake_minor: int) -> None:
    """Refuse a stake outside the table's limits (``stake_out_of_range``, with the limits)."""
    if not settings["stake_min_minor"] <= stake_minor <= settings["stake_max_minor"]:
        raise StakeOutOfRangeError(
            f"the stake is {settings['stake_min_minor']} to {settings['stake_max_minor']} minor units",
            minimum_minor=settings["stake_min_minor"],
            maximum_minor=settings["stake_max_minor"],
        )


def _game_opened_audit(actor: Actor, game: CanastaGame) -> None:
    """The audit record of a game just opened (``canasta.game_opened``): its table, number,
    rules, players, stake, hold and fee."""
    actor.audit(
        action="canasta.game_opened",
        object_type="tables.canastagame",
        object_id=game.pk,
        after={
            "table": game.table.name,
            "number": game.number,
            "preset": game.preset,
            "rule_set_version_id": game.rule_set_version_id,
            "players": game.players,
            "deal_kind": game.deal_kind,
            "stake_minor": game.stake_minor,
            "stake_points": game.stake_points,
            "hold_minor": game.hold_minor,
            "fee": {
                "kind": game.fee_kind,
                "basis_points": game.fee_basis_points,
                "minor": game.fee_minor,
            },
        },
    )


def _seated_player(actor: Actor, table: Table, player: Player | None) -> Player:
    """Who sits down: the player at his terminal, or the player the host seats."""
    if actor.player is not None:
        return require_player(actor, table)
    require_host(actor, table)
    if player is None:
        raise CanastaNotSeatedError("name the player to seat")
    if not player.is_active or player.casino_id != table.casino_id:
        raise PermissionRefusedError("This player cannot play at this table.")
    return player


def canasta_seat_take(
    *, game_id: int, seat: int, actor: Actor, player: Player | None = None
) -> CanastaGamePlayer:
    """A player sits down in ``seat`` of a game being seated: himself at a terminal of the table,
    or seated by the host (``player``). The game's hold is placed on his wallet at once: a player
    without the balance cannot sit down (``insufficient_funds``, nothing written). Locks the game,
    then the player's wallet row. Audited ``canasta.seat_taken``. Raises ``no_canasta_game``,
    ``game_not_seating``, ``no_such_seat``, ``seat_taken``, ``already_seated``,
    ``permission_denied``, ``insufficient_funds``, ``account_not_found``."""
    with transaction.atomic():
        game = game_lock(game_id)
        table = game.table
        sitter = _seated_player(actor, table, player)
        _status_required(game, CanastaGameStatus.SEATING, "game_not_seating")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players:
            raise CanastaNoSuchSeatError(f"the game has seats 1 to {game.players}", seats=game.players)
        taken = CanastaGamePlayer.objects.filter(game=game)
        if taken.filter(seat=seat).exists():
            raise SeatTakenError(f"seat {seat + 1} is taken", seat_number=seat + 1)
        if taken.filter(player=sitter).exists():
            raise AlreadySeatedError("the player sits at this game already")
        sides = seating(game_rules(game), game.teams)
        hold = hold_place(
            player=sitter,
            amount_minor=game.hold_minor,
            table=table,
            reference_type="canasta_game",
            reference_id=str(game.pk),
            bet_reference=f"seat:{seat}",
        )
        row = CanastaGamePlayer.objects.create(
            game=game, seat=seat, side=sides[seat], player=sitter, hold=hold, seated_at=timezone.now()
        )
        actor.audit(
            action="canasta.seat_taken",
            object_type="tables.canastagame",
            object_id=game.pk,
            after={
                "seat": seat,
                "side": row.side,
                "player_id": sitter.pk,
                "hold_id": hold.pk,
                "hold_minor": game.hold_minor,
            },
        )
    return row


def canasta_seat_leave(*, game_id: int, seat: int, actor: Actor) -> None:
    """The player in ``seat`` leaves a game not yet started (himself, or the host for him): his
    hold is released. Locks the game, then the hold and its account. Audited
    ``canasta.seat_left``. Raises ``no_canasta_game``, ``game_not_seating``, ``not_seated``,
    ``permission_denied``."""
    with transaction.atomic():
        game = game_lock(game_id)
        row = CanastaGamePlayer.objects.filter(game=game, seat=seat).first()
        if actor.player is not None:
            require_player(actor, game.table)
            if row is not None and row.player_id != actor.player.pk:
                raise PermissionRefusedError("Only the player in the seat or the host frees it.")
        else:
            require_host(actor, game.table)
        _status_required(game, CanastaGameStatus.SEATING, "game_not_seating")
        if row is None:
            raise CanastaNotSeatedError(f"nobody sits in seat {seat + 1}", seat_number=seat + 1)
        hold_id = row.hold_id
        row.delete()
        holds_void(hold_ids=[hold_id], reason=f"left canasta game {game.pk}", actor=actor)
        actor.audit(
            action="canasta.seat_left",
            object_type="tables.canastagame",
            object_id=game.pk,
            before={"seat": seat, "player_id": row.player_id, "hold_id": hold_id},
        )


def canasta_game_start(*, game_id: int, actor: Actor) -> CanastaDeal:
    """The host starts a game whose every seat is taken: status ``playing``, and its first deal
    (seat 0 deals first, rules D1). Locks the game. Audited ``canasta.game_started``. Raises
    ``no_canasta_game``, ``game_not_seating``, ``seats_not_filled``, ``permission_denied``."""
    with transaction.atomic():
        game = game_lock(game_id)
        require_host(actor, game.table)
        _status_required(game, CanastaGameStatus.SEATING, "game_not_seating")
        seated = CanastaGamePlayer.objects.filter(game=game).count()
        if seated != game.players:
            raise SeatsNotFilledError(f"{seated} of {game.players} seats are taken")
        now = timezone.now()
        game.status = CanastaGameStatus.PLAYING
        game.started_at = now
        CanastaGame.objects.filter(pk=game.pk).update(status=game.status, started_at=now)
        actor.audit(
            action="canasta.game_started",
            object_type="tables.canastagame",
            object_id=game.pk,
            before={"status": CanastaGameStatus.SEATING},
            after={
                "status": CanastaGameStatus.PLAYING,
                "players": list(
                    CanastaGamePlayer.objects.filter(game=game)
                    .order_by("seat")
                    .values_list("player_id", flat=True)
                ),
            },
        )
        return _deal_start(game, actor)


def canasta_deal_start(*, game_id: int, actor: Actor) -> CanastaDeal:
    """The host starts the game's next deal once the last one is scored: the next dealer deals
    (``next_dealer``, to the left). A virtual deal is shuffled with ``secrets`` and dealt by the
    engine (its first event holds the shuffle); a physical deal waits for the host's entry.
    Locks the game. Raises ``no_canasta_game``, ``game_not_playing``, ``deal_in_progress``,
    ``permission_denied``."""
    with transaction.atomic():
        game = game_lock(game_id)
        require_host(actor, game.table)
        _status_required(game, CanastaGameStatus.PLAYING, "game_not_playing")
        return _deal_start(game, actor)


def _deal_start(game: CanastaGame, actor: Actor) -> CanastaDeal:
    if CanastaDeal.objects.filter(game=game, status=CanastaDealStatus.PLAYING).exists():
        raise DealInProgressError("the deal in progress is not scored yet")
    number = CanastaDeal.objects.filter(game=game).count() + 1
    deal = CanastaDeal(
        game=game,
        number=number,
        kind=game.deal_kind,
        dealer_seat=game.next_dealer,
        scores_before=list(game.totals),
        started_at=timezone.now(),
    )
    payload: dict[str, Any] = {
        "dealer": game.next_dealer,
        "scores": list(game.totals),
        "kind": game.deal_kind,
    }
    state: DealState | None = None
    if game.deal_kind == CanastaDealKind.VIRTUAL:
        rules = game_rules(game)
        cards = list(pack(rules.decks, rules.jokers))
        secrets.SystemRandom().shuffle(cards)
        state, events = engine_call(
            lambda: start_deal(rules, cards, dealer=game.next_dealer, scores=game.totals, teams=game.teams)
        )
        payload["shuffle"] = [card.key for card in cards]
        payload["events"] = [event.to_dict() for event in events]
        deal.snapshot = state_to_dict(state)
    deal.save()
    deal_events_write(deal, [EventDraft("deal_started", payload)], actor)
    CanastaDeal.objects.filter(pk=deal.pk).update(version=deal.version)
    actor.audit(
        action="canasta.deal_started",
        object_type="tables.canastadeal",
        object_id=deal.pk,
        after={"game_id": game.pk, "number": number, "dealer": deal.dealer_seat, "kind": deal.kind},
    )
    return deal


def deal_playing(game: CanastaGame) -> CanastaDeal:
    deal = CanastaDeal.objects.filter(game=game, status=CanastaDealStatus.PLAYING).first()
    if deal is None:
        raise NoDealInProgressError("no deal is being played")
    return deal


# ------------------------------------------------------------------------------------ moves


def _apply_one(state: DealState, action: Action) -> tuple[DealState, tuple[Any, ...]]:
    return engine_call(lambda: apply(state, action))


def _actions_read(seat: int, actions: Sequence[Mapping[str, Any]]) -> list[Action]:
    if not actions:
        raise InvalidMoveError("a move is one or more actions")
    out: list[Action] = []
    for data in actions:
        if not isinstance(data, Mapping):
            raise InvalidMoveError("an action is an object")
        try:
            out.append(action_from_dict({**data, "seat": seat}))
        except GameError as error:
            raise InvalidMoveError(error.message) from error
    return out


def canasta_move(
    *,
    game_id: int,
    actor: Actor,
    actions: Sequence[Mapping[str, Any]],
    version: int,
    must_go_out: bool = False,
) -> CanastaDeal:
    """A seated player's move in the virtual deal being played: one or more engine actions
    (``draw``, ``take_pile``, ``meld`` with new melds and additions, ``discard``,
    ``ask_partner``, ``answer_partner``, ``end_turn``, ``decline_pile``,
    ``decline_double_go_out``; going out is a meld and its discard sent together), applied in
    order, all or none, always for the player's own seat. ``version`` is the deal's version the
    player saw: another one is ``stale_move``. With ``must_go_out`` the move is refused
    (``cannot_go_out``) unless the player goes out with it. The events are appended as one ``move`` event;
    a deal the move finishes is scored (``cardroom.services.settlement.deal_score_record``) and the game
    settled if it ends. Locks the game (then the wallet and the audit chain at a settlement).
    Raises ``no_canasta_game``, ``game_not_playing``, ``no_deal_in_progress``,
    ``wrong_deal_kind``, ``not_seated``, ``stale_move``, ``invalid_move``, the engine's codes
    (``not_your_turn``, ``draw_first``, ``opening_minimum_not_met`` ...), ``permission_denied``."""
    with transaction.atomic():
        game = game_lock(game_id)
        player = require_player(actor, game.table)
        _status_required(game, CanastaGameStatus.PLAYING, "game_not_playing")
        seat_row = CanastaGamePlayer.objects.filter(game=game, player=player).first()
        if seat_row is None:
            raise CanastaNotSeatedError("the player does not sit at this game")
        deal = deal_playing(game)
        if deal.kind != CanastaDealKind.VIRTUAL or deal.snapshot is None:
            raise WrongDealKindError("the host enters the deals at this table")
        if isinstance(version, bool) or version != deal.version:
            raise StaleMoveError(f"the deal is at version {deal.version}", version=deal.version)
        state = state_from_dict(deal.snapshot)
        applied = _actions_read(seat_row.seat, actions)
        events: list[dict[str, Any]] = []
        for action in applied:
            state, new_events = _apply_one(state, action)
            events.extend(event.to_dict() for event in new_events)
        if must_go_out and state.went_out != seat_row.seat:
            raise CannotGoOutError("these cards do not take the player out")
        deal_events_write(
            deal,
            [
                EventDraft(
                    "move",
                    {
                        "seat": seat_row.seat,
                        "actions": [action.to_dict() for action in applied],
                        "events": events,
                    },
                )
            ],
            actor,
        )
        deal.snapshot = state_to_dict(state)
        CanastaDeal.objects.filter(pk=deal.pk).update(snapshot=deal.snapshot, version=deal.version)
        if state.phase is Phase.FINISHED:
            deal_score_record(game, deal, engine_call(lambda: score_deal(state)), actor)
    return deal


# -------------------------------------------------------------------------- the host's entry


def canasta_deal_enter(*, game_id: int, actor: Actor, deal_data: Mapping[str, Any]) -> CanastaDeal:
    """The host enters the finished deal of a physical-cards table, in the format of
    docs/canasta-deal.md (``sides`` with melds, red threes and hands; ``went_out`` or
    ``stock_exhausted``); the preset, options, teams and the scores before the deal are the
    game's (given ones are ignored). The engine checks the deal could have happened and scores
    it; recorded as a ``deal_entered`` event, scored, the game settled if it ends. Locks the
    game. Raises ``no_canasta_game``, ``game_not_playing``, ``no_deal_in_progress``,
    ``wrong_deal_kind``, the engine's codes (``invalid_deal_data``, ``too_many_copies``,
    ``not_enough_canastas``, ``impossible_deal`` ...), ``permission_denied``."""
    if not isinstance(deal_data, Mapping):
        raise InvalidDealDataError("the deal is an object")
    with transaction.atomic():
        game = game_lock(game_id)
        require_host(actor, game.table)
        _status_required(game, CanastaGameStatus.PLAYING, "game_not_playing")
        deal = deal_playing(game)
        if deal.kind != CanastaDealKind.PHYSICAL:
            raise WrongDealKindError("this deal is played through the terminals")
        entered = {
            **{
                key: value
                for key, value in deal_data.items()
                if key not in ("preset", "options", "scores", "teams")
            },
            "preset": game.preset,
            "options": game.options,
            "scores": list(game.totals),
        }
        if game.teams is not None:
            entered["teams"] = game.teams
        score: DealScore = engine_call(lambda: score_finished(deal_from_dict(entered)))
        deal_events_write(deal, [EventDraft("deal_entered", {"deal": entered})], actor)
        CanastaDeal.objects.filter(pk=deal.pk).update(version=deal.version)
        deal_score_record(game, deal, score, actor)
    return deal
