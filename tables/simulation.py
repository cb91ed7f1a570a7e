"""Simulated play through the services: a virtual shoe, random legal play, side bets, bets
behind and insurance. For demo data, load and replay checks (``manage.py simulate_table``)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.db import transaction

from casino.errors import InvalidConfigurationError, ServiceError
from casino.models import Player, Table
from games.blackjack import Decision, DeclineInsurance, TakeInsurance, legal_actions
from tables.errors import RoundInProgressError, SimulationStuckError
from tables.models import Box, Round, RoundStatus
from tables.services import (
    Actor,
    bet_place,
    box_take,
    boxes_ensure,
    decision_make,
    insurance_close,
    insurance_decide,
    round_close_betting,
    round_open,
    round_settle,
    shoe_shuffle,
    shuffle_due,
    table_config_current,
    table_open_for_play,
    table_settings_change,
)
from tables.services.commands import round_state
from tables.services.config import config_rules
from wallet.models import Account, AccountKind
from wallet.services import system_buy_in, system_table_fill, table_accounts_open, venue_accounts_open

PLAYER_FUNDS_MINOR = 5_000_000
TRAY_FLOOR_MINOR = 50_000_000
MAIN_STAKES = (500, 1000, 2000, 5000, 10_000)
SIDE_STAKES = (100, 200, 500)


@dataclass
class SimulationResult:
    rounds: int
    bets: int
    round_ids: list[int]


def _fund(player: Player) -> None:
    account = Account.objects.filter(player=player, kind=AccountKind.PLAYER).first()
    if account is None or account.available_minor < PLAYER_FUNDS_MINOR // 10:
        system_buy_in(player=player, amount_minor=PLAYER_FUNDS_MINOR, actor=Actor.automatic("simulation"))


def _tray(table: Table) -> None:
    accounts = table_accounts_open(table=table)
    tray = accounts[AccountKind.TABLE_TRAY]
    if tray.balance_minor < TRAY_FLOOR_MINOR:
        system_table_fill(table=table, amount_minor=TRAY_FLOOR_MINOR, actor=Actor.automatic("simulation"))


def simulation_players(table: Table, count: int) -> list[Player]:
    from django.contrib.auth.hashers import make_password

    players = []
    pin_hash = make_password("0000")
    for index in range(count):
        player, _ = Player.objects.get_or_create(
            card_number=f"sim{table.pk:04d}{index:05d}",
            defaults={
                "casino": table.casino,
                "display_name": f"Sim {table.name} {index + 1}",
                "pin_hash": pin_hash,
            },
        )
        players.append(player)
    return players


def simulate_table(*, table: Table, rounds: int, players: int, seed: int) -> SimulationResult:
    """Play ``rounds`` complete rounds at ``table`` with ``players`` simulated players."""
    rng = random.Random(seed)
    system = Actor.automatic("simulation")
    boxes_ensure(table=table)
    config = table_config_current(table)
    if config is None or config.shoe_kind != "virtual":
        # The system's change is a version at once (never a proposal waiting for a person).
        table_settings_change(table=table, actor=system, settings={"shoe_kind": "virtual"})
        config = table_config_current(table)
    if config is None:
        raise InvalidConfigurationError(f"{table.name} has no configuration")
    venue_accounts_open(casino=table.casino)
    _tray(table)
    people = simulation_players(table, players)
    actors = {player.pk: Actor(player=player) for player in people}
    for player in people:
        _fund(player)
    rules = config_rules(config)
    # Each player takes up to the boxes they may hold while boxes are free.
    free = list(
        Box.objects.filter(table=table, owner__isnull=True, number__lte=rules.boxes).order_by("number")
    )
    for player in people:
        for _ in range(rng.randint(1, rules.boxes_per_player)):
            if not free:
                break
            box = free.pop(0)
            try:
                box_take(table=table, box_number=box.number, actor=actors[player.pk])
            except ServiceError:
                break
    if Round.objects.filter(table=table).open().exists():
        raise RoundInProgressError(f"a round is open at {table}: settle or void it first")
    if not Table.objects.filter(pk=table.pk, is_open=True).exists():
        table_open_for_play(table=table, actor=system)
    total_bets = 0
    round_ids: list[int] = []
    for number in range(rounds):
        if number % 50 == 0:
            _tray(table)
            for player in people:
                _fund(player)
        if shuffle_due(table):
            shoe_shuffle(table=table, actor=system)
        round_ = round_open(table=table, actor=system)
        round_ids.append(round_.pk)
        owned = list(Box.objects.filter(table=table, owner__isnull=False).order_by("number"))
        for box in owned:
            owner = actors.get(box.owner_id) if box.owner_id is not None else None
            if owner is None or rng.random() < 0.1:
                continue
            total_bets += _try_bet(round_.pk, owner, box.number, "main", rng.choice(MAIN_STAKES))
            if rules.perfect_pairs and rng.random() < 0.3:
                total_bets += _try_bet(round_.pk, owner, box.number, "perfect_pairs", rng.choice(SIDE_STAKES))
            if rules.twenty_one_plus_three and rng.random() < 0.3:
                total_bets += _try_bet(
                    round_.pk, owner, box.number, "twenty_one_plus_three", rng.choice(SIDE_STAKES)
                )
            if rules.bet_behind:
                for other in people:
                    if other.pk != box.owner_id and rng.random() < 0.15:
                        total_bets += _try_bet(
                            round_.pk,
                            actors[other.pk],
                            box.number,
                            "behind",
                            rng.choice(MAIN_STAKES[:3]),
                            follow_double=rng.random() < 0.5,
                            follow_split=rng.random() < 0.5,
                        )
        closed = round_close_betting(round_id=round_.pk, actor=system)
        _play(closed, actors, rng, system)
        round_settle(round_id=round_.pk, actor=system)
    return SimulationResult(rounds=rounds, bets=total_bets, round_ids=round_ids)


def _try_bet(
    round_id: int,
    actor: Actor,
    box: int,
    kind: str,
    stake: int,
    *,
    follow_double: bool = False,
    follow_split: bool = False,
) -> int:
    try:
        # A savepoint of its own: a refused bet is expected here, and the simulation goes on in
        # the caller's transaction if there is one (bet_place opens none).
        with transaction.atomic():
            bet_place(
                round_id=round_id,
                actor=actor,
                box_number=box,
                kind=kind,
                stake_minor=stake,
                follow_double=follow_double,
                follow_split=follow_split,
            )
    except ServiceError:
        return 0
    return 1


def _play(round_: Round, actors: dict[int, Actor], rng: random.Random, system: Actor) -> None:
    """Play the round to its end. Each service returns the round with its new status and engine
    snapshot, so the loop reads nothing itself."""
    round_id = round_.pk
    for _step in range(200):
        if round_.status == RoundStatus.SETTLING:
            return
        legal = legal_actions(round_state(round_))
        if round_.status == RoundStatus.INSURANCE:
            offers = [action for action in legal if isinstance(action, TakeInsurance | DeclineInsurance)]
            if not offers:
                round_ = insurance_close(round_id=round_id, actor=system)
                continue
            offer = offers[0]
            take = offer.type == "take_insurance" and rng.random() < 0.3
            try:
                round_ = insurance_decide(
                    round_id=round_id, actor=actors[int(offer.player)], bet_id=int(offer.bet_id), take=take
                )
            except ServiceError:
                round_ = insurance_decide(
                    round_id=round_id, actor=actors[int(offer.player)], bet_id=int(offer.bet_id), take=False
                )
            continue
        decisions = [action for action in legal if isinstance(action, Decision)]  # all, in the players phase
        if round_.status == RoundStatus.PLAYERS and decisions:
            action = rng.choice(decisions)
            try:
                round_ = decision_make(
                    round_id=round_id,
                    actor=actors[int(action.player)],
                    box_number=action.box,
                    decision=action.type,
                )
            except ServiceError as error:
                if error.code != "insufficient_funds":
                    raise
                round_ = decision_make(
                    round_id=round_id,
                    actor=actors[int(action.player)],
                    box_number=action.box,
                    decision="stand",
                )
            continue
        raise SimulationStuckError(f"round {round_id} is stuck in {round_.status}")
    raise SimulationStuckError(f"round {round_id} did not finish")
