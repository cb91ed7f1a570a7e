"""The table reports, each a ``accounting.documents.Report`` shown as a page, a CSV or a PDF:

- the **end-of-shift table report**: every table's opener, fills, credits, drop (box and
  terminals), closer, wallet win, win and hold of one shift of a gaming day;
- the **gaming-day table report**: the same per table and shift of a gaming day, each table's
  day on a line of its own;
- the **master game report**: every table's day (opener, fills, credits, drop, closer, win,
  hold) and its month to date (drop, win, hold), with the casino's totals.

Each says under its table whether its gaming day is open, and when it was closed, reopened (who
asked, why, who approved) and closed again (``day_state_notes``).

The figures are ``accounting.win``'s. A CSV's amounts are plain (``1234.50``, the same in every
language, ``money_plain``) and its hold a plain percentage; a page's and a PDF's are written as the
active language writes them (``money``). Column names and notes are in the active language.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounting.documents import Cell, Report
from accounting.gaming_days import schedule_of, shifts_of_day
from accounting.win import Figures, month_start, table_records
from casino.gaming_day_state import gaming_day_history
from casino.models import Casino, Table
from casino.money import money, money_plain


def _amount(amount_minor: int | None, for_file: bool) -> str:
    return money_plain(amount_minor) if for_file else money(amount_minor)


def _hold(hold: Decimal | None, for_file: bool) -> str:
    if hold is None:
        return ""
    return f"{hold}" if for_file else f"{number_format(hold, decimal_pos=2)} %"


def _figures_cells(figures: Figures, for_file: bool) -> list[Cell]:
    return [
        _amount(figures.opener_minor, for_file),
        _amount(figures.fills_minor, for_file),
        _amount(figures.credits_minor, for_file),
        _amount(figures.drop_box_minor, for_file),
        _amount(figures.terminal_drop_minor, for_file),
        _amount(figures.closer_minor, for_file),
        _amount(figures.wallet_win_minor, for_file),
        _amount(figures.win_minor, for_file),
        _hold(figures.hold, for_file),
    ]


def _figures_columns() -> list[str]:
    return [
        _("Opener"),
        _("Fills"),
        _("Credits"),
        _("Drop box"),
        _("Terminal drop"),
        _("Closer"),
        _("Wallet win"),
        _("Win"),
        _("Hold %"),
    ]


def _tables(casino: Casino) -> list[Table]:
    return list(Table.objects.filter(casino=casino).order_by("name"))


def _generated(casino: Casino) -> str:
    moment = timezone.localtime(timezone.now(), schedule_of(casino).zone)
    return _("Produced at %(moment)s (%(zone)s time).") % {
        "moment": moment.strftime("%Y-%m-%d %H:%M"),
        "zone": casino.time_zone,
    }


def day_state_notes(casino: Casino, day: dt.date) -> list[str]:
    """What a report of ``day`` says of its state: open, or each closing and reopening in order
    (who, when and, for a reopening, who asked and why): a report read after a reopening shows
    that its figures may have changed since the day was first closed."""
    zone = schedule_of(casino).zone
    history = gaming_day_history(casino.pk, day)
    if not history:
        return [_("Gaming day %(day)s is open: its figures may still change.") % {"day": day.isoformat()}]
    notes = []
    for event in history:
        at = timezone.localtime(event.at, zone).strftime("%Y-%m-%d %H:%M")
        if event.kind == "closed":
            notes.append(_("Gaming day closed at %(at)s by %(by)s.") % {"at": at, "by": event.by})
        else:
            notes.append(
                _("Gaming day reopened at %(at)s: asked by %(asked)s because: %(why)s; approved by %(by)s.")
                % {"at": at, "asked": event.asked_by, "why": event.reason, "by": event.by}
            )
    if history[-1].kind == "reopened":
        notes.append(
            _("Gaming day %(day)s is open again: its figures may still change.") % {"day": day.isoformat()}
        )
    return notes


def _formula_notes() -> list[str]:
    return [
        _(
            "Win = closer + credits + drop box - opener - fills (the chips) + wallet win (the rounds "
            "settled from the players' wallets). Hold = win / drop, where drop = drop box + terminal drop."
        ),
    ]


def _checks(rows: Sequence[tuple[Table, Figures]]) -> list[str]:
    notes = []
    for table, figures in rows:
        if not figures.is_complete:
            notes.append(
                _("%(table)s: the tray was not counted at both ends of the period, so it has no win.")
                % {"table": table.name}
            )
        if figures.drop_counts_unsigned:
            notes.append(
                _(
                    "%(table)s: %(count)s drop count(s) wait for their second signature and are not in the drop."
                )
                % {"table": table.name, "count": figures.drop_counts_unsigned}
            )
    return notes


def shift_report(casino: Casino, day: dt.date, shift: int, *, for_file: bool = False) -> Report:
    """The end-of-shift table report of ``shift`` of ``day``."""
    records = table_records(casino, day, day)
    bounds = next((entry for entry in shifts_of_day(schedule_of(casino), day) if entry.number == shift), None)
    rows = [(table, records.figures(table.pk, (day, shift), (day, shift))) for table in _tables(casino)]
    total = sum((figures for _table, figures in rows), Figures())
    zone = schedule_of(casino).zone
    when = (
        _("Shift %(shift)s, from %(starts)s to %(ends)s")
        % {
            "shift": shift,
            "starts": timezone.localtime(bounds.starts_at, zone).strftime("%H:%M"),
            "ends": timezone.localtime(bounds.ends_at, zone).strftime("%H:%M"),
        }
        if bounds is not None
        else _("Shift %(shift)s") % {"shift": shift}
    )
    return Report(
        title=_("End-of-shift table report"),
        subtitle=f"{casino.name}\n{_('Gaming day %(day)s') % {'day': day.isoformat()}}, {when}",
        columns=[_("Table"), *_figures_columns()],
        rows=[[table.name, *_figures_cells(figures, for_file)] for table, figures in rows],
        totals=[_("Total"), *_figures_cells(total, for_file)],
        notes=[*_formula_notes(), *_checks(rows), *day_state_notes(casino, day), _generated(casino)],
    )


def day_report(casino: Casino, day: dt.date, *, for_file: bool = False) -> Report:
    """The gaming-day table report of ``day``: each table's shifts, then its day."""
    records = table_records(casino, day, day)
    shifts = shifts_of_day(schedule_of(casino), day)
    body: list[list[Cell]] = []
    days: list[tuple[Table, Figures]] = []
    for table in _tables(casino):
        for shift in shifts:
            figures = records.figures(table.pk, (day, shift.number), (day, shift.number))
            body.append([table.name, str(shift.number), *_figures_cells(figures, for_file)])
        whole = records.figures(table.pk)
        days.append((table, whole))
        body.append([table.name, _("Day"), *_figures_cells(whole, for_file)])
    total = sum((figures for _table, figures in days), Figures())
    return Report(
        title=_("Gaming-day table report"),
        subtitle=f"{casino.name}\n{_('Gaming day %(day)s') % {'day': day.isoformat()}}",
        columns=[_("Table"), _("Shift"), *_figures_columns()],
        rows=body,
        totals=[_("Total"), _("Day"), *_figures_cells(total, for_file)],
        notes=[*_formula_notes(), *_checks(days), *day_state_notes(casino, day), _generated(casino)],
    )


