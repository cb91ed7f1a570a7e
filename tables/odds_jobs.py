"""The house edge an operator sees where a configuration is chosen.

Side bets are exact and take milliseconds: computed when a page asks (``side_bet_edges``). The main
game's house edge under basic strategy takes about two seconds (``main_game_odds``), so it runs as
a background job (``casino.jobs``), kept per rule-set version and deck count: a version is
immutable once approved, so its edge is computed once and read from the job's result after.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from django.utils.formats import number_format

from casino.actors import Actor
from casino.jobs import Progress, job_latest, job_start, register
from casino.models import BackgroundJob
from tables.games.blackjack.rules import (
    PerfectPairsPaytable,
    RuleSet,
    TwentyOnePlusThreePaytable,
    ruleset_from_dict,
)
from tables.games.odds import main_game_odds, perfect_pairs_odds, twenty_one_plus_three_odds
from tables.games.odds.side_bets import SideBetOdds
from tables.models import RuleSetVersion, SideBetPaytable

MAIN_GAME_ODDS = "tables.main_game_odds"


def version_rules(version: RuleSetVersion) -> RuleSet:
    return ruleset_from_dict({**version.options, "name": version.rule_set.name})


def _main_game_odds_run(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    version = RuleSetVersion.objects.select_related("rule_set").get(pk=params["rule_set_version"])
    rules = version_rules(version)
    progress(0, 2, "deriving the basic strategy")
    odds = main_game_odds(rules, progress=lambda stage: progress(1, 2, "computing the expected return"))
    return {"house_edge": odds.house_edge_text, "method": odds.method}


def register_odds_jobs() -> None:
    register(MAIN_GAME_ODDS, _main_game_odds_run)


def _params(version: RuleSetVersion) -> dict[str, Any]:
    return {"rule_set_version": version.pk, "decks": int(version.options.get("decks", 6))}


def main_game_edge_job(version: RuleSetVersion) -> BackgroundJob | None:
    """The newest finished computation of the version's main-game edge, or the one running."""
    params = _params(version)
    done = job_latest(kind=MAIN_GAME_ODDS, params=params)
    if done is not None:
        return done
    return (
        BackgroundJob.objects.filter(
            kind=MAIN_GAME_ODDS,
            params=params,
            status__in=(BackgroundJob.Status.QUEUED, BackgroundJob.Status.RUNNING),
        )
        .order_by("-pk")
        .first()
    )


def main_game_edge_start(version: RuleSetVersion, *, actor: Actor) -> BackgroundJob:
    """The version's edge: the finished or running job, else a new one (audited by job_start)."""
    return main_game_edge_job(version) or job_start(kind=MAIN_GAME_ODDS, params=_params(version), actor=actor)


@dataclass(frozen=True)
class OutcomeOdds:
    outcome: str
    probability: Fraction
    pays: int | None

    @property
    def one_in(self) -> str:
        """The hit frequency as "1 in N" (N to one decimal)."""
        if self.probability == 0:
            return "-"
        one_in = Decimal(self.probability.denominator) / Decimal(self.probability.numerator)
        return number_format(one_in.quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN), decimal_pos=1)


@dataclass(frozen=True)
class SideBetEdge:
    kind: str
    decks: int
    house_edge: Fraction
    outcomes: tuple[OutcomeOdds, ...]

    @property
    def hit_frequency(self) -> Fraction:
        return sum((row.probability for row in self.outcomes if row.pays), Fraction(0))


def side_bet_edge(kind: str, decks: int, payouts: dict[str, int]) -> SideBetEdge:
    """The exact odds of one side bet's paytable at ``decks``. Raises ``InvalidRuleSetError`` for
    a deck count or payouts the engine refuses."""
    odds: SideBetOdds
    if kind == SideBetPaytable.Kind.PERFECT_PAIRS:
        odds = perfect_pairs_odds(decks, PerfectPairsPaytable(**payouts))
    else:
        odds = twenty_one_plus_three_odds(decks, TwentyOnePlusThreePaytable(**payouts))
    pays = dict(odds.paytable)
    return SideBetEdge(
        kind=str(kind),
        decks=decks,
        house_edge=odds.house_edge,
        outcomes=tuple(
            OutcomeOdds(outcome=name, probability=probability, pays=pays.get(name))
            for name, probability in odds.outcomes.items()
        ),
    )


def percent(value: Fraction | float | str) -> str:
    """A house edge as a percentage with three decimals, written as the active language writes
    numbers: ``Fraction(19, 311)`` -> ``"6.109"`` in English, ``"6,109"`` in Hungarian."""
    exact = Fraction(value) * 100
    rounded = Decimal(exact.numerator) / Decimal(exact.denominator)
    return number_format(rounded.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN), decimal_pos=3)
