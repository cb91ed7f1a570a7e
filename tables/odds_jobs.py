"""The house edge an operator sees where a configuration is chosen.

Side bets are exact and take milliseconds: computed when a page asks (``side_bet_edges``). The main
game's house edge under basic strategy takes about two seconds (``main_game_odds``; 2.0 to 2.3 s
for the seeded rule sets on the build machine), too long for a request that approves a version,
so it runs as a background job (``casino.jobs``), kept per rule-set version and deck count: a
version is immutable once approved, so its edge is computed once and read from the job's result
after. A new blackjack version starts its job as it is made (run on the commit; at once in the
tests), the seeds compute theirs before the seed command ends (``main_game_edge_compute``), and a
version is never approved before its edge is known (``tables.services.versions``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.utils import timezone
from django.utils.formats import number_format

from casino.actors import Actor
from casino.jobs import Progress, job_latest, job_run, job_start, register
from casino.models import BackgroundJob, Game, RuleSetVersion
from games.blackjack.rules import (
    PerfectPairsPaytable,
    RuleSet,
    TwentyOnePlusThreePaytable,
    ruleset_from_dict,
)
from games.odds import main_game_odds, perfect_pairs_odds, twenty_one_plus_three_odds
from games.odds.side_bets import SideBetOdds
from tables.models import SideBetPaytable

MAIN_GAME_ODDS = "tables.main_game_odds"


def version_rules(version: RuleSetVersion) -> RuleSet:
    return ruleset_from_dict({**version.options, "name": version.rule_set.name})


# A job queued or running for longer than this was lost with the process that ran it (a web
# process restarted mid-way): its version's edge may be asked for again.
EDGE_JOB_ABANDONED_AFTER = dt.timedelta(minutes=10)

# The main game's edge of an approved rule-set version, once its job has computed it: a version
# is immutable once approved, so its edge never changes (one lookup of the job per process).
_MAIN_EDGES: dict[int, Fraction] = {}


@lru_cache(maxsize=64)
def _main_game_edge_of(rules: RuleSet) -> tuple[str, str]:
    """The edge and the method of a rule set: the same options give the same edge, so a process
    computes it once (a version made from another with the same main-game rules, in the tests)."""
    odds = main_game_odds(rules)
    return odds.house_edge_text, odds.method


def _main_game_odds_run(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    version = RuleSetVersion.objects.select_related("rule_set").get(pk=params["rule_set_version"])
    rules = version_rules(version)
    progress(0, 1, "computing the expected return under basic strategy")
    house_edge, method = _main_game_edge_of(rules)
    return {"house_edge": house_edge, "method": method}


def register_odds_jobs() -> None:
    register(MAIN_GAME_ODDS, _main_game_odds_run)


def _params(version: RuleSetVersion) -> dict[str, Any]:
    return {"rule_set_version": version.pk, "decks": int(version.options.get("decks", 6))}


def main_game_edge_job(version: RuleSetVersion) -> BackgroundJob | None:
    """The newest finished computation of the version's main-game edge, or the one running (one
    abandoned, ``EDGE_JOB_ABANDONED_AFTER``, is none)."""
    params = _params(version)
    done = job_latest(kind=MAIN_GAME_ODDS, params=params)
    if done is not None:
        return done
    return (
        BackgroundJob.objects.filter(
            kind=MAIN_GAME_ODDS,
            params=params,
            status__in=(BackgroundJob.Status.QUEUED, BackgroundJob.Status.RUNNING),
            created_at__gte=timezone.now() - EDGE_JOB_ABANDONED_AFTER,
        )
        .order_by("-pk")
        .first()
    )


def main_game_edge_start(version: RuleSetVersion, *, actor: Actor) -> BackgroundJob:
    """The version's edge: the finished or running job, else a new one (audited by job_start),
    run once the caller's transaction commits (at once with ``BACKGROUND_JOBS_INLINE``)."""
    return main_game_edge_job(version) or job_start(kind=MAIN_GAME_ODDS, params=_params(version), actor=actor)


def main_game_edge_compute(version: RuleSetVersion, *, actor: Actor) -> BackgroundJob | None:
    """The version's edge computed before this returns, for a command (the seeds), whose threads
    end with it: the job is started and run here, so the commit's dispatch finds it done. A
    version whose edge is known already starts nothing (None). Blackjack versions only."""
    if version.rule_set.game != Game.BLACKJACK or main_game_edge(version) is not None:
        return None
    job = main_game_edge_start(version, actor=actor)
    return job if job.is_finished else job_run(job.pk)


def main_game_edge(version: RuleSetVersion) -> Fraction | None:
    """The main game's house edge under ``version`` as its finished job found it (six decimals,
    read exactly), or None while no job has finished."""
    cached = _MAIN_EDGES.get(version.pk)
    if cached is not None:
        return cached
    job = main_game_edge_job(version)
    if job is None or job.status != BackgroundJob.Status.SUCCEEDED or not job.result:
        return None
    edge = Fraction(str(job.result["house_edge"]))
    if version.approved_at is not None:
        _MAIN_EDGES[version.pk] = edge
    return edge


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
