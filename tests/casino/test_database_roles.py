"""The application's database role (casino/database_roles.py): what it must not do, PostgreSQL's
privileges refuse before any trigger runs; what the back office does every day works under it.

The suite connects as the server's superuser (it creates the test database, and other tests play
the attacker). Here the test database is first given to the owner role and the application
role's rights applied to it, as the embedded server and ``migrate`` do; then each test takes the
application's role (``SET ROLE``) for the statements and service calls it proves things about.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import ProgrammingError, connection, transaction
from django.test import Client, override_settings
from django.urls import reverse
from psycopg import sql

from casino import database_roles
from casino.database_roles import (
    APPEND_ONLY_TABLES,
    APPLICATION_ROLE,
    INSERT_ONLY_TABLES,
    OWNER_ROLE,
    TABLE_LISTS,
    Login,
    application_role_grant,
    application_role_problems,
    grant_after_migrate,
    roles_create,
    unlisted_tables,
)
from casino.models import AuditRecord, Table
from tables.models import PayoutLine
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    payout_approve,
    round_close_betting,
    round_open,
    round_request_create,
    round_request_reject,
    round_settle,
    table_settings_change,
)
from tests import worlds
from tests.factories import PlayerFactory, staff_user
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe
from wallet.models import Account, AccountKind, Transfer
from wallet.services import cage_buy_in, transfer_reverse

ROOT = Path(settings.BASE_DIR)


@pytest.fixture(scope="module")
def roles(django_db_setup: Any, django_db_blocker: Any) -> None:
    """The test databases as an installation has them: owned by the owner role, with the
    application role's rights granted by the owner; the empty world's and the demo casino's
    (tests/worlds.py), whichever the module's tests start from."""
    with django_db_blocker.unblock():
        for demo in (False, True):
            worlds.enter(demo=demo)
            connection.ensure_connection()
            raw = connection.connection
            roles_create(raw, owner=Login(OWNER_ROLE), application=Login(APPLICATION_ROLE))
            with _role(OWNER_ROLE):
                application_role_grant(raw, owner=OWNER_ROLE, application=APPLICATION_ROLE)


@contextmanager
def _role(name: str) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(name)).as_string(connection.connection))
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def as_application() -> Any:
    return _role(APPLICATION_ROLE)


def _current_user() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        return str(cursor.fetchone()[0])


def _refusal(statement: str) -> str:
    """The error of ``statement`` run as the application role (in a savepoint of its own)."""
    with (
        as_application(),
        pytest.raises(ProgrammingError) as refused,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement)
    return str(refused.value).strip()


def _count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table)).as_string(connection.connection)
        )
        return int(cursor.fetchone()[0])


@pytest.fixture
def table(seeded: Any) -> Table:
    return Table.objects.get(name="BJ1")


@pytest.fixture
def dealer(seeded: Any) -> Any:
    return staff_user("dealer", "dealer-1")


@pytest.fixture
def pit_boss(seeded: Any) -> Any:
    return staff_user("pit_boss", "pitboss-1")


@pytest.fixture
def operator(seeded: Any) -> Any:
    return staff_user("operator", "operator-1")


def _round_won(table: Table, dealer: Any) -> tuple[Any, int]:
    """Alice on box 1 bets 1000 and stands on 19 against the dealer's 17: the round settled, her
    win waiting for approval when above the table's threshold. (player, round id)"""
    alice = funded_player(table, 10_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_alice, as_dealer = at_terminal(table, alice), Actor.staff(dealer)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=as_dealer)
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m1"
    )
    round_close_betting(round_id=round_.pk, actor=as_dealer)
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=as_dealer)
    return alice, round_.pk


