"""Each hand-written SQL statement of the apps against its plain ORM equivalent, on the request
it serves: what the statement saves of its path, the figure the house rule asks for (a statement
stays hand-written only where it saves more than a tenth of its path; docs/benchmarks.md).

For every statement the path is timed in its two shapes, interleaved: as the product runs it, and
with the other shape written here and patched in where the product calls it (the ORM's for a
statement the product writes by hand, the hand-written one for a statement the product sends
through the ORM since this bench found it saved too little). Each path is timed in BENCH_BLOCKS
blocks (7) of BENCH_PER_BLOCK requests (40); within a block every shape of the path runs its
requests in turn, the order rotated from block to block, so that a machine whose speed drifts (a
shared virtual machine) weighs on all alike. Reported per statement: which shape the product
has, the median over the blocks of each block's median, in wall milliseconds (this thread, the
driver and PostgreSQL on the same machine: the path's time) and in this thread's CPU
milliseconds, for the hand-written shape and the ORM's; their ratio and what the hand-written
statement saves of the ORM's path (1 - SQL / ORM).

The paths (through Django's test client, the production settings of the API bench):

- ``bet``: a terminal's bet behind (``POST .../rounds/<r>/bets/``), one new bet per request, on
  BJ1 with 7 boxes taken; each statement of a bet in turn in its other shape (``auth``: the credential and the player session, casino/sql.py; ``idempotency_insert`` and
  ``idempotency_response``: the request's record; ``round_for_bet``, ``bets_for_check``,
  ``bet_insert``: tables/sql.py; ``hold_insert``: wallet/sql.py; the idempotency record's two
  through the ORM, casino/idempotency.py);
- ``cancel``: a terminal takes a bet back (``DELETE .../bets/<id>/``; the bet is placed before,
  untimed); ``player_lock``: the player's row lock (``casino.locking.player_lock``, ORM);
- ``bet_hold``: a further stake held on a placed bet and linked to it (``tables.services.commands
  .bet_hold``: a double, a split, an insurance), timed alone, a part of its decision request (so
  the share found is the most the statement could save of that request); ``bet_hold_link``:
  the link to the hold (``BetHold.objects.create``, ORM);
- ``buy_in``: a cage buy-in (``wallet.services.cage_buy_in`` inside its request's idempotency
  record, as the cage page runs it; the page itself not timed: the share is an upper bound);
  ``check_and_apply``: the cached balances moved (wallet/sql.py; ORM: one ``UPDATE`` with a
  ``Case``/``When`` per account);
- ``console_poll``: the dealer console's live poll (``GET /dealer/tables/BJ1/live/``, htmx, 204);
  ``staff_member``: the member, permissions and roles in one statement (casino/sql.py; ORM:
  Django's ``ModelBackend.get_user`` and its permission and role queries).

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/raw_sql.py [PATH ...]``. Drops and creates the database ``casino_bench_raw_sql`` on that
server (BENCH_DATABASE to change it); never touches the database named in the URL.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.api_bench_settings")

from _scratch import scratch_database_url

os.environ["DATABASE_URL"] = scratch_database_url("raw_sql.py", "casino_bench_raw_sql", fresh=True)

import django

django.setup()

from django.conf import settings  # noqa: E402

settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.backends import ModelBackend  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import Case, F, Q, When  # noqa: E402
from django.test import Client  # noqa: E402

import casino.auth_backends  # noqa: E402
import casino.idempotency  # noqa: E402
import casino.player_sessions  # noqa: E402
import casino.services.terminals  # noqa: E402
import tables.services.bets  # noqa: E402
import tables.services.commands  # noqa: E402
import wallet.services.holds  # noqa: E402
import wallet.services.ledger  # noqa: E402
from casino.actors import Actor  # noqa: E402
from casino.gaming_day_state import gaming_day_writable  # noqa: E402
from casino.idempotency import Outcome, idempotent  # noqa: E402
from casino.locking import row_lock  # noqa: E402
from casino.models import (  # noqa: E402
    Casino,
    IdempotencyRecord,
    Player,
    PlayerSession,
    Table,
    Terminal,
    TerminalCredential,
)
from casino.player_sessions import player_session_start  # noqa: E402
from casino.seeding import seed_all  # noqa: E402
from casino.services import player_create, terminal_credential_issue, terminal_register  # noqa: E402
from floor.console import console_version  # noqa: E402
from tables.models import Bet, BetHold, BetKind, BetStatus, Box, Round, Seat  # noqa: E402
from tables.services.config_changes import table_settings_change  # noqa: E402
from tables.services.dealers import dealer_sign_on, table_open_for_play  # noqa: E402
from tables.services.rounds import round_open  # noqa: E402
from tables.services.seats import box_take  # noqa: E402
from tables.services.shoes import shoe_shuffle  # noqa: E402
from tables.sql import BetRound  # noqa: E402
from wallet.errors import InsufficientFundsError  # noqa: E402
from wallet.models import Account, AccountKind, Hold  # noqa: E402
from wallet.services import cage_buy_in, system_table_fill  # noqa: E402

BLOCKS = int(os.environ.get("BENCH_BLOCKS", "7"))
PER_BLOCK = int(os.environ.get("BENCH_PER_BLOCK", "40"))
BOXES = 7
BETTORS = 40
STAKE = 500  # the table's minimum bet behind

# ------------------------------------------------------------------ the ORM shapes


def credential_with_terminal_orm(digest: str) -> TerminalCredential | None:
    return TerminalCredential.objects.select_related("terminal__table").filter(token_digest=digest).first()


def session_with_player_orm(digest: str) -> PlayerSession | None:
    return (
        PlayerSession.objects.select_related("player__casino")
        .defer("player__pin_hash")
        .filter(token_digest=digest)
        .first()
    )


def idempotency_record_insert_sql(
    *, scope: str, key: str, fingerprint: str, response: dict[str, Any] | None = None
) -> IdempotencyRecord | None:
    """The record in one hand-written statement, ``INSERT ... ON CONFLICT (scope, key) DO NOTHING
    RETURNING id``, the advisory lock of a key in flight taken in the same statement (the bet
    path always refuses a duplicate in flight; ``idempotency_key_lock_try`` is then skipped)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {IdempotencyRecord._meta.db_table} (scope, key, request_fingerprint, created_at) "
            "SELECT %s, %s, %s, now() WHERE pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s)) "
            "ON CONFLICT (scope, key) DO NOTHING RETURNING id",
            [scope, key, fingerprint, scope, key],
        )
        row = cursor.fetchone()
    return None if row is None else IdempotencyRecord(pk=row[0], scope=scope, key=key)


