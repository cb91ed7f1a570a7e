"""Charts of drop, win and hold per table and gaming day, drawn on the server as SVG
(``templates/accounting/_win-chart.html``): no script, no library, readable as it arrives.

Each day has two bars from the zero line, the drop and the win (a loss below the line), on one
money scale at the left; the hold is a line of points on its own percentage scale at the right.
A day without a win (the tray not counted at both ends) has no win bar and no hold point. The
coordinates are whole pixels computed here; the words (each element's tooltip) are in the
active language.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounting.win import Figures, TableRecords
from casino.models import Table
from casino.money import money

WIDTH = 720
HEIGHT = 260
LEFT = 78
RIGHT = 56
TOP = 16
BOTTOM = 34


@dataclass(frozen=True)
class Bar:
    x: int
    y: int
    width: int
    height: int
    kind: str  # drop, win, loss
    title: str


@dataclass(frozen=True)
class Point:
    x: int
    y: int
    title: str


@dataclass(frozen=True)
class Tick:
    y: int
    label: str


@dataclass(frozen=True)
class DayLabel:
    x: int
    label: str


@dataclass
class Chart:
    table: Table
    width: int = WIDTH
    height: int = HEIGHT
    zero_y: int = 0
    plot_left: int = LEFT
    plot_right: int = WIDTH - RIGHT
    bars: list[Bar] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    money_ticks: list[Tick] = field(default_factory=list)
    hold_ticks: list[Tick] = field(default_factory=list)
    days: list[DayLabel] = field(default_factory=list)
    rows: list[tuple[dt.date, Figures]] = field(default_factory=list)

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x},{point.y}" for point in self.points)

    @property
    def is_empty(self) -> bool:
        return not any(figures.drop_minor or figures.win_minor for _day, figures in self.rows)


def _scale(values: list[int]) -> tuple[int, int]:
    """A money scale from ``low`` (0 or below) to ``high`` (above 0), with a little room."""
    high = max([*values, 0])
    low = min([*values, 0])
    if high == low:
        high = 100
    return low, high


def day_chart(table: Table, records: TableRecords, days: list[dt.date]) -> Chart:
    """The chart of ``table`` over ``days`` from ``records`` (which hold those days)."""
    chart = Chart(table=table)
    chart.rows = [(day, records.figures(table.pk, (day, 0), (day, 99))) for day in days]
    plot_height = HEIGHT - TOP - BOTTOM
    plot_width = WIDTH - LEFT - RIGHT
    values = [figures.drop_minor for _day, figures in chart.rows]
    values += [figures.win_minor for _day, figures in chart.rows if figures.win_minor is not None]
    low, high = _scale(values)

    def y_of(amount: int) -> int:
        return TOP + round((high - amount) * plot_height / (high - low))

    chart.zero_y = y_of(0)
    holds = [figures.hold for _day, figures in chart.rows if figures.hold is not None]
    hold_high = max([abs(value) for value in holds] + [Decimal(10)])
    hold_low = -hold_high if any(value < 0 for value in holds) else Decimal(0)

    def y_of_hold(value: Decimal) -> int:
        return TOP + round((hold_high - value) * plot_height / (hold_high - hold_low))

    slot = plot_width / max(len(days), 1)
    bar = max(2, min(18, int(slot / 3)))
    for index, (day, figures) in enumerate(chart.rows):
        middle = LEFT + round(slot * index + slot / 2)
        label = day.strftime("%d")
        if len(days) <= 16 or index % 2 == 0:
            chart.days.append(DayLabel(x=middle, label=label))
        drop_top = y_of(figures.drop_minor)
        chart.bars.append(
            Bar(
                x=middle - bar,
                y=drop_top,
                width=bar,
                height=max(0, chart.zero_y - drop_top),
                kind="drop",
                title=_("%(day)s: drop %(amount)s")
                % {"day": day.isoformat(), "amount": money(figures.drop_minor)},
            )
        )
        if figures.win_minor is not None:
            win_y = y_of(figures.win_minor)
            chart.bars.append(
                Bar(
                    x=middle,
                    y=min(win_y, chart.zero_y),
                    width=bar,
                    height=abs(chart.zero_y - win_y),
                    kind="win" if figures.win_minor >= 0 else "loss",
                    title=_("%(day)s: win %(amount)s")
                    % {"day": day.isoformat(), "amount": money(figures.win_minor)},
                )
            )
        if figures.hold is not None:
            chart.points.append(
                Point(
                    x=middle,
                    y=y_of_hold(figures.hold),
                    title=_("%(day)s: hold %(hold)s %%")
                    % {"day": day.isoformat(), "hold": number_format(figures.hold, decimal_pos=2)},
                )
            )
    for fraction in (0, 1, 2, 3, 4):
        amount = low + (high - low) * fraction // 4
        chart.money_ticks.append(Tick(y=y_of(amount), label=money(amount)))
        hold = hold_low + (hold_high - hold_low) * fraction / 4
        places = 0 if hold == hold.to_integral_value() else 1
        chart.hold_ticks.append(Tick(y=y_of_hold(hold), label=f"{number_format(hold, decimal_pos=places)} %"))
    return chart
