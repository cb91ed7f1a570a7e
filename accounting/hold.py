"""The hold check: each table's gaming day against the casino's two hold bands, raising the alerts
a pit boss resolves (``accounting.services_drop.hold_alert_resolve``).

- **Fixed band** (``AccountingSettings.hold_band_low_bp`` .. ``hold_band_high_bp``): the day's
  hold (``accounting.win.Figures.hold_bp``: win / drop, chip and wallet play together) outside
  it raises a ``fixed_band`` alert. Only a day whose tray was counted at both ends has a win.
- **Statistical band** (``hold_band_sigmas``): the rounds the table settled that day from the
  players' wallets, bet by bet. The expected win is each bet's stake times the house edge of its
  kind under its round's rule set and paytables (the same edges as the player ratings:
  ``accounting.ratings.edges_of_configs``, from the engine's odds); its variance is the sum of
  each stake squared times the variance of one unit of that kind of bet (the side bets' and
  insurance's exact, from their outcome probabilities; the main game's, with its doubles and
  splits, ``MAIN_GAME_UNIT_VARIANCE``). Bets are taken as independent. A wallet win further
  from the expectation than ``hold_band_sigmas`` standard deviations raises a ``statistical``
  alert. Without a computed main-game edge for a rule set (a background job on the operator's
  pages) the expectation is incomplete and the check leaves the day alone.

docs/accounting.md ("Hold alerts") says the same for the pit, with a worked example.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounting.gaming_days import gaming_day_bounds, gaming_day_of, schedule_of
from accounting.models import HoldAlert, HoldAlertKind
from accounting.ratings import ConfigEdges, edges_of_configs
from accounting.selectors import settings_of
from accounting.win import Figures, TableRecords, table_records
from casino.actors import Actor
from casino.locking import advisory_lock
from casino.models import Casino, Table
from tables.models import Bet, BetKind, BetStatus, RoundStatus, TableConfigVersion
from tables.odds_jobs import side_bet_edge
from tables.services.config import config_rules

HOLD_CHECK_LOCK_NAMESPACE = 0x40DC << 32
HOLD_CHECK_PROCESS = "hold check"

# The variance of a blackjack hand's result per unit of initial stake under basic strategy,
# doubles and splits included: about 1.3 for the shoe games dealt here (its standard deviation,
# about 1.14 units, is the figure of the game's published analyses). Used for main bets and bets
# behind.
MAIN_GAME_UNIT_VARIANCE = Fraction(13, 10)


@lru_cache(maxsize=256)
def _side_variance(kind: str, decks: int, payouts_json: str) -> Fraction:
    odds = side_bet_edge(kind, decks, json.loads(payouts_json))
    mean = -odds.house_edge
    second = sum(
        (row.probability * (row.pays * row.pays if row.pays else 1) for row in odds.outcomes),
        Fraction(0),
    )
    return second - mean * mean


def insurance_variance(decks: int, pays: Fraction = Fraction(2)) -> Fraction:
    """The variance of one unit of insurance: it wins ``pays`` when the hole card is a ten
    (16d of the 52d - 1 cards left), else loses the unit."""
    tens = Fraction(16 * decks, 52 * decks - 1)
    mean = tens * pays - (1 - tens)
    return tens * pays * pays + (1 - tens) - mean * mean


def unit_variance(kind: str, config: TableConfigVersion) -> Fraction | None:
    """The variance of one unit staked on ``kind`` under ``config``; None for a side bet the
    configuration does not offer."""
    rules = config_rules(config)
    if kind in (BetKind.MAIN, BetKind.BEHIND):
        return MAIN_GAME_UNIT_VARIANCE
    if kind == BetKind.INSURANCE:
        return insurance_variance(rules.decks, rules.insurance_pays)
    version = (
        config.perfect_pairs_version
        if kind == BetKind.PERFECT_PAIRS
        else config.twenty_one_plus_three_version
    )
    if version is None:
        return None
    return _side_variance(kind, rules.decks, json.dumps(version.payouts, sort_keys=True))


@dataclass(frozen=True)
class Expectation:
    """What the rounds of a period should have won: ``expected`` (exact, minor units), its
    ``variance`` (minor units squared), over ``bets`` bets staking ``wagered_minor``; the stakes
    whose edge is not known yet are counted apart."""

    bets: int
    wagered_minor: int
    expected: Fraction
    variance: Fraction
    wagered_without_edge_minor: int

    @property
    def is_complete(self) -> bool:
        return self.wagered_without_edge_minor == 0

    @property
    def expected_minor(self) -> int:
        return round(self.expected)

    @property
    def deviation_minor(self) -> int:
        """The standard deviation of the win, to the minor unit (half to even)."""
        root = _sqrt(self.variance)
        return int(root.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))

    def z(self, win_minor: int) -> Decimal | None:
        """How many standard deviations ``win_minor`` is from the expectation (two decimals)."""
        if self.variance == 0:
            return None
        exact = (Decimal(win_minor) - _decimal(self.expected)) / _sqrt(self.variance)
        return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def _sqrt(value: Fraction) -> Decimal:
    return _decimal(value).sqrt()


def expectation(bets: Iterable[tuple[str, int, int]], edges: dict[int, ConfigEdges]) -> Expectation:
    """The expectation of ``bets`` (kind, stake, configuration id) under ``edges`` (by
    configuration id, with the configurations in ``edges[...].config``)."""
    count = wagered = without = 0
    expected = variance = Fraction(0)
    configs = {config.pk: config for config in _configs(edges)}
    for kind, stake, config_id in bets:
        count += 1
        wagered += stake
        edge = edges[config_id].of(kind)
        unit = unit_variance(kind, configs[config_id])
        if edge is None or unit is None:
            without += stake
            continue
        expected += stake * edge
        variance += stake * stake * unit
    return Expectation(
        bets=count,
        wagered_minor=wagered,
        expected=expected,
        variance=variance,
        wagered_without_edge_minor=without,
    )


def _configs(edges: dict[int, ConfigEdges]) -> list[TableConfigVersion]:
    return list(
        TableConfigVersion.objects.filter(pk__in=list(edges)).select_related(
            "rule_set_version__rule_set", "perfect_pairs_version", "twenty_one_plus_three_version"
        )
    )


def round_expectation(table: Table, starts_at: dt.datetime, ends_at: dt.datetime) -> Expectation:
    """The expectation of the wallet bets settled at ``table`` in rounds settled from
    ``starts_at`` to before ``ends_at``."""
    bets = list(
        Bet.objects.filter(
            round__table=table,
            status=BetStatus.SETTLED,
            round__status=RoundStatus.SETTLED,
            round__settled_at__gte=starts_at,
            round__settled_at__lt=ends_at,
        ).values_list("kind", "stake_minor", "round__config_id")
    )
    edges = edges_of_configs({row[2] for row in bets}) if bets else {}
    return expectation(bets, edges)


# ---------------------------------------------------------------- the check


@dataclass(frozen=True)
class HoldVerdict:
    """What the check found for one table and day: the figures, the rounds' expectation, and the
    alerts they call for (kind -> figures kept on the alert)."""

    table: Table
    day: dt.date
    figures: Figures
    expectation: Expectation
    alerts: dict[str, dict[str, Any]]


def hold_verdict(table: Table, day: dt.date, records: TableRecords) -> HoldVerdict:
    settings = settings_of(table.casino)
    figures = records.figures(table.pk)
    starts_at, ends_at = gaming_day_bounds(schedule_of(table.casino), day)
    expected = round_expectation(table, starts_at, ends_at)
    alerts: dict[str, dict[str, Any]] = {}
    hold_bp = figures.hold_bp
    if hold_bp is not None and not settings.hold_band_low_bp <= hold_bp <= settings.hold_band_high_bp:
        alerts[HoldAlertKind.FIXED_BAND] = {
            "win_minor": figures.win_minor,
            "drop_minor": figures.drop_minor,
            "hold_bp": hold_bp,
            "low_bp": settings.hold_band_low_bp,
            "high_bp": settings.hold_band_high_bp,
        }
    z = expected.z(figures.wallet_win_minor) if expected.bets and expected.is_complete else None
    if z is not None and abs(z) > settings.hold_band_sigmas:
        alerts[HoldAlertKind.STATISTICAL] = {
            "wallet_win_minor": figures.wallet_win_minor,
            "expected_minor": expected.expected_minor,
            "deviation_minor": expected.deviation_minor,
            "sigmas": settings.hold_band_sigmas,
            "z": str(z),
            "bets": expected.bets,
            "wagered_minor": expected.wagered_minor,
            "drop_minor": figures.drop_minor,
        }
    return HoldVerdict(table=table, day=day, figures=figures, expectation=expected, alerts=alerts)


def hold_check(
    *, casino: Casino | None = None, days: Iterable[dt.date] | None = None, actor: Actor
) -> list[HoldAlert]:
    """Check every table of ``casino`` (of every casino by default) on ``days`` (by default the
    previous gaming day and the current one) and raise the alerts found that are not raised yet:
    one per table, day and kind, so running it twice raises nothing new. ``actor`` is the staff
    member who asked (the page's button), or the scheduled task
    (``Actor.automatic(HOLD_CHECK_PROCESS)``). Each
    alert is audited. Locks each table's check (an advisory lock: two checks racing take turns),
    then the audit chain. Returns the alerts it raised."""
    raised: list[HoldAlert] = []
    casinos = [casino] if casino is not None else list(Casino.objects.all())
    for venue in casinos:
        today = gaming_day_of(schedule_of(venue), timezone.now())
        chosen = sorted(set(days)) if days is not None else [today - dt.timedelta(days=1), today]
        tables = list(Table.objects.filter(casino=venue).select_related("casino").order_by("name"))
        for day in chosen:
            records = table_records(venue, day, day)
            for table in tables:
                raised += _alerts_raise(hold_verdict(table, day, records), actor)
    return raised


def _alerts_raise(verdict: HoldVerdict, actor: Actor) -> list[HoldAlert]:
    if not verdict.alerts:
        return []
    raised = []
    with transaction.atomic():
        advisory_lock(HOLD_CHECK_LOCK_NAMESPACE, verdict.table.pk)
        known = set(
            HoldAlert.objects.filter(table=verdict.table, gaming_day=verdict.day).values_list(
                "kind", flat=True
            )
        )
        for kind, figures in sorted(verdict.alerts.items()):
            if kind in known:
                continue
            alert = HoldAlert.objects.create(
                table=verdict.table,
                gaming_day=verdict.day,
                kind=kind,
                figures=figures,
                raised_at=timezone.now(),
            )
            actor.audit(
                action="accounting.hold_alert_raised",
                object_type="accounting.holdalert",
                object_id=alert.pk,
                after={
                    "table_id": verdict.table.pk,
                    "gaming_day": verdict.day.isoformat(),
                    "kind": kind,
                    "figures": figures,
                },
            )
            raised.append(alert)
    return raised
