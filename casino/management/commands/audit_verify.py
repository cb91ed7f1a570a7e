from typing import Any

from django.core.management.base import BaseCommand

from casino.audit import audit_verify


class Command(BaseCommand):
    help = (
        "Verify the audit trail: every record's HMAC under its key version, the links, and every "
        "anchor's signature against the chain. Exit 0 when intact, 1 naming the first broken record."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        result = audit_verify()
        if result.is_intact:
            self.stdout.write(f"audit trail intact: {result.checked} records checked")
        elif result.broken_sequence is not None:
            self.stderr.write(
                f"audit trail broken at record #{result.broken_sequence}: {result.reason} "
                f"({result.checked} records verified before it)"
            )
        for problem in result.anchor_problems:
            self.stderr.write(f"anchor not trusted: {problem}")
        if result.unkeyed:
            self.stdout.write(
                f"{result.unkeyed} unkeyed records (key version 0: a plain SHA-256, from before the chain "
                "was keyed; only the keyed records after them and the anchors protect them)"
            )
        self.stdout.write(
            f"{result.anchors_checked} anchors checked"
            + (
                f", the last agreeing at #{result.last_anchored_sequence}"
                if result.last_anchored_sequence
                else ""
            )
        )
        if result.is_intact and result.unanchored:
            first = result.last_anchored_sequence + 1
            self.stdout.write(f"records #{first} to #{result.head_sequence} not yet anchored")
        if not result.is_intact:
            raise SystemExit(1)