def idempotency_key_lock_try_skipped(scope: str, key: str) -> bool:
    return True


def idempotency_response_store_sql(record: IdempotencyRecord, response: dict[str, Any]) -> None:
    encoded = IdempotencyRecord._meta.get_field("response").get_db_prep_save(response, connection)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {IdempotencyRecord._meta.db_table} SET response = %s WHERE id = %s", [encoded, record.pk]
        )


def round_for_bet_orm(round_id: int, box_number: int, player_id: int) -> BetRound | None:
    """The same reads as four ORM queries (the round with its table's casino, the player's row
    locked, the box, the seat); the bet's id from its sequence (no ORM expression for it)."""
    round_ = (
        Round.objects.select_related("table")
        .only(
            "id",
            "table_id",
            "status",
            "config_id",
            "accepts_bets_behind",
            "decision_deadline_at",
            "table__id",
            "table__casino_id",
        )
        .filter(pk=round_id)
        .first()
    )
    row_lock(Player.objects.filter(pk=player_id).only("pk"))
    if round_ is None:
        return None
    box = (
        Box.objects.only("id", "table_id", "number", "owner_id")
        .filter(table_id=round_.table_id, number=box_number)
        .first()
    )
    seated = box is not None and Seat.objects.filter(box_id=box.pk, player_id=player_id).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [Bet._meta.db_table])
        bet_id = int(cursor.fetchone()[0])
    return BetRound(round=round_, box=box, is_seated=seated, bet_id=bet_id)


def bets_for_check_orm(
    round_id: int, box_number: int, player_id: int, *, own_on_box: bool
) -> list[tuple[Any, ...]]:
    wanted = (Q(box_number=box_number) & ~Q(kind=BetKind.BEHIND)) | Q(player_id=player_id, kind=BetKind.MAIN)
    if own_on_box:
        wanted |= Q(player_id=player_id, box_number=box_number)
    return list(
        Bet.objects.filter(wanted, round_id=round_id, status=BetStatus.PLACED).values_list(
            "id", "player_id", "box_number", "kind", "stake_minor", "follow_double", "follow_split"
        )
    )


def bet_insert_orm(
    *, bet_id: int, hold_id: int, hold_amount_minor: int, hold_reason: str, **values: Any
) -> Bet:
    bet = Bet(id=bet_id, **values)
    bet.save(force_insert=True)
    BetHold.objects.create(bet_id=bet_id, hold_id=hold_id, amount_minor=hold_amount_minor, reason=hold_reason)
    return bet


