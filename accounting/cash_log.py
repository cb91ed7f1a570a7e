"""The cash transaction log of a gaming day: every cash transaction of the cage with a player
(a buy-in, cash to the player's wallet; a cash-out, the wallet to cash: the ledger's
``buy_in`` and ``cash_out`` transfers, ``wallet.services.cage_buy_in`` and ``cage_cash_out``),
per player, with the casino's two reporting thresholds (``AccountingSettings``):

- the **multiple-transaction log** (MTL) lists every transaction above ``mtl_threshold_minor``
  (one at the threshold is not above it; several below it are not logged, however much they
  sum to: the large-cash report is what adds them up);
- the **large-cash report** lists each player whose day total of cash in, or of cash out, is
  above ``large_cash_threshold_minor`` (in and out are added up apart, never netted).

Only transactions a cashier made count: the back office's own processes
(``wallet.services.system_buy_in``) hand over no cash. A transaction later reversed (``wallet.services.transfer_reverse``) is shown as reversed and
counts in neither: the ledger has undone it. Reads only; the arithmetic is pure
(``CashTransaction``, ``mtl_entries``, ``player_totals``, ``large_cash_entries``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounting.documents import Report
from accounting.gaming_days import gaming_day_bounds, schedule_of
from accounting.reports import day_state_notes
from accounting.selectors import settings_of
from casino.models import Casino
from casino.money import money, money_plain
from wallet.models import AccountKind, Posting, TransferKind

CASH_IN = "in"
CASH_OUT = "out"
CASH_KINDS = {TransferKind.BUY_IN: CASH_IN, TransferKind.CASH_OUT: CASH_OUT}


@dataclass(frozen=True)
class CashTransaction:
    """One buy-in (``direction`` "in") or cash-out ("out") of a player at the cage."""

    transfer_id: int
    player_id: int
    player_name: str
    card_number: str
    direction: str
    amount_minor: int
    at: dt.datetime
    cashier: str = ""
    is_reversed: bool = False


@dataclass(frozen=True)
class PlayerCashTotal:
    player_id: int
    player_name: str
    card_number: str
    in_minor: int
    out_minor: int
    transactions: int


@dataclass(frozen=True)
class LargeCashEntry:
    """A player's day total of cash in, or of cash out, above the large-cash threshold."""

    player_id: int
    player_name: str
    card_number: str
    direction: str
    total_minor: int
    transactions: tuple[CashTransaction, ...]


def _counted(transactions: Iterable[CashTransaction]) -> list[CashTransaction]:
    return [item for item in transactions if not item.is_reversed]


def mtl_entries(transactions: Iterable[CashTransaction], threshold_minor: int) -> list[CashTransaction]:
    """The transactions above ``threshold_minor`` (not at it), reversed ones left out, in order."""
    return [item for item in _counted(transactions) if item.amount_minor > threshold_minor]


def player_totals(transactions: Iterable[CashTransaction]) -> list[PlayerCashTotal]:
    """Each player's cash in, cash out and number of transactions (reversed ones left out), by
    name then card."""
    totals: dict[int, list[int]] = {}
    names: dict[int, tuple[str, str]] = {}
    for item in _counted(transactions):
        row = totals.setdefault(item.player_id, [0, 0, 0])
        row[0 if item.direction == CASH_IN else 1] += item.amount_minor
        row[2] += 1
        names[item.player_id] = (item.player_name, item.card_number)
    return sorted(
        (
            PlayerCashTotal(player_id, *names[player_id], in_minor, out_minor, count)
            for player_id, (in_minor, out_minor, count) in totals.items()
        ),
        key=lambda total: (total.player_name, total.card_number),
    )


def large_cash_entries(transactions: Sequence[CashTransaction], threshold_minor: int) -> list[LargeCashEntry]:
    """Per player and direction, a day total above ``threshold_minor`` (not at it), with the
    transactions that make it."""
    entries = []
    for total in player_totals(transactions):
        for direction, amount in ((CASH_IN, total.in_minor), (CASH_OUT, total.out_minor)):
            if amount > threshold_minor:
                entries.append(
                    LargeCashEntry(
                        player_id=total.player_id,
                        player_name=total.player_name,
                        card_number=total.card_number,
                        direction=direction,
                        total_minor=amount,
                        transactions=tuple(
                            item
                            for item in _counted(transactions)
                            if item.player_id == total.player_id and item.direction == direction
                        ),
                    )
                )
    return entries


@dataclass(frozen=True)
class CashLog:
    casino: Casino
    gaming_day: dt.date
    mtl_threshold_minor: int
    large_cash_threshold_minor: int
    transactions: list[CashTransaction]
    mtl: list[CashTransaction]
    large_cash: list[LargeCashEntry]
    totals: list[PlayerCashTotal]

    @property
    def in_minor(self) -> int:
        return sum(total.in_minor for total in self.totals)

    @property
    def out_minor(self) -> int:
        return sum(total.out_minor for total in self.totals)

    def is_logged(self, item: CashTransaction) -> bool:
        return item in self.mtl


