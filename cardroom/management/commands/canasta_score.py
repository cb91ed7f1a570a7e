"""``manage.py canasta_score FILE [--json]``: score one finished canasta deal given as JSON.

The format is docs/canasta-deal.md: the preset and its options, each side's score before the
deal, its melds as card lists, its red threes laid out, the cards left in each player's hand,
who went out and how, or that the stock ran out. The command prints each side's score with its
breakdown (melded cards, canasta bonuses by kind, red threes, going out, cards in hand), the new
totals, the next opening minimums and whether the game has ended and who won by how much.
``FILE`` may be ``-`` for standard input. An invalid meld, an impossible deal, an unknown preset
or option prints ``<error code>: <message>`` to stderr and exits 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.canasta import score_from_dict
from games.errors import GameError


def score_text(report: dict[str, Any]) -> str:
    """A readable score sheet of one deal (the ``--json`` report as a table)."""
    lines = [f"Canasta {report['preset']}, game to {report['target']}", ""]
    header = f"  {'':<22}" + "".join(f"{'side ' + str(row['side']):>10}" for row in report["sides"])
    lines.append(header)
    for key, title in (
        ("score_before", "score before"),
        ("melded", "melded cards"),
        ("canasta_bonus", "canasta bonuses"),
        ("red_threes", "red threes"),
        ("going_out", "going out"),
        ("hand", "cards in hand"),
        ("deal_total", "this deal"),
        ("total", "total"),
    ):
        lines.append(f"  {title:<22}" + "".join(f"{row[key]:>10}" for row in report["sides"]))
    lines.append(
        f"  {'next opening minimum':<22}"
        + "".join(
            f"{'canasta' if row['next_opening']['canasta_at_once'] else row['next_opening']['minimum']:>10}"
            for row in report["sides"]
        )
    )
    for row in report["sides"]:
        if row["canastas"]:
            kinds = ", ".join(f"{kind} {points}" for kind, points in row["canastas"].items())
            lines.append(f"  side {row['side']} canastas: {kinds}")
    game = report["game"]
    lines.append("")
    if game["is_over"]:
        lines.append(f"Game over: side {game['winner']} wins by {game['margin']}.")
    else:
        lines.append("The game goes on.")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Score one finished canasta deal given as JSON (docs/canasta-deal.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the deal as JSON, or - for standard input")
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["file"]
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as error:
            self.stderr.write(f"unreadable_file: {error}")
            raise SystemExit(2) from error
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            self.stderr.write(f"invalid_json: {error}")
            raise SystemExit(2) from error
        try:
            report = score_from_dict(data)
        except GameError as error:
            self.stderr.write(f"{error.code}: {error.message}")
            raise SystemExit(2) from error
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write(score_text(report))