@pytest.fixture
def every_append_only_table_has_rows(
    roles: None, table: Table, dealer: Any, pit_boss: Any, operator: Any
) -> None:
    """A round won above the approval threshold and approved: audit records, transfers,
    postings, round events, a payout line and a payout decision; then a round the dealer asked to
    void, which the pit boss refused: a request and its decision."""
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    _, round_id = _round_won(table, dealer)
    payout_approve(payout_line_id=PayoutLine.objects.get(round_id=round_id).pk, actor=Actor.staff(pit_boss))
    opened = round_open(table=table, actor=Actor.staff(dealer))
    request = round_request_create(round_id=opened.pk, actor=Actor.staff(dealer), kind="void", reason="test")
    round_request_reject(request_id=request.pk, actor=Actor.staff(pit_boss), reason="play it")
    # and a canasta deal scored at CA1: its events and its score
    from tests.cardroom.conftest import canasta_deal_scored

    canasta_deal_scored(Table.objects.get(name="CA1"))
    assert {name: _count(name) > 0 for name in APPEND_ONLY_TABLES} == dict.fromkeys(APPEND_ONLY_TABLES, True)


# ------------------------------------------------------------------------------------ the role


@pytest.mark.django_db
def test_the_application_role_is_no_superuser_owns_nothing_and_is_a_member_of_no_role(roles):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication,"
            " (SELECT count(*) FROM pg_class WHERE relowner = r.oid),"
            " (SELECT count(*) FROM pg_proc WHERE proowner = r.oid),"
            " (SELECT count(*) FROM pg_auth_members WHERE member = r.oid)"
            " FROM pg_roles r WHERE rolname = %s",
            [APPLICATION_ROLE],
        )
        row = cursor.fetchone()
        cursor.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()")
        database_owner = cursor.fetchone()[0]

    assert row == (False, False, False, False, False, 0, 0, 0)
    assert database_owner == OWNER_ROLE
    assert application_role_problems(connection.connection, application=APPLICATION_ROLE) == []


@pytest.mark.django_db
def test_the_append_only_tables_are_those_with_append_only_triggers(roles):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT tgrelid::regclass::text FROM pg_trigger"
            " WHERE NOT tgisinternal AND tgname LIKE '%%\\_append\\_only'"
        )
        guarded = {name for (name,) in cursor.fetchall()}

    assert guarded == APPEND_ONLY_TABLES


# ------------------------------------------------------------------------------- what it may not do


@pytest.mark.parametrize("statement", ["UPDATE {} SET id = id", "DELETE FROM {}", "TRUNCATE {}"])
@pytest.mark.django_db
def test_the_application_role_may_not_change_an_append_only_table(
    every_append_only_table_has_rows, statement
):
    refusals = {name: _refusal(statement.format(name)) for name in sorted(APPEND_ONLY_TABLES)}

    # refused by a missing privilege, not by the trigger (whose message says "append-only")
    assert refusals == {name: f"permission denied for table {name}" for name in sorted(APPEND_ONLY_TABLES)}
    assert all(_count(name) > 0 for name in APPEND_ONLY_TABLES)


@pytest.mark.django_db
def test_the_application_role_only_inserts_into_the_insert_only_tables(roles):
    refusals = {name: _refusal(f"UPDATE {name} SET id = id") for name in sorted(INSERT_ONLY_TABLES)}

    assert refusals == {name: f"permission denied for table {name}" for name in sorted(INSERT_ONLY_TABLES)}


@pytest.mark.django_db
def test_the_application_role_may_not_disable_a_trigger(roles):
    refusals = {
        name: _refusal(f"ALTER TABLE {name} DISABLE TRIGGER {name}_append_only")
        for name in sorted(APPEND_ONLY_TABLES)
    }

    assert refusals == {name: f"must be owner of table {name}" for name in sorted(APPEND_ONLY_TABLES)}


@pytest.mark.django_db
def test_the_application_role_may_not_set_session_replication_role(roles):
    refusal = _refusal("SET session_replication_role = replica")

    assert refusal == 'permission denied to set parameter "session_replication_role"'
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone()[0] == "origin"


