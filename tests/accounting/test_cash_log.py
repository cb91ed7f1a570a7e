"""The cash transaction log (``accounting.cash_log``): the two thresholds on worked examples,
the ledger's buy-ins and cash-outs per player and gaming day, the page, its CSV and its PDF."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from accounting.cash_log import (
    CASH_IN,
    CASH_OUT,
    CashTransaction,
    cash_log,
    large_cash_entries,
    mtl_entries,
    player_totals,
)
from accounting.models import AccountingSettings
from casino.actors import Actor
from casino.models import Player
from tests.factories import PlayerFactory, staff_user
from wallet.services import cage_buy_in, cage_cash_out, transfer_reverse

HTMX = {"HX-Request": "true"}
MTL = 300_000  # 3,000.00
LARGE = 1_000_000  # 10,000.00
AT = dt.datetime(2026, 3, 2, 20, 0, tzinfo=dt.UTC)


def _cash(
    transfer_id: int, player_id: int, direction: str, amount: int, reversed_: bool = False
) -> CashTransaction:
    return CashTransaction(
        transfer_id=transfer_id,
        player_id=player_id,
        player_name=f"Player {player_id}",
        card_number=f"{player_id:010d}",
        direction=direction,
        amount_minor=amount,
        at=AT + dt.timedelta(minutes=transfer_id),
        is_reversed=reversed_,
    )


# ------------------------------------------------------------------------------ worked examples


def test_a_transaction_at_the_mtl_threshold_is_not_logged_one_cent_above_is() -> None:
    at_threshold = _cash(1, 1, CASH_IN, 300_000)
    above = _cash(2, 2, CASH_IN, 300_001)
    assert mtl_entries([at_threshold, above], MTL) == [above]


def test_several_transactions_below_the_mtl_threshold_are_not_logged_but_add_up_to_a_large_cash_entry() -> (
    None
):
    # four buy-ins of 2,900.00 (each below 3,000.00): 11,600.00 in the day, above 10,000.00
    buy_ins = [_cash(index, 1, CASH_IN, 290_000) for index in range(1, 5)]
    assert mtl_entries(buy_ins, MTL) == []
    (entry,) = large_cash_entries(buy_ins, LARGE)
    assert (entry.player_id, entry.direction, entry.total_minor) == (1, CASH_IN, 1_160_000)
    assert entry.transactions == tuple(buy_ins)


def test_a_day_total_exactly_at_the_large_cash_threshold_is_not_reported() -> None:
    # 6,000.00 + 4,000.00 = 10,000.00: at the threshold, not above it; the 6,000.00 is in the MTL
    day = [_cash(1, 1, CASH_IN, 600_000), _cash(2, 1, CASH_IN, 400_000)]
    assert large_cash_entries(day, LARGE) == []
    assert [item.transfer_id for item in mtl_entries(day, MTL)] == [1, 2]


def test_cash_in_and_cash_out_are_added_up_apart_never_netted() -> None:
    # 8,000.00 in twice (16,000.00 in), 12,000.00 out: both reported; 9,000.00 in: neither
    day = [
        _cash(1, 1, CASH_IN, 800_000),
        _cash(2, 1, CASH_IN, 800_000),
        _cash(3, 1, CASH_OUT, 1_200_000),
        _cash(4, 2, CASH_IN, 900_000),
    ]
    entries = large_cash_entries(day, LARGE)
    assert [(entry.player_id, entry.direction, entry.total_minor) for entry in entries] == [
        (1, CASH_IN, 1_600_000),
        (1, CASH_OUT, 1_200_000),
    ]
    totals = {
        total.player_id: (total.in_minor, total.out_minor, total.transactions) for total in player_totals(day)
    }
    assert totals == {1: (1_600_000, 1_200_000, 3), 2: (900_000, 0, 1)}


def test_a_reversed_transaction_counts_in_neither_the_log_nor_the_totals() -> None:
    day = [_cash(1, 1, CASH_IN, 1_100_000, reversed_=True), _cash(2, 1, CASH_IN, 100_000)]
    assert mtl_entries(day, MTL) == []
    assert large_cash_entries(day, LARGE) == []
    assert [(total.in_minor, total.transactions) for total in player_totals(day)] == [(100_000, 1)]


# ------------------------------------------------------------------------------ from the ledger


@pytest.fixture
def day_of_cash(seeded: Any) -> dict[str, Any]:
    """A gaming day at the cage: Zoe buys in 3,000.00 (at the MTL threshold) then 3,000.01,
    and 5,000.00 that is reversed; Yves buys in 2,900.00 four times (11,600.00) and cashes out
    2,000.00. Thresholds 3,000.00 and 10,000.00."""
    cashier = staff_user("cashier", "cashier-log")
    pit_boss = staff_user("pit_boss", "pitboss-log")
    zoe = PlayerFactory(display_name="Zoe Zimmer", card_number="7000000042")
    yves = PlayerFactory(display_name="Yves Young", card_number="7000000043")
    casino = zoe.casino
    AccountingSettings.objects.update_or_create(
        casino=casino, defaults={"mtl_threshold_minor": MTL, "large_cash_threshold_minor": LARGE}
    )
    transfers = {
        "zoe_at": cage_buy_in(player=zoe, amount_minor=300_000, actor=Actor.staff(cashier)),
        "zoe_above": cage_buy_in(player=zoe, amount_minor=300_001, actor=Actor.staff(cashier)),
        "zoe_reversed": cage_buy_in(player=zoe, amount_minor=500_000, actor=Actor.staff(cashier)),
    }
    transfer_reverse(transfer=transfers["zoe_reversed"], reason="wrong player", actor=Actor.staff(pit_boss))
    for index in range(4):
        transfers[f"yves_{index}"] = cage_buy_in(
            player=yves, amount_minor=290_000, actor=Actor.staff(cashier)
        )
    transfers["yves_out"] = cage_cash_out(player=yves, amount_minor=200_000, actor=Actor.staff(cashier))
    return {"casino": casino, "zoe": zoe, "yves": yves, "transfers": transfers, "cashier": cashier}


def _today(casino: Any) -> dt.date:
    from accounting.selectors import current_gaming_day

    return current_gaming_day(casino)


@pytest.mark.django_db
def test_the_log_of_a_day_reads_the_cages_buy_ins_and_cash_outs(day_of_cash: dict[str, Any]) -> None:
    casino, transfers = day_of_cash["casino"], day_of_cash["transfers"]
    zoe: Player = day_of_cash["zoe"]
    yves: Player = day_of_cash["yves"]
    log = cash_log(casino, _today(casino))
    # every cash transaction, in order, the reversed one marked
    assert [item.transfer_id for item in log.transactions] == [
        transfers[name].pk
        for name in (
            "zoe_at",
            "zoe_above",
            "zoe_reversed",
            "yves_0",
            "yves_1",
            "yves_2",
            "yves_3",
            "yves_out",
        )
    ]
    assert [item.is_reversed for item in log.transactions].count(True) == 1
    assert log.transactions[0].cashier == "cashier-log"
    # the MTL holds the 3,000.01 only
    assert [item.transfer_id for item in log.mtl] == [transfers["zoe_above"].pk]
    # the large-cash report holds Yves's 11,600.00 in (his 2,000.00 out is below)
    assert [(entry.player_id, entry.direction, entry.total_minor) for entry in log.large_cash] == [
        (yves.pk, CASH_IN, 1_160_000)
    ]
    # the totals per player, by name
    assert [
        (total.player_id, total.in_minor, total.out_minor, total.transactions) for total in log.totals
    ] == [
        (yves.pk, 1_160_000, 200_000, 5),
        (zoe.pk, 600_001, 0, 2),
    ]
    assert (log.in_minor, log.out_minor) == (1_760_001, 200_000)
    # and the day before holds none of it
    assert cash_log(casino, _today(casino) - dt.timedelta(days=1)).transactions == []


@pytest.mark.django_db
def test_the_page_shows_the_log_whole_and_as_its_partial(day_of_cash: dict[str, Any]) -> None:
    client = Client()
    client.force_login(staff_user("pit_boss", "pitboss-reader"))
    day = _today(day_of_cash["casino"]).isoformat()
    page = client.get(f"/accounting/cash-log/?day={day}")
    partial = client.get(f"/accounting/cash-log/?day={day}", headers=HTMX)
    assert (page.status_code, partial.status_code) == (200, 200)
    assert "<html" in page.text and 'id="cash-log"' in page.text
    assert "<html" not in partial.text and 'id="cash-log"' in partial.text
    assert "HX-Request" in page["Vary"]
    text = page.text
    assert text.count('class="mtl-row"') == 1
    assert text.count('class="large-cash-row"') == 1
    assert 'data-player="{}" data-direction="in"'.format(day_of_cash["yves"].pk) in text
    assert "11,600.00" in text
    # a day typed wrong shows the current one
    assert client.get("/accounting/cash-log/?day=yesterday").context["log"].gaming_day.isoformat() == day


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "status"),
    [("pit_boss", 200), ("accountant", 200), ("auditor", 200), ("cashier", 403), ("dealer", 403)],
)
def test_the_log_is_read_with_view_accounting(seeded: Any, role: str, status: int) -> None:
    client = Client()
    client.force_login(staff_user(role))
    for url in ("/accounting/cash-log/", "/accounting/cash-log/csv/", "/accounting/cash-log/pdf/"):
        assert client.get(url).status_code == status


@pytest.mark.django_db
def test_the_csv_has_a_row_per_transaction_and_the_days_totals(day_of_cash: dict[str, Any]) -> None:
    client = Client()
    client.force_login(staff_user("accountant", "accountant-csv"))
    casino, transfers = day_of_cash["casino"], day_of_cash["transfers"]
    day = _today(casino).isoformat()
    answer = client.get(f"/accounting/cash-log/csv/?day={day}")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="cash-log-{day}.csv"'
    rows = list(csv.reader(io.StringIO(answer.content.decode("utf-8"))))
    assert rows[0] == ["Time", "Transfer", "Player", "Card", "Cash in", "Cash out", "In the MTL"]
    body = [row[1:] for row in rows[1:-1]]
    assert body == [
        [str(transfers["zoe_at"].pk), "Zoe Zimmer", "7000000042", "3000.00", "", ""],
        [str(transfers["zoe_above"].pk), "Zoe Zimmer", "7000000042", "3000.01", "", "yes"],
        [str(transfers["zoe_reversed"].pk), "Zoe Zimmer", "7000000042", "5000.00", "", "reversed"],
        *[
            [str(transfers[f"yves_{index}"].pk), "Yves Young", "7000000043", "2900.00", "", ""]
            for index in range(4)
        ],
        [str(transfers["yves_out"].pk), "Yves Young", "7000000043", "", "2000.00", ""],
    ]
    assert rows[-1] == ["Total", "", "", "", "17600.01", "2000.00", "1"]
    assert all(row[0].startswith(day[:4]) for row in rows[1:-1])


@pytest.mark.django_db
def test_the_pdf_holds_the_log_its_totals_and_the_large_cash_report(day_of_cash: dict[str, Any]) -> None:
    client = Client()
    client.force_login(staff_user("accountant", "accountant-pdf"))
    day = _today(day_of_cash["casino"]).isoformat()
    answer = client.get(f"/accounting/cash-log/pdf/?day={day}")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/pdf"
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(answer.content)).pages)
    assert "Cash transaction log" in text
    assert f"Demo Casino, gaming day {day}" in text
    assert "Zoe Zimmer" in text and "Yves Young" in text
    assert "3,000.01" in text and "17,600.01" in text
    assert "Multiple-transaction log: each transaction above 3,000.00 (1)." in text
    assert "Large cash in: Yves Young (7000000043), 11,600.00 in 4 transactions." in text
