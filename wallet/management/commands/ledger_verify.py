from typing import Any

from django.core.management.base import BaseCommand

from wallet.selectors import ledger_totals, ledger_verify


class Command(BaseCommand):
    help = (
        "Verify the ledger: every transfer sums to zero, every cached balance and held amount equals "
        "its postings and open holds, no account breaks its no-negative rule, and every transfer is "
        "named, with the hash of its postings, by an audit record of the chain. Exit 0 when clean, "
        "1 naming the first offender and every transfer the audit chain does not vouch for."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        result = ledger_verify()
        counts = (
            f"{result.transfers} transfers, {result.postings} postings, {result.accounts} accounts, "
            f"{result.open_holds} open holds"
        )
        if result.offender:
            self.stderr.write(f"ledger broken: {result.offender} ({counts} checked)")
        elif result.forged:
            self.stderr.write(
                f"ledger broken: {len(result.forged)} transfers the audit chain does not vouch for "
                f"({counts} checked)"
            )
        for forged in result.forged:
            self.stderr.write(f"forged {forged}")
        if not result.is_clean:
            raise SystemExit(1)
        totals = ledger_totals()
        self.stdout.write(
            f"ledger clean: {counts}; sum of all balances {totals.total_minor}; "
            "every transfer matches its audit record"
        )
