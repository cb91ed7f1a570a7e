"""The table reports (end of shift, gaming day, master game) as pages, CSV and PDF (the PDF's
text read back), the shared document module, and the drop, win and hold pages with and without
htmx, for the roles allowed and refused."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.utils import timezone, translation
from pypdf import PdfReader

from accounting.documents import Report, report_csv, report_pdf
from accounting.gaming_days import schedule_of, shift_of
from accounting.models import CountKind, DropCount, HoldAlert, TableBuyIn
from accounting.reports import day_report, master_report, shift_report
from accounting.selectors import current_gaming_day
from tests.accounting.conftest import counted, opened, received
from tests.accounting.drop_support import CLOSER, drop_counted
from tests.accounting.test_views import HTMX, client_of

pytestmark = pytest.mark.django_db


def pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def _shift(table: Any) -> tuple[Any, int]:
    return current_gaming_day(table.casino), shift_of(schedule_of(table.casino), timezone.now()).number


@pytest.fixture
def played_shift(table: Any, dealer: Any, pit_boss: Any, pit_boss_two: Any, cashier: Any) -> tuple[Any, int]:
    """BJ1's shift of the worked example: opener 20 000.00, fill 1 000.00, credit 500.00, drop
    3 000.00, closer 19 000.00: win 1 500.00, hold 50 %."""
    day, shift = _shift(table)
    opened(table, dealer, pit_boss)
    received(table, "fill", {10_000: 100_000}, pit_boss, cashier, dealer)
    received(table, "credit", {2_500: 50_000}, pit_boss, cashier, dealer)
    drop_counted(table, day, shift, 300_000, cashier, pit_boss_two)
    counted(table, CountKind.CLOSER, CLOSER, dealer, pit_boss)
    return day, shift


# ---------------------------------------------------------------- the document module


def test_a_report_as_csv_is_one_table() -> None:
    report = Report(
        title="T",
        subtitle="S",
        columns=["Table", "Win"],
        rows=[["BJ1", "1500.00"], ["Łódź, ő", None]],
        totals=["Total", 150_000],
        notes=["a note"],
    )
    rows = list(csv.reader(io.StringIO(report_csv(report).decode("utf-8"))))
    assert rows == [["Table", "Win"], ["BJ1", "1500.00"], ["Łódź, ő", ""], ["Total", "150000"]]


def test_a_report_as_pdf_prints_hungarian_polish_and_russian() -> None:
    report = Report(
        title="Műszakjelentés — Raport zmiany — Отчёт смены",
        subtitle="Győr, Łódź, Москва",
        columns=["Asztal", "Stół", "Стол"],
        rows=[["Ő ű á", "ą ę ł ń ś ź ż", "ж щ ы ё"]],
        totals=["Összesen", "Razem", "Итого"],
        notes=["Megjegyzés: ŐŰ, ŁŻ, ЁЖ"],
    )
    content = report_pdf(report)
    text = pdf_text(content)
    assert content.startswith(b"%PDF")
    for word in (
        "Műszakjelentés",
        "Raport zmiany",
        "Отчёт смены",
        "Łódź",
        "Москва",
        "ą ę ł ń ś ź ż",
        "ж щ ы ё",
        "Итого",
        "ŐŰ",
    ):
        assert word in text, word
    assert b"DejaVuSans" in content


def test_a_long_report_goes_on_over_pages_with_its_header() -> None:
    report = Report(title="Long", columns=["A", "B"], rows=[[str(number), "x"] for number in range(200)])
    reader = PdfReader(io.BytesIO(report_pdf(report)))
    assert len(reader.pages) > 1
    assert "A" in reader.pages[1].extract_text()


# ---------------------------------------------------------------- the three reports


def test_the_end_of_shift_report_of_the_worked_example(table: Any, played_shift: tuple[Any, int]) -> None:
    day, shift = played_shift

    report = shift_report(table.casino, day, shift, for_file=True)

    row = next(row for row in report.rows if row[0] == "BJ1")
    assert report.columns[0] == "Table"
    assert row == [
        "BJ1",
        "20000.00",
        "1000.00",
        "500.00",
        "3000.00",
        "0.00",
        "19000.00",
        "0.00",
        "1500.00",
        "50.00",
    ]
    assert report.totals is not None and report.totals[8] == "1500.00"
    assert any("Win = closer + credits + drop box - opener - fills" in note for note in report.notes)


def test_the_gaming_day_report_has_each_shift_and_the_day(table: Any, played_shift: tuple[Any, int]) -> None:
    day, shift = played_shift

    report = day_report(table.casino, day, for_file=True)

    lines = [row for row in report.rows if row[0] == "BJ1"]
    assert [row[1] for row in lines] == ["1", "2", "3", "Day"]
    assert lines[shift - 1][9] == "1500.00"
    assert lines[-1][9:] == ["1500.00", "50.00"]


def test_the_master_report_has_the_day_and_the_month(table: Any, played_shift: tuple[Any, int]) -> None:
    day, _shift_number = played_shift

    report = master_report(table.casino, day, for_file=False)

    row = next(row for row in report.rows if row[0] == "BJ1")
    assert row[5:9] == ["3,000.00", "19,000.00", "1,500.00", "50.00 %"]
    assert row[9:] == ["3,000.00", "1,500.00", "50.00 %"]
    assert report.totals is not None and report.totals[7] == "1,500.00"


def test_a_report_in_hungarian(table: Any, played_shift: tuple[Any, int]) -> None:
    day, shift = played_shift
    with translation.override("hu"):
        report = shift_report(table.casino, day, shift)
    row = next(row for row in report.rows if row[0] == "BJ1")
    assert row[8] == "1\u00a0500,00"
    assert row[9] == "50,00 %"


@pytest.mark.parametrize("path", ["shift", "day", "master"])
def test_each_report_as_page_csv_and_pdf(
    table: Any, played_shift: tuple[Any, int], pit_boss: Any, path: str
) -> None:
    day, shift = played_shift
    client = client_of(pit_boss)
    query = f"/accounting/reports/{path}/?day={day.isoformat()}&shift={shift}"

    page = client.get(query)
    partial = client.get(query, headers=HTMX)
    as_csv = client.get(query + "&format=csv")
    as_pdf = client.get(query + "&format=pdf")

    assert (page.status_code, partial.status_code, as_csv.status_code, as_pdf.status_code) == (
        200,
        200,
        200,
        200,
    )
    assert "<html" in page.text and 'id="table-report"' in page.text and "1,500.00" in page.text
    assert "<html" not in partial.text and 'id="table-report"' in partial.text
    assert as_csv["Content-Type"].startswith("text/csv")
    assert "attachment" in as_csv["Content-Disposition"] and day.isoformat() in as_csv["Content-Disposition"]
    assert "1500.00" in as_csv.content.decode("utf-8")
    assert as_pdf["Content-Type"] == "application/pdf"
    text = pdf_text(as_pdf.content)
    assert "BJ1" in text and "1,500.00" in text and "Demo Casino" in text


@pytest.mark.parametrize(
    ("role", "status"),
    [("pit_boss", 200), ("accountant", 200), ("auditor", 200), ("dealer", 403), ("cashier", 403)],
)
def test_the_reports_and_win_pages_need_view_accounting(table: Any, role: str, status: int) -> None:
    from tests.factories import staff_user

    client = client_of(staff_user(role, f"{role}-reader"))
    for url in (
        "/accounting/reports/shift/",
        "/accounting/reports/master/?format=pdf",
        "/accounting/win/",
        "/accounting/hold/alerts/",
    ):
        assert client.get(url).status_code == status, url


# ---------------------------------------------------------------- the drop, win and alerts pages


@pytest.mark.parametrize(
    ("url", "partial_id"),
    [
        ("/accounting/drop/", 'id="drop-desk"'),
        ("/accounting/win/", 'id="win-hold"'),
        ("/accounting/hold/alerts/", 'id="hold-alerts"'),
    ],
)
def test_each_page_whole_and_as_partial(table: Any, pit_boss: Any, url: str, partial_id: str) -> None:
    client = client_of(pit_boss)
    page, partial = client.get(url), client.get(url, headers=HTMX)
    assert (page.status_code, partial.status_code) == (200, 200)
    assert "<html" in page.text and partial_id in page.text
    assert "<html" not in partial.text and partial_id in partial.text
    assert "HX-Request" in page["Vary"]


def test_the_win_page_draws_its_charts_as_svg(
    table: Any, played_shift: tuple[Any, int], pit_boss: Any
) -> None:
    page = client_of(pit_boss).get("/accounting/win/")
    assert page.status_code == 200
    assert page.text.count("<svg") == 1  # BJ1 alone has figures; the others say so in words
    assert "no drop and no win this month so far" in page.text
    assert 'class="bar bar-win"' in page.text and 'class="hold-point"' in page.text
    assert "<script" not in page.text.split('id="charts"')[1].split("</section>")[0]


def test_buy_in_and_drop_count_through_the_page(table: Any, dealer: Any, cashier: Any, pit_boss: Any) -> None:
    day, shift = _shift(table)
    as_dealer = client_of(dealer)
    done = as_dealer.post("/accounting/drop/buy-ins/", {"table": "BJ1", "amount": "250"})
    assert done.status_code == 302 and TableBuyIn.objects.get().amount_minor == 25_000

    refused = as_dealer.post("/accounting/drop/buy-ins/", {"table": "BJ1", "amount": "nothing"}, headers=HTMX)
    assert refused.status_code == 422 and TableBuyIn.objects.count() == 1

    as_cashier = client_of(cashier)
    as_cashier.post(
        "/accounting/drop/counts/", {"table": "BJ1", "shift": f"{day.isoformat()}/{shift}", "total": "300"}
    )
    count = DropCount.objects.get()
    twice = as_cashier.post(f"/accounting/drop/counts/{count.pk}/sign/", headers=HTMX)
    assert twice.status_code == 403 and "same_person_signed_twice" in twice.text
    signed = client_of(pit_boss).post(f"/accounting/drop/counts/{count.pk}/sign/")
    assert signed.status_code == 302 and count.signatures.count() == 2


def test_a_pit_boss_resolves_an_alert_on_the_page_and_the_menu_counts_it(table: Any, pit_boss: Any) -> None:
    day = current_gaming_day(table.casino)
    alert = HoldAlert.objects.create(
        table=table,
        gaming_day=day,
        kind="fixed_band",
        figures={"win_minor": 10, "drop_minor": 100, "hold_bp": 1000, "low_bp": 1500, "high_bp": 3000},
        raised_at=timezone.now(),
    )
    client = client_of(pit_boss)
    desk = client.get("/accounting/slips/")
    assert 'class="alert-count"' in desk.text

    empty = client.post(f"/accounting/hold/alerts/{alert.pk}/resolve/", {"note": " "}, headers=HTMX)
    assert empty.status_code == 422 and "reason_required" in empty.text

    done = client.post(
        f"/accounting/hold/alerts/{alert.pk}/resolve/", {"note": "A player's big win, seen on camera."}
    )
    assert done.status_code == 302
    assert HoldAlert.objects.get().resolution.note == "A player's big win, seen on camera."
    assert 'class="alert-count"' not in client.get("/accounting/slips/").text


@pytest.mark.parametrize(
    ("role", "status"), [("pit_boss", 302), ("accountant", 302), ("auditor", 403), ("dealer", 403)]
)
def test_the_check_runs_now_for_a_pit_boss_or_the_accounting_office(
    table: Any, role: str, status: int
) -> None:
    from tests.factories import staff_user

    response = client_of(staff_user(role, f"{role}-checker")).post("/accounting/hold/check/")

    assert response.status_code == status
