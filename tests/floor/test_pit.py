"""The pit boss's desk (floor/pit.py): the floor and the approvals queue with and without
htmx, their live versions, and the decisions on held payouts and dealers' requests; for the pit
boss, the operator where the role allows, and refused to the other roles."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from casino.models import AuditRecord, Table
from tables.models import PayoutDecision, PayoutLine, Round, RoundRequest
from tables.services import (
    Actor,
    bet_place,
    box_take,
    dealer_sign_on,
    decision_make,
    round_close_betting,
    round_open,
    round_request_create,
    round_settle,
    table_settings_change,
)
from tests.factories import staff_user
from tests.tables.conftest import alice_betting, at_terminal, balance, funded_player, stack_shoe

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"
PAGES = ["/pit/", "/pit/live/", "/pit/stream/", "/pit/queue/", "/pit/queue/live/"]


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(response: Any) -> str:
    return response.content.decode()


def _held_payout(table: Table, dealer: Any, operator: Any) -> tuple[Any, PayoutLine]:
    """A threshold of 5.00 at BJ1; alice (100.00) wins 10.00 on 10.00 (paid 20.00): held."""
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    line = PayoutLine.objects.get(round=round_)
    assert (line.approval_status, line.paid_minor, balance(alice)) == ("pending", 2000, (9000, 0))
    return alice, line


def _floor_row(page: str, table: str) -> str:
    match = re.search(rf'<tr class="floor-row" id="floor-{table}".*?</tr>', page, re.S)
    assert match is not None, page
    return match.group(0)


def _state_and_dealer(page: str, table: str) -> tuple[str, str, str]:
    row = _floor_row(page, table)
    state = re.search(r'data-state="(\w+)"', row).group(1)
    label, dealer = re.search(r'<td class="state-\w+">([^<]*)</td><td>([^<]*)</td>', row).groups()
    return state, label, dealer


# ------------------------------------------------------------------------------------- access


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["pit_boss", "operator"])
def test_the_floor_and_queue_are_drawn_whole_or_as_the_partial(seeded, role):
    client = _client(staff_user(role, f"{role}-9"))
    for url in ("/pit/", "/pit/queue/"):
        plain, partial = client.get(url), client.get(url, **HTMX)
        assert (plain.status_code, partial.status_code) == (200, 200), url
        assert "<html" in _page(plain) and "<html" not in _page(partial)
        assert plain["Vary"] == partial["Vary"] == "HX-Request, Cookie"
    floor = _page(client.get("/pit/", **HTMX))
    assert floor.lstrip().startswith('<section class="card" id="floor"')
    assert 'id="floor-BJ1"' in floor and 'id="floor-CA1"' in floor
    queue = _page(client.get("/pit/queue/", **HTMX))
    assert queue.lstrip().startswith('<section class="card pit-queue" id="queue"')
    assert "No decision waits." in queue
    # the full floor page carries the queue too
    assert 'id="queue"' in _page(client.get("/pit/"))


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/pit/live/", "/pit/queue/live/"])
def test_the_live_partials_answer_for_an_old_version(seeded, pit_boss, url):
    client = _client(pit_boss)
    for headers in ({}, HTMX):
        response = client.get(url, {"version": "old"}, **headers)
        assert response.status_code == 200 and "<html" not in _page(response)
        assert response["Vary"] == "HX-Request, Cookie"


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "cashier", "auditor"])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_desk_is_not_for_other_roles(seeded, role, htmx):
    client = _client(staff_user(role, f"{role}-9"))
    before = AuditRecord.objects.count()
    for url in PAGES:
        response = client.get(url, **(HTMX if htmx else {}))
        assert response.status_code == 403, url
        assert REFUSED_TEXT in _page(response)
    for url in ("/pit/rounds/1/payouts/", "/pit/requests/1/approve/"):
        response = client.post(url, **(HTMX if htmx else {}))
        assert response.status_code == 403 and REFUSED_TEXT in _page(response), url
    assert AuditRecord.objects.count() == before


@pytest.mark.django_db
def test_the_operator_supervises_but_decides_nothing(seeded, operator):
    client = _client(operator)
    for url in ("/pit/rounds/1/payouts/", "/pit/requests/1/approve/"):
        response = client.post(url, **HTMX)
        assert response.status_code == 403 and REFUSED_TEXT in _page(response), url


@pytest.mark.django_db
def test_anonymous_visitors_go_to_the_login_page(seeded):
    for url in PAGES:
        response = Client().get(url)
        assert (response.status_code, response["Location"]) == (302, f"/login/?next={url}")
    response = Client().post("/pit/rounds/1/payouts/")
    assert (response.status_code, response["Location"]) == (302, "/login/?next=/pit/rounds/1/payouts/")


# ------------------------------------------------------------------------------------ the floor


@pytest.mark.django_db
def test_the_floor_shows_each_table_state_and_dealer(table, dealer, pit_boss, operator):
    client = _client(pit_boss)
    # given BJ1 closed, nobody dealing
    Table.objects.filter(pk=table.pk).update(is_open=False)
    page = _page(client.get("/pit/"))
    assert _state_and_dealer(page, "BJ1") == ("closed", "Closed", "—")
    assert _state_and_dealer(page, "BJ2") == ("open", "Open, no round", "—")
    # when dealer-1 signs on and opens it
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    Table.objects.filter(pk=table.pk).update(is_open=True)
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1") == ("open", "Open, no round", "dealer-1")
    # betting
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    page = _page(client.get("/pit/"))
    assert _state_and_dealer(page, "BJ1") == ("betting", "Betting", "dealer-1")
    assert re.findall(r'<td class="num">([^<]*)</td>', _floor_row(page, "BJ1"))[-1] == "10.00"
    # dealing (her turn), then settling
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1")[:2] == ("dealing", "Dealing")
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1") == ("settling", "Settling", "dealer-1")
    # settled with a payout held: waiting for approval
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1") == (
        "waiting",
        "Waiting for approval",
        "dealer-1",
    )
    # and a dealer with a name is named by it, as on the console
    type(dealer).objects.filter(pk=dealer.pk).update(first_name="Dana", last_name="Dealer")
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1")[2] == "Dana Dealer"


@pytest.mark.django_db
def test_the_live_floor_answers_204_until_something_changes(table, dealer, pit_boss):
    client = _client(pit_boss)
    version = re.search(r"/pit/live/\?version=([0-9a-f]+)", _page(client.get("/pit/"))).group(1)
    for headers in ({}, HTMX):
        unchanged = client.get("/pit/live/", {"version": version}, **headers)
        assert (unchanged.status_code, unchanged.content) == (204, b"")
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    changed = client.get("/pit/live/", {"version": version}, **HTMX)
    assert changed.status_code == 200 and "<html" not in _page(changed)
    assert _state_and_dealer(_page(changed), "BJ1") == ("open", "Open, no round", "dealer-1")


# ------------------------------------------------------------------------------------ the queue


def _decide(line: PayoutLine, decision: str, **fields: Any) -> dict[str, Any]:
    """The round form of the queue for ``line``'s round: every line shown, ``decision``."""
    return {"line": [str(line.pk)], "decision": decision, **fields}


