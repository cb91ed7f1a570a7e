"""Credentials for the schemathesis run in CI: a player terminal and a card reader at BJ1, a
demo player signed in, and a round of BJ1 open for bets. Prints shell assignments.

Run on a migrated and seeded database:
``python manage.py shell -c "from tests.api.schemathesis_setup import main; main()"``"""

from __future__ import annotations

from casino.models import Casino, Terminal
from casino.services import terminal_credential_issue, terminal_register
from tables.api.sessions import player_session_start
from tables.models import Round, Table
from tables.services.common import Actor
from tables.services.rounds import round_open
from tables.services.shoes import shoe_shuffle


def main() -> None:
    casino = Casino.objects.get(code="demo")
    table = Table.objects.get(name="BJ1")
    terminal = Terminal.objects.filter(casino=casino, name="SCHEMA-T1").first() or terminal_register(
        casino=casino, name="SCHEMA-T1", kind=Terminal.Kind.PLAYER_TERMINAL, table=table
    )
    _, terminal_token = terminal_credential_issue(terminal=terminal)
    reader = Terminal.objects.filter(casino=casino, name="SCHEMA-R1").first() or terminal_register(
        casino=casino, name="SCHEMA-R1", kind=Terminal.Kind.CARD_READER, table=table
    )
    _, reader_token = terminal_credential_issue(terminal=reader)
    _, player_token = player_session_start(terminal=terminal, card_number="1000000005", pin="5555")
    if not Round.objects.filter(table=table, status="betting").exists():
        system = Actor.automatic("schemathesis setup")
        shoe_shuffle(table=table, actor=system)
        round_open(table=table, actor=system)
    print(f"TERMINAL_TOKEN={terminal_token}")
    print(f"PLAYER_TOKEN={player_token}")
    print(f"READER_TOKEN={reader_token}")
