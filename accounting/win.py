"""Win and hold: per table, shift, gaming day and month to date, from the counts, the slips, the
drop and the ledger. Reads only.

    win = closer + credits + drop box - opener - fills      (chip play: the counted tray)
        + wallet win                                          (wallet play: the ledger's tray)
    hold = win / drop, where drop = drop box + terminal drop   (none when the drop is 0)

What each term is made of (docs/accounting.md, "Win and hold", says it for the pit):

- **opener**, **closer**: the tray counts signed by two people (a correction's total in place of
  the count it corrects), in the shift and gaming day they were counted in;
- **fills**, **credits**: the slips the cage issued (the ledger moved then), at their totals,
  in the shift their chips reached the table (its receipt, signed at the table; an issued slip
  not yet received at its issue), when the table was open then: between an opener and the next
  closer, by the moments those were counted. A slip whose chips reached the table while it was
  closed (after a closer, before the next opener) is in neither period's win: the closer did not
  count its chips and the next opener does (``fills_at_closed_table_minor``,
  ``credits_at_closed_table_minor``; the services refuse such a slip now, ``slip_table_closed``,
  and a closer while one is in flight, ``slip_in_flight``: these terms show older records);
- **drop box**: the drop box counts of the shift signed by two people (corrections applied);
  **table buy-ins** (cash for chips, recorded at the table) are shown beside it, not added: the
  box holds that cash, so the two differ only by what was not recorded;
- **terminal drop**: the wallet money players bring to a table: each buy-in into a player's
  wallet (at the cage, ``wallet.services.cage_buy_in``, or by a process, ``system_buy_in``) not
  reversed, attributed to the table of the player's first terminal session (``PlayerSession``)
  open at the buy-in or starting after it in the same gaming day, and to the shift in which the
  money reached that table (the later of the buy-in and the sign-in); a buy-in followed by no
  session that day belongs to no table (``TableRecords.unattributed_minor``);
- **wallet win**: the tray's postings of the round settlements and of the rejected payouts (the
  house's result of wallet play, ``wallet.services.holds_settle``), reversals of them included,
  in the shift they were posted in.

A shift's figures are those of its own records, so the chip part needs the tray counted at both
ends: a table open at the start or at the end of the period without a count there has no chip
win (``Figures.is_complete`` false; count the tray at each shift change: a closer, then the next
opener). A gaming day or a month is complete when the table was closed at its start and end.

The ledger reconciles: between an opener and its closer the tray's ledger balance moves by the
fills less the credits (issued) plus the wallet win plus anything else posted on the tray
(``ledger_other_minor``, normally 0); ``TrayCount.ledger_minor`` holds the balance at each count.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache

from accounting.gaming_days import (
    Schedule,
    Shift,
    gaming_day_bounds,
    gaming_day_of,
    schedule_of,
    shifts_of_day,
)
from accounting.models import CountKind, DropCount, SlipKind, SlipSignature, SlipStep, TableBuyIn, TrayCount
from accounting.selectors import count_effective, is_count_signed
from casino.models import Casino, PlayerSession, Table
from wallet.models import AccountKind, Posting, TransferKind

Key = tuple[int, dt.date, int]  # table id, gaming day, shift number

WALLET_PLAY_KINDS = frozenset({TransferKind.ROUND_SETTLEMENT, TransferKind.PAYOUT_REJECT})


@dataclass
class Figures:
    """The terms of win and hold over one period (of one table, or summed over tables)."""

    opener_minor: int = 0
    closer_minor: int = 0
    fills_minor: int = 0
    credits_minor: int = 0
    drop_box_minor: int = 0
    terminal_drop_minor: int = 0
    table_buy_ins_minor: int = 0
    wallet_win_minor: int = 0
    ledger_fills_minor: int = 0
    ledger_credits_minor: int = 0
    ledger_other_minor: int = 0
    fills_at_closed_table_minor: int = 0
    credits_at_closed_table_minor: int = 0
    openers: int = 0
    closers: int = 0
    drop_counts_unsigned: int = 0
    is_complete: bool = True

    def __add__(self, other: Figures) -> Figures:
        """Figures of the same period summed over tables: complete when every part is."""
        summed = Figures()
        for item in fields(self):
            if item.name == "is_complete":
                continue
            setattr(summed, item.name, getattr(self, item.name) + getattr(other, item.name))
        summed.is_complete = self.is_complete and other.is_complete
        return summed

    @property
    def drop_minor(self) -> int:
        return self.drop_box_minor + self.terminal_drop_minor

    @property
    def chip_win_minor(self) -> int | None:
        """closer + credits + drop box - opener - fills; None when the tray is not counted at
        both ends of the period."""
        if not self.is_complete:
            return None
        return (
            self.closer_minor
            + self.credits_minor
            + self.drop_box_minor
            - self.opener_minor
            - self.fills_minor
        )

    @property
    def win_minor(self) -> int | None:
        chip = self.chip_win_minor
        return None if chip is None else chip + self.wallet_win_minor

    @property
    def hold(self) -> Decimal | None:
        """win / drop as a percentage with two decimals (half to even); None when the drop is
        0 or the win unknown."""
        return hold_percent(self.win_minor, self.drop_minor)

    @property
    def hold_bp(self) -> int | None:
        """The hold in basis points (half to even), as the settings' bands are written."""
        if self.win_minor is None or self.drop_minor == 0:
            return None
        return round_half_even(self.win_minor * 10_000, self.drop_minor)

    @property
    def unrecorded_buy_ins_minor(self) -> int:
        """The drop box count less the buy-ins recorded at the table."""
        return self.drop_box_minor - self.table_buy_ins_minor


