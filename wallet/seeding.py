"""The wallet's seed step (``casino.seeding``): venue and table accounts, demo players funded,
blackjack trays filled.

Re-running the seed funds nothing twice: each movement is one ``idempotent`` call in the ``seed``
scope with a fixed key, so a second ``seed`` replays the stored results, moves nothing and
reports nothing.
"""

from __future__ import annotations

from typing import Any

from casino.actors import Actor
from casino.idempotency import Outcome, idempotent
from casino.models import Casino, Game, Player, Table
from casino.seeding import SeedStage, seed_step
from wallet.services import system_buy_in, system_table_fill, table_accounts_open, venue_accounts_open

SEED_SCOPE = "seed"
# A blackjack table's opening bankroll in the tray (minor units): 20 000.00.
DEMO_TRAY_FILL_MINOR = 2_000_000


@seed_step(SeedStage.AFTER_VENUE)
def seed_wallet(demo: dict[str, Any], report: list[str]) -> None:
    """Create the accounts and fund the demo. Appends a line to ``report`` per thing created."""
    casino = Casino.objects.get(code=demo["casino"]["code"])
    venue_accounts_open(casino=casino)
    for table in Table.objects.filter(casino=casino).order_by("pk"):
        table_accounts_open(table=table)
        if table.game == Game.BLACKJACK and _fill_once(casino, table):
            report.append(f"tray fill {table.name} {DEMO_TRAY_FILL_MINOR}")
    for item in demo["players"]:
        amount = int(item.get("balance_minor", 0))
        if amount <= 0:
            continue
        player = Player.objects.get(card_number=item["card_number"])
        if _buy_in_once(player, amount):
            report.append(f"buy-in {item['card_number']} {amount}")


# The payloads are the ones these keys have always been stored with, so that a database seeded
# earlier replays them instead of refusing the keys as reused.


def _fill_once(casino: Casino, table: Table) -> bool:
    """Fill the tray unless the seed did; True when it moved money now."""
    result = idempotent(
        scope=SEED_SCOPE,
        key=f"fill:{casino.code}:{table.name}",
        payload={"command": "table_fill", "table_id": table.pk, "amount_minor": DEMO_TRAY_FILL_MINOR},
        perform=lambda: Outcome(
            {
                "transfer_id": system_table_fill(
                    table=table, amount_minor=DEMO_TRAY_FILL_MINOR, actor=Actor.automatic(SEED_SCOPE)
                ).pk
            }
        ),
    )
    return not result.replayed


def _buy_in_once(player: Player, amount_minor: int) -> bool:
    """Buy the player in unless the seed did; True when it moved money now."""
    result = idempotent(
        scope=SEED_SCOPE,
        key=f"buy-in:{player.card_number}",
        payload={"command": "cage_buy_in", "player_id": player.pk, "amount_minor": amount_minor},
        perform=lambda: Outcome(
            {
                "transfer_id": system_buy_in(
                    player=player, amount_minor=amount_minor, actor=Actor.automatic(SEED_SCOPE)
                ).pk
            }
        ),
    )
    return not result.replayed


__all__ = ["DEMO_TRAY_FILL_MINOR", "SEED_SCOPE", "seed_wallet"]
