"""``manage.py round_verify [ROUND_ID ...]``: recompute each settled or voided round's hash from its events
and payout lines and compare it with the one its audit record carries; exit status 1 naming every
round, event and payout line that differs."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tables.round_hash import round_verify


class Command(BaseCommand):
    help = (
        "Verify settled and voided rounds against the audit chain: every event and payout line as "
        "its round's audit record hashed them. Every such round without ROUND_IDs."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_ids", nargs="*", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        result = round_verify(round_ids=options["round_ids"] or None)
        for difference in result.differences:
            self.stderr.write(str(difference))
        if not result.is_intact:
            rounds = len({difference.round_id for difference in result.differences})
            self.stderr.write(f"{result.checked} rounds verified, {rounds} differ from the audit chain")
            sys.exit(1)
        self.stdout.write(f"{result.checked} rounds verified, each matches its audit record")