def hold_insert_orm(hold: Hold, *, player_id: int) -> bool:
    """The plainest ORM shape: the wallet's id, the conditional ``UPDATE``, ``Hold.save``."""
    account_id = (
        Account.objects.filter(player_id=player_id, kind=AccountKind.PLAYER)
        .values_list("pk", flat=True)
        .first()
    )
    if account_id is None:
        return False
    covered = Account.objects.filter(pk=account_id, balance_minor__gte=F("held_minor") + hold.amount_minor)
    if not covered.update(held_minor=F("held_minor") + hold.amount_minor):
        return False
    hold.account_id = account_id
    hold.save(force_insert=True)
    return True


def player_lock_sql(*, player_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {Player._meta.db_table} p WHERE p.id = %s FOR NO KEY UPDATE OF p", [player_id]
        )


def bet_hold_sql(round_: Round, player: Player, bet: Bet, amount_minor: int, reason: str) -> None:
    """``tables.services.commands.bet_hold`` with the link to the hold in a hand-written insert."""
    gaming_day_writable(casino=round_.table.casino)
    hold = tables.services.commands.stake_hold(round_, player, bet.pk, amount_minor)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {BetHold._meta.db_table} (bet_id, hold_id, amount_minor, reason) VALUES (%s, %s, %s, %s)",
            [bet.pk, hold.pk, amount_minor, reason],
        )


def check_and_apply_orm(
    accounts: dict[int, Account], balance_deltas: dict[int, int], held_deltas: dict[int, int] | None = None
) -> None:
    """The same checks, then the balances moved by one ORM ``UPDATE`` (``Case``/``When``)."""
    held_deltas = held_deltas or {}
    rows: list[tuple[int, int, int]] = []
    for account_id in sorted(set(balance_deltas) | set(held_deltas)):
        account = accounts[account_id]
        delta_balance, delta_held = balance_deltas.get(account_id, 0), held_deltas.get(account_id, 0)
        if not delta_balance and not delta_held:
            continue
        new_balance, new_held = account.balance_minor + delta_balance, account.held_minor + delta_held
        if new_held < 0 or (not account.may_go_negative and new_balance < new_held):
            raise InsufficientFundsError("insufficient funds", account_id=account.pk)
        rows.append((account_id, delta_balance, delta_held))
    if not rows:
        return
    Account.objects.filter(pk__in=[row[0] for row in rows]).update(
        balance_minor=Case(*(When(pk=pk, then=F("balance_minor") + d) for pk, d, _ in rows)),
        held_minor=Case(*(When(pk=pk, then=F("held_minor") + h) for pk, _, h in rows)),
    )
    for account_id, delta_balance, delta_held in rows:
        accounts[account_id].balance_minor += delta_balance
        accounts[account_id].held_minor += delta_held


def staff_get_user_orm(self: Any, user_id: Any) -> Any:
    return ModelBackend.get_user(self, user_id)


# Per statement: which shape the product has ("SQL": hand-written, "ORM"), and the other shape as
# (module, name, replacement) patched in where the product calls it.
SHAPES: dict[str, tuple[str, list[tuple[Any, str, Any]]]] = {
    "auth": (
        "SQL",
        [
            (casino.services.terminals, "credential_with_terminal", credential_with_terminal_orm),
            (casino.player_sessions, "session_with_player", session_with_player_orm),
        ],
    ),
    "idempotency_insert": (
        "ORM",
        [
            (casino.idempotency, "_record_insert", idempotency_record_insert_sql),
            (casino.idempotency, "idempotency_key_lock_try", idempotency_key_lock_try_skipped),
        ],
    ),
    "idempotency_response": (
        "ORM",
        [(casino.idempotency, "_response_store", idempotency_response_store_sql)],
    ),
    "round_for_bet": ("SQL", [(tables.services.bets, "round_for_bet", round_for_bet_orm)]),
    "bets_for_check": ("SQL", [(tables.services.bets, "bets_for_check", bets_for_check_orm)]),
    "bet_insert": ("SQL", [(tables.services.bets, "bet_insert", bet_insert_orm)]),
    "hold_insert": ("SQL", [(wallet.services.holds, "hold_insert", hold_insert_orm)]),
    "player_lock": ("ORM", [(tables.services.bets, "player_lock", player_lock_sql)]),
    "bet_hold_link": ("ORM", [(tables.services.commands, "bet_hold", bet_hold_sql)]),
    "check_and_apply": (
        "SQL",
        [
            (wallet.services.ledger, "check_and_apply", check_and_apply_orm),
            (wallet.services.holds, "check_and_apply", check_and_apply_orm),
        ],
    ),
    "staff_member": ("SQL", [(casino.auth_backends.StaffBackend, "get_user", staff_get_user_orm)]),
}


