"""``manage.py shoe_verify SHOE_ID``: check a retired virtual shoe against its commitment."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Shoe
from tables.services.shoes import shoe_commitment, shoe_verify


class Command(BaseCommand):
    help = "Verify that a retired virtual shoe's revealed order and secret match its stored commitment."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("shoe_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        shoe = Shoe.objects.filter(pk=options["shoe_id"]).first()
        if shoe is None:
            raise CommandError(f"no shoe {options['shoe_id']}")
        if shoe.retired_at is None:
            raise CommandError("the shoe is still in play: its order is revealed when it is retired")
        if shoe_verify(shoe):
            self.stdout.write(
                f"shoe {shoe.pk}: commitment {shoe.commitment} verified ({len(shoe.order or [])} cards)"
            )
            return
        recomputed = shoe_commitment(shoe.secret, list(shoe.order or []))
        self.stderr.write(f"shoe {shoe.pk}: commitment {shoe.commitment} does NOT match {recomputed}")
        sys.exit(1)
