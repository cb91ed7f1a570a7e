"""Every money and table command at once: 16 threads of random commands on PostgreSQL.

Buy-ins, cash-outs, transfers between players, fills and credits, holds and their voids,
adjustments with their approvals and rejections, reversals, sign-ins and sign-outs, boxes taken
and left and their "bets behind" setting, bets and their cancellation, rounds opened, closed,
decided (hit, stand, double, split, insurance), settled and voided, overdue defaults, shuffles,
configuration changes, and the pit boss's decisions on payouts waiting for approval: real
transactions, one connection per thread, three tables and 24 players contending for the same rows.

It fails on any deadlock (psycopg's ``DeadlockDetected``) or any other unexpected exception; a
refusal with a stable code is an answer, counted by code. And it fails on any difference between
the ledger and a model of the commands that succeeded, kept as they return: the amounts of the
wallet's commands, the stakes of the bets (and of doubles, splits and insurance) held until the
round ends, and for each round settled, what its payout lines (the engine's verdict, which the
golden tests check) say each account must get. Its figures (commands/s, latency percentiles,
refusals by code) are printed at the end.

The run lasts ``SECONDS``: 5 s in the default lane, 30 s in the soak lane (``--soak``), and
``STRESS_SECONDS`` overrides both. Past it, the run goes on until every command the test asserts
on has been done at least once and a round settled, and never past ``DEADLINE_SECONDS`` (60 s):
a short run that happened not to reach a payout decision would prove less than it claims, so it
keeps the 16 threads contending until it does rather than pass or fail by luck.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from django.test import Client

from casino.errors import ServiceError
from casino.models import Player, PlayerSession, Table, Terminal
from casino.player_sessions import player_session_end, player_session_start
from casino.services import player_create, terminal_credential_issue, terminal_register
from games.blackjack import current_turn, state_from_dict
from tables.models import Bet, BetKind, BetStatus, Box, PayoutLine, Round, RoundStatus, TableConfigProposal
from tables.services import (
    Actor,
    bet_cancel,
    bet_place,
    box_bets_behind_set,
    box_leave,
    box_take,
    decision_make,
    insurance_close,
    insurance_decide,
    payout_approve,
    payout_reject,
    round_apply_overdue_defaults,
    round_close_betting,
    round_open,
    round_settle,
    round_void,
    shoe_shuffle,
    table_config_proposal_approve,
    table_settings_change,
)
from tests.factories import staff_user
from tests.lanes import sized
from wallet.models import Account, AccountKind, BalanceAdjustment, Posting, Transfer
from wallet.selectors import ledger_verify
from wallet.services import (
    adjustment_approve,
    adjustment_reject,
    balance_adjust,
    cage_buy_in,
    cage_cash_out,
    hold_place,
    holds_void,
    system_buy_in,
    system_table_fill,
    table_credit,
    table_fill,
    transfer_between_players,
    transfer_reverse,
    venue_accounts_open,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.soak]

THREADS = 16
# The least the run lasts: in the default lane 5 s already has a few hundred commands racing for
# the same rows (three tables, 24 players) on a loaded 2-core machine.
SECONDS = float(os.environ.get("STRESS_SECONDS", sized(5, 30)))
# The most it lasts while a required command is still missing (the assertions then name it). The
# last one is the first payout decision, which needs a settled round with a line above the
# threshold: some 300 to 1 300 commands in, 3 to 20 s on a 2-core machine running five times as
# many busy processes as cores; twice the soak duration leaves that a wide margin.
DEADLINE_SECONDS = max(SECONDS, 60.0)
PLAYERS = 24
TABLES = ("BJ1", "BJ2", "BJ3")
TERMINALS_PER_TABLE = 4
PIN = "2468"
STAKES = (500, 1_000, 1_500, 2_000)
# Winnings above 9.00 (a win on a stake of 10.00 or more) wait for a pit boss; BJ2's short
# deadlines make the overdue defaults run.
THRESHOLD_MINOR = 900
# The commands the test requires done at least once (with a round settled): the run's coverage.
REQUIRED = (
    "bet_place",
    "api_bet_place",
    "decision_make",
    "transfer_reverse",
    "adjustment_decide",
    "payout_decide",
    "sign_in",
)
ROUND_SETTLED = "a round settled"


@dataclass
class Ledger:
    """The model: what the commands that succeeded must have moved, per account id."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    balance: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    direct_held: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    # Bets placed, by id: (account, stake held); doubles and splits by (round, box); insurance.
    bets: dict[int, tuple[int, int]] = field(default_factory=dict)
    added: Counter[tuple[int, int]] = field(default_factory=Counter)
    settled_rounds: set[int] = field(default_factory=set)
    decided_lines: dict[int, bool] = field(default_factory=dict)  # line id -> released
    transfers: list[int] = field(default_factory=list)  # reversible ones made by the run
    pending_adjustments: list[int] = field(default_factory=list)

    def move(self, amounts: dict[int, int]) -> None:
        with self.lock:
            for account_id, amount in amounts.items():
                self.balance[account_id] += amount


