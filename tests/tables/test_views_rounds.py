"""The round audit pages (tables/views/rounds.py): the list and its filters, one round with its
summary, event log, replay check and audit records, and the JSON export. Each page with and
without htmx, for the roles that may see it and those that may not."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from casino.models import AuditRecord, Pit, RuleSet, Table
from casino.money import money
from casino.roles import role_label
from tables.models import Bet, PayoutDecision, PayoutLine, Round, RoundEvent, Shoe, TableConfigVersion
from tables.services import (
    Actor,
    bet_place,
    box_take,
    decision_make,
    insurance_close,
    insurance_decide,
    payout_approve,
    payout_reject,
    round_close_betting,
    round_open,
    round_settle,
    round_void,
    table_settings_change,
)
from tests.factories import CasinoFactory, staff_user
from tests.tables.conftest import at_terminal, balance, funded_player, stack_shoe

HTMX = {"HTTP_HX_REQUEST": "true"}
REFUSED_TEXT = "This page is not for your role"


def _opened_at(day: int) -> dt.datetime:
    return dt.datetime(2026, 1, day, 10, 0, tzinfo=dt.UTC)


def _ensure_open(table: Table) -> None:
    # The table-opening rules are being changed (a dealer signs on and opens the table first);
    # these tests are about the audit pages, so the table is simply open.
    Table.objects.filter(pk=table.pk).update(is_open=True)


def _play_one_box(table: Table, dealer: Any, players: list[tuple[Any, str, int]]) -> Round:
    """A round where the first player owns box 1 and stands on 10+9 against the dealer's 7+10;
    ``players`` is (player, bet kind, stake) with the owner's main bet first."""
    _ensure_open(table)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    actors = [at_terminal(table, player) for player, _kind, _stake in players]
    box_take(table=table, box_number=1, actor=actors[0])
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    for index, ((_player, kind, stake), actor) in enumerate(zip(players, actors, strict=True)):
        bet_place(
            round_id=round_.pk,
            actor=actor,
            box_number=1,
            kind=kind,
            stake_minor=stake,
            idempotency_key=f"bet-{round_.pk}-{index}",
        )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=actors[0], box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return Round.objects.get(pk=round_.pk)


@pytest.fixture
def rounds(seeded: Any, dealer: Any, operator: Any) -> dict[str, Any]:
    """Given: on BJ1 a settled round (alice main 10.00, bob behind 5.00, both win 1:1) and then
    an open one without bets; on BJ2, dealt by dealer-2 with an approval threshold of 5.00, a
    settled round whose 20.00 payout to carol (winnings 10.00) awaits approval. Opened on 10, 12 and 11 January."""
    bj1, bj2 = Table.objects.get(name="BJ1"), Table.objects.get(name="BJ2")
    alice = funded_player(bj1, 10_000, name="Alice Archer")
    bob = funded_player(bj1, 10_000, name="Bob Baker")
    carol = funded_player(bj2, 10_000, name="Carol Cook")
    settled = _play_one_box(bj1, dealer, [(alice, "main", 1000), (bob, "behind", 500)])
    other_dealer = staff_user("dealer", "dealer-2")
    table_settings_change(
        table=bj2, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 500}
    )
    waiting = _play_one_box(bj2, other_dealer, [(carol, "main", 1000)])
    open_round = round_open(table=bj1, actor=Actor.staff(dealer))
    Round.objects.filter(pk=settled.pk).update(opened_at=_opened_at(10))
    Round.objects.filter(pk=waiting.pk).update(opened_at=_opened_at(11))
    Round.objects.filter(pk=open_round.pk).update(opened_at=_opened_at(12))
    return {
        "settled": Round.objects.get(pk=settled.pk),
        "waiting": Round.objects.get(pk=waiting.pk),
        "open": Round.objects.get(pk=open_round.pk),
        "alice": alice,
        "bob": bob,
        "carol": carol,
    }


@pytest.fixture
def pit_client(client: Any, pit_boss: Any) -> Any:
    client.force_login(pit_boss)
    return client


def _listed(client: Any, **query: str) -> list[int]:
    response = client.get(reverse("tables:round_list"), query)
    assert response.status_code == 200
    return [row.round.pk for row in response.context["rows"]]


