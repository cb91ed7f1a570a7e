"""The accounting pages with and without htmx, for the roles allowed and refused; refusals in
words with a 4xx status, leaving nothing half done."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounting.models import CountKind, Slip, SlipKind, TrayCount
from accounting.selectors import slip_state
from accounting.services import slip_issue, slip_request, slip_void
from casino.actors import Actor
from casino.models import Approval
from tests.accounting.conftest import TRAY, opened, snapshot, tray_balance

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def tray_form(amounts: dict[int, int], **extra: str) -> dict[str, str]:
    return {
        **{f"amount-{value}": f"{amount // 100}.{amount % 100:02d}" for value, amount in amounts.items()},
        **extra,
    }


@pytest.mark.parametrize(
    ("url", "partial_id"),
    [
        ("/accounting/", 'id="gaming-day"'),
        ("/accounting/tables/BJ1/", 'id="table-accounting"'),
        ("/accounting/slips/", 'id="desk"'),
        ("/accounting/slips/report/", 'id="slip-report"'),
    ],
)
def test_each_page_is_whole_without_htmx_and_its_partial_with_it(url, partial_id, pit_boss):
    client = client_of(pit_boss)
    page, partial = client.get(url), client.get(url, headers=HTMX)
    assert (page.status_code, partial.status_code) == (200, 200)
    assert "<html" in page.text and partial_id in page.text
    assert "<html" not in partial.text and partial_id in partial.text
    assert "HX-Request" in page["Vary"] and "HX-Request" in partial["Vary"]


@pytest.mark.parametrize(
    ("role", "url", "status"),
    [
        ("dealer", "/accounting/tables/BJ1/", 200),
        ("cashier", "/accounting/tables/BJ1/", 403),
        ("auditor", "/accounting/tables/BJ1/", 200),
        ("accountant", "/accounting/tables/BJ1/", 200),
        ("cashier", "/accounting/slips/", 200),
        ("dealer", "/accounting/slips/", 200),
        ("auditor", "/accounting/slips/", 200),
        ("accountant", "/accounting/slips/", 200),
        ("accountant", "/accounting/settings/", 200),
        ("pit_boss", "/accounting/settings/", 403),
        ("auditor", "/accounting/slips/report/", 200),
        ("dealer", "/accounting/slips/report/", 403),
        ("cashier", "/accounting/", 200),
    ],
)
def test_the_pages_answer_the_roles_that_use_them(role, url, status, seeded):
    from tests.factories import staff_user

    assert client_of(staff_user(role)).get(url).status_code == status


def test_an_anonymous_visitor_is_sent_to_the_login(seeded):
    assert Client().get("/accounting/slips/").status_code == 302


def test_the_opener_is_recorded_by_the_dealer_and_signed_by_the_pit_boss(table, dealer, pit_boss):
    # the dealer records the opener (htmx): the partial shows it waiting for a signature
    answer = client_of(dealer).post(
        "/accounting/tables/BJ1/counts/", tray_form(TRAY, kind="opener"), headers=HTMX
    )
    assert answer.status_code == 200
    assert 'id="sign-form"' in answer.text and "Count recorded" in answer.text
    count = TrayCount.objects.get()
    # the dealer signing again is refused in words with a 403, and nothing is signed
    before = snapshot()
    again = client_of(dealer).post(f"/accounting/tables/BJ1/counts/{count.pk}/sign/", headers=HTMX)
    assert again.status_code == 403
    assert "same_person_signed_twice" in again.text and "You signed this count already" in again.text
    assert snapshot() == before
    # the pit boss signs without htmx: back to the page, the table open
    boss = client_of(pit_boss)
    signed = boss.post(f"/accounting/tables/BJ1/counts/{count.pk}/sign/")
    assert (signed.status_code, signed["Location"]) == (302, "/accounting/tables/BJ1/")
    page = boss.get("/accounting/tables/BJ1/")
    assert 'id="table-state">Open' in page.text and "Count signed." in page.text


def test_a_refused_count_without_htmx_is_the_page_with_the_reason_and_a_4xx(table, dealer):
    before = snapshot()
    answer = client_of(dealer).post("/accounting/tables/BJ1/counts/", tray_form({100: 150}, kind="opener"))
    assert answer.status_code == 422
    assert "<html" in answer.text and "invalid_count" in answer.text
    # in words, money as money: what was typed and the chip it is not a multiple of
    assert "1.50 is not a whole number of chips of 1.00: enter the amount in these chips" in answer.text
    assert (
        'name="amount-100" inputmode="decimal" autocomplete="off" placeholder="0.00" value="1.50"'
        in answer.text
    )
    assert snapshot() == before


def test_a_typed_amount_that_is_no_amount_is_refused(table, dealer):
    answer = client_of(dealer).post(
        "/accounting/tables/BJ1/counts/", {"kind": "opener", "amount-100": "ten"}, headers=HTMX
    )
    assert answer.status_code == 422 and "Enter an amount such as 150" in answer.text
    assert not TrayCount.objects.exists()


def test_the_investigation_is_resolved_on_the_table_page(table, dealer, pit_boss, pit_boss_two, accountant):
    from accounting.models import VarianceInvestigation
    from tests.accounting.conftest import counted

    opened(table, dealer, pit_boss)
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    page = client_of(pit_boss).get("/accounting/tables/BJ1/")
    assert 'id="investigation-variance"' in page.text and "-10.00" in page.text
    investigation = VarianceInvestigation.objects.get()
    url = f"/accounting/tables/BJ1/investigations/{investigation.pk}/resolve/"
    blank = client_of(pit_boss).post(url, {"note": ""}, headers=HTMX)
    assert blank.status_code == 422 and "reason_required" in blank.text
    by_dealer = client_of(dealer).post(url, {"note": "found"}, headers=HTMX)
    assert by_dealer.status_code == 403
    # proposed by the second pit boss: it waits, the investigation stays on the page
    proposed = client_of(pit_boss_two).post(url, {"note": "chips found under the float"}, headers=HTMX)
    assert proposed.status_code == 200 and "waits for a second person" in proposed.text
    assert 'id="resolution-waiting"' in proposed.text and "chips found under the float" in proposed.text
    assert 'class="approve"' not in proposed.text  # the proposer has no decision to take
    approval = Approval.objects.get(kind="variance_investigation")
    decide = f"/accounting/tables/BJ1/investigations/{investigation.pk}/approvals/{approval.pk}"
    # the pit boss who signed the opener sees no decision and is refused one in words
    assert 'class="approve"' not in client_of(pit_boss).get("/accounting/tables/BJ1/").text
    before = snapshot()
    signer = client_of(pit_boss).post(f"{decide}/approve/", headers=HTMX)
    assert signer.status_code == 403 and "four_eyes_required" in signer.text
    assert "A second person must decide" in signer.text
    assert snapshot() == before
    # the accounting office sees the decision, approves it: resolved, the table may open again
    page = client_of(accountant).get("/accounting/tables/BJ1/")
    assert 'class="approve"' in page.text and 'class="reject"' in page.text
    assert 'id="count-form"' not in page.text  # the accounting office counts no tray
    done = client_of(accountant).post(f"{decide}/approve/", headers=HTMX)
    assert done.status_code == 200 and 'id="investigation"' not in done.text
    assert "Investigation resolved" in done.text
    assert investigation.resolution.note == "chips found under the float"


def test_a_resolution_is_rejected_on_the_table_page_with_a_reason(
    table, dealer, pit_boss, pit_boss_two, accountant
):
    from accounting.models import VarianceInvestigation
    from accounting.services import investigation_resolve
    from tests.accounting.conftest import counted

    opened(table, dealer, pit_boss)
    counted(table, CountKind.CLOSER, TRAY, dealer, pit_boss)
    opened(table, dealer, pit_boss, {**TRAY, 100: 9_000})
    investigation = VarianceInvestigation.objects.get()
    approval = investigation_resolve(
        investigation=investigation, note="miscounted", actor=Actor.staff(pit_boss_two)
    )
    decide = f"/accounting/tables/BJ1/investigations/{investigation.pk}/approvals/{approval.pk}"
    no_reason = client_of(accountant).post(f"{decide}/reject/", {"reason": ""}, headers=HTMX)
    assert no_reason.status_code == 422 and "reason_required" in no_reason.text
    office = client_of(accountant)
    rejected = office.post(f"{decide}/reject/", {"reason": "recount first"})
    assert (rejected.status_code, rejected["Location"]) == (302, "/accounting/tables/BJ1/")
    assert "Resolution rejected" in office.get("/accounting/tables/BJ1/").text
    assert 'id="resolve-form"' in client_of(pit_boss).get("/accounting/tables/BJ1/").text
    assert client_of(accountant).post(f"{decide}/maybe/").status_code == 404


@pytest.mark.usefixtures("bj1_open")
def test_the_desk_requests_issues_and_receives_a_fill(table, pit_boss, cashier, dealer):
    tray = tray_balance(table)
    requested = client_of(pit_boss).post(
        "/accounting/slips/request/", tray_form({10_000: 200_000}, table="BJ1", kind="fill"), headers=HTMX
    )
    assert requested.status_code == 200 and "Slip" in requested.text
    slip = Slip.objects.get()
    assert f'id="slip-{slip.year}-1"' in requested.text
    # a dealer may not request, nor issue
    refused = client_of(dealer).post(
        "/accounting/slips/request/", tray_form({10_000: 200_000}, table="BJ1", kind="fill")
    )
    assert refused.status_code == 403
    not_cage = client_of(dealer).post(f"/accounting/slips/{slip.pk}/issue/", headers=HTMX)
    assert not_cage.status_code == 403 and "permission_denied" in not_cage.text
    assert slip_state(slip) == "requested" and tray_balance(table) == tray
    # the cashier issues (no htmx: back to the desk), the dealer receives
    issued = client_of(cashier).post(f"/accounting/slips/{slip.pk}/issue/")
    assert (issued.status_code, issued["Location"]) == (302, "/accounting/slips/")
    assert tray_balance(table) == tray + 200_000
    received = client_of(dealer).post(f"/accounting/slips/{slip.pk}/receive/", headers=HTMX)
    assert received.status_code == 200 and "received at the table" in received.text
    assert slip_state(slip) == "received"


@pytest.mark.usefixtures("bj1_open")
def test_a_void_on_the_desk_takes_a_reason_and_two_people(table, pit_boss, pit_boss_two, cashier, accountant):
    slip = slip_request(table=table, kind=SlipKind.CREDIT, amounts={100: 500}, actor=Actor.staff(pit_boss))
    url = f"/accounting/slips/{slip.pk}/void/"
    no_reason = client_of(pit_boss).post(url, {"reason": ""}, headers=HTMX)
    assert no_reason.status_code == 422 and "A void says why." in no_reason.text
    proposed = client_of(pit_boss).post(url, {"reason": "asked twice"}, headers=HTMX)
    assert proposed.status_code == 200 and "waits for a second person" in proposed.text
    assert "Void proposed by pitboss-1" in proposed.text and 'class="approve"' not in proposed.text
    approval = Approval.objects.get(kind="slip_void")
    decide = f"/accounting/slips/{slip.pk}/void/{approval.pk}"
    # the proposer is refused in words; the cashier holds no accounting permission
    before = snapshot()
    twice = client_of(pit_boss).post(f"{decide}/approve/", headers=HTMX)
    assert twice.status_code == 403 and "four_eyes_required" in twice.text
    assert client_of(cashier).post(f"{decide}/approve/", headers=HTMX).status_code == 403
    assert snapshot() == before
    assert slip_state(slip) == "void_proposed"
    # the accounting office sees the decision on the desk and approves it
    desk = client_of(accountant).get("/accounting/slips/")
    assert 'class="approve"' in desk.text and 'class="reject"' in desk.text
    assert 'id="slip-request-form"' not in desk.text
    approved = client_of(accountant).post(f"{decide}/approve/", headers=HTMX)
    assert approved.status_code == 200 and f"Slip {slip.year}-{slip.number} voided." in approved.text
    assert slip_state(slip) == "voided"
    report = client_of(pit_boss).get("/accounting/slips/report/")
    assert 'data-number="1" data-state="voided"' in report.text and "asked twice" in report.text


@pytest.mark.usefixtures("bj1_open")
def test_a_void_rejected_on_the_desk_leaves_the_slip_to_the_cage(table, pit_boss, pit_boss_two, cashier):
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 500}, actor=Actor.staff(pit_boss))
    proposal = slip_void(slip=slip, actor=Actor.staff(pit_boss), reason="asked twice")
    decide = f"/accounting/slips/{slip.pk}/void/{proposal.approval_id}"
    second = client_of(pit_boss_two)
    rejected = second.post(f"{decide}/reject/", {"reason": "it was asked once"})
    assert (rejected.status_code, rejected["Location"]) == (302, "/accounting/slips/")
    assert slip_state(slip) == "requested"
    assert "rejected: the slip stands" in second.get("/accounting/slips/").text
    desk = client_of(cashier).get("/accounting/slips/")
    assert "void rejected by pitboss-2: “it was asked once”" in desk.text and 'class="issue"' in desk.text
    assert client_of(cashier).post(f"/accounting/slips/{slip.pk}/issue/", headers=HTMX).status_code == 200


@pytest.mark.usefixtures("bj1_open")
def test_the_report_names_the_void_that_was_approved(table, pit_boss, pit_boss_two):
    from accounting.services import slip_void_decide

    slip = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 500}, actor=Actor.staff(pit_boss))
    first = slip_void(slip=slip, actor=Actor.staff(pit_boss), reason="asked twice")
    slip_void_decide(
        slip=slip, approval_id=first.approval_id, actor=Actor.staff(pit_boss_two), approve=False, reason="no"
    )
    again = slip_void(slip=slip, actor=Actor.staff(pit_boss_two), reason="the table closed early")
    client_of(pit_boss).post(f"/accounting/slips/{slip.pk}/void/{again.approval_id}/approve/")
    assert slip_state(slip) == "voided"
    report = client_of(pit_boss).get("/accounting/slips/report/").text
    void_row = report[report.index('class="void-row"') :]
    void_row = void_row[: void_row.index("</tr>")]
    assert "the table closed early" in void_row and "asked twice" not in void_row
    assert "pitboss-2, pitboss-1" in void_row


@pytest.mark.usefixtures("bj1_open")
def test_a_credit_the_tray_cannot_cover_is_refused_on_the_desk(table, pit_boss, cashier):
    slip = slip_request(
        table=table, kind=SlipKind.CREDIT, amounts={50_000: 5_000_000}, actor=Actor.staff(pit_boss)
    )
    before = snapshot()
    answer = client_of(cashier).post(f"/accounting/slips/{slip.pk}/issue/")
    assert answer.status_code == 409 and "insufficient_funds" in answer.text
    assert snapshot() == before


@pytest.mark.usefixtures("bj1_open")
def test_a_slip_of_another_casino_or_no_slip_is_not_found_in_words(table, cashier, pit_boss):
    slip = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 100}, actor=Actor.staff(pit_boss))
    slip_issue(slip=slip, actor=Actor.staff(cashier))
    answer = client_of(cashier).post("/accounting/slips/999999/issue/", headers=HTMX)
    assert answer.status_code == 404 and "No such slip" in answer.text and "slip_not_found" in answer.text


def test_the_operator_configures_the_chip_set_shifts_and_threshold(operator, pit_boss, accountant):
    from accounting.selectors import chip_values, settings_of

    page = client_of(operator).get("/accounting/settings/")
    assert page.status_code == 200 and 'id="settings-form"' in page.text
    assert client_of(pit_boss).get("/accounting/settings/").status_code == 403
    answer = client_of(operator).post(
        "/accounting/settings/change/",
        {"chips": "1 5 10 100", "shifts": "06:00 18:00", "threshold": "20.00"},
        headers=HTMX,
    )
    # the chip set and the shifts apply; the threshold raised from 0.00 weakens a control: it waits
    assert (
        answer.status_code == 200 and "weakens a control: it waits for the accounting office" in answer.text
    )
    assert 'id="settings-waiting"' in answer.text and 'class="approve"' not in answer.text
    casino = operator_casino()
    settings = settings_of(casino)
    assert chip_values(casino) == [10_000, 1_000, 500, 100]
    assert (settings.shift_starts, settings.variance_threshold_minor) == (["06:00", "18:00"], 0)
    # the accounting office sees it, before and after, and approves it
    waiting = client_of(accountant).get("/accounting/settings/")
    assert 'id="settings-form"' not in waiting.text and 'id="settings-now"' in waiting.text
    row = '<tr class="waiting-field" data-field="variance_threshold_minor"><td>Opener variance threshold</td>'
    assert row + '<td class="num">0.00</td><td class="num">20.00</td></tr>' in waiting.text
    approval = Approval.objects.get(kind="accounting_settings")
    assert (
        client_of(pit_boss).post(f"/accounting/settings/approvals/{approval.pk}/approve/").status_code == 403
    )
    approved = client_of(accountant).post(
        f"/accounting/settings/approvals/{approval.pk}/approve/", headers=HTMX
    )
    assert approved.status_code == 200 and "Change approved" in approved.text
    assert settings_of(casino).variance_threshold_minor == 2_000
    refused = client_of(operator).post(
        "/accounting/settings/change/", {"chips": "1", "shifts": "6 pm", "threshold": "0"}, headers=HTMX
    )
    assert refused.status_code == 400 and "invalid_settings" in refused.text
    assert settings_of(casino).shift_starts == ["06:00", "18:00"]
    assert chip_values(casino) == [10_000, 1_000, 500, 100]  # the chip set of the refused form not kept


def test_a_change_of_the_settings_is_rejected_on_the_page_with_a_reason(operator, accountant):
    from accounting.selectors import settings_of

    client_of(operator).post(
        "/accounting/settings/change/",
        {"chips": "1 5 25 100 500", "shifts": "06:00 14:00 22:00", "threshold": "0", "large_cash": "50000"},
    )
    approval = Approval.objects.get(kind="accounting_settings")
    no_reason = client_of(accountant).post(
        f"/accounting/settings/approvals/{approval.pk}/reject/", headers=HTMX
    )
    assert no_reason.status_code == 422 and "reason_required" in no_reason.text
    rejected = client_of(accountant).post(
        f"/accounting/settings/approvals/{approval.pk}/reject/", {"reason": "the report stays at 10,000"}
    )
    assert (rejected.status_code, rejected["Location"]) == (302, "/accounting/settings/")
    assert settings_of(operator_casino()).large_cash_threshold_minor == 1_000_000
    assert 'id="settings-waiting"' not in client_of(accountant).get("/accounting/settings/").text


def test_the_operator_sets_the_hold_band_and_the_cash_log_thresholds(operator):
    from accounting.selectors import settings_of

    casino = operator_casino()
    form = {"chips": "1 5 25 100 500", "shifts": "06:00 14:00 22:00", "threshold": "0"}
    page = client_of(operator).get("/accounting/settings/")
    assert 'name="hold_low" size="8" value="5.00"' in page.text and 'name="large_cash"' in page.text
    answer = client_of(operator).post(
        "/accounting/settings/change/",
        {
            **form,
            "hold_low": "8,5",
            "hold_high": "25",
            "sigmas": "2",
            "mtl": "2500.00",
            "large_cash": "10000",
        },
        headers=HTMX,
    )
    assert answer.status_code == 200, answer.text
    settings = settings_of(casino)
    assert (settings.hold_band_low_bp, settings.hold_band_high_bp, settings.hold_band_sigmas) == (
        850,
        2_500,
        2,
    )
    assert (settings.mtl_threshold_minor, settings.large_cash_threshold_minor) == (250_000, 1_000_000)
    for refused_fields in (
        {"hold_low": "30", "hold_high": "20"},  # the band upside down
        {"hold_low": "12.345"},  # finer than a basis point
        {"sigmas": "0"},
        {"mtl": "20000", "large_cash": "10000"},  # the log's threshold above the report's
    ):
        refused = client_of(operator).post(
            "/accounting/settings/change/", {**form, **refused_fields}, headers=HTMX
        )
        assert refused.status_code == 400 and "invalid_settings" in refused.text, refused_fields
    settings.refresh_from_db()
    assert (settings.hold_band_low_bp, settings.hold_band_sigmas, settings.mtl_threshold_minor) == (
        850,
        2,
        250_000,
    )


def operator_casino():
    from casino.models import Casino

    return Casino.objects.get(code="demo")


def test_the_last_count_is_corrected_on_the_table_page(table, dealer, pit_boss):
    opener = opened(table, dealer, pit_boss)
    answer = client_of(dealer).post(
        "/accounting/tables/BJ1/counts/",
        tray_form({**TRAY, 100: 9_900}, kind="opener", corrects=str(opener.pk), reason="one chip short"),
        headers=HTMX,
    )
    assert answer.status_code == 200 and f"corrects #{opener.pk}" in answer.text
    correction = TrayCount.objects.get(corrects=opener)
    assert (correction.total_minor, correction.correction_reason) == (1_999_900, "one chip short")


@pytest.mark.usefixtures("bj1_open")
def test_the_slips_in_flight_are_drawn_again_only_when_they_change(table, pit_boss, cashier):
    desk = client_of(cashier).get("/accounting/slips/")
    version = desk.context["open_version"]
    unchanged = client_of(cashier).get(f"/accounting/slips/live/?version={version}", headers=HTMX)
    assert unchanged.status_code == 204
    slip_request(table=table, kind=SlipKind.FILL, amounts={100: 100}, actor=Actor.staff(pit_boss))
    changed = client_of(cashier).get(f"/accounting/slips/live/?version={version}", headers=HTMX)
    assert changed.status_code == 200 and 'id="open-slips"' in changed.text and "button" in changed.text
    assert "<html" not in changed.text and changed.context["open_version"] != version


def test_a_table_of_no_casino_is_not_found(pit_boss):
    assert client_of(pit_boss).get("/accounting/tables/NOPE/").status_code == 404


def test_a_dealer_goes_back_from_the_tray_to_the_tables_console(table, dealer, pit_boss):
    page = client_of(dealer).get("/accounting/tables/BJ1/").content.decode()
    assert 'href="/dealer/tables/BJ1/" id="back-to-table"' in page
    canasta = client_of(dealer).get("/accounting/tables/CA1/").content.decode()
    assert 'href="/cardroom/tables/CA1/" id="back-to-table"' in canasta
    assert 'id="back-to-table"' not in client_of(pit_boss).get("/accounting/tables/BJ1/").content.decode()


def test_a_refusal_is_swapped_in_even_on_the_development_server(operator, settings):
    """django-htmx's debug script (DEBUG only) would replace the whole page with a 400/403/404
    answer; the pages load htmx alone, so a refused form's partial is swapped in as designed."""
    settings.DEBUG = True
    page = client_of(operator).get("/accounting/settings/").content.decode()
    assert "django_htmx/htmx-2.min.js" in page and "django-htmx.js" not in page