@dataclass
class Venue:
    """Ids of what the run plays with (each thread reads its own instances of the rows)."""

    players: list[int]
    tables: list[int]
    terminals: dict[int, list[int]]  # table id -> player terminal ids
    credentials: dict[int, str]  # terminal id -> its credential's token
    cage: int
    house: int
    rounding: int
    tray: dict[int, int]
    pending: dict[int, int]
    account_of: dict[int, int]  # player id -> wallet id
    card_of: dict[int, str]
    cashier: int
    dealer: int
    pit_bosses: tuple[int, int]
    operator: int


def _venue() -> Venue:
    cashier = staff_user("cashier", "stress-cashier")
    dealer = staff_user("dealer", "stress-dealer")
    pit_bosses = (staff_user("pit_boss", "stress-pit-1"), staff_user("pit_boss", "stress-pit-2"))
    operator = staff_user("operator", "stress-operator")
    tables = [Table.objects.get(name=name) for name in TABLES]
    for table in tables:
        settings: dict[str, Any] = {"payout_approval_threshold_minor": THRESHOLD_MINOR}
        if table.name == "BJ2":
            settings.update(decision_seconds=3, betting_seconds=8)
        table_settings_change(table=table, actor=Actor.staff(operator), settings=settings)
        system_table_fill(table=table, amount_minor=1_000_000_000, actor=Actor.automatic("stress"))
    casino = tables[0].casino
    players = [
        player_create(
            casino=casino,
            card_number=f"77{index:08d}",
            display_name=f"Stress {index}",
            pin=PIN,
            actor=Actor.automatic("system"),
        )
        for index in range(PLAYERS)
    ]
    for player in players:
        system_buy_in(player=player, amount_minor=500_000, actor=Actor.automatic("stress"))
    terminals = {
        table.pk: [
            terminal_register(
                casino=casino,
                name=f"{table.name}-T{number}",
                kind=Terminal.Kind.PLAYER_TERMINAL,
                table=table,
                actor=Actor.automatic("system"),
            ).pk
            for number in range(TERMINALS_PER_TABLE)
        ]
        for table in tables
    }
    credentials = {
        terminal_id: terminal_credential_issue(
            terminal=Terminal.objects.get(pk=terminal_id), actor=Actor.automatic("system")
        )[1]
        for ids in terminals.values()
        for terminal_id in ids
    }
    venue_accounts_open(casino=casino)
    accounts = Account.objects.filter(casino=casino)
    return Venue(
        players=[player.pk for player in players],
        tables=[table.pk for table in tables],
        terminals=terminals,
        credentials=credentials,
        cage=accounts.get(kind=AccountKind.CAGE).pk,
        house=accounts.get(kind=AccountKind.HOUSE).pk,
        rounding=accounts.get(kind=AccountKind.HOUSE_ROUNDING).pk,
        tray={table.pk: accounts.get(kind=AccountKind.TABLE_TRAY, table=table).pk for table in tables},
        pending={
            table.pk: accounts.get(kind=AccountKind.TABLE_PAYOUTS_PENDING, table=table).pk for table in tables
        },
        account_of={player.pk: accounts.get(player=player).pk for player in players},
        card_of={player.pk: player.card_number for player in players},
        cashier=cashier.pk,
        dealer=dealer.pk,
        pit_bosses=(pit_bosses[0].pk, pit_bosses[1].pk),
        operator=operator.pk,
    )