@pytest.mark.django_db
def test_a_table_a_migration_adds_stays_append_only_and_fails_migrate_until_it_is_listed(roles, monkeypatch):
    # given a table the owner creates (as a migration would), and a row in it
    with _role(OWNER_ROLE), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE casino_newthing (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n int)"
        )
    with as_application(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO casino_newthing (n) VALUES (1)")
    # then the application may read and insert, not update
    assert _refusal("UPDATE casino_newthing SET n = 2") == "permission denied for table casino_newthing"
    # when migrate's receiver runs, the table being in none of the lists
    with (
        _role(OWNER_ROLE),
        override_settings(DATABASE_APPLICATION_ROLE=APPLICATION_ROLE),
        pytest.raises(RuntimeError) as refused,
    ):
        grant_after_migrate(using="default")
    # then migrate fails, naming the table and the lists to put it in, and the table stays
    # append-only for the application
    assert "table casino_newthing is in none of the lists of casino/database_roles.py" in str(refused.value)
    assert "APPEND_ONLY_TABLES, INSERT_ONLY_TABLES, READ_ONLY_TABLES, MUTABLE_TABLES" in str(refused.value)
    assert _refusal("UPDATE casino_newthing SET n = 2") == "permission denied for table casino_newthing"
    assert _refusal("DELETE FROM casino_newthing") == "permission denied for table casino_newthing"
    # when it is listed as mutable, the grants give the application UPDATE and DELETE
    monkeypatch.setattr(database_roles, "MUTABLE_TABLES", database_roles.MUTABLE_TABLES | {"casino_newthing"})
    monkeypatch.setitem(database_roles.TABLE_LISTS, "MUTABLE_TABLES", database_roles.MUTABLE_TABLES)
    with _role(OWNER_ROLE):
        changes = application_role_grant(
            connection.connection, owner=OWNER_ROLE, application=APPLICATION_ROLE
        )
    with as_application(), connection.cursor() as cursor:
        cursor.execute("UPDATE casino_newthing SET n = 2")
        assert cursor.rowcount == 1
    assert changes == ['GRANT DELETE, UPDATE ON TABLE "casino_newthing" TO "casino_app"']
    assert application_role_problems(connection.connection, application=APPLICATION_ROLE) == []


@pytest.mark.django_db
def test_every_table_of_the_schema_is_in_exactly_one_list(roles):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
            " AND relkind IN ('r', 'p')"
        )
        tables = {name for (name,) in cursor.fetchall()}
    lists = {name: group & tables for name, group in TABLE_LISTS.items()}

    assert unlisted_tables(connection.connection) == []
    assert sum(len(group) for group in lists.values()) == len(tables)
    # and the lists name no table the schema lacks (a table renamed or dropped leaves no entry)
    assert frozenset().union(*TABLE_LISTS.values()) == tables


@pytest.mark.django_db
def test_the_grants_after_migrate_take_back_what_was_granted_by_hand(roles):
    # given rights on append-only tables granted by hand
    with _role(OWNER_ROLE), connection.cursor() as cursor:
        cursor.execute(f"GRANT UPDATE (action) ON casino_auditrecord TO {APPLICATION_ROLE}")
        cursor.execute(f"GRANT TRUNCATE, DELETE ON wallet_posting TO {APPLICATION_ROLE}")
    assert application_role_problems(connection.connection, application=APPLICATION_ROLE) == [
        f"{APPLICATION_ROLE} has UPDATE on casino_auditrecord",
        f"{APPLICATION_ROLE} has DELETE on wallet_posting",
        f"{APPLICATION_ROLE} has TRUNCATE on wallet_posting",
    ]
    # when migrate's receiver runs as the owner, naming the application role
    with _role(OWNER_ROLE), override_settings(DATABASE_APPLICATION_ROLE=APPLICATION_ROLE):
        grant_after_migrate(using="default")

    # then they are gone (the table grant; the column grant goes with REVOKE UPDATE ON the table)
    assert application_role_problems(connection.connection, application=APPLICATION_ROLE) == []
    with _role(OWNER_ROLE):
        assert (
            application_role_grant(connection.connection, owner=OWNER_ROLE, application=APPLICATION_ROLE)
            == []
        )


@pytest.mark.django_db
def test_without_an_application_role_migrate_grants_nothing(roles):
    with _role(OWNER_ROLE), connection.cursor() as cursor:
        cursor.execute(f"GRANT TRUNCATE ON wallet_posting TO {APPLICATION_ROLE}")
    with _role(OWNER_ROLE), override_settings(DATABASE_APPLICATION_ROLE=""):
        grant_after_migrate(using="default")

    assert application_role_problems(connection.connection, application=APPLICATION_ROLE) == [
        f"{APPLICATION_ROLE} has TRUNCATE on wallet_posting"
    ]