def cash_transactions(casino: Casino, gaming_day: dt.date) -> list[CashTransaction]:
    """The casino's buy-ins and cash-outs at the cage recorded in ``gaming_day``, in order: one
    query (the posting on the player's wallet of each transfer). A buy-in a process of the back
    office made itself (``system_buy_in``: the demo seed, the simulation) has no cashier and no
    cash changed hands: it is left out."""
    starts_at, ends_at = gaming_day_bounds(schedule_of(casino), gaming_day)
    postings = (
        Posting.objects.filter(
            transfer__casino=casino,
            transfer__kind__in=list(CASH_KINDS),
            transfer__created_by__isnull=False,
            transfer__created_at__gte=starts_at,
            transfer__created_at__lt=ends_at,
            account__kind=AccountKind.PLAYER,
        )
        .order_by("transfer__created_at", "transfer_id")
        .values_list(
            "transfer_id",
            "transfer__kind",
            "transfer__created_at",
            "transfer__created_by__username",
            "transfer__reversed_by",
            "account__player_id",
            "account__player__display_name",
            "account__player__card_number",
            "amount_minor",
        )
    )
    return [
        CashTransaction(
            transfer_id=transfer_id,
            player_id=player_id,
            player_name=name,
            card_number=card,
            direction=CASH_KINDS[TransferKind(kind)],
            amount_minor=abs(amount),
            at=created_at,
            cashier=cashier or "",
            is_reversed=reversed_by is not None,
        )
        for transfer_id, kind, created_at, cashier, reversed_by, player_id, name, card, amount in postings
    ]


def cash_log(casino: Casino, gaming_day: dt.date) -> CashLog:
    """The cash transaction log of ``gaming_day`` with the casino's thresholds."""
    settings = settings_of(casino)
    transactions = cash_transactions(casino, gaming_day)
    return CashLog(
        casino=casino,
        gaming_day=gaming_day,
        mtl_threshold_minor=settings.mtl_threshold_minor,
        large_cash_threshold_minor=settings.large_cash_threshold_minor,
        transactions=transactions,
        mtl=mtl_entries(transactions, settings.mtl_threshold_minor),
        large_cash=large_cash_entries(transactions, settings.large_cash_threshold_minor),
        totals=player_totals(transactions),
    )


def cash_log_report(log: CashLog, *, plain: bool) -> Report:
    """The log as a ``Report`` (``accounting.documents``): one row per cash transaction of the
    day (time in the casino's zone, transfer, player, card, cash in, cash out, whether the MTL
    holds it), the day's totals, and as notes the thresholds and the large-cash report. Amounts
    as a file reads them back (``plain``, for CSV) or as the language writes them (PDF)."""
    amount = money_plain if plain else money
    zone = schedule_of(log.casino).zone
    rows = [
        [
            timezone.localtime(item.at, zone).strftime("%Y-%m-%d %H:%M:%S"),
            str(item.transfer_id),
            item.player_name,
            item.card_number,
            amount(item.amount_minor) if item.direction == CASH_IN else "",
            amount(item.amount_minor) if item.direction == CASH_OUT else "",
            _("reversed") if item.is_reversed else (_("yes") if log.is_logged(item) else ""),
        ]
        for item in log.transactions
    ]
    notes = [
        _("Multiple-transaction log: each transaction above %(amount)s (%(count)s).")
        % {"amount": amount(log.mtl_threshold_minor), "count": len(log.mtl)},
        _("Large-cash report: a player's day total of cash in, or of cash out, above %(amount)s.")
        % {"amount": amount(log.large_cash_threshold_minor)},
    ]
    for entry in log.large_cash:
        values = {
            "name": entry.player_name,
            "card": entry.card_number,
            "total": amount(entry.total_minor),
            "count": len(entry.transactions),
        }
        if entry.direction == CASH_IN:
            text = ngettext(
                "Large cash in: %(name)s (%(card)s), %(total)s in %(count)s transaction.",
                "Large cash in: %(name)s (%(card)s), %(total)s in %(count)s transactions.",
                len(entry.transactions),
            )
        else:
            text = ngettext(
                "Large cash out: %(name)s (%(card)s), %(total)s in %(count)s transaction.",
                "Large cash out: %(name)s (%(card)s), %(total)s in %(count)s transactions.",
                len(entry.transactions),
            )
        notes.append(text % values)
    if not log.large_cash:
        notes.append(_("No player's day total is above the large-cash threshold."))
    notes.append(_("A reversed transaction counts in neither the log nor the totals."))
    notes += day_state_notes(log.casino, log.gaming_day)
    return Report(
        title=_("Cash transaction log"),
        subtitle=_("%(casino)s, gaming day %(day)s")
        % {"casino": log.casino.name, "day": log.gaming_day.isoformat()},
        columns=[
            _("Time"),
            _("Transfer"),
            _("Player"),
            _("Card"),
            _("Cash in"),
            _("Cash out"),
            _("In the MTL"),
        ],
        rows=rows,
        totals=[_("Total"), "", "", "", amount(log.in_minor), amount(log.out_minor), str(len(log.mtl))],
        notes=notes,
    )