# ------------------------------------------------------------------------------------ the list


@pytest.mark.django_db
def test_the_list_shows_every_round_newest_first_with_its_totals(pit_client, rounds):
    # when the pit boss opens the list without filters
    response = pit_client.get(reverse("tables:round_list"))
    # then the three rounds are there, newest first, with their totals in major units
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    rows = response.context["rows"]
    assert [
        (
            row.round.table.name,
            row.round.number,
            row.status_label,
            row.round.dealer.username,
            row.bets_count,
            row.total_staked,
            row.total_paid,
            row.waiting,
            row.is_awaiting_approval,
        )
        for row in rows
    ] == [
        ("BJ1", rounds["open"].number, "Betting", "dealer-1", 0, "0.00", "0.00", "", False),
        # (a payout awaiting approval is not paid yet: it waits)
        ("BJ2", rounds["waiting"].number, "Settled", "dealer-2", 1, "10.00", "0.00", "20.00", True),
        ("BJ1", rounds["settled"].number, "Settled", "dealer-1", 2, "15.00", "30.00", "", False),
    ]
    assert response.context["page"].paginator.per_page == 50
    html = response.content.decode()
    assert '<form class="card round-filters" method="get"' in html
    assert f'href="{reverse("tables:round_detail", args=[rounds["waiting"].pk])}"' in html
    assert html.count('class="error awaiting-approval"') == 1
    assert "<html" in html


@pytest.mark.django_db
def test_the_list_with_htmx_is_only_the_results(pit_client, rounds):
    # when the filter form asks through htmx
    response = pit_client.get(reverse("tables:round_list"), {"table": "BJ2"}, **HTMX)
    # then only the results section comes back, filtered
    html = response.content.decode()
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert html.strip().startswith('<section id="round-results">')
    assert "<html" not in html and "round-filters" not in html
    assert re.findall(r'<tr class="round-row" data-round="(\d+)">', html) == [str(rounds["waiting"].pk)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"table": "BJ2"}, ["waiting"]),
        ({"table": "bj1"}, ["open", "settled"]),
        ({"table": "BJ3"}, []),
        ({"dealer": "dealer-2"}, ["waiting"]),
        ({"dealer": "DEALER-1"}, ["open", "settled"]),
        ({"player": "alice"}, ["settled"]),
        ({"player": "Cook"}, ["waiting"]),
        ({"status": "settled"}, ["waiting", "settled"]),
        ({"status": "betting"}, ["open"]),
        ({"min_stake": "12.00"}, ["settled"]),
        ({"min_stake": "10"}, ["waiting", "settled"]),
        ({"min_payout": "20.00"}, ["waiting", "settled"]),
        ({"min_payout": "20.01"}, []),
        ({"opened_from": "2026-01-11"}, ["open", "waiting"]),
        ({"opened_to": "2026-01-11"}, ["waiting", "settled"]),
        ({"opened_from": "2026-01-11T09:00", "opened_to": "2026-01-11T11:00"}, ["waiting"]),
        ({"table": "BJ1", "status": "settled", "player": "Bob"}, ["settled"]),
    ],
)
def test_the_filters_return_exactly_the_matching_rounds(pit_client, rounds, query, expected):
    assert _listed(pit_client, **query) == [rounds[name].pk for name in expected]


@pytest.mark.django_db
def test_a_player_is_found_by_card_number(pit_client, rounds):
    assert _listed(pit_client, player=rounds["bob"].card_number) == [rounds["settled"].pk]


@pytest.mark.django_db
def test_an_invalid_filter_is_refused_in_words_and_lists_nothing(pit_client, rounds):
    response = pit_client.get(reverse("tables:round_list"), {"min_stake": "12.345", "opened_from": "soon"})
    html = response.content.decode()
    assert response.status_code == 200
    assert response.context["rows"] == []
    assert "Total stake at least: Enter an amount such as 25 or 12.50." in html
    assert "Opened from: Enter a date (YYYY-MM-DD) or a date and time." in html


# ---------------------------------------------------------------------------------- one round


