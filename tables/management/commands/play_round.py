"""``manage.py play_round FILE``: play a blackjack round script and print its settlement as JSON.

A script the engine refuses prints ``<error code>: <message>`` to stderr and exits with status 2.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.blackjack.script import play_script_file
from games.errors import GameError


class Command(BaseCommand):
    help = "Play a blackjack round script (docs/round-script.md) and print the settlement as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="path to a round script (JSON)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = play_script_file(options["file"])
        except GameError as error:
            self.stderr.write(f"{error.code}: {error.message}")
            raise SystemExit(2) from error
        self.stdout.write(json.dumps(report, indent=2, sort_keys=False))
