"""The database's two roles: an owner that runs the migrations, and the application's role.

The owner (``casino_owner`` by default) owns the database, its schema's tables, sequences and
functions; it is no superuser. Migrations run as it: ``manage.py migrate`` connects with
``DATABASE_OWNER_URL`` when that is set (``OWNER_COMMANDS``, chosen in the settings).

The application (``casino_app``: the web processes, the Celery worker and beat, the seed, a
shell) connects with ``DATABASE_URL`` as a role that is no superuser, owns nothing and is a
member of no role, so it can neither disable a trigger (``ALTER TABLE`` needs the owner) nor set
``session_replication_role`` (superusers only). On the append-only tables (``APPEND_ONLY_TABLES``)
it may only SELECT and INSERT: an UPDATE, DELETE or TRUNCATE there is refused by a missing
privilege before any trigger runs. The same two rights on the tables it only ever inserts into
(``INSERT_ONLY_TABLES``), SELECT alone on ``django_migrations`` (``READ_ONLY_TABLES``), and SELECT,
INSERT, UPDATE and DELETE on the tables whose rows it changes (``MUTABLE_TABLES``: balances,
holds, bets, boxes, seats, rounds, shoes, sessions, login states, terminal credentials,
idempotency records, beat's schedules; and row locks, which PostgreSQL allows only with UPDATE).
A table in none of the lists gets SELECT and INSERT only and is reported as a problem, which
fails ``migrate``: each new table is put in a list by whoever adds it, and until then nothing can
rewrite it. Never TRUNCATE, REFERENCES or TRIGGER.

Two steps, because they need different rights:

- ``roles_create`` (an administrator: a superuser): creates or updates both roles, makes the
  owner own the database and every object of its schema (an installation that ran as a superuser
  before keeps its data), and takes CREATE on the schema from PUBLIC. Run by the embedded server at
  every start, by ``manage.py database_roles --admin-url`` (compose's ``roles`` step, CI), or by
  hand on a managed PostgreSQL whose administrator is no superuser (docs/operations.md).
- ``application_role_grant`` (the owner): the application's rights, computed from the tables as
  they are and applied as a difference (a second run changes nothing). It runs after every
  ``migrate`` (a ``post_migrate`` receiver, when the settings name an application role) and from
  ``manage.py database_roles``. Default privileges (``ALTER DEFAULT PRIVILEGES FOR ROLE`` the
  owner) give a table a later migration creates SELECT and INSERT only: until the grants run,
  a new table is append-only for the application, and so it stays until it is listed. A missing
  grant or a missing list entry fails closed (a refused update that shows, a ``migrate`` that
  fails naming the table), never open (an append-only table that can be rewritten).

``application_role_problems`` checks the result from the catalog, and names each table in none of
the lists; ``migrate`` and ``manage.py database_roles`` fail when it finds anything.

A receiver after ``migrate`` rather than a step to remember: every way of migrating (``make``,
compose, the Kubernetes job, CI) then leaves the rights exact, and a new append-only table never
goes out with UPDATE granted.

The functions take a psycopg connection (Django's own, ``connection.connection``, or one of
their own) and use no Django, so that the embedded server's runner can call them before Django
starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import psycopg
from psycopg import errors, sql

OWNER_ROLE = "casino_owner"
APPLICATION_ROLE = "casino_app"

# The tables whose rows are never changed or removed: the application may only read and insert.
# Each also has triggers refusing UPDATE, DELETE and TRUNCATE (tests/casino/test_database_roles.py
# checks that the two lists agree).
APPEND_ONLY_TABLES = frozenset(
    {
        "casino_auditrecord",
        "wallet_posting",
        "wallet_transfer",
        "tables_roundevent",
        "tables_payoutline",
        "tables_payoutdecision",
        "tables_roundrequest",
        "tables_roundrequestdecision",
        # A canasta deal's event log and its scores (migration tables 0009).
        "tables_canastadealevent",
        "tables_canastadealscore",
    }
)
# Tables without triggers of their own that the back office only reads and inserts into: the
# permissions and content types (made by migrate, as the owner), a table's configuration versions
# and the link of a bet to its holds. Nothing of the application updates or deletes their rows
# (no such statement in the code; none in a run of the whole test suite, pg_stat_user_tables'
# n_tup_upd and n_tup_del), and nothing cascades into them (PROTECT).
INSERT_ONLY_TABLES = frozenset(
    {
        "auth_permission",
        "django_content_type",
        "tables_tableconfigversion",
        "tables_bethold",
        # Canasta: a table's configuration versions and void requests of games (their
        # decisions are four-eyes approvals, casino_approval).
        "tables_canastatablesettings",
        "tables_canastavoidrequest",
        # A gaming day's closings and reopenings (casino/models.py, casino/gaming_day_state.py):
        # a reopening is a record of its own naming the closing it undoes.
        "casino_gamingdayclose",
        "casino_gamingdayreopening",
        # The pit's accounting records (accounting/models.py): a gaming day's close signatures,
        # tray counts, their lines and signatures, variance investigations and their resolutions, slips, their
        # lines and signed steps. Written once; a correction is a new record naming the old.
        "accounting_gamingdaysignature",
        "accounting_traycount",
        "accounting_traycountline",
        "accounting_traycountsignature",
        "accounting_varianceinvestigation",
        "accounting_investigationresolution",
        "accounting_slip",
        "accounting_slipline",
        "accounting_slipsignature",
        # Buy-ins at the table, drop box counts and their signatures, hold alerts and their
        # resolutions (accounting/services_drop.py). Written once; a correction names the old.
        "accounting_tablebuyin",
        "accounting_dropcount",
        "accounting_dropcountsignature",
        "accounting_holdalert",
        "accounting_holdalertresolution",
        # Tips to the dealers of rounds, and the rounds that brought none (accounting/tips.py).
        "accounting_tip",
    }
)
# Written by migrations only.
READ_ONLY_TABLES = frozenset({"django_migrations"})
# The tables whose rows the application updates or deletes (and may lock, which needs UPDATE).
MUTABLE_TABLES = frozenset(
    {
        # Django's staff accounts, groups and their links; sessions; the admin's log.
        "auth_group",
        "auth_group_permissions",
        "auth_user",
        "auth_user_groups",
        "auth_user_user_permissions",
        "django_admin_log",
        "django_session",
        # Celery beat's schedules (django_celery_beat).
        "django_celery_beat_clockedschedule",
        "django_celery_beat_crontabschedule",
        "django_celery_beat_intervalschedule",
        "django_celery_beat_periodictask",
        "django_celery_beat_periodictasks",
        "django_celery_beat_solarschedule",
        # The venue: casinos, pits, players and their sessions, staff login states, terminals
        # and their credentials.
        "casino_casino",
        "casino_pit",
        "casino_player",
        "casino_playersession",
        "casino_staffloginstate",
        "casino_staffpreference",
        "casino_terminal",
        "casino_terminalcredential",
        # Background jobs: their status, progress and result change as the work goes on.
        "casino_backgroundjob",
        # A four-eyes approval: written pending, decided once (casino.four_eyes).
        "casino_approval",
        # The request idempotency records (casino.IdempotencyRecord, casino/idempotency.py): the
        # response is stored after the insert. The table kept the name it had in the wallet.
        "wallet_idempotencyrecord",
        # Live tables: tables, seats, boxes, shoes, rounds, bets, and the configuration.
        "tables_table",
        "tables_seat",
        "tables_box",
        "tables_shoe",
        "tables_round",
        "tables_bet",
        "tables_tabledealer",
        "tables_tableconfigproposal",
        "tables_ruleset",
        "tables_rulesetversion",
        "tables_sidebetpaytable",
        "tables_sidebetpaytableversion",
        # Canasta games, their players (a seat left before the start is deleted) and deals.
        "tables_canastagame",
        "tables_canastagameplayer",
        "tables_canastadeal",
        # The wallet: accounts (cached balances), holds, pending payouts, balance adjustments.
        "wallet_account",
        "wallet_hold",
        "wallet_pendingpayout",
        "wallet_balanceadjustment",
        # The pit's accounting: its settings, the chip set (withdrawn chips are flagged) and the
        # slip counters (moved on by each slip's request).
        "accounting_accountingsettings",
        "accounting_chipdenomination",
        "accounting_slipcounter",
    }
)
# Every table of the schema is in one of them (``unlisted_tables``).
TABLE_LISTS = {
    "APPEND_ONLY_TABLES": APPEND_ONLY_TABLES,
    "INSERT_ONLY_TABLES": INSERT_ONLY_TABLES,
    "READ_ONLY_TABLES": READ_ONLY_TABLES,
    "MUTABLE_TABLES": MUTABLE_TABLES,
}

APPEND_ONLY_PRIVILEGES = frozenset({"SELECT", "INSERT"})
READ_ONLY_PRIVILEGES = frozenset({"SELECT"})
TABLE_PRIVILEGES = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE"})
SEQUENCE_PRIVILEGES = frozenset({"USAGE", "SELECT"})

# The management commands that connect as the owner when DATABASE_OWNER_URL is set.
OWNER_COMMANDS = frozenset({"migrate", "database_roles"})

Connection = psycopg.Connection[Any]


@dataclass(frozen=True)
class Login:
    """A role and, when its URL has one, its password."""

    name: str
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> Login:
        parts = urlsplit(url)
        if not parts.username:
            raise ValueError(f"the database URL names no user: {parts.scheme}://{parts.hostname}/...")
        password = unquote(parts.password) if parts.password is not None else None
        return cls(unquote(parts.username), password)


def table_privileges(table: str) -> frozenset[str]:
    """What the application role may do on ``table``. A table in none of the lists may only be
    read and inserted into (and ``application_role_problems`` names it)."""
    if table in APPEND_ONLY_TABLES or table in INSERT_ONLY_TABLES:
        return APPEND_ONLY_PRIVILEGES
    if table in READ_ONLY_TABLES:
        return READ_ONLY_PRIVILEGES
    if table in MUTABLE_TABLES:
        return TABLE_PRIVILEGES
    return APPEND_ONLY_PRIVILEGES


def unlisted_tables(connection: Connection) -> list[str]:
    """The tables of the current schema that are in none of ``TABLE_LISTS``."""
    listed = frozenset().union(*TABLE_LISTS.values())
    rows = connection.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
        " AND relkind IN ('r', 'p') ORDER BY relname"
    ).fetchall()
    return [name for (name,) in rows if name not in listed]


def _role_upsert(connection: Connection, login: Login) -> list[str]:
    """Create the role, or bring its attributes back to LOGIN and no superuser, CREATEDB,
    CREATEROLE, REPLICATION or BYPASSRLS. Touches the catalog only when something differs (or a
    password is given), so concurrent runs on one server rarely meet."""
    attributes = sql.SQL("LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS")
    password = sql.SQL(" PASSWORD {}").format(sql.Literal(login.password)) if login.password else sql.SQL("")
    row = connection.execute(
        "SELECT rolsuper OR rolcreatedb OR rolcreaterole OR rolreplication OR rolbypassrls"
        " OR NOT rolcanlogin FROM pg_roles WHERE rolname = %s",
        [login.name],
    ).fetchone()
    if row is None:
        try:
            with connection.transaction():
                connection.execute(
                    sql.SQL("CREATE ROLE {} {}{}").format(sql.Identifier(login.name), attributes, password)
                )
            return [f"created role {login.name}"]
        except (errors.DuplicateObject, errors.UniqueViolation):
            row = (True,)  # created meanwhile by another run: bring it in line below
    if row[0] or login.password:
        connection.execute(
            sql.SQL("ALTER ROLE {} {}{}").format(sql.Identifier(login.name), attributes, password)
        )
        return [f"updated role {login.name}"]
    return []


def _objects_to_give(connection: Connection, owner: str) -> list[sql.Composed]:
    """ALTER ... OWNER statements for the objects of the current schema the owner does not own
    (tables, views, sequences not owned by a column, functions and procedures)."""
    relations = connection.execute(
        """
        SELECT c.relkind, c.relname FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace
          AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
          AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)
          AND NOT EXISTS (
              SELECT 1 FROM pg_depend d
              WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')
          )
        ORDER BY c.relname
        """,
        [owner],
    ).fetchall()
    kinds = {"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW", "S": "SEQUENCE"}
    statements: list[sql.Composed] = [
        sql.SQL("ALTER {} {} OWNER TO {}").format(
            sql.SQL(kinds[kind]), sql.Identifier(name), sql.Identifier(owner)
        )
        for kind, name in relations
    ]
    routines = connection.execute(
        """
        SELECT p.oid::regprocedure::text FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace
          AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)
        ORDER BY 1
        """,
        [owner],
    ).fetchall()
    # regprocedure's text is the routine's name and argument types, quoted as SQL needs them.
    statements += [
        sql.SQL("ALTER ROUTINE {} OWNER TO {}").format(sql.SQL(signature), sql.Identifier(owner))
        for (signature,) in routines
    ]
    return statements


def roles_create(connection: Connection, *, owner: Login, application: Login) -> list[str]:
    """As a superuser, connected to the application's database: create or update both roles,
    give the database and every object of the current schema to the owner, and leave CREATE on
    the schema to the owner alone. Idempotent; returns what it changed."""
    if owner.name == application.name:
        raise ValueError(f"the owner and the application need two roles, not one ({owner.name})")
    changes = _role_upsert(connection, owner) + _role_upsert(connection, application)
    with connection.transaction():
        database_owner = connection.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"
        ).fetchone()
        if database_owner is None or database_owner[0] != owner.name:
            connection.execute(
                sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                    sql.Identifier(_current_database(connection)), sql.Identifier(owner.name)
                )
            )
            changes.append(f"gave the database to {owner.name}")
        schema = sql.Identifier(_current_schema(connection))
        if _public_may_create(connection):
            connection.execute(sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(schema))
            changes.append("took CREATE on the schema from PUBLIC")
        if not _scalar(connection, "SELECT has_schema_privilege(%s, current_schema(), 'CREATE')", owner.name):
            connection.execute(
                sql.SQL("GRANT USAGE, CREATE ON SCHEMA {} TO {}").format(schema, sql.Identifier(owner.name))
            )
            changes.append(f"granted CREATE on the schema to {owner.name}")
        given = _objects_to_give(connection, owner.name)
        for statement in given:
            connection.execute(statement)
        if given:
            changes.append(f"gave {len(given)} object(s) of the schema to {owner.name}")
    return changes


def application_role_grant(connection: Connection, *, owner: str, application: str) -> list[str]:
    """As the owner (or a superuser): the application role's rights on the current database, its
    schema, every table and sequence the owner owns there, and the default privileges for the
    owner's future tables and sequences. Applied as a difference in one transaction (the
    application never sees a table without its rights); returns the statements it ran."""
    if owner == application:
        raise ValueError(f"the owner and the application need two roles, not one ({owner})")
    statements: list[sql.Composed] = []
    role = sql.Identifier(application)
    schema = sql.Identifier(_current_schema(connection))
    if not _scalar(
        connection, "SELECT has_database_privilege(%s, current_database(), 'CONNECT')", application
    ):
        statements.append(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                sql.Identifier(_current_database(connection)), role
            )
        )
    if not _scalar(connection, "SELECT has_schema_privilege(%s, current_schema(), 'USAGE')", application):
        statements.append(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema, role))
    defaults = _default_privileges(connection, owner=owner, application=application)
    prefix = sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {}").format(
        sql.Identifier(owner), schema
    )
    for code, kind, wanted in (
        ("r", "TABLES", APPEND_ONLY_PRIVILEGES),
        ("S", "SEQUENCES", SEQUENCE_PRIVILEGES),
    ):
        held = defaults.get(code, frozenset())
        if held - wanted:
            statements.append(
                sql.SQL("{} REVOKE {} ON {} FROM {}").format(
                    prefix, _privilege_list(held - wanted), sql.SQL(kind), role
                )
            )
        if wanted - held:
            statements.append(
                sql.SQL("{} GRANT {} ON {} TO {}").format(
                    prefix, _privilege_list(wanted - held), sql.SQL(kind), role
                )
            )
    for relkind, name, grantee, held, held_on_columns in _granted(
        connection, owner=owner, application=application
    ):
        wanted = SEQUENCE_PRIVILEGES if relkind == "S" else table_privileges(name)
        if grantee == "PUBLIC":
            wanted = frozenset()
        target = sql.SQL("{} {}").format(
            sql.SQL("SEQUENCE" if relkind == "S" else "TABLE"), sql.Identifier(name)
        )
        who = sql.SQL("PUBLIC") if grantee == "PUBLIC" else role
        # Revoking a privilege on the table revokes it on each of its columns as well.
        if (held | held_on_columns) - wanted:
            statements.append(
                sql.SQL("REVOKE {} ON {} FROM {}").format(
                    _privilege_list((held | held_on_columns) - wanted), target, who
                )
            )
        if wanted - held:
            statements.append(
                sql.SQL("GRANT {} ON {} TO {}").format(_privilege_list(wanted - held), target, who)
            )
    with connection.transaction():
        for statement in statements:
            connection.execute(statement)
    return [statement.as_string(connection) for statement in statements]


def application_role_problems(connection: Connection, *, application: str) -> list[str]:
    """What lets ``application`` do more than it should on the current database, and the tables
    whose rights are not decided (in none of ``TABLE_LISTS``), in words; empty when nothing is
    wrong."""
    row = connection.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls"
        " FROM pg_roles WHERE rolname = %s",
        [application],
    ).fetchone()
    if row is None:
        return [f"role {application} does not exist"]
    attributes = ("SUPERUSER", "CREATEROLE", "CREATEDB", "REPLICATION", "BYPASSRLS")
    problems = [f"{application} has {name}" for name, has in zip(attributes, row, strict=True) if has]
    problems += [
        f"{application} is a member of {role}"
        for (role,) in connection.execute(
            "SELECT pg_get_userbyid(roleid) FROM pg_auth_members WHERE member = %s::regrole", [application]
        )
    ]
    problems += [
        f"{application} owns {what}"
        for (what,) in connection.execute(
            """
            SELECT 'the database' FROM pg_database
                WHERE datname = current_database() AND datdba = %(role)s::regrole
            UNION ALL SELECT 'schema ' || nspname FROM pg_namespace WHERE nspowner = %(role)s::regrole
            UNION ALL SELECT relname::text FROM pg_class WHERE relowner = %(role)s::regrole
            UNION ALL SELECT oid::regprocedure::text FROM pg_proc WHERE proowner = %(role)s::regrole
            """,
            {"role": application},
        )
    ]
    if _scalar(connection, "SELECT has_schema_privilege(%s, current_schema(), 'CREATE')", application):
        problems.append(f"{application} may create objects in the schema")
    # PostgreSQL 15 made SET on a superuser-only parameter grantable; before, no grant can exist.
    if connection.info.server_version >= 150000 and _scalar(
        connection, "SELECT has_parameter_privilege(%s, 'session_replication_role', 'SET')", application
    ):
        problems.append(f"{application} may set session_replication_role")
    problems += [
        f"table {table} is in none of the lists of casino/database_roles.py, so {application} may only"
        f" read it and insert into it: put it in one of {', '.join(TABLE_LISTS)} (APPEND_ONLY_TABLES with"
        " its append-only triggers; MUTABLE_TABLES when the application updates or deletes its rows)"
        for table in unlisted_tables(connection)
    ]
    for table in sorted(APPEND_ONLY_TABLES):
        if _scalar(connection, "SELECT to_regclass(%s) IS NOT NULL", table):
            problems += [
                f"{application} has {privilege} on {table}"
                for privilege in ("UPDATE", "DELETE", "TRUNCATE", "TRIGGER", "REFERENCES")
                if _may(connection, application, table, privilege)
            ]
    return problems


def _may(connection: Connection, role: str, table: str, privilege: str) -> bool:
    """Whether ``role`` holds ``privilege`` on ``table``: on the whole table or, for UPDATE and
    REFERENCES (which can be granted per column), on some of its columns."""
    query = (
        "SELECT has_any_column_privilege(%s, %s, %s)"
        if privilege in {"UPDATE", "REFERENCES"}
        else "SELECT has_table_privilege(%s, %s, %s)"
    )
    return bool(_scalar(connection, query, role, table, privilege))


def _granted(
    connection: Connection, *, owner: str, application: str
) -> list[tuple[str, str, str, frozenset[str], frozenset[str]]]:
    """(relkind, name, grantee, privileges held on the table, privileges held on some of its
    columns) for every table and sequence of the current schema that ``owner`` owns, for the
    application and for PUBLIC (PUBLIC's row only where it holds something)."""
    rows = connection.execute(
        """
        SELECT c.relkind, c.relname, g.grantee,
               ARRAY(SELECT a.privilege_type FROM aclexplode(c.relacl) a WHERE a.grantee = g.oid),
               ARRAY(
                   SELECT DISTINCT a.privilege_type
                   FROM pg_attribute t CROSS JOIN LATERAL aclexplode(t.attacl) a
                   WHERE t.attrelid = c.oid AND a.grantee = g.oid
               )
        FROM pg_class c
        CROSS JOIN (VALUES ('application', %(application)s::regrole::oid), ('PUBLIC', 0::oid)) g(grantee, oid)
        WHERE c.relnamespace = current_schema()::regnamespace
          AND c.relkind IN ('r', 'p', 'S')
          AND c.relowner = %(owner)s::regrole
        ORDER BY c.relname, g.grantee
        """,
        {"owner": owner, "application": application},
    ).fetchall()
    return [
        (relkind, name, grantee, frozenset(held), frozenset(on_columns))
        for relkind, name, grantee, held, on_columns in rows
        if grantee == "application" or held or on_columns
    ]


def _default_privileges(connection: Connection, *, owner: str, application: str) -> dict[str, frozenset[str]]:
    """The privileges the owner's future tables ("r") and sequences ("S") of the current schema
    give the application."""
    rows = connection.execute(
        """
        SELECT d.defaclobjtype, array_agg(a.privilege_type)
        FROM pg_default_acl d CROSS JOIN LATERAL aclexplode(d.defaclacl) a
        WHERE d.defaclrole = %(owner)s::regrole AND d.defaclnamespace = current_schema()::regnamespace
          AND a.grantee = %(application)s::regrole
        GROUP BY d.defaclobjtype
        """,
        {"owner": owner, "application": application},
    ).fetchall()
    return {code: frozenset(privileges) for code, privileges in rows}


def _privilege_list(privileges: frozenset[str]) -> sql.Composable:
    return sql.SQL(", ").join(sql.SQL(privilege) for privilege in sorted(privileges))


def _public_may_create(connection: Connection) -> bool:
    return bool(
        _scalar(
            connection,
            "SELECT EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) a"
            " WHERE n.nspname = current_schema() AND a.grantee = 0 AND a.privilege_type = 'CREATE')",
        )
    )


def _current_database(connection: Connection) -> str:
    return str(_scalar(connection, "SELECT current_database()"))


def _current_schema(connection: Connection) -> str:
    return str(_scalar(connection, "SELECT current_schema()"))


def _scalar(connection: Connection, query: str, *parameters: Any) -> Any:
    row = connection.execute(query, list(parameters)).fetchone()
    return None if row is None else row[0]


def grant_after_migrate(using: str = "default", **kwargs: Any) -> None:
    """``post_migrate`` receiver: when this process connects as the owner (the settings'
    DATABASE_APPLICATION_ROLE names the application's role), bring the application role's rights
    in line with the tables the migrations left, and refuse to finish when that role can still
    do more than it should or a table is in none of the lists."""
    from django.conf import settings
    from django.db import connections

    application = getattr(settings, "DATABASE_APPLICATION_ROLE", "")
    if not application:
        return
    connection = connections[using]
    connection.ensure_connection()
    raw = connection.connection
    owner = str(_scalar(raw, "SELECT current_user"))
    if owner == application:  # one role for both (DATABASE_OWNER_URL names the same user)
        return
    application_role_grant(raw, owner=owner, application=application)
    problems = application_role_problems(raw, application=application)
    if problems:
        raise RuntimeError("the application role's rights are not as they should be: " + "; ".join(problems))