class Worker:
    """One thread's commands: each picks its rows at random, calls one public service, and on
    success tells the model what it moved."""

    def __init__(self, index: int, venue: Venue, ledger: Ledger) -> None:
        self.rng = random.Random(12_000 + index)
        self.venue = venue
        self.ledger = ledger
        users = get_user_model().objects.in_bulk(
            [venue.cashier, venue.dealer, venue.operator, *venue.pit_bosses]
        )
        self.cashier, self.dealer, self.operator = (
            users[venue.cashier],
            users[venue.dealer],
            users[venue.operator],
        )
        self.pit_bosses = [users[pk] for pk in venue.pit_bosses]
        self.players = Player.objects.in_bulk(venue.players)
        self.tables = Table.objects.select_related("casino").in_bulk(venue.tables)
        self.terminals = Terminal.objects.in_bulk([pk for ids in venue.terminals.values() for pk in ids])
        self.holds: list[tuple[int, int, int]] = []  # this thread's own holds: (hold, account, amount)
        self.sessions: list[int] = []
        self.client = Client()

    # ------------------------------------------------------------------ picking rows

    def player(self) -> Player:
        return self.players[self.rng.choice(self.venue.players)]

    def table(self) -> Table:
        return self.tables[self.rng.choice(self.venue.tables)]

    def at_table(self, table: Table, player: Player) -> Actor:
        terminal_id = self.venue.terminals[table.pk][player.pk % TERMINALS_PER_TABLE]
        return Actor.at_terminal(self.terminals[terminal_id], player)

    def pit_boss(self) -> Any:
        return self.rng.choice(self.pit_bosses)

    def amount(self, low: int, high: int) -> int:
        return self.rng.randrange(low, high, 100)

    @staticmethod
    def current_round(table: Table) -> Round | None:
        return Round.objects.filter(table=table).order_by("-number").first()

    # ------------------------------------------------------------------ money commands

    def buy_in(self) -> None:
        player, amount = self.player(), self.amount(1_000, 50_000)
        transfer = cage_buy_in(player=player, amount_minor=amount, actor=Actor.staff(self.cashier))
        self.ledger.move({self.venue.account_of[player.pk]: amount, self.venue.cage: -amount})
        self.remember(transfer)

    def cash_out(self) -> None:
        player, amount = self.player(), self.amount(1_000, 50_000)
        transfer = cage_cash_out(player=player, amount_minor=amount, actor=Actor.staff(self.cashier))
        self.ledger.move({self.venue.account_of[player.pk]: -amount, self.venue.cage: amount})
        self.remember(transfer)

    def player_transfer(self) -> None:
        payer, payee, amount = self.player(), self.player(), self.amount(100, 20_000)
        transfer = transfer_between_players(
            from_player=payer, to_player=payee, amount_minor=amount, actor=Actor.staff(self.cashier)
        )
        self.ledger.move({self.venue.account_of[payer.pk]: -amount, self.venue.account_of[payee.pk]: amount})
        self.remember(transfer)

    def fill(self) -> None:
        table, amount = self.table(), self.amount(10_000, 100_000)
        transfer = table_fill(table=table, amount_minor=amount, actor=Actor.staff(self.cashier))
        self.ledger.move({self.venue.tray[table.pk]: amount, self.venue.cage: -amount})
        self.remember(transfer)

    def credit(self) -> None:
        table, amount = self.table(), self.amount(10_000, 100_000)
        transfer = table_credit(table=table, amount_minor=amount, actor=Actor.staff(self.cashier))
        self.ledger.move({self.venue.tray[table.pk]: -amount, self.venue.cage: amount})
        self.remember(transfer)

    def adjust(self) -> None:
        # Four in five apply at once (up to the threshold); the rest wait for another pit boss.
        player = self.player()
        large = self.rng.random() < 0.2
        amount = self.amount(60_000, 90_000) if large else self.amount(100, 5_000)
        amount = amount if self.rng.random() < 0.7 else -amount
        adjustment = balance_adjust(
            player=player, amount_minor=amount, reason="stress", actor=Actor.staff(self.pit_boss())
        )
        if adjustment.status == "applied":
            self.ledger.move({self.venue.account_of[player.pk]: amount, self.venue.house: -amount})
            self.remember(adjustment.transfer)
        else:
            with self.ledger.lock:
                self.ledger.pending_adjustments.append(adjustment.pk)

    def adjustment_decide(self) -> None:
        with self.ledger.lock:
            if not self.ledger.pending_adjustments:
                raise _Skipped
            adjustment_id = self.rng.choice(self.ledger.pending_adjustments)
        adjustment = BalanceAdjustment.objects.select_related("account").get(pk=adjustment_id)
        if self.rng.random() < 0.25:
            adjustment_reject(adjustment=adjustment, actor=Actor.staff(self.pit_boss()), reason="stress")
        else:
            approved = adjustment_approve(adjustment=adjustment, actor=Actor.staff(self.pit_boss()))
            self.ledger.move(
                {adjustment.account_id: adjustment.amount_minor, self.venue.house: -adjustment.amount_minor}
            )
            self.remember(approved.transfer)
        with self.ledger.lock:
            if adjustment_id in self.ledger.pending_adjustments:
                self.ledger.pending_adjustments.remove(adjustment_id)

    def reverse(self) -> None:
        with self.ledger.lock:
            if not self.ledger.transfers:
                raise _Skipped
            transfer_id = self.rng.choice(self.ledger.transfers[-200:])
        transfer_reverse(
            transfer=Transfer.objects.get(pk=transfer_id), reason="stress", actor=Actor.staff(self.pit_boss())
        )
        postings = Posting.objects.filter(transfer_id=transfer_id).values_list("account_id", "amount_minor")
        self.ledger.move({account_id: -amount for account_id, amount in postings})

    def remember(self, transfer: Transfer | None) -> None:
        if transfer is not None:
            with self.ledger.lock:
                self.ledger.transfers.append(transfer.pk)

    def hold(self) -> None:
        player, amount = self.player(), self.amount(100, 5_000)
        with transaction.atomic():
            hold = hold_place(player=player, amount_minor=amount, reference_type="stress")
        self.holds.append((hold.pk, hold.account_id, amount))
        with self.ledger.lock:
            self.ledger.direct_held[hold.account_id] += amount

    def hold_void(self) -> None:
        if not self.holds:
            raise _Skipped
        hold_id, account_id, amount = self.holds.pop(self.rng.randrange(len(self.holds)))
        holds_void(hold_ids=[hold_id], reason="stress", actor=Actor.automatic("test"))
        with self.ledger.lock:
            self.ledger.direct_held[account_id] -= amount

    # ------------------------------------------------------------------ players at tables

    def sign_in(self) -> None:
        table, player = self.table(), self.player()
        terminal = self.terminals[self.venue.terminals[table.pk][player.pk % TERMINALS_PER_TABLE]]
        session, _token = player_session_start(
            terminal=terminal, card_number=self.venue.card_of[player.pk], pin=PIN
        )
        self.sessions.append(session.pk)

    def sign_out(self) -> None:
        if not self.sessions:
            raise _Skipped
        player_session_end(session=PlayerSession.objects.get(pk=self.sessions.pop()))

    def box_take(self) -> None:
        table, player = self.table(), self.player()
        box_take(table=table, box_number=self.rng.randint(1, 7), actor=self.at_table(table, player))

    def box_leave(self) -> None:
        table, player = self.table(), self.player()
        box_leave(table=table, box_number=self.rng.randint(1, 7), actor=self.at_table(table, player))

    def bets_behind(self) -> None:
        table, player = self.table(), self.player()
        box_bets_behind_set(
            table=table,
            box_number=self.rng.randint(1, 7),
            actor=self.at_table(table, player),
            accepts=self.rng.random() < 0.8,
        )

    def betting_table(self) -> Table:
        """Mostly a table taking bets, as it was a moment ago; now and then any."""
        betting = list(
            Round.objects.filter(table_id__in=self.venue.tables, status=RoundStatus.BETTING).values_list(
                "table_id", flat=True
            )
        )
        return self.tables[self.rng.choice(betting)] if betting and self.rng.random() < 0.9 else self.table()

    def bet(self) -> None:
        table, player = self.betting_table(), self.player()
        round_ = self.current_round(table)
        if round_ is None:
            raise _Skipped
        roll = self.rng.random()
        kind = BetKind.MAIN if roll < 0.45 else BetKind.BEHIND if roll < 0.8 else BetKind.PERFECT_PAIRS
        stake = self.rng.choice(STAKES) if kind != BetKind.PERFECT_PAIRS else self.amount(100, 1_000)
        # Mostly a box the rules allow (one's own for a main or side bet, another's for a bet
        # behind), as it was a moment ago; the rest at random, for the refusals.
        owners = dict(Box.objects.filter(table=table).values_list("number", "owner_id"))
        own = kind != BetKind.BEHIND
        fitting = [number for number, owner in owners.items() if owner and (owner == player.pk) == own]
        box = self.rng.choice(fitting) if fitting and self.rng.random() < 0.9 else self.rng.randint(1, 7)
        bet = bet_place(
            round_id=round_.pk,
            actor=self.at_table(table, player),
            box_number=box,
            kind=kind,
            stake_minor=stake,
            idempotency_key=f"stress-{self.rng.random()}",
        )
        with self.ledger.lock:
            self.ledger.bets[bet.pk] = (self.venue.account_of[player.pk], stake)

    def api_bet(self) -> None:
        """A bet as a player terminal sends it: the player signs in there, then the bet is posted
        to the terminal API with its Idempotency-Key. A 5xx is a failure; a problem is a refusal."""
        table, player = self.betting_table(), self.player()
        round_ = self.current_round(table)
        if round_ is None:
            raise _Skipped
        terminal_id = self.venue.terminals[table.pk][player.pk % TERMINALS_PER_TABLE]
        _session, player_token = player_session_start(
            terminal=self.terminals[terminal_id], card_number=self.venue.card_of[player.pk], pin=PIN
        )
        owners = dict(Box.objects.filter(table=table).values_list("number", "owner_id"))
        own = [number for number, owner in owners.items() if owner == player.pk]
        others = [number for number, owner in owners.items() if owner and owner != player.pk]
        kind, boxes = ("main", own) if own and self.rng.random() < 0.5 else ("behind", others)
        stake = self.rng.choice(STAKES)
        response = self.client.post(
            f"/api/v1/tables/{table.pk}/rounds/{round_.pk}/bets/",
            {"box": self.rng.choice(boxes) if boxes else 1, "kind": kind, "stake_minor": stake},
            content_type="application/json",
            headers={
                "Authorization": f"Terminal {self.venue.credentials[terminal_id]}",
                "X-Player-Token": player_token,
                "Idempotency-Key": f"stress-{self.rng.random()}",
            },
        )
        if response.status_code >= 500:
            raise AssertionError(f"HTTP {response.status_code}: {response.content[:300]!r}")
        body = response.json()
        if response.status_code != 201:
            raise _Refused(str(body.get("code")))
        with self.ledger.lock:
            self.ledger.bets[int(body["id"])] = (self.venue.account_of[player.pk], stake)

    def bet_cancel(self) -> None:
        table = self.table()
        round_ = self.current_round(table)
        if round_ is None:
            raise _Skipped
        bet = Bet.objects.filter(round=round_, status=BetStatus.PLACED).order_by("?").first()
        if bet is None:
            raise _Skipped
        bet_cancel(round_id=round_.pk, actor=self.at_table(table, self.players[bet.player_id]), bet_id=bet.pk)

    # ------------------------------------------------------------------ the round

    def dealer_step(self) -> None:
        """What the dealer does next at a table: shuffle, open, close betting, close the
        insurance offer, settle."""
        table = self.table()
        round_ = self.current_round(table)
        dealer = Actor.staff(self.dealer)
        if round_ is None or round_.status in (RoundStatus.SETTLED, RoundStatus.VOIDED):
            try:
                round_open(table=table, actor=dealer)
            except ServiceError as error:
                if error.code != "shuffle_due":
                    raise
                shoe_shuffle(table=table, actor=dealer)
        elif round_.status == RoundStatus.BETTING:
            # Betting stays open for a few bets: the dealer calls "no more bets" one time in four.
            if self.rng.random() < 0.75:
                raise _Skipped
            round_close_betting(round_id=round_.pk, actor=dealer)
        elif round_.status == RoundStatus.INSURANCE:
            insurance_close(round_id=round_.pk, actor=dealer)
        elif round_.status == RoundStatus.SETTLING:
            round_settle(round_id=round_.pk, actor=dealer)
            with self.ledger.lock:
                self.ledger.settled_rounds.add(round_.pk)
        else:
            raise _Skipped

    def decide(self) -> None:
        table = self.table()
        round_ = self.current_round(table)
        if round_ is None or round_.status != RoundStatus.PLAYERS or round_.snapshot is None:
            raise _Skipped
        state = state_from_dict(round_.snapshot)
        turn = current_turn(state)
        if turn is None:
            raise _Skipped
        owner = self.players.get(int(state.boxes[state.turn_box].owner))
        if owner is None:
            raise _Skipped
        decision = self.rng.choice(["hit", "stand", "stand", "double", "split"])
        decision_make(
            round_id=round_.pk, actor=self.at_table(table, owner), box_number=turn[0], decision=decision
        )
        if decision in ("double", "split"):
            with self.ledger.lock:
                self.ledger.added[(round_.pk, turn[0])] += 1

    def insure(self) -> None:
        table = self.table()
        round_ = self.current_round(table)
        if round_ is None or round_.status != RoundStatus.INSURANCE:
            raise _Skipped
        bet = (
            Bet.objects.filter(round=round_, status=BetStatus.PLACED, kind__in=[BetKind.MAIN, BetKind.BEHIND])
            .order_by("?")
            .first()
        )
        if bet is None:
            raise _Skipped
        take = self.rng.random() < 0.5
        actor = self.at_table(table, self.players[bet.player_id])
        insurance_decide(round_id=round_.pk, actor=actor, bet_id=bet.pk, take=take)
        if take:
            insurance = Bet.objects.get(kind=BetKind.INSURANCE, insures_id=bet.pk)
            with self.ledger.lock:
                self.ledger.bets[insurance.pk] = (self.venue.account_of[bet.player_id], insurance.stake_minor)

    def void(self) -> None:
        round_ = self.current_round(self.table())
        if round_ is None:
            raise _Skipped
        round_void(round_id=round_.pk, actor=Actor.staff(self.pit_boss()), reason="stress")

    def defaults(self) -> None:
        round_ = self.current_round(self.table())
        if round_ is None:
            raise _Skipped
        round_apply_overdue_defaults(round_id=round_.pk)

    def payout_decide(self) -> None:
        with self.ledger.lock:
            decided = list(self.ledger.decided_lines)
        line = (
            PayoutLine.objects.filter(round__table_id__in=self.venue.tables, needs_approval=True)
            .exclude(pk__in=decided)
            .order_by("?")
            .first()
        )
        if line is None:
            raise _Skipped
        release = self.rng.random() < 0.7
        actor = Actor.staff(self.pit_boss())
        if release:
            payout_approve(payout_line_id=line.pk, actor=actor)
        else:
            payout_reject(payout_line_id=line.pk, actor=actor, reason="stress")
        with self.ledger.lock:
            self.ledger.decided_lines[line.pk] = release

    def settings_change(self) -> None:
        table = self.table()
        threshold = self.rng.choice([THRESHOLD_MINOR, 2 * THRESHOLD_MINOR])
        changed = table_settings_change(
            table=table,
            actor=Actor.staff(self.operator),
            settings={"payout_approval_threshold_minor": threshold},
        )
        if isinstance(changed, TableConfigProposal):
            # A raised threshold weakens a control: a pit boss approves it.
            table_config_proposal_approve(proposal=changed, actor=Actor.staff(self.pit_boss()))