@contextmanager
def shape(name: str) -> Iterator[None]:
    """The product as it is (``product``), or with the other shape of statement ``name``."""
    if name == "product":
        yield
        return
    patches = SHAPES[name][1]
    saved = [(owner, attribute, getattr(owner, attribute)) for owner, attribute, _ in patches]
    for owner, attribute, replacement in patches:
        setattr(owner, attribute, replacement)
    try:
        yield
    finally:
        for owner, attribute, original in saved:
            setattr(owner, attribute, original)


# ------------------------------------------------------------------ the world


@dataclass
class Bettor:
    player: Player
    headers: dict[str, str]


@dataclass
class World:
    table: Table
    round: Round
    bettors: list[Bettor]
    cashier: Any
    console: Client
    counter: list[int] = field(default_factory=lambda: [0])

    def key(self) -> str:
        self.counter[0] += 1
        return f"k{self.counter[0]}-{uuid.uuid4().hex[:6]}"

    def bettor(self) -> Bettor:
        return self.bettors[self.counter[0] % len(self.bettors)]


def _bettor(casino: Casino, table: Table, cashier: Any, index: int) -> Bettor:
    card, pin = f"8{index:09d}", "2468"
    system = Actor.automatic("system")
    player = player_create(
        casino=casino, card_number=card, display_name=f"Bench {index}", pin=pin, actor=system
    )
    cage_buy_in(player=player, amount_minor=10**10, actor=Actor.staff(cashier))
    terminal = terminal_register(
        casino=casino, name=f"R-{index}", kind=Terminal.Kind.PLAYER_TERMINAL, table=table, actor=system
    )
    _, token = terminal_credential_issue(terminal=terminal, actor=system)
    _, player_token = player_session_start(terminal=terminal, card_number=card, pin=pin)
    headers = {"Authorization": f"Terminal {token}", "X-Player-Token": player_token}
    return Bettor(player, headers)


def world() -> World:
    call_command("migrate", verbosity=0)
    seed_all()
    users = get_user_model().objects
    operator, dealer, cashier = (users.get(username=name) for name in ("operator", "dealer", "cashier"))
    table = Table.objects.get(name="BJ1")
    table_settings_change(table=table, actor=Actor.staff(operator), settings={"betting_seconds": 600})
    bettors = [_bettor(table.casino, table, cashier, n) for n in range(BOXES + BETTORS)]
    for box, owner in enumerate(bettors[:BOXES], start=1):
        box_take(table=table, box_number=box, actor=Actor(player=owner.player))
    system_table_fill(table=table, amount_minor=10**11, actor=Actor.automatic("bench"))
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    table_open_for_play(table=table, actor=Actor.staff(dealer))
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    console = Client()
    console.force_login(dealer)
    return World(table, round_, bettors[BOXES:], cashier, console)


# ------------------------------------------------------------------ the paths


def _bets_url(world: World) -> str:
    return f"/api/v1/tables/{world.table.pk}/rounds/{world.round.pk}/bets/"


def _bet(world: World, bettor: Bettor) -> Any:
    body = {"box": 1 + world.counter[0] % BOXES, "kind": "behind", "stake_minor": STAKE}
    return Client().post(
        _bets_url(world),
        json.dumps(body),
        content_type="application/json",
        headers={**bettor.headers, "Idempotency-Key": world.key()},
    )


@dataclass
class Timed:
    wall: float
    cpu: float


def _timed(call: Callable[[], Any], expect: int) -> Timed:
    cpu = time.thread_time_ns()
    started = time.perf_counter_ns()
    response = call()
    wall = time.perf_counter_ns() - started
    cpu = time.thread_time_ns() - cpu
    status = getattr(response, "status_code", expect)
    if status != expect:
        body = getattr(response, "content", b"")[:300]
        raise SystemExit(f"unexpected answer {status} (expected {expect}): {body!r}")
    return Timed(wall / 1e6, cpu / 1e6)


def path_bet(world: World) -> Timed:
    bettor = world.bettor()
    return _timed(lambda: _bet(world, bettor), 201)


def path_cancel(world: World) -> Timed:
    bettor = world.bettor()
    placed = _bet(world, bettor)
    assert placed.status_code == 201, placed.content
    url = f"{_bets_url(world)}{placed.json()['id']}/"
    return _timed(
        lambda: Client().delete(url, headers={**bettor.headers, "Idempotency-Key": world.key()}), 200
    )


