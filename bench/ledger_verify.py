"""How long ``ledger_verify`` takes on a large ledger: every balance recomputed from the postings,
and every transfer found, with the hash of its postings, in the audit records.

Builds a ledger of BENCH_POSTINGS postings (300,000) in transfers of 2 to 12 postings over
BENCH_PLAYERS players (2,000), each transfer named with its hash by one audit record, as the
services write them, beside as many audit records of other actions (round events, logins), with
bulk inserts (the services would take minutes to write it). The audit records are not a valid
chain: ``ledger_verify`` does not walk the chain (``audit_verify`` does). Then times, BENCH_RUNS
times (3), ``ledger_forgeries`` (the pass over the audit records' ``after`` and the pass over the
postings) and the whole ``ledger_verify``, and prints the medians.

Needs PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python
bench/ledger_verify.py``. Drops and creates the database ``casino_bench_ledger_verify`` on that
server (BENCH_DATABASE to change it); never touches the database named in the URL.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

from _scratch import scratch_database_url

POSTINGS = int(os.environ.get("BENCH_POSTINGS", "300000"))
PLAYERS = int(os.environ.get("BENCH_PLAYERS", "2000"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
BATCH = 5000


os.environ["DATABASE_URL"] = scratch_database_url(
    "ledger_verify.py", "casino_bench_ledger_verify", fresh=True
)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from casino.models import AuditRecord, Casino, Player  # noqa: E402
from wallet.ledger_hash import AUDIT_KEY, transfer_hash  # noqa: E402
from wallet.models import Account, AccountKind, Posting, Transfer, TransferKind  # noqa: E402
from wallet.selectors import ledger_forgeries, ledger_verify  # noqa: E402


def _audit_record(sequence: int, **fields: Any) -> AuditRecord:
    digest = f"{sequence:064x}"
    extra = (
        {"key_version": 0} if any(field.name == "key_version" for field in AuditRecord._meta.fields) else {}
    )
    return AuditRecord(
        sequence=sequence,
        recorded_at=dt.datetime.now(dt.UTC),
        previous_hash=f"{sequence - 1:064x}",
        hash=digest,
        **extra,
        **fields,
    )


def build() -> tuple[int, int, int]:
    """The ledger: transfers of 2 to 12 postings between the cage and the players, with the
    balances they leave; returns (transfers, postings, audit records)."""
    call_command("migrate", verbosity=0)
    rng = random.Random(7)
    casino = Casino.objects.create(code="bench", name="Bench", currency="EUR")
    cage = Account.objects.create(casino=casino, kind=AccountKind.CAGE, currency="EUR", may_go_negative=True)
    players = Player.objects.bulk_create(
        Player(casino=casino, card_number=f"bench-{index:06d}", display_name=f"Bench {index}", pin_hash="!")
        for index in range(PLAYERS)
    )
    accounts = Account.objects.bulk_create(
        Account(casino=casino, kind=AccountKind.PLAYER, player=player, currency="EUR") for player in players
    )
    balances = {account.pk: 0 for account in accounts}
    balances[cage.pk] = 0
    written = sequence = 0
    transfers = 0
    while written < POSTINGS:
        with transaction.atomic():
            batch: list[tuple[Transfer, list[tuple[int, int]]]] = []
            while written < POSTINGS and len(batch) < BATCH:
                legs = min(rng.randint(1, 11), POSTINGS - written - 1) or 1
                credited = rng.sample(accounts, legs)
                postings = [(account.pk, rng.randint(100, 100_000)) for account in credited]
                postings.append((cage.pk, -sum(amount for _, amount in postings)))
                kind = TransferKind.BUY_IN if legs == 1 else TransferKind.ROUND_SETTLEMENT
                batch.append((Transfer(casino=casino, kind=kind, currency="EUR"), postings))
                written += len(postings)
            Transfer.objects.bulk_create([transfer for transfer, _ in batch])
            Posting.objects.bulk_create(
                Posting(transfer=transfer, account_id=account_id, amount_minor=amount)
                for transfer, postings in batch
                for account_id, amount in postings
            )
            records = []
            for transfer, postings in batch:
                for account_id, amount in postings:
                    balances[account_id] += amount
                digest = transfer_hash(transfer, postings)
                sequence += 1
                records.append(
                    _audit_record(
                        sequence,
                        action="round.card_dealt",
                        object_type="tables.round",
                        object_id=str(sequence),
                        after={"table": "BJ1", "number": sequence, "card": "TS", "box": 3},
                    )
                )
                sequence += 1
                records.append(
                    _audit_record(
                        sequence,
                        action="wallet.round_settled" if len(postings) > 2 else "wallet.buy_in",
                        object_type="wallet.transfer",
                        object_id=str(transfer.pk),
                        after={
                            "transfer_id": transfer.pk,
                            "lines": len(postings) - 1,
                            "amount_minor": -postings[-1][1],
                            "currency": "EUR",
                            AUDIT_KEY: {str(transfer.pk): digest},
                        },
                    )
                )
            AuditRecord.objects.bulk_create(records)
            transfers += len(batch)
    with transaction.atomic():
        Account.objects.bulk_update(
            [Account(pk=account_id, balance_minor=balance) for account_id, balance in balances.items()],
            ["balance_minor"],
            batch_size=BATCH,
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return transfers, written, sequence


def _timed(call: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def main() -> None:
    start = time.perf_counter()
    transfers, postings, records = build()
    print(
        f"ledger of {transfers:,} transfers, {postings:,} postings, {PLAYERS + 1:,} accounts, "
        f"{records:,} audit records, built in {time.perf_counter() - start:.0f} s"
    )
    forgery_times, verify_times = [], []
    for _ in range(RUNS):
        seconds, forged = _timed(ledger_forgeries)
        assert forged == [], forged[:3]
        forgery_times.append(seconds)
        seconds, result = _timed(ledger_verify)
        assert result.is_clean, result
        verify_times.append(seconds)
    print(
        f"ledger_forgeries (audit records' after, then postings): median {statistics.median(forgery_times):.2f} s "
        f"(min {min(forgery_times):.2f}, max {max(forgery_times):.2f}) over {RUNS} runs"
    )
    print(
        f"ledger_verify (balances, held amounts, rules, and the above): median {statistics.median(verify_times):.2f} s "
        f"(min {min(verify_times):.2f}, max {max(verify_times):.2f})"
    )
    per_posting = statistics.median(forgery_times) / postings * 1e6
    print(f"forgery check: {per_posting:.1f} us per posting")


if __name__ == "__main__":
    main()