@pytest.mark.django_db
def test_a_held_payout_is_in_the_queue_and_approving_it_pays(table, dealer, pit_boss, operator):
    alice, line = _held_payout(table, dealer, operator)
    client = _client(pit_boss)
    # the queue shows it, and its live version answers 204 until it is decided
    queue = _page(client.get("/pit/queue/", **HTMX))
    assert f'data-line="{line.pk}"' in queue and "Alice Archer" in queue
    # with its rule in words (the engine's text kept as its title), its winnings, and the dealer
    assert '<td class="rule" title="7 higher total 1:1">Higher total pays 1:1 (§\u00a07) · 1:1</td>' in queue
    assert '<td class="num">10.00</td><td class="num">10.00</td><td class="num">20.00</td>' in queue
    assert f"Dealer: {dealer.get_username()}</h4>" in queue
    assert "Payouts whose winnings exceed 5.00 wait for a pit boss." in queue
    assert '<span class="pill" id="queue-size">1</span>' in queue
    version = re.search(r"/pit/queue/live/\?version=([0-9a-f]+)", queue).group(1)
    assert client.get("/pit/queue/live/", {"version": version}).status_code == 204
    # when the pit boss approves
    response = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "approve"), **HTMX)
    # then alice is paid, and the queue is empty
    assert response.status_code == 200 and "<html" not in _page(response)
    assert '<p class="banner" id="queue-done">Payouts decided: 1 approved and paid, 0 rejected.</p>' in _page(
        response
    )
    assert "No decision waits." in _page(response)
    assert balance(alice) == (11_000, 0)
    assert PayoutDecision.objects.get(line=line).status == "approved"
    assert client.get("/pit/queue/live/", {"version": version}).status_code == 200
    # and approving again is refused
    again = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "approve"), **HTMX)
    assert again.status_code == 409 and 'data-code="approval_decided"' in _page(again)
    assert balance(alice) == (11_000, 0)


@pytest.mark.django_db
def test_a_plain_approval_redirects_to_the_queue_with_a_message(table, dealer, pit_boss, operator):
    alice, line = _held_payout(table, dealer, operator)
    client = _client(pit_boss)
    response = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "approve"))
    assert (response.status_code, response["Location"]) == (302, "/pit/queue/")
    assert balance(alice) == (11_000, 0)
    assert "Payouts decided: 1 approved and paid, 0 rejected." in _page(client.get("/pit/queue/"))
    back = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "approve", next="/pit/"))
    assert (back.status_code, back["Location"]) == (302, "/pit/")
    assert '<li class="error">This is decided already. (approval_decided)</li>' in _page(client.get("/pit/"))


