from typing import Any

from django.core.management.base import BaseCommand, CommandError

from casino.audit import audit_anchor
from casino.errors import AuditChainBrokenError


class Command(BaseCommand):
    help = (
        "Sign the audit chain's head with the anchor key and append it to the gaming day's file in "
        "AUDIT_ANCHOR_DIR; prints the anchor. Refused (exit 1) when the chain since the last anchor "
        "does not verify."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            anchor = audit_anchor()
        except AuditChainBrokenError as error:
            raise CommandError(f"not anchored: {error.message}") from error
        if anchor is None:
            self.stdout.write("audit trail empty: nothing to anchor")
            return
        self.stdout.write(anchor.line())
