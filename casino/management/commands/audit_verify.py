from typing import Any

from django.core.management.base import BaseCommand

from casino.audit import audit_verify


class Command(BaseCommand):
    help = "Verify the audit trail's hash chain. Exit 0 when intact, 1 naming the first broken record."

    def handle(self, *args: Any, **options: Any) -> None:
        result = audit_verify()
        if result.is_intact:
            self.stdout.write(f"audit trail intact: {result.checked} records checked")
            return
        self.stderr.write(
            f"audit trail broken at record #{result.broken_sequence}: {result.reason} "
            f"({result.checked} records verified before it)"
        )
        raise SystemExit(1)