@pytest.mark.django_db
def test_rejecting_a_held_payout_needs_a_reason(table, dealer, pit_boss, operator):
    alice, line = _held_payout(table, dealer, operator)
    client = _client(pit_boss)
    url = f"/pit/rounds/{line.round_id}/payouts/"
    refused = client.post(url, _decide(line, "reject", reason="  "), **HTMX)
    assert refused.status_code == 422
    assert "<strong>A rejection needs a reason.</strong>" in _page(refused)
    assert f'data-line="{line.pk}"' in _page(refused)
    assert not PayoutDecision.objects.filter(line=line).exists()
    # a ticked line of an approval is rejected too, and needs the reason as well
    ticked = client.post(url, _decide(line, "approve", reason="", **{"except": [str(line.pk)]}), **HTMX)
    assert ticked.status_code == 422 and 'data-code="reason_required"' in _page(ticked)
    assert not PayoutDecision.objects.filter(line=line).exists()
    rejected = client.post(url, _decide(line, "reject", reason="dealer error"), **HTMX)
    assert rejected.status_code == 200
    assert "Payouts decided: 0 approved and paid, 1 rejected." in _page(rejected)
    decision = PayoutDecision.objects.get(line=line)
    assert (decision.status, decision.reason) == ("rejected", "dealer error")
    assert balance(alice) == (9000, 0)


@pytest.mark.django_db
def test_the_dealer_of_the_round_may_not_approve_its_payout(table, dealer, pit_boss, operator):
    # given a pit boss who also deals, and dealt the round with the held payout
    pit_boss.groups.add(*dealer.groups.all())
    boss_dealer = type(pit_boss).objects.get(pk=pit_boss.pk)
    alice, line = _held_payout(table, boss_dealer, operator)
    assert Round.objects.get(pk=line.round_id).dealer_id == boss_dealer.pk
    client = _client(boss_dealer)
    # the queue shows the round without its buttons, saying why
    queue = _page(client.get("/pit/queue/", **HTMX))
    assert "You settled or dealt this round: another pit boss decides its payouts." in queue
    assert 'name="decision"' not in queue
    # when they post the decision anyway: refused, shown on the queue with its reason, nothing paid
    before = AuditRecord.objects.count()
    response = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "approve"), **HTMX)
    assert response.status_code == 403
    assert 'data-code="four_eyes_required"' in _page(response)
    assert f'data-line="{line.pk}"' in _page(response)
    assert balance(alice) == (9000, 0)
    assert not PayoutDecision.objects.filter(line=line).exists()
    assert AuditRecord.objects.count() == before


@pytest.mark.django_db
def test_an_unknown_round_or_decision_is_refused(table, dealer, pit_boss, operator):
    _alice, line = _held_payout(table, dealer, operator)
    client = _client(pit_boss)
    missing = client.post("/pit/rounds/987654/payouts/", _decide(line, "approve"), **HTMX)
    assert missing.status_code == 409 and 'data-code="not_found"' in _page(missing)
    odd = client.post(f"/pit/rounds/{line.round_id}/payouts/", _decide(line, "double"), **HTMX)
    assert odd.status_code == 409 and 'data-code="no_such_decision"' in _page(odd)
    empty = client.post(f"/pit/rounds/{line.round_id}/payouts/", {"decision": "approve"}, **HTMX)
    assert empty.status_code == 409 and 'data-code="no_such_decision"' in _page(empty)
    assert not PayoutDecision.objects.filter(line=line).exists()


# ------------------------------------------------------------------------------- dealers' requests


def _void_requested(table: Table, dealer: Any) -> tuple[Any, RoundRequest]:
    alice, round_ = alice_betting(table, dealer)
    request = round_request_create(
        round_id=round_.pk, actor=Actor.staff(dealer), kind="void", reason="wrong shoe"
    )
    return alice, request


@pytest.mark.django_db
def test_a_void_request_is_in_the_queue_and_approving_it_voids_the_round(table, dealer, pit_boss):
    alice, request = _void_requested(table, dealer)
    client = _client(pit_boss)
    queue = _page(client.get("/pit/queue/"))
    assert f'data-request="{request.pk}"' in queue and "Void the round" in queue and "wrong shoe" in queue
    assert _state_and_dealer(_page(client.get("/pit/")), "BJ1")[0] == "waiting"
    response = client.post(f"/pit/requests/{request.pk}/approve/", **HTMX)
    assert response.status_code == 200 and "Request approved." in _page(response)
    assert Round.objects.get(pk=request.round_id).status == "voided"
    assert balance(alice) == (10_000, 0)


@pytest.mark.django_db
def test_rejecting_a_request_needs_a_reason(table, dealer, pit_boss):
    alice, request = _void_requested(table, dealer)
    client = _client(pit_boss)
    refused = client.post(f"/pit/requests/{request.pk}/reject/", {"reason": ""}, **HTMX)
    assert refused.status_code == 409 and 'data-code="reason_required"' in _page(refused)
    plain = client.post(f"/pit/requests/{request.pk}/reject/", {"reason": "play on"})
    assert (plain.status_code, plain["Location"]) == (302, "/pit/queue/")
    assert "Request rejected." in _page(client.get("/pit/queue/"))
    assert Round.objects.get(pk=request.round_id).status == "betting"
    assert balance(alice) == (10_000, 1000)
