from typing import Any

from django.core.management.base import BaseCommand

from wallet.selectors import ledger_totals, ledger_verify


class Command(BaseCommand):
    help = (
        "Verify the ledger: every transfer sums to zero, every cached balance and held amount equals "
        "its postings and open holds, no account breaks its no-negative rule. Exit 0 when clean, "
        "1 naming the first offender."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        result = ledger_verify()
        counts = (
            f"{result.transfers} transfers, {result.postings} postings, {result.accounts} accounts, "
            f"{result.open_holds} open holds"
        )
        if not result.is_clean:
            self.stderr.write(f"ledger broken: {result.offender} ({counts} checked)")
            raise SystemExit(1)
        totals = ledger_totals()
        self.stdout.write(f"ledger clean: {counts}; sum of all balances {totals.total_minor}")
