"""Credentials and test data for the schemathesis run in CI: a player terminal, a card reader and
a dealer terminal at BJ1, a demo player signed in who owns box 1 with a main bet, and a round of BJ1 open for bets
for ten minutes (the whole run fits in it). Prints shell assignments: the tokens, and the table,
round and bet ids that tests/api/schemathesis.toml puts into the paths, so that fuzzing reaches
the table's logic instead of stopping at ``wrong_table`` or ``not_found``.

Run on a migrated and seeded database:
``python manage.py shell -c "from tests.api.schemathesis_setup import main; main()"``"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from casino.actors import Actor
from casino.models import Casino, Table, Terminal
from casino.player_sessions import player_session_start
from casino.services import terminal_credential_issue, terminal_register
from tables.models import Round
from tables.services.bets import bet_place
from tables.services.config_changes import table_settings_change
from tables.services.dealers import table_open_for_play
from tables.services.rounds import round_open
from tables.services.seats import box_take
from tables.services.shoes import shoe_shuffle


def main() -> None:
    casino = Casino.objects.get(code="demo")
    table = Table.objects.get(name="BJ1")
    terminal = Terminal.objects.filter(casino=casino, name="SCHEMA-T1").first() or terminal_register(
        casino=casino,
        name="SCHEMA-T1",
        kind=Terminal.Kind.PLAYER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, terminal_token = terminal_credential_issue(terminal=terminal, actor=Actor.automatic("system"))
    reader = Terminal.objects.filter(casino=casino, name="SCHEMA-R1").first() or terminal_register(
        casino=casino,
        name="SCHEMA-R1",
        kind=Terminal.Kind.CARD_READER,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, reader_token = terminal_credential_issue(terminal=reader, actor=Actor.automatic("system"))
    dealer = Terminal.objects.filter(casino=casino, name="SCHEMA-D1").first() or terminal_register(
        casino=casino,
        name="SCHEMA-D1",
        kind=Terminal.Kind.DEALER_TERMINAL,
        table=table,
        actor=Actor.automatic("system"),
    )
    _, dealer_token = terminal_credential_issue(terminal=dealer, actor=Actor.automatic("system"))
    session, player_token = player_session_start(terminal=terminal, card_number="1000000005", pin="5555")
    operator = Actor.staff(get_user_model().objects.get(username="operator"))
    table_settings_change(
        table=table, actor=operator, settings={"betting_seconds": 600, "decision_seconds": 600}
    )
    round_ = Round.objects.filter(table=table, status="betting").first()
    if round_ is None:
        system = Actor.automatic("schemathesis setup")
        shoe_shuffle(table=table, actor=system)
        if not Table.objects.filter(pk=table.pk, is_open=True).exists():
            table_open_for_play(table=table, actor=system)
        round_ = round_open(table=table, actor=system)
    player = Actor.at_terminal(terminal, session.player)
    box_take(table=table, box_number=1, actor=player)
    bet = bet_place(
        round_id=round_.pk,
        actor=player,
        box_number=1,
        kind="main",
        stake_minor=1000,
        idempotency_key="schemathesis-setup",
    )
    print(f"TERMINAL_TOKEN={terminal_token}")
    print(f"PLAYER_TOKEN={player_token}")
    print(f"READER_TOKEN={reader_token}")
    print(f"DEALER_TOKEN={dealer_token}")
    print(f"SCHEMA_TABLE_ID={table.pk}")
    print(f"SCHEMA_ROUND_ID={round_.pk}")
    print(f"SCHEMA_BET_ID={bet.pk}")