class _Refused(Exception):
    """A refusal heard through the terminal API (a problem+json answer), with its code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class _Skipped(Exception):
    """Nothing to act on (no pending adjustment yet, no round at the table): not a command."""


COMMANDS: dict[str, tuple[float, Callable[[Worker], None]]] = {
    "buy_in": (5, Worker.buy_in),
    "cash_out": (4, Worker.cash_out),
    "player_transfer": (3, Worker.player_transfer),
    "table_fill": (1, Worker.fill),
    "table_credit": (1, Worker.credit),
    "balance_adjust": (3, Worker.adjust),
    "adjustment_decide": (2, Worker.adjustment_decide),
    "transfer_reverse": (3, Worker.reverse),
    "hold_place": (2, Worker.hold),
    "holds_void": (2, Worker.hold_void),
    "sign_in": (3, Worker.sign_in),
    "sign_out": (1, Worker.sign_out),
    "box_take": (4, Worker.box_take),
    "box_leave": (2, Worker.box_leave),
    "box_bets_behind_set": (1, Worker.bets_behind),
    "bet_place": (24, Worker.bet),
    "api_bet_place": (6, Worker.api_bet),
    "bet_cancel": (2, Worker.bet_cancel),
    "dealer_step": (14, Worker.dealer_step),
    "decision_make": (10, Worker.decide),
    "insurance_decide": (3, Worker.insure),
    "round_void": (0.5, Worker.void),
    "round_apply_overdue_defaults": (1, Worker.defaults),
    "payout_decide": (4, Worker.payout_decide),
    "table_settings_change": (0.3, Worker.settings_change),
}


@dataclass
class Outcome:
    done: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


@dataclass
class Coverage:
    """Across the threads: when each required command was first done (and a round first settled),
    and whether all of them have been."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    first_at: dict[str, float] = field(default_factory=dict)  # time.monotonic()
    complete: threading.Event = field(default_factory=threading.Event)

    def note(self, name: str, ledger: Ledger) -> None:
        if self.complete.is_set():
            return
        keys = [name] if name in REQUIRED else []
        with ledger.lock:
            if ledger.settled_rounds:
                keys.append(ROUND_SETTLED)
        now = time.monotonic()
        with self.lock:
            for key in keys:
                self.first_at.setdefault(key, now)
            if len(self.first_at) == len(REQUIRED) + 1:
                self.complete.set()


