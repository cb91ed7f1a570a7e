"""``manage.py round_export ROUND_ID [--output FILE]``: the round as a round script (JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.errors import ReplayError
from tables.models import Round
from tables.replay import round_export


class Command(BaseCommand):
    help = "Write a recorded round as a round script (docs/round-script.md) with its recorded payouts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_id", type=int)
        parser.add_argument("--output", "-o", help="write to this file instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        round_ = Round.objects.select_related("table").filter(pk=options["round_id"]).first()
        if round_ is None:
            raise CommandError(f"no round {options['round_id']}")
        try:
            script = round_export(round_)
        except ReplayError as error:
            raise CommandError(str(error)) from error
        text = json.dumps(script, indent=2, ensure_ascii=False)
        if options.get("output"):
            Path(options["output"]).write_text(text + "\n", encoding="utf-8")
        else:
            self.stdout.write(text)
