"""``manage.py odds --ruleset NAME [--decks N] [--json]``: side-bet and main-game odds of a rule set.

Side-bet probabilities and house edges are exact fractions written as a combinatorial table gives
them: a whole count over the number of card sets the bet is decided on, not reduced
(``"780/48516"``: 780 perfect pairs among the C(312, 2) = 48516 pairs of a 6-deck shoe); the
main-game house edge is a decimal fraction with six decimals (``"0.004601"``, not a percentage).
House edges are positive when they favour the house. A side bet the rule set does not offer
(paytable ``None``) is shown with ``"paytable": null`` and figured with the default paytable.
An unknown rule set or a bad deck count prints ``<error code>: <message>`` to stderr and exits 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils.module_loading import import_string

from games.blackjack.rules import PROFILES, RuleSet
from games.errors import GameError, InvalidRuleSetError
from games.odds import main_game_odds, perfect_pairs_odds, twenty_one_plus_three_odds
from games.odds.side_bets import SideBetOdds


def _stored_ruleset_loader() -> Callable[[str], RuleSet | None] | None:
    """The live table's loader of stored rule sets, if it provides one.

    Hook: set ``ODDS_RULESET_LOADER`` in the settings to the dotted path of a function
    ``(name) -> RuleSet | None``; ``None`` means "no stored rule set of that name".
    """
    path = getattr(settings, "ODDS_RULESET_LOADER", None)
    if not path:
        return None
    loader: Callable[[str], RuleSet | None] = import_string(path)
    return loader


def resolve_ruleset(name: str) -> RuleSet:
    """The rule set called ``name``: a stored one if the live table can load it, else a profile.

    Raises :class:`InvalidRuleSetError` (``invalid_ruleset``) when neither knows the name.
    """
    loader = _stored_ruleset_loader()
    if loader is not None:
        stored = loader(name)
        if stored is not None:
            return stored
    if name in PROFILES:
        return PROFILES[name]
    raise InvalidRuleSetError(f"unknown rule set {name!r}; known profiles: {sorted(PROFILES)}")


def _side_bet(odds: SideBetOdds, offered: bool) -> dict[str, Any]:
    return {
        "paytable": dict(odds.paytable) if offered else None,
        "outcomes": {name: odds.as_count(chance) for name, chance in odds.outcomes.items()},
        "house_edge": odds.as_count(odds.house_edge),
    }


def odds_report(rules: RuleSet) -> dict[str, Any]:
    """The JSON-ready odds of a rule set (the ``--json`` output)."""
    perfect_pairs = perfect_pairs_odds(rules.decks, rules.perfect_pairs)
    twenty_one = twenty_one_plus_three_odds(rules.decks, rules.twenty_one_plus_three)
    main = main_game_odds(rules)
    return {
        "ruleset": rules.name,
        "decks": rules.decks,
        "perfect_pairs": _side_bet(perfect_pairs, rules.perfect_pairs is not None),
        "twenty_one_plus_three": _side_bet(twenty_one, rules.twenty_one_plus_three is not None),
        "main_game": {"house_edge": main.house_edge_text, "method": main.method},
    }


def _percent(text: str) -> str:
    """An exact fraction or decimal string as a percentage rounded to 4 places, without floats."""
    share = Fraction(text) * 100
    return f"{Decimal(share.numerator) / Decimal(share.denominator):.4f}%"


def odds_text(report: dict[str, Any]) -> str:
    """A readable table of :func:`odds_report`."""
    lines = [f"Rule set {report['ruleset']}, {report['decks']} decks", ""]
    for key, title in (("perfect_pairs", "Perfect Pairs"), ("twenty_one_plus_three", "21+3")):
        bet = report[key]
        paytable = bet["paytable"]
        note = "" if paytable is not None else " (not offered: default paytable)"
        lines.append(f"{title}{note}")
        lines.append(f"  {'outcome':<16}{'pays':>6}  {'probability':>12}  {'exact':>24}")
        for outcome, chance in bet["outcomes"].items():
            pays = "-1" if outcome == "none" else str((paytable or _default_pays(key))[outcome])
            lines.append(f"  {outcome:<16}{pays:>6}  {_percent(chance):>12}  {chance:>24}")
        lines.append(f"  house edge {_percent(bet['house_edge'])} ({bet['house_edge']})")
        lines.append("")
    main = report["main_game"]
    lines.append(f"Main game house edge {main['house_edge']} ({_percent(main['house_edge'])})")
    lines.append(f"  method: {main['method']}")
    return "\n".join(lines)


def _default_pays(key: str) -> dict[str, int]:
    if key == "perfect_pairs":
        return dict(perfect_pairs_odds(1).paytable)
    return dict(twenty_one_plus_three_odds(1).paytable)


class Command(BaseCommand):
    help = (
        "Exact side-bet odds and the main game's house edge under basic strategy for a rule set "
        "(docs/odds.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ruleset", required=True, help="a rule set or profile name")
        parser.add_argument("--decks", type=int, default=None, help="override the deck count (1-8)")
        parser.add_argument("--json", action="store_true", help="print JSON instead of a table")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            rules = resolve_ruleset(options["ruleset"])
            if options["decks"] is not None:
                rules = replace(rules, decks=options["decks"])
            report = odds_report(rules)
        except GameError as error:
            self.stderr.write(f"{error.code}: {error.message}")
            raise SystemExit(2) from error
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            self.stdout.write(odds_text(report))
