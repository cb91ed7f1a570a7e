"""The wallet's seed step: one idempotency record per movement, so a second seed funds nothing."""

from __future__ import annotations

from typing import Any

from casino.models import IdempotencyRecord, Player
from casino.seeding import load_seed, seed_all
from tests.snapshots import ledger_snapshot
from wallet.models import Account, AccountKind
from wallet.seeding import DEMO_TRAY_FILL_MINOR
from wallet.selectors import account_balance


def test_the_seed_funds_the_demo_once(db: Any) -> None:
    # given the seed run once
    first = seed_all()
    demo = load_seed("demo_casino.json")
    before = ledger_snapshot()
    # when it runs again
    again = seed_all()
    # then the first funded every demo player and blackjack tray, the second moved nothing
    assert [line for line in first if line.startswith(("buy-in", "tray fill"))] == [
        *(f"tray fill BJ{number} {DEMO_TRAY_FILL_MINOR}" for number in range(1, 5)),
        *(f"buy-in {item['card_number']} {item['balance_minor']}" for item in demo["players"]),
    ]
    assert again == []
    assert ledger_snapshot() == before
    for item in demo["players"]:
        player = Player.objects.get(card_number=item["card_number"])
        assert account_balance(player).balance_minor == item["balance_minor"]
    trays = Account.objects.filter(kind=AccountKind.TABLE_TRAY, table__name__startswith="BJ")
    assert sorted(trays.values_list("balance_minor", flat=True)) == [DEMO_TRAY_FILL_MINOR] * 4
    # and each movement is one record of the seed's scope
    assert sorted(IdempotencyRecord.objects.values_list("scope", "key")) == sorted(
        [("seed", f"fill:demo:BJ{number}") for number in range(1, 5)]
        + [("seed", f"buy-in:{item['card_number']}") for item in demo["players"]]
    )
