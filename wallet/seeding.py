"""The wallet's seed step: venue and table accounts, demo players funded, blackjack trays filled.

Idempotent: every movement carries a fixed idempotency key in the ``seed`` scope, so a second
``seed`` finds the stored results and moves nothing (and reports nothing).
"""

from __future__ import annotations

from typing import Any

from casino.models import Casino, Player
from tables.models import Game, Table
from wallet.models import IdempotencyRecord
from wallet.services import system_buy_in, system_table_fill, table_accounts_open, venue_accounts_open

SEED_SCOPE = "seed"
# A blackjack table's opening bankroll in the tray (minor units): 20 000.00.
DEMO_TRAY_FILL_MINOR = 2_000_000


def seed_wallet(demo: dict[str, Any], report: list[str]) -> None:
    """Create the accounts and fund the demo. Appends a line to ``report`` per thing created."""
    casino = Casino.objects.get(code=demo["casino"]["code"])
    venue_accounts_open(casino=casino)
    for table in Table.objects.filter(casino=casino).order_by("pk"):
        table_accounts_open(table=table)
        if table.game != Game.BLACKJACK:
            continue
        key = f"fill:{casino.code}:{table.name}"
        if not IdempotencyRecord.objects.filter(scope=SEED_SCOPE, key=key).exists():
            system_table_fill(
                table=table, amount_minor=DEMO_TRAY_FILL_MINOR, by=SEED_SCOPE, idempotency_key=key
            )
            report.append(f"tray fill {table.name} {DEMO_TRAY_FILL_MINOR}")
    for item in demo["players"]:
        amount = int(item.get("balance_minor", 0))
        if amount <= 0:
            continue
        player = Player.objects.get(card_number=item["card_number"])
        key = f"buy-in:{item['card_number']}"
        if IdempotencyRecord.objects.filter(scope=SEED_SCOPE, key=key).exists():
            continue
        system_buy_in(player=player, amount_minor=amount, by=SEED_SCOPE, idempotency_key=key)
        report.append(f"buy-in {item['card_number']} {amount}")


__all__ = ["DEMO_TRAY_FILL_MINOR", "SEED_SCOPE", "seed_wallet"]