def path_bet_hold(world: World) -> Timed:
    bettor = world.bettor()
    placed = _bet(world, bettor)
    assert placed.status_code == 201, placed.content
    bet = Bet.objects.get(pk=placed.json()["id"])
    round_ = Round.objects.select_related("table__casino").get(pk=world.round.pk)

    def held() -> None:
        with transaction.atomic():
            tables.services.commands.bet_hold(round_, bettor.player, bet, STAKE, "doubled")

    return _timed(held, 200)


def path_buy_in(world: World) -> Timed:
    bettor = world.bettor()
    actor = Actor.staff(world.cashier)

    def buy_in() -> None:
        idempotent(
            scope=f"cage:u{world.cashier.pk}",
            key=world.key(),
            payload={"command": "buy_in", "player": bettor.player.pk, "amount_minor": 10_000},
            perform=lambda: Outcome(
                {"transfer_id": cage_buy_in(player=bettor.player, amount_minor=10_000, actor=actor).pk}
            ),
        )

    return _timed(buy_in, 200)


def path_console_poll(world: World) -> Timed:
    version = console_version(world.table)
    return _timed(
        lambda: world.console.get(
            f"/dealer/tables/{world.table.name}/live/", {"version": version}, headers={"HX-Request": "true"}
        ),
        204,
    )


PATHS: dict[str, tuple[Callable[[World], Timed], list[str]]] = {
    "bet": (
        path_bet,
        [
            "auth",
            "idempotency_insert",
            "idempotency_response",
            "round_for_bet",
            "bets_for_check",
            "bet_insert",
            "hold_insert",
        ],
    ),
    "cancel": (path_cancel, ["player_lock"]),
    "bet_hold": (path_bet_hold, ["bet_hold_link"]),
    "buy_in": (path_buy_in, ["check_and_apply"]),
    "console_poll": (path_console_poll, ["staff_member"]),
}


def measure(world: World, path: str) -> dict[str, tuple[float, float]]:
    """Per shape of ``path``: (median wall ms, median CPU ms) over the blocks' medians."""
    run, statements = PATHS[path]
    shapes = ["product", *statements]
    for name in shapes:  # warm-up: every shape once, not counted
        with shape(name):
            for _ in range(5):
                run(world)
    blocks: dict[str, list[tuple[float, float]]] = {name: [] for name in shapes}
    for block in range(BLOCKS):
        rotation = shapes[block % len(shapes) :] + shapes[: block % len(shapes)]
        for name in rotation:
            with shape(name):
                samples = [run(world) for _ in range(PER_BLOCK)]
            blocks[name].append(
                (statistics.median(s.wall for s in samples), statistics.median(s.cpu for s in samples))
            )
    return {
        name: (statistics.median(b[0] for b in values), statistics.median(b[1] for b in values))
        for name, values in blocks.items()
    }


def main() -> None:
    wanted = sys.argv[1:] or list(PATHS)
    unknown = [name for name in wanted if name not in PATHS]
    if unknown:
        sys.exit(f"unknown paths {unknown}: choose among {list(PATHS)}")
    started = time.perf_counter()
    the_world = world()
    print(
        f"bench/raw_sql.py, {dt.date.today().isoformat()}, {os.cpu_count()} CPUs, PostgreSQL "
        f"{connection.pg_version // 10000} on this machine; {BLOCKS} blocks x {PER_BLOCK} requests per shape"
    )
    print(
        f"{'path':<13} {'statement':<21} {'product':>7} {'wall SQL':>9} {'wall ORM':>9} {'ratio':>6}"
        f" {'SQL saves':>9} {'CPU SQL':>8} {'CPU ORM':>8} {'ratio':>6}"
    )
    for path in wanted:
        figures = measure(the_world, path)
        for name, (wall, cpu) in figures.items():
            if name == "product":
                continue
            product_is = SHAPES[name][0]
            (sql_wall, sql_cpu), (orm_wall, orm_cpu) = (
                (figures["product"], (wall, cpu))
                if product_is == "SQL"
                else ((wall, cpu), figures["product"])
            )
            print(
                f"{path:<13} {name:<21} {product_is:>7} {sql_wall:>9.2f} {orm_wall:>9.2f} {orm_wall / sql_wall:>6.2f}"
                f" {1 - sql_wall / orm_wall:>9.1%} {sql_cpu:>8.2f} {orm_cpu:>8.2f} {orm_cpu / sql_cpu:>6.2f}"
            )
        sys.stdout.flush()
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