def _work(
    index: int,
    venue: Venue,
    ledger: Ledger,
    coverage: Coverage,
    until: tuple[float, float],
    start: threading.Barrier,
) -> Outcome:
    """Random commands until the minimum duration has passed and the required ones are covered,
    or until the deadline."""
    outcome = Outcome()
    worker = Worker(index, venue, ledger)
    names = list(COMMANDS)
    weights = [COMMANDS[name][0] for name in names]
    minimum, deadline = until
    start.wait()
    while (now := time.monotonic()) < deadline and not (now >= minimum and coverage.complete.is_set()):
        name = worker.rng.choices(names, weights)[0]
        began = time.perf_counter()
        try:
            COMMANDS[name][1](worker)
        except _Skipped:
            continue
        except (ServiceError, _Refused) as error:
            outcome.refused[error.code] += 1
        except Exception as error:  # a deadlock, or any other failure: the test names it
            outcome.failures.append(f"{name}: {type(error).__name__}: {error}")
        else:
            outcome.done[name] += 1
            coverage.note(name, ledger)
        outcome.latencies.append(time.perf_counter() - began)
    return outcome


def _run(venue: Venue, ledger: Ledger, coverage: Coverage) -> tuple[list[Outcome], float, dict[str, float]]:
    """The threads' outcomes, the seconds they ran, and the second at which each required command
    was first done."""
    start = threading.Barrier(THREADS + 1)
    results: list[Outcome | BaseException | None] = [None] * THREADS
    until: list[tuple[float, float]] = []

    def target(index: int) -> None:
        try:
            results[index] = _work(index, venue, ledger, coverage, until[0], start)
        except BaseException as error:  # reported below
            results[index] = error
        finally:
            connections.close_all()

    set_up = time.monotonic() + 2  # the workers' set-up is not measured
    until.append((set_up + SECONDS, set_up + DEADLINE_SECONDS))
    threads = [threading.Thread(target=target, args=(index,), daemon=True) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join(DEADLINE_SECONDS + 120)
    elapsed = time.monotonic() - began
    assert [thread.name for thread in threads if thread.is_alive()] == [], "workers still running"
    errors = [result for result in results if not isinstance(result, Outcome)]
    assert errors == []
    first_at = {key: at - began for key, at in sorted(coverage.first_at.items(), key=lambda item: item[1])}
    return [result for result in results if isinstance(result, Outcome)], elapsed, first_at


def _expected(venue: Venue, ledger: Ledger) -> tuple[dict[int, int], dict[int, int]]:
    """Balance and held amount per account that the successful commands add up to."""
    balance = defaultdict(int, ledger.balance)
    held = defaultdict(int, ledger.direct_held)
    statuses = dict(Bet.objects.filter(pk__in=list(ledger.bets)).values_list("pk", "status"))
    added_by_bet: Counter[int] = Counter()
    for (round_id, box), count in ledger.added.items():
        # The main bet that played the box: a double or a split holds its stake once more.
        main = Bet.objects.get(
            round_id=round_id, box_number=box, kind=BetKind.MAIN, status__in=["placed", "settled", "voided"]
        )
        added_by_bet[main.pk] += count * main.stake_minor
    for bet_id, (account_id, stake) in ledger.bets.items():
        if statuses[bet_id] == BetStatus.PLACED:  # in a round still open: still held
            held[account_id] += stake + added_by_bet[bet_id]
    lines = PayoutLine.objects.filter(
        round_id__in=ledger.settled_rounds, bet__status=BetStatus.SETTLED
    ).select_related("bet", "round")
    for line in lines:
        account_id = ledger.bets[line.bet_id][0]
        table_id = line.round.table_id
        rounding = math.floor(Fraction(line.rounding_remainder or "0"))
        balance[account_id] -= line.stake_minor
        balance[venue.tray[table_id]] += line.stake_minor - line.paid_minor - rounding
        balance[venue.rounding] += rounding
        if line.needs_approval and line.paid_minor > 0:
            balance[venue.pending[table_id]] += line.paid_minor
            if line.pk in ledger.decided_lines:
                balance[venue.pending[table_id]] -= line.paid_minor
                target = account_id if ledger.decided_lines[line.pk] else venue.tray[table_id]
                balance[target] += line.paid_minor
        else:
            balance[account_id] += line.paid_minor
    return balance, held


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def test_16_threads_of_every_command_at_once_deadlock_nobody_and_keep_the_ledger_exact(seeded: None) -> None:
    # given three tables ready to deal, 24 players with 5 000.00 each at terminals there, staff
    venue = _venue()
    initial = {account.pk: (account.balance_minor, account.held_minor) for account in Account.objects.all()}
    ledger = Ledger()

    # when 16 threads run random commands against them for SECONDS (5 s; 30 s in the soak lane),
    # and on until every required command has been done, at most DEADLINE_SECONDS
    outcomes, elapsed, first_at = _run(venue, ledger, Coverage())

    done = sum((outcome.done for outcome in outcomes), Counter())
    refused = sum((outcome.refused for outcome in outcomes), Counter())
    latencies = [latency for outcome in outcomes for latency in outcome.latencies]
    failures = [failure for outcome in outcomes for failure in outcome.failures]
    commands = sum(done.values()) + sum(refused.values())
    print(
        f"\nmixed stress: {THREADS} threads, {elapsed:.1f} s (at least {SECONDS:g} s, at most "
        f"{DEADLINE_SECONDS:g} s), {commands} commands "
        f"({sum(done.values())} done, {sum(refused.values())} refused), {commands / elapsed:.0f} commands/s, "
        f"latency p50 {_percentile(latencies, 0.5) * 1000:.1f} ms, p99 {_percentile(latencies, 0.99) * 1000:.1f} ms"
    )
    print("done by command:", dict(sorted(done.items())))
    print("required, first done at (s):", {key: round(at, 1) for key, at in first_at.items()})
    print("refused by code:", dict(refused.most_common()))
    print(f"rounds settled: {len(ledger.settled_rounds)}, payout lines decided: {len(ledger.decided_lines)}")
    print(f"failures: {len(failures)}")

    # then no command failed: no deadlock, no unexpected exception
    assert failures == []
    # and the rounds went round: bets, decisions, settlements, payout decisions, reversals
    for name in REQUIRED:
        assert done[name] > 0, name
    assert len(ledger.settled_rounds) > 0
    assert (
        set(Round.objects.filter(status=RoundStatus.SETTLED).values_list("pk", flat=True))
        == ledger.settled_rounds
    )
    # and every account is where the commands that succeeded took it
    expected_balance, expected_held = _expected(venue, ledger)
    differences = {}
    for account in Account.objects.all():
        start_balance, start_held = initial.get(account.pk, (0, 0))
        wanted = (start_balance + expected_balance[account.pk], start_held + expected_held[account.pk])
        if (account.balance_minor, account.held_minor) != wanted:
            differences[account.pk] = {"ledger": (account.balance_minor, account.held_minor), "model": wanted}
    assert differences == {}
    # and the ledger proves itself from its postings
    verification = ledger_verify()
    assert verification.is_clean, verification.offender