def master_report(casino: Casino, day: dt.date, *, for_file: bool = False) -> Report:
    """The master game report of ``day``: every table's day and month to date."""
    first = month_start(day)
    month = table_records(casino, first, day)
    today = table_records(casino, day, day)
    rows: list[list[Cell]] = []
    days: list[tuple[Table, Figures]] = []
    months: list[tuple[Table, Figures]] = []
    for table in _tables(casino):
        figures = today.figures(table.pk)
        to_date = month.figures(table.pk)
        days.append((table, figures))
        months.append((table, to_date))
        rows.append(_master_cells(table.name, table.get_game_display(), figures, to_date, for_file))
    day_total = sum((figures for _table, figures in days), Figures())
    month_total = sum((figures for _table, figures in months), Figures())
    notes = [*_formula_notes(), *_checks(days)]
    notes += [
        _("Month to date: %(table)s was not counted at both ends of the month so far.")
        % {"table": table.name}
        for table, figures in months
        if not figures.is_complete
    ]
    if today.unattributed_minor:
        notes.append(
            _("Wallet buy-ins of the day that reached no table: %(amount)s.")
            % {"amount": _amount(today.unattributed_minor, for_file)}
        )
    notes += day_state_notes(casino, day)
    notes.append(_generated(casino))
    return Report(
        title=_("Master game report"),
        subtitle=f"{casino.name}\n"
        + _("Gaming day %(day)s; month to date from %(first)s")
        % {"day": day.isoformat(), "first": first.isoformat()},
        columns=[
            _("Table"),
            _("Game"),
            _("Opener"),
            _("Fills"),
            _("Credits"),
            _("Drop"),
            _("Closer"),
            _("Win"),
            _("Hold %"),
            _("Drop, month to date"),
            _("Win, month to date"),
            _("Hold %, month to date"),
        ],
        rows=rows,
        totals=_master_cells(_("Total"), "", day_total, month_total, for_file),
        notes=notes,
    )


def _master_cells(name: str, game: str, figures: Figures, to_date: Figures, for_file: bool) -> list[Cell]:
    return [
        name,
        game,
        _amount(figures.opener_minor, for_file),
        _amount(figures.fills_minor, for_file),
        _amount(figures.credits_minor, for_file),
        _amount(figures.drop_minor, for_file),
        _amount(figures.closer_minor, for_file),
        _amount(figures.win_minor, for_file),
        _hold(figures.hold, for_file),
        _amount(to_date.drop_minor, for_file),
        _amount(to_date.win_minor, for_file),
        _hold(to_date.hold, for_file),
    ]