# ---------------------------------------------------------------------------- what it does every day


@pytest.mark.django_db
def test_the_application_role_places_a_bet_and_settles_a_round(roles, table, dealer, operator):
    # given alice funded, and the shoe stacked (as the superuser)
    alice = funded_player(table, 10_000)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    as_alice, as_dealer = at_terminal(table, alice), Actor.staff(dealer)
    with as_application():
        assert _current_user() == APPLICATION_ROLE
        # when the operator changes the table's settings, she takes a box and bets, and the round
        # is played and settled
        table_settings_change(table=table, actor=Actor.staff(operator), settings={"betting_seconds": 45})
        box_take(table=table, box_number=1, actor=as_alice)
        round_ = round_open(table=table, actor=as_dealer)
        bet_place(
            round_id=round_.pk,
            actor=as_alice,
            box_number=1,
            kind="main",
            stake_minor=1000,
            idempotency_key="m1",
        )
        assert balance(alice) == (10_000, 1000)
        round_close_betting(round_id=round_.pk, actor=as_dealer)
        decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
        round_settle(round_id=round_.pk, actor=as_dealer)

    # then she won 1000
    assert balance(alice) == (11_000, 0)
    assert PayoutLine.objects.get(round=round_).net_minor == 1000
    assert AuditRecord.objects.filter(action="round.settled").count() == 1


@pytest.mark.django_db
def test_the_application_role_approves_a_held_payout(roles, table, dealer, pit_boss, operator):
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    alice, round_id = _round_won(table, dealer)
    line = PayoutLine.objects.get(round_id=round_id)
    assert balance(alice) == (9000, 0)

    with as_application():
        payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))

    assert balance(alice) == (11_000, 0)


@pytest.mark.django_db
def test_the_application_role_buys_in_and_reverses_at_the_cage(roles, seeded):
    cashier, pit_boss = staff_user("cashier", "cashier-1"), staff_user("pit_boss", "pitboss-1")
    player = PlayerFactory(casino=Table.objects.get(name="BJ1").casino)

    with as_application():
        bought = cage_buy_in(player=player, amount_minor=7_000, actor=Actor.staff(cashier))
        assert Account.objects.get(player=player, kind=AccountKind.PLAYER).balance_minor == 7_000
        reversal = transfer_reverse(transfer=bought, reason="wrong player", actor=Actor.staff(pit_boss))

    assert Account.objects.get(player=player, kind=AccountKind.PLAYER).balance_minor == 0
    assert Transfer.objects.get(pk=reversal.pk).reverses_id == bought.pk


@pytest.mark.django_db
def test_a_staff_login_works_under_the_application_role(roles, seeded):
    client = Client()

    with as_application():
        response = client.post(reverse("casino:login"), {"username": "dealer", "password": "dealer-demo"})
        landing = client.get("/", follow=True)

    assert response.status_code == 302
    assert landing.status_code == 200
    assert AuditRecord.objects.filter(action="staff.login", actor__username="dealer").count() == 1


# ------------------------------------------------------------------------------------ the settings


def _database_settings(argv: list[str]) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.test",
        "DATABASE_URL": "postgres://casino_app:app-secret@db.invalid:5432/casino",
        "DATABASE_OWNER_URL": "postgres://casino_owner:owner-secret@db.invalid:5432/casino",
    }
    program = (
        f"import sys; sys.argv = {argv!r}; import django; django.setup(); from django.conf import settings; "
        "print(settings.DATABASES['default']['USER'], repr(settings.DATABASE_APPLICATION_ROLE))"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_migrate_connects_as_the_owner_and_grants_to_the_application():
    assert _database_settings(["manage.py", "migrate"]) == "casino_owner 'casino_app'"
    assert _database_settings(["manage.py", "database_roles"]) == "casino_owner 'casino_app'"


def test_every_other_process_connects_as_the_application():
    assert _database_settings(["manage.py", "seed"]) == "casino_app ''"
    assert _database_settings(["gunicorn", "casino.wsgi"]) == "casino_app ''"