def test_a_closer_with_a_fill_on_its_way_is_refused_on_the_table_page_in_words(table, dealer, pit_boss):
    # given BJ1 open and a fill requested, not yet received
    opened(table, dealer, pit_boss)
    slip_request(table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss))
    before = snapshot()
    # when the dealer sends the closing count from the table's page
    answer = client_of(dealer).post(
        "/accounting/tables/BJ1/counts/", tray_form(TRAY, kind="closer"), headers=HTMX
    )
    # then the page says why, in words, with the code, and nothing is written
    assert answer.status_code == 409 and "slip_in_flight" in answer.text
    slip = Slip.objects.get()
    assert (
        f"Slip {slip.year}-{slip.number} of this table is not received yet: receive it, or void it "
        "before the cage issues it, then count the table at its close." in answer.text
    )
    assert snapshot() == before


def test_the_closing_count_is_blind_and_the_comparison_shows_once_it_is_signed(
    table, dealer, pit_boss, cashier
):
    # given BJ1 open on 20 000.00 and a fill of 1 000.00 received (the ledger's tray: 21 000.00)
    from accounting.services import slip_issue, slip_receive

    opened(table, dealer, pit_boss)
    fill = slip_request(
        table=table, kind=SlipKind.FILL, amounts={10_000: 100_000}, actor=Actor.staff(pit_boss)
    )
    slip_issue(slip=fill, actor=Actor.staff(cashier))
    slip_receive(slip=fill, actor=Actor.staff(dealer))
    # when the dealer opens the page to count the closer: the ledger's tray is not in view
    counting = client_of(dealer).get("/accounting/tables/BJ1/").text
    assert 'id="count-form"' in counting and 'name="kind" value="closer"' in counting
    assert 'id="ledger-balance"' not in counting and "21,000.00" not in counting
    assert '<td class="num" id="last-count">€20,000.00</td>' in counting  # the opener, signed
    assert 'id="blind-count"' in counting
    # nor while the closer waits for the pit boss's signature
    answer = client_of(dealer).post(
        "/accounting/tables/BJ1/counts/", tray_form({**TRAY, 10_000: 690_000}, kind="closer"), headers=HTMX
    )
    assert answer.status_code == 200 and 'id="sign-form"' in answer.text
    assert 'id="ledger-balance"' not in answer.text and "21,000.00" not in answer.text
    signing = client_of(pit_boss).get("/accounting/tables/BJ1/").text
    assert 'id="pending-total"' in signing and "21,000.00" not in signing
    # once signed, the count and the ledger are compared: 100.00 short
    count = TrayCount.objects.get(kind="closer")
    signed = client_of(pit_boss).post(f"/accounting/tables/BJ1/counts/{count.pk}/sign/", headers=HTMX).text
    assert 'id="blind-count"' not in signed
    assert '<td class="num" id="last-count">€20,900.00</td>' in signed
    assert '<td class="num" id="count-ledger">€21,000.00</td>' in signed
    assert '<td class="num variance" id="ledger-difference">-€100.00</td>' in signed
    assert '<td class="num" id="ledger-balance">€21,000.00</td>' in signed


@pytest.mark.usefixtures("bj1_open")
def test_a_slip_of_a_closed_table_is_refused_on_the_desk_in_words(table, pit_boss, dealer, cashier):
    from tests.accounting.conftest import closer_signed_as_before

    slip = slip_request(table=table, kind=SlipKind.FILL, amounts={100: 500}, actor=Actor.staff(pit_boss))
    closer_signed_as_before(table, TRAY, dealer, pit_boss)
    before = snapshot()
    issued = client_of(cashier).post(f"/accounting/slips/{slip.pk}/issue/", headers=HTMX)
    assert issued.status_code == 409 and "slip_table_closed" in issued.text
    assert "BJ1 is closed, or its closing count is taken" in issued.text
    requested = client_of(pit_boss).post(
        "/accounting/slips/request/", tray_form({100: 100}, table="BJ1", kind="credit"), headers=HTMX
    )
    assert requested.status_code == 409 and "no fill or credit moves chips to or from it" in requested.text
    assert snapshot() == before