@pytest.mark.django_db
def test_a_settled_round_shows_its_cards_bets_events_replay_and_audit(pit_client, rounds):
    round_ = rounds["settled"]
    type(round_.dealer).objects.filter(pk=round_.dealer_id).update(first_name="Dana", last_name="Dealer")
    # when the pit boss opens the settled round
    response = pit_client.get(reverse("tables:round_detail", args=[round_.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    # then the dealer is named, with the username the round list filters by
    dealer = f'<dd id="round-dealer">Dana Dealer <span class="muted">{round_.dealer.username}</span></dd>'
    assert dealer in html
    # then the cards and totals: box 1 has 10 and 9 (19), the dealer 7 and 10 (17)
    summary = response.context["summary"]
    assert [card.code for card in summary.dealer_cards] == ["7H", "TC"]
    assert (summary.dealer_total, summary.is_hole_card_hidden) == (17, False)
    assert [(box.number, box.owner_name) for box in summary.boxes] == [(1, "Alice Archer")]
    assert [([card.code for card in hand.cards], hand.total) for hand in summary.boxes[0].hands] == [
        (["TS", "9D"], 19)
    ]
    # and every bet with its payout line, its rule in words (the engine's text as the title)
    assert (
        html.count('<td class="rule" title="7 higher total 1:1">Higher total pays 1:1 (§\u00a07)</td>') == 2
    )
    assert [
        (
            bet.player_name,
            bet.box_number,
            bet.kind_label,
            bet.stake,
            *(
                (line.outcome, line.rule, line.multiplier, line.paid, line.approval_label)
                for line in bet.lines
            ),
        )
        for bet in summary.bets
    ] == [
        (
            "Alice Archer",
            1,
            "Main",
            "10.00",
            ("win", "7 higher total 1:1", "1/1", "20.00", "Paid at once"),
        ),
        (
            "Bob Baker",
            1,
            "Bet behind",
            "5.00",
            ("win", "7 higher total 1:1", "1/1", "10.00", "Paid at once"),
        ),
    ]
    assert (summary.total_staked, summary.total_paid, summary.lines_awaiting_approval) == (
        "15.00",
        "30.00",
        0,
    )
    assert '<span class="playing-card" data-card="TS">10\u2660</span>' in html
    assert '<span class="playing-card red" data-card="9D">9\u2666</span>' in html
    # and the event log in order, in words
    events = response.context["events"]
    assert [event.sequence for event in events] == list(
        RoundEvent.objects.filter(round=round_).order_by("sequence").values_list("sequence", flat=True)
    )
    # (bets enter the log at no more bets, each with the moment it was placed)
    placed = {
        bet.player.display_name: timezone.localtime(bet.placed_at).strftime("%H:%M:%S")
        for bet in Bet.objects.filter(round=round_).select_related("player")
    }
    assert [(event.kind, event.description) for event in events] == [
        ("betting_opened", f"shoe #{round_.shoe_id}, configuration #{round_.config_id}"),
        (
            "bet_placed",
            f"Alice Archer: Main 10.00 on box 1, placed at {placed['Alice Archer']} (logged at no more bets)",
        ),
        (
            "bet_placed",
            f"Bob Baker: Bet behind 5.00 on box 1, placed at {placed['Bob Baker']} (logged at no more bets)",
        ),
        ("betting_closed", "boxes playing: 1"),
        # (a virtual shoe's cards, dealt within the dealer's "no more bets" and logged under it)
        ("card_dealt", "10\u2660 to box 1, hand 1, dealt by the virtual shoe"),
        ("card_dealt", "7\u2665 to the dealer, dealt by the virtual shoe"),
        ("card_dealt", "9\u2666 to box 1, hand 1, dealt by the virtual shoe"),
        ("card_dealt", "10\u2663 to the dealer, face down, dealt by the virtual shoe"),
        ("decision", "box 1: stand"),
        ("settled", "2 payout lines, staked 15.00, payouts 30.00, 0 awaiting approval"),
    ]
    # (each with who recorded it, their role in words)
    first = re.search(r'<tr data-sequence="1">.*?</tr>', html).group(0)
    assert f'<td class="event-by">{events[0].actor_name}</td><td>{role_label(events[0].role)}</td>' in first
    assert role_label(events[0].role) != events[0].role
    # (a bet by its bettor at the terminal it came from, not by whoever closed betting)
    bets = {
        bet.player.display_name: bet
        for bet in Bet.objects.filter(round=round_).select_related("player", "terminal")
    }
    for sequence, name in ((2, "Alice Archer"), (3, "Bob Baker")):
        bet = bets[name]
        row = re.search(rf'<tr data-sequence="{sequence}">.*?</tr>', html).group(0)
        assert (
            f'<td class="event-by">{name} <span class="muted">{bet.player.card_number}</span></td>'
            f"<td>Player</td><td>{bet.terminal.name}</td>"
        ) in row
    # and the replay check agrees with the recorded payouts
    assert response.context["replay"].differences == []
    assert "Replay equal: 2 payout lines match." in html
    # and the audit records naming the round, in chain order
    expected_records = list(
        AuditRecord.objects.filter(object_type="tables.round", object_id=str(round_.pk))
        .order_by("sequence")
        .values_list("sequence", "action")
    )
    assert [(record.sequence, record.action) for record in response.context["records"]] == expected_records
    assert [action for _sequence, action in expected_records] == [
        "round.opened",
        "round.betting_closed",
        "round.settled",
    ]
    assert f'href="{reverse("tables:round_export", args=[round_.pk])}"' in html
    assert "Export (JSON)" in html


@pytest.mark.django_db
def test_a_lost_bet_pays_nothing_and_is_not_said_to_be_paid(seeded, dealer, pit_client):
    # given alice's main 10.00 winning and her Perfect Pairs 1.00 lost on T 9 (no pair)
    table = Table.objects.get(name="BJ1")
    alice = funded_player(table, 10_000, name="Alice Archer")
    round_ = _play_one_box(table, dealer, [(alice, "main", 1000), (alice, "perfect_pairs", 100)])
    summary = pit_client.get(reverse("tables:round_detail", args=[round_.pk])).context["summary"]
    # then the lost line shows no approval at all, the paid one "Paid at once"
    assert [(bet.kind, line.paid, line.approval_label) for bet in summary.bets for line in bet.lines] == [
        ("main", "20.00", "Paid at once"),
        ("perfect_pairs", "0.00", "—"),
    ]


@pytest.mark.django_db
def test_a_payout_awaiting_approval_is_shown_as_such(pit_client, rounds):
    response = pit_client.get(reverse("tables:round_detail", args=[rounds["waiting"].pk]))
    summary = response.context["summary"]
    assert [
        (line.payout, line.paid, line.approval_status, line.approval_label) for line in summary.bets[0].lines
    ] == [("20.00", "0.00", "pending", "Awaiting approval")]
    assert (summary.total_paid, summary.total_waiting, summary.lines_awaiting_approval) == (
        "0.00",
        "20.00",
        1,
    )
    assert "Replay equal: 1 payout line matches." in response.content.decode()


@pytest.mark.django_db
def test_an_open_round_says_the_replay_check_is_for_settled_rounds(pit_client, rounds):
    response = pit_client.get(reverse("tables:round_detail", args=[rounds["open"].pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.context["replay"] is None
    assert "The replay check applies to settled rounds; this round is Betting." in html
    assert "No bets in this round." in html
    assert "No cards were dealt in this round." in html


@pytest.mark.django_db
def test_the_round_with_htmx_is_only_its_section(pit_client, rounds):
    response = pit_client.get(reverse("tables:round_detail", args=[rounds["settled"].pk]), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert response["Vary"] == "HX-Request, Cookie"
    assert html.strip().startswith(f'<article id="round-detail" data-round="{rounds["settled"].pk}">')
    assert "<html" not in html
    assert "Replay equal: 2 payout lines match." in html


@pytest.mark.django_db
def test_the_summary_partial_renders_on_its_own(rounds):
    from django.template.loader import render_to_string

    from tables.round_audit.summary import round_summary

    html = render_to_string("tables/round/_round-summary.html", {"summary": round_summary(rounds["waiting"])})
    assert html.count('class="payout-line ') == 1
    assert "Carol Cook" in html
    assert '<span class="error">Awaiting approval</span>' in html


# ------------------------------------------------------------------------------------ export


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_the_export_is_a_json_download_of_the_round(pit_client, rounds, headers):
    round_ = rounds["settled"]
    response = pit_client.get(reverse("tables:round_export", args=[round_.pk]), **headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="round-BJ1-{round_.number}.json"'
    exported = json.loads(response.content)
    assert exported["name"] == f"BJ1-round-{round_.number}"
    assert exported["source"] == f"tables.round {round_.pk}"
    assert exported["shoe"] == ["TS", "7H", "9D", "TC"]
    assert [
        (box["box"], box["player"], box["stake_minor"], box["decisions"]) for box in exported["boxes"]
    ] == [(1, str(rounds["alice"].pk), 1000, ["stand"])]
    assert exported["expected"]["totals"] == {
        "stake_minor": 1500,
        "paid_minor": 3000,
        "house_net_minor": -1500,
    }


@pytest.mark.django_db
def test_a_round_that_never_closed_betting_has_no_export(pit_client, rounds):
    response = pit_client.get(reverse("tables:round_export", args=[rounds["open"].pk]))
    assert response.status_code == 409
    assert f"round {rounds['open'].pk} never closed betting" in response.content.decode()


# ------------------------------------------------------------------------------------ access


def _urls(rounds: dict[str, Any]) -> list[str]:
    round_id = rounds["settled"].pk
    return [
        reverse("tables:round_list"),
        reverse("tables:round_detail", args=[round_id]),
        reverse("tables:round_export", args=[round_id]),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["pit_boss", "auditor"])
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_the_pit_boss_and_the_auditor_see_the_pages(client, rounds, role, headers):
    client.force_login(staff_user(role, f"{role}-viewer"))
    assert [client.get(url, **headers).status_code for url in _urls(rounds)] == [200, 200, 200]


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["dealer", "cashier"])
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_the_dealer_and_the_cashier_are_refused_in_words(client, rounds, role, headers):
    client.force_login(staff_user(role, f"{role}-viewer"))
    for url in _urls(rounds):
        response = client.get(url, **headers)
        assert response.status_code == 403
        assert REFUSED_TEXT in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("headers", [{}, HTMX])
def test_an_anonymous_visitor_is_sent_to_login(client, rounds, headers):
    for url in _urls(rounds):
        response = client.get(url, **headers)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('casino:login')}?next={url}"


@pytest.mark.django_db
def test_a_round_of_another_casino_is_not_found(pit_client, rounds):
    # given a round at a table of another casino
    bj1 = Table.objects.get(name="BJ1")
    other = CasinoFactory(code="other", name="Other Casino")
    table = Table.objects.create(
        casino=other,
        pit=Pit.objects.create(casino=other, name="Other pit"),
        name="OT1",
        game="blackjack",
        rule_set=RuleSet.objects.get(game="blackjack", name="live-american"),
    )
    config = TableConfigVersion.objects.get(table=bj1, number=1)
    config_copy = TableConfigVersion.objects.create(
        table=table,
        number=1,
        rule_set_version=config.rule_set_version,
        **{name: getattr(config, name) for name in (*config.LIMIT_FIELDS, *config.SETTING_FIELDS)},
    )
    shoe = Shoe.objects.create(table=table, kind="virtual", decks=6)
    foreign = Round.objects.create(table=table, number=1, config=config_copy, shoe=shoe)
    # then none of its pages is found, and the list does not show it
    assert [
        pit_client.get(reverse(name, args=[foreign.pk])).status_code
        for name in ("tables:round_detail", "tables:round_export")
    ] == [404, 404]
    assert foreign.pk not in _listed(pit_client)
    assert _listed(pit_client, table="OT1") == []


def test_money_is_major_units_with_two_decimals():
    assert [money(value) for value in (0, 5, 1250, 125050, -5, None)] == [
        "0.00",
        "0.05",
        "12.50",
        "1,250.50",
        "-0.05",
        "",
    ]


@pytest.mark.django_db
def test_the_audit_trail_links_the_records_of_a_round_to_its_page(pit_client, rounds):
    response = pit_client.get(reverse("audit:home"))
    html = response.content.decode()
    url = reverse("tables:round_detail", args=[rounds["settled"].pk])
    assert response.status_code == 200
    assert f'<a href="{url}">tables.round {rounds["settled"].pk}</a>' in html
    assert f'(<a href="{url}">round {rounds["settled"].pk}</a>)' in html
    assert '<a href="/pit/rounds/' not in html.split("tables.shoe", 1)[-1].split("</tr>", 1)[0]


# --------------------------------------------------------------------------------- round money


def _busy_round(dealer: Any, operator: Any) -> tuple[Round, Any]:
    """BJ1 with an approval threshold of 15.00: alice (100.00) bets 10.00 on box 1 against the
    dealer's ace and insures it (5.00); the dealer has 7 under the ace (soft 18, no blackjack);
    her 8 8 splits, the first hand doubles on 11 to 21 (stake 20.00, wins 1:1: 40.00, held for a
    pit boss), the second stands on 17 (loses 10.00); the insurance loses 5.00. Stakes placed
    15.00, at risk 35.00."""
    table = Table.objects.get(name="BJ1")
    table_settings_change(
        table=table, actor=Actor.staff(operator), settings={"payout_approval_threshold_minor": 1500}
    )
    _ensure_open(table)
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    stack_shoe(table, dealer, ["8H", "AS", "8D", "7D", "3C", "TD", "9S"])
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    main = bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    insurance_decide(round_id=round_.pk, actor=as_alice, bet_id=main.pk, take=True)
    if Round.objects.get(pk=round_.pk).status == "insurance":
        insurance_close(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="split")
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="double")
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="stand")
    round_settle(round_id=round_.pk, actor=Actor.staff(dealer))
    return Round.objects.get(pk=round_.pk), alice


@pytest.mark.django_db
def test_the_stakes_at_risk_add_up_with_splits_doubles_and_insurance(seeded, dealer, operator, pit_client):
    # given alice's split, doubled and insured round: 15.00 placed, 35.00 at risk
    round_, _alice = _busy_round(dealer, operator)
    # when the pit boss opens the round
    response = pit_client.get(reverse("tables:round_detail", args=[round_.pk]))
    summary = response.context["summary"]
    # then each line shows its own stake (the doubled hand 20.00, the other 10.00, the
    # insurance 5.00) and the total is their sum, as the list says too
    assert [
        (bet.kind, bet.stake, [(line.hand, line.outcome, line.stake, line.payout) for line in bet.lines])
        for bet in summary.bets
    ] == [
        ("main", "30.00", [(0, "win", "20.00", "40.00"), (1, "lose", "10.00", "0.00")]),
        ("insurance", "5.00", [(None, "lose", "5.00", "0.00")]),
    ]
    assert (summary.total_staked, summary.total_payout) == ("35.00", "40.00")
    html = response.content.decode()
    assert re.findall(r'<td class="num stake">([^<]*)</td>', html) == ["20.00", "10.00", "5.00", "35.00"]
    assert _row_of(pit_client, round_).total_staked == "35.00"


@pytest.mark.django_db
def test_a_rejected_line_is_not_paid_and_says_who_rejected_it_when_and_why(
    seeded, dealer, operator, pit_boss, pit_client
):
    # given alice's 40.00 line held for approval, then rejected by the pit boss with a reason
    round_, alice = _busy_round(dealer, operator)
    line = PayoutLine.objects.get(round=round_, needs_approval=True)
    waiting = pit_client.get(reverse("tables:round_detail", args=[round_.pk]))
    # (while it waits it is not paid yet: it waits)
    assert (waiting.context["summary"].total_paid, waiting.context["summary"].total_waiting) == (
        "0.00",
        "40.00",
    )
    assert '<span class="muted waiting">waiting</span>' in waiting.content.decode()
    payout_reject(payout_line_id=line.pk, actor=Actor.staff(pit_boss), reason="dealt from the wrong shoe")
    decided_at = PayoutDecision.objects.get(line=line).decided_at
    # when the pit boss opens the round and the list
    response = pit_client.get(reverse("tables:round_detail", args=[round_.pk]))
    summary = response.context["summary"]
    # then the line pays 40.00 by the rules and paid nothing: rejected, by whom, when and why
    view = summary.bets[0].lines[0]
    assert (
        view.payout,
        view.paid,
        view.approval_label,
        view.decided_by,
        view.decided_at,
        view.decision_reason,
    ) == (
        "40.00",
        "0.00",
        "Rejected",
        "pitboss-1",
        decided_at,
        "dealt from the wrong shoe",
    )
    assert (summary.total_payout, summary.total_paid, summary.total_waiting, summary.total_rejected) == (
        "40.00",
        "0.00",
        "",
        "40.00",
    )
    html = response.content.decode()
    assert (
        f'<span class="decision">Rejected</span><br><span class="decided-by">by pitboss-1, '
        f"{timezone.localtime(decided_at):%Y-%m-%d %H:%M:%S}</span>"
        '<br><q class="decision-reason">dealt from the wrong shoe</q>'
    ) in html
    assert "1 rejected: 40.00 not paid" in html
    # and the list says the same, and what alice's account says she received
    row = _row_of(pit_client, round_)
    assert (row.total_staked, row.total_paid, row.waiting, row.rejected) == ("35.00", "0.00", "", "40.00")
    assert balance(alice) == (10_000 - 3500, 0)


@pytest.mark.django_db
def test_an_approved_line_is_paid_and_says_who_approved_it(pit_client, pit_boss, rounds):
    # given carol's 20.00 awaiting approval, approved by the pit boss
    line = PayoutLine.objects.get(round=rounds["waiting"])
    payout_approve(payout_line_id=line.pk, actor=Actor.staff(pit_boss))
    # then the round and the list say it was paid, by whom
    summary = pit_client.get(reverse("tables:round_detail", args=[rounds["waiting"].pk])).context["summary"]
    view = summary.bets[0].lines[0]
    assert (view.paid, view.approval_label, view.decided_by, view.decision_reason) == (
        "20.00",
        "Approved",
        "pitboss-1",
        "",
    )
    assert (summary.total_paid, summary.total_waiting, summary.total_rejected) == ("20.00", "", "")
    row = _row_of(pit_client, rounds["waiting"])
    assert (row.total_paid, row.waiting, row.rejected, row.is_awaiting_approval) == ("20.00", "", "", False)


@pytest.mark.django_db
def test_a_round_in_play_shows_its_doubles_and_splits_at_risk(seeded, dealer, pit_client):
    # given alice's 10.00 on 8 8, split, in play (no more cards entered after the split)
    table = Table.objects.get(name="BJ1")
    _ensure_open(table)
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    stack_shoe(table, dealer, ["8H", "6S", "8D", "TD", "3C"])
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    decision_make(round_id=round_.pk, actor=as_alice, box_number=1, decision="split")
    assert Round.objects.get(pk=round_.pk).status == "players"
    # then the round and the list show 20.00 at risk (the stake placed was 10.00)
    summary = pit_client.get(reverse("tables:round_detail", args=[round_.pk])).context["summary"]
    assert ([bet.stake for bet in summary.bets], summary.total_staked) == (["20.00"], "20.00")
    assert _row_of(pit_client, round_).total_staked == "20.00"


@pytest.mark.django_db
def test_a_voided_round_has_nothing_at_risk_and_says_the_stakes_went_back(
    seeded, dealer, pit_boss, pit_client
):
    table = Table.objects.get(name="BJ1")
    _ensure_open(table)
    alice = funded_player(table, 10_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_void(round_id=round_.pk, actor=Actor.staff(pit_boss), reason="wrong shoe")
    response = pit_client.get(reverse("tables:round_detail", args=[round_.pk]))
    summary = response.context["summary"]
    assert [(bet.stake, bet.returned, bet.status_label) for bet in summary.bets] == [("", "10.00", "Voided")]
    assert (summary.total_staked, summary.total_paid) == ("0.00", "0.00")
    assert "Voided · stake 10.00 returned" in response.content.decode()
    assert _row_of(pit_client, round_).total_staked == "0.00"


def _row_of(client: Any, round_: Round) -> Any:
    response = client.get(reverse("tables:round_list"), {"table": round_.table.name})
    return next(row for row in response.context["rows"] if row.round.pk == round_.pk)