def round_half_even(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half to even, exactly (integers only)."""
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2 == 1):
        quotient += 1
    return quotient


def hold_percent(win_minor: int | None, drop_minor: int) -> Decimal | None:
    """``win / drop`` in percent to two decimals, half to even (``250 / 1000`` -> ``25.00``);
    None for no drop or no win."""
    if win_minor is None or drop_minor == 0:
        return None
    exact = Decimal(win_minor) * 100 / Decimal(drop_minor)
    return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


# ---------------------------------------------------------------- the records of some days


@dataclass
class TableRecords:
    """The terms of the casino's tables over whole gaming days, per table, day and shift, and the
    tray counts that decide whether a period is counted at both ends."""

    casino: Casino
    first_day: dt.date
    last_day: dt.date
    terms: dict[Key, Figures] = field(default_factory=dict)
    # Per table: its signed counts (not corrections) in the days, oldest first, as
    # (day, shift, kind); and whether it was open before the first day.
    counts: dict[int, list[tuple[dt.date, int, str]]] = field(default_factory=dict)
    open_before: dict[int, bool] = field(default_factory=dict)
    # Per table: the moments its signed counts (not corrections) were counted and their kinds,
    # oldest first, the last one before the first day among them: what frames its win.
    counted_at: dict[int, list[tuple[dt.datetime, str]]] = field(default_factory=dict)
    unattributed_minor: int = 0

    def is_open_at(self, table_id: int, moment: dt.datetime) -> bool:
        """Whether the table was open at ``moment``: its last count up to then an opener."""
        is_open = False
        for at, kind in self.counted_at.get(table_id, []):
            if at > moment:
                break
            is_open = kind == CountKind.OPENER
        return is_open

    def term(self, key: Key) -> Figures:
        if key not in self.terms:
            self.terms[key] = Figures()
        return self.terms[key]

    def figures(
        self, table_id: int, first: tuple[dt.date, int] | None = None, last: tuple[dt.date, int] | None = None
    ) -> Figures:
        """One table's figures from the shift ``first`` to the shift ``last`` (``(day, shift)``,
        both included; by default the first and last days whole)."""
        start = first or (self.first_day, 0)
        end = last or (self.last_day, 10**6)
        summed = Figures()
        for (table, day, shift), terms in self.terms.items():
            if table == table_id and start <= (day, shift) <= end:
                summed = summed + terms
        counts = self.counts.get(table_id, [])
        before = [kind for day, shift, kind in counts if (day, shift) < start]
        inside = [kind for day, shift, kind in counts if start <= (day, shift) <= end]
        open_at_start = before[-1] == CountKind.OPENER if before else self.open_before.get(table_id, False)
        open_at_end = inside[-1] == CountKind.OPENER if inside else open_at_start
        summed.is_complete = not open_at_start and not open_at_end
        return summed


def _bucket(schedule: Schedule) -> Callable[[dt.datetime], tuple[dt.date, int]]:
    """The (gaming day, shift number) of an instant, the shifts of each day computed once."""

    @lru_cache(maxsize=64)
    def shifts(day: dt.date) -> tuple[Shift, ...]:
        return tuple(shifts_of_day(schedule, day))

    def of(instant: dt.datetime) -> tuple[dt.date, int]:
        day = gaming_day_of(schedule, instant)
        number = 1
        for shift in shifts(day):
            if shift.starts_at <= instant:
                number = shift.number
        return day, number

    return of


def table_records(casino: Casino, first_day: dt.date, last_day: dt.date) -> TableRecords:
    """The terms of every table of ``casino`` over the gaming days ``first_day`` to ``last_day``.
    A dozen queries whatever the number of tables, plus one per table for its state before."""
    schedule = schedule_of(casino)
    start, _ = gaming_day_bounds(schedule, first_day)
    _, end = gaming_day_bounds(schedule, last_day)
    bucket = _bucket(schedule)
    records = TableRecords(casino=casino, first_day=first_day, last_day=last_day)
    tables = list(Table.objects.filter(casino=casino).values_list("pk", flat=True))
    _counts_read(records, tables, start)
    _slips_read(records, start, end, bucket)
    _drop_read(records)
    _buy_ins_read(records)
    _ledger_read(records, tables, start, end, bucket)
    _terminal_drop_read(records, start, end, schedule, bucket)
    return records


def _counts_read(records: TableRecords, tables: list[int], start: dt.datetime) -> None:
    in_days = list(
        TrayCount.objects.filter(
            table__casino=records.casino, gaming_day__gte=records.first_day, gaming_day__lte=records.last_day
        )
        .prefetch_related("signatures")
        .order_by("counted_at", "pk")
    )
    corrections = list(
        TrayCount.objects.filter(table__casino=records.casino, corrects__isnull=False, counted_at__gte=start)
        .prefetch_related("signatures")
        .order_by("counted_at", "pk")
    )
    by_table: dict[int, list[TrayCount]] = defaultdict(list)
    for count in corrections:
        by_table[count.table_id].append(count)
    for count in in_days:
        if count.corrects_id is not None or not is_count_signed(count):
            continue
        effective = count_effective(count, by_table[count.table_id])
        terms = records.term((count.table_id, count.gaming_day, count.shift))
        if count.kind == CountKind.OPENER:
            terms.opener_minor += effective.total_minor
            terms.openers += 1
        else:
            terms.closer_minor += effective.total_minor
            terms.closers += 1
        records.counts.setdefault(count.table_id, []).append((count.gaming_day, count.shift, count.kind))
        records.counted_at.setdefault(count.table_id, []).append((count.counted_at, count.kind))
    for table_id in tables:
        earlier = (
            TrayCount.objects.filter(
                table_id=table_id, corrects__isnull=True, gaming_day__lt=records.first_day
            )
            .prefetch_related("signatures")
            .order_by("-counted_at", "-pk")
        )
        last = next((count for count in earlier[:5] if is_count_signed(count)), None)
        records.open_before[table_id] = last is not None and last.kind == CountKind.OPENER
        if last is not None:
            records.counted_at.setdefault(table_id, []).insert(0, (last.counted_at, last.kind))


def _slips_read(
    records: TableRecords,
    start: dt.datetime,
    end: dt.datetime,
    bucket: Callable[[dt.datetime], tuple[dt.date, int]],
) -> None:
    """The issued slips whose chips reached their table in the days (at the receipt, or the
    issue of a slip not received), as fills and credits of the shift they reached it in when the
    table was open then, else as slips at a closed table."""
    steps = (SlipStep.ISSUED, SlipStep.RECEIVED)
    moved = SlipSignature.objects.filter(
        slip__casino=records.casino, step__in=steps, signed_at__gte=start, signed_at__lt=end
    ).values("slip_id")
    rows = SlipSignature.objects.filter(slip_id__in=moved, step__in=steps).values_list(
        "slip_id", "slip__table_id", "slip__kind", "slip__total_minor", "step", "signed_at"
    )
    slips: dict[int, tuple[int, str, int]] = {}
    moments: dict[int, dict[str, dt.datetime]] = defaultdict(dict)
    for slip_id, table_id, kind, total, step, signed_at in rows:
        slips[slip_id] = (table_id, kind, total)
        moments[slip_id][step] = signed_at
    for slip_id, (table_id, kind, total) in slips.items():
        signed = moments[slip_id]
        if SlipStep.ISSUED not in signed:
            continue
        moment = signed.get(SlipStep.RECEIVED, signed[SlipStep.ISSUED])
        if not start <= moment < end:
            continue
        terms = records.term((table_id, *bucket(moment)))
        is_open = records.is_open_at(table_id, moment)
        if kind == SlipKind.FILL and is_open:
            terms.fills_minor += total
        elif kind == SlipKind.FILL:
            terms.fills_at_closed_table_minor += total
        elif is_open:
            terms.credits_minor += total
        else:
            terms.credits_at_closed_table_minor += total


def _effective_amounts(
    rows: Iterable[tuple[int, int | None, int, dt.date, int, int, bool]],
) -> list[tuple[int, dt.date, int, int | None]]:
    """(pk, corrects, table, day, shift, amount, valid) rows -> per original record its table,
    day, shift and amount as it stands (its last valid correction's), None when not valid."""
    items = list(rows)
    corrected_by = {row[1]: row for row in items if row[1] is not None and row[6]}
    result = []
    for pk, corrects, table_id, day, shift, amount, valid in items:
        if corrects is not None:
            continue
        current: int | None = amount if valid else None
        key = pk
        while key in corrected_by:
            current = corrected_by[key][5]
            key = corrected_by[key][0]
        result.append((table_id, day, shift, current))
    return result


def _drop_read(records: TableRecords) -> None:
    counts = (
        DropCount.objects.filter(
            table__casino=records.casino, gaming_day__gte=records.first_day, gaming_day__lte=records.last_day
        )
        .prefetch_related("signatures")
        .order_by("counted_at", "pk")
    )
    rows = [
        (
            count.pk,
            count.corrects_id,
            count.table_id,
            count.gaming_day,
            count.shift,
            count.total_minor,
            len(count.signatures.all()) >= 2,
        )
        for count in counts
    ]
    for table_id, day, shift, amount in _effective_amounts(rows):
        terms = records.term((table_id, day, shift))
        if amount is None:
            terms.drop_counts_unsigned += 1
        else:
            terms.drop_box_minor += amount


def _buy_ins_read(records: TableRecords) -> None:
    rows = TableBuyIn.objects.filter(
        table__casino=records.casino, gaming_day__gte=records.first_day, gaming_day__lte=records.last_day
    ).order_by("recorded_at", "pk")
    entries = [
        (entry.pk, entry.corrects_id, entry.table_id, entry.gaming_day, entry.shift, entry.amount_minor, True)
        for entry in rows
    ]
    for table_id, day, shift, amount in _effective_amounts(entries):
        records.term((table_id, day, shift)).table_buy_ins_minor += amount or 0


def _ledger_read(
    records: TableRecords,
    tables: list[int],
    start: dt.datetime,
    end: dt.datetime,
    bucket: Callable[[dt.datetime], tuple[dt.date, int]],
) -> None:
    postings = Posting.objects.filter(
        account__table_id__in=tables,
        account__kind=AccountKind.TABLE_TRAY,
        transfer__created_at__gte=start,
        transfer__created_at__lt=end,
    ).values_list(
        "account__table_id",
        "amount_minor",
        "transfer__kind",
        "transfer__reverses__kind",
        "transfer__created_at",
    )
    for table_id, amount, kind, reversed_kind, created_at in postings:
        day, shift = bucket(created_at)
        terms = records.term((table_id, day, shift))
        what = reversed_kind if kind == TransferKind.REVERSAL and reversed_kind else kind
        if what in WALLET_PLAY_KINDS:
            terms.wallet_win_minor += amount
        elif what == TransferKind.TABLE_FILL:
            terms.ledger_fills_minor += amount
        elif what == TransferKind.TABLE_CREDIT:
            terms.ledger_credits_minor -= amount
        else:
            terms.ledger_other_minor += amount


def _terminal_drop_read(
    records: TableRecords,
    start: dt.datetime,
    end: dt.datetime,
    schedule: Schedule,
    bucket: Callable[[dt.datetime], tuple[dt.date, int]],
) -> None:
    buy_ins = list(
        Posting.objects.filter(
            account__casino=records.casino,
            account__kind=AccountKind.PLAYER,
            amount_minor__gt=0,
            transfer__kind=TransferKind.BUY_IN,
            transfer__reversed_by__isnull=True,
            transfer__created_at__gte=start,
            transfer__created_at__lt=end,
        ).values_list("account__player_id", "amount_minor", "transfer__created_at")
    )
    if not buy_ins:
        return
    sessions: dict[int, list[tuple[dt.datetime, dt.datetime, int]]] = defaultdict(list)
    for player_id, table_id, started_at, ended_at, expires_at in (
        PlayerSession.objects.filter(player_id__in={row[0] for row in buy_ins}, started_at__lt=end)
        .exclude(ended_at__lte=start)
        .values_list("player_id", "table_id", "started_at", "ended_at", "expires_at")
    ):
        sessions[player_id].append((started_at, ended_at or expires_at, table_id))
    for player_id, amount, moment in buy_ins:
        day = gaming_day_of(schedule, moment)
        _, day_end = gaming_day_bounds(schedule, day)
        candidates = [
            (max(started_at, moment), started_at, table_id)
            for started_at, ends_at, table_id in sessions.get(player_id, [])
            if started_at < day_end and ends_at > moment
        ]
        if not candidates:
            records.unattributed_minor += amount
            continue
        reached_at, _started, table_id = min(candidates)
        reached_day, shift = bucket(reached_at)
        records.term((table_id, reached_day, shift)).terminal_drop_minor += amount


# ---------------------------------------------------------------- periods


@dataclass(frozen=True)
class TableFigures:
    table: Table
    figures: Figures


def shift_figures(casino: Casino, day: dt.date, shift: int) -> list[TableFigures]:
    """Each table's figures of one shift of a gaming day, tables by name."""
    records = table_records(casino, day, day)
    return [
        TableFigures(table, records.figures(table.pk, (day, shift), (day, shift)))
        for table in Table.objects.filter(casino=casino).order_by("name")
    ]


def day_figures(casino: Casino, day: dt.date) -> list[TableFigures]:
    records = table_records(casino, day, day)
    return [
        TableFigures(table, records.figures(table.pk))
        for table in Table.objects.filter(casino=casino).order_by("name")
    ]


def month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def totals(rows: Iterable[TableFigures]) -> Figures:
    summed = Figures()
    for row in rows:
        summed = summed + row.figures
    return summed
