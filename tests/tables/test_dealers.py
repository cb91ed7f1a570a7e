"""Who deals at a table (tables/services/dealers.py): signing on and off, a dealer change, one
table per dealer, opening and closing the table for play, and one dealer at a table at a time
(another dealer's commands refused ``not_table_dealer``, the pit boss keeping his rights)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from casino.models import AuditRecord, Table
from tables.models import Bet, Round, RoundEvent, Shoe, TableDealer
from tables.services import (
    Actor,
    bet_place,
    box_take,
    card_enter,
    dealer_sign_off,
    dealer_sign_on,
    insurance_decide,
    round_close_betting,
    round_open,
    round_settle,
    shoe_shuffle,
    table_close_for_play,
    table_dealer_current,
    table_open_for_play,
)
from tests.factories import staff_user, table_settings_applied
from tests.tables.conftest import at_terminal, funded_player, physical, refused, stack_shoe


def _closed(table: Table) -> Table:
    Table.objects.filter(pk=table.pk).update(is_open=False)
    table.refresh_from_db()
    return table


def _written() -> tuple[int, int, int, int]:
    return (
        Round.objects.count(),
        RoundEvent.objects.count(),
        AuditRecord.objects.count(),
        TableDealer.objects.count(),
    )


def _pit_boss_who_deals(pit_boss: Any, dealer: Any) -> Any:
    """A pit boss who also holds the dealer's role (run_table and supervise_pit): dealer
    commands need run_table, and supervise_pit lifts the one-dealer rule."""
    pit_boss.groups.add(*dealer.groups.all())
    return type(pit_boss).objects.get(pk=pit_boss.pk)


def _spells(table: Table) -> list[tuple[str, bool]]:
    return [
        (spell.dealer.username, spell.signed_off_at is None)
        for spell in TableDealer.objects.filter(table=table).select_related("dealer").order_by("pk")
    ]


# ------------------------------------------------------------------------------ signing on and off


@pytest.mark.django_db
def test_a_dealer_signs_on_and_it_is_audited(table, dealer):
    # when dealer-1 signs on to BJ1
    spell = dealer_sign_on(table=table, actor=Actor.staff(dealer))
    # then one open spell, the current dealer, and an audit record
    assert (spell.dealer_id, spell.table_id, spell.signed_off_at) == (dealer.pk, table.pk, None)
    assert table_dealer_current(table).pk == spell.pk
    record = AuditRecord.objects.filter(action="table.dealer_signed_on").get()
    assert (record.actor_id, record.object_type, record.object_id) == (
        dealer.pk,
        "tables.table",
        str(table.pk),
    )
    assert record.before is None
    assert record.after == {"table": "BJ1", "dealer": "dealer-1", "left_tables": []}


@pytest.mark.django_db
def test_a_second_dealer_takes_over_and_the_change_names_both(table, dealer):
    # given dealer-1 signed on to BJ1
    first = dealer_sign_on(table=table, actor=Actor.staff(dealer))
    second_dealer = staff_user("dealer", "dealer-2")
    # when dealer-2 signs on to the same table
    second = dealer_sign_on(table=table, actor=Actor.staff(second_dealer))
    # then the first spell ended when the second began
    first.refresh_from_db()
    assert first.signed_off_at == second.signed_on_at
    assert _spells(table) == [("dealer-1", False), ("dealer-2", True)]
    assert table_dealer_current(table).dealer_id == second_dealer.pk
    record = AuditRecord.objects.filter(action="table.dealer_changed").get()
    assert record.before == {"dealer": "dealer-1"}
    assert record.after == {"table": "BJ1", "dealer": "dealer-2", "left_tables": []}
    assert AuditRecord.objects.filter(action="table.dealer_signed_on").count() == 1


@pytest.mark.django_db
def test_signing_on_elsewhere_ends_the_spell_at_the_first_table(table, dealer):
    # given dealer-1 dealing BJ1
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    bj2 = Table.objects.get(name="BJ2")
    # when dealer-1 signs on to BJ2
    dealer_sign_on(table=bj2, actor=Actor.staff(dealer))
    # then BJ1 has no dealer, BJ2 has dealer-1, and BJ1 stays open as it was
    assert table_dealer_current(table) is None
    assert table_dealer_current(bj2).dealer_id == dealer.pk
    assert TableDealer.objects.filter(dealer=dealer, signed_off_at__isnull=True).count() == 1
    assert Table.objects.get(pk=table.pk).is_open is True
    record = AuditRecord.objects.filter(action="table.dealer_signed_on").last()
    assert record.after == {"table": "BJ2", "dealer": "dealer-1", "left_tables": ["BJ1"]}


@pytest.mark.django_db
def test_a_dealer_does_not_walk_away_from_a_round_in_play(table, dealer):
    # given dealer-1 dealing BJ1 with round 1 open for bets
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bj2 = Table.objects.get(name="BJ2")
    before = _written()
    # when dealer-1 signs on to BJ2: refused, naming the round, and nothing changed
    error = refused("round_in_play_elsewhere", dealer_sign_on, table=bj2, actor=Actor.staff(dealer))
    assert error.details == {"table": "BJ1", "number": 1}
    assert _written() == before
    assert table_dealer_current(table).dealer_id == dealer.pk and table_dealer_current(bj2) is None
    # and once another dealer takes over BJ1, dealer-1 is free to go
    dealer_sign_on(table=table, actor=Actor.staff(staff_user("dealer", "dealer-2")))
    dealer_sign_on(table=bj2, actor=Actor.staff(dealer))
    assert table_dealer_current(bj2).dealer_id == dealer.pk
    assert Round.objects.get(pk=round_.pk).status == "betting"


@pytest.mark.django_db
def test_signing_on_twice_is_refused_already_signed_on(table, dealer):
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    before = _written()
    refused("already_signed_on", dealer_sign_on, table=table, actor=Actor.staff(dealer))
    assert _written() == before


@pytest.mark.django_db
def test_a_pit_boss_cannot_sign_on_as_dealer(table, pit_boss):
    before = _written()
    refused("permission_denied", dealer_sign_on, table=table, actor=Actor.staff(pit_boss))
    assert _written() == before


@pytest.mark.django_db
def test_signing_off_an_open_table_is_refused_table_open(table, dealer):
    # given dealer-1 dealing BJ1, open for play (the seeded fixture opens every table)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    before = _written()
    # when they sign off: refused, still dealing
    refused("table_open", dealer_sign_off, table=table, actor=Actor.staff(dealer))
    assert _written() == before
    assert table_dealer_current(table).dealer_id == dealer.pk


@pytest.mark.django_db
def test_a_dealer_signs_off_a_closed_table(table, dealer):
    _closed(table)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    dealer_sign_off(table=table, actor=Actor.staff(dealer))
    assert table_dealer_current(table) is None
    record = AuditRecord.objects.filter(action="table.dealer_signed_off").get()
    assert (record.actor_id, record.before, record.after) == (
        dealer.pk,
        {"dealer": "dealer-1"},
        {"table": "BJ1"},
    )
    # and signing off again: nobody is signed on
    refused("not_signed_on", dealer_sign_off, table=table, actor=Actor.staff(dealer))


@pytest.mark.django_db
def test_a_pit_boss_signs_a_dealer_off_and_another_dealer_may_not(table, dealer, pit_boss):
    _closed(table)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    other = staff_user("dealer", "dealer-2")
    before = _written()
    refused("permission_denied", dealer_sign_off, table=table, actor=Actor.staff(other))
    assert _written() == before
    dealer_sign_off(table=table, actor=Actor.staff(pit_boss))
    assert table_dealer_current(table) is None
    record = AuditRecord.objects.filter(action="table.dealer_signed_off").get()
    assert (record.actor_id, record.actor_name, record.before) == (
        pit_boss.pk,
        "pitboss-1",
        {"dealer": "dealer-1"},
    )


# ------------------------------------------------------------------------- opening and closing


@pytest.mark.django_db
def test_an_unsigned_dealer_may_not_open_the_table(table, dealer):
    _closed(table)
    before = _written()
    refused("not_signed_on", table_open_for_play, table=table, actor=Actor.staff(dealer))
    assert _written() == before
    assert Table.objects.get(pk=table.pk).is_open is False


@pytest.mark.django_db
def test_the_signed_on_dealer_opens_and_closes_the_table(table, dealer):
    # given BJ1 closed and dealer-1 signed on
    _closed(table)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    # when they open it
    opened = table_open_for_play(table=table, actor=Actor.staff(dealer))
    assert opened.is_open is True and Table.objects.get(pk=table.pk).is_open is True
    record = AuditRecord.objects.filter(action="table.opened").get()
    assert (record.before, record.after) == (
        {"is_open": False},
        {"table": "BJ1", "is_open": True, "dealer": "dealer-1"},
    )
    # and opening it again is refused
    before = _written()
    refused("table_open", table_open_for_play, table=table, actor=Actor.staff(dealer))
    assert _written() == before
    # when they close it
    table_close_for_play(table=table, actor=Actor.staff(dealer))
    assert Table.objects.get(pk=table.pk).is_open is False
    record = AuditRecord.objects.filter(action="table.closed").get()
    assert (record.before, record.after) == (
        {"is_open": True},
        {"table": "BJ1", "is_open": False, "dealer": "dealer-1"},
    )
    # and closing it again is refused table_closed
    before = _written()
    refused("table_closed", table_close_for_play, table=table, actor=Actor.staff(dealer))
    assert _written() == before


@pytest.mark.django_db
def test_closing_is_refused_while_a_round_is_open(table, dealer):
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    round_open(table=table, actor=Actor.staff(dealer))
    before = _written()
    refused("round_in_progress", table_close_for_play, table=table, actor=Actor.staff(dealer))
    assert _written() == before
    assert Table.objects.get(pk=table.pk).is_open is True


@pytest.mark.django_db
def test_a_pit_boss_opens_a_table_without_signing_on(table, pit_boss):
    _closed(table)
    table_open_for_play(table=table, actor=Actor.staff(pit_boss))
    assert Table.objects.get(pk=table.pk).is_open is True
    record = AuditRecord.objects.filter(action="table.opened").get()
    assert (record.actor_id, record.after["dealer"]) == (pit_boss.pk, "")


@pytest.mark.django_db
def test_a_round_is_refused_at_a_closed_table_with_nothing_written(table, dealer):
    # given a fresh shoe, then BJ1 closed
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    _closed(table)
    before = _written()
    # when the dealer opens betting: refused, no round row, no event, no audit record
    refused("table_closed", round_open, table=table, actor=Actor.staff(dealer))
    assert _written() == before
    assert not AuditRecord.objects.filter(action="round.opened").exists()


@pytest.mark.django_db
def test_a_pit_boss_without_the_dealer_role_runs_no_round(table, dealer, pit_boss):
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    before = _written()
    refused("permission_denied", round_open, table=table, actor=Actor.staff(pit_boss))
    assert _written() == before


@pytest.mark.django_db
def test_the_round_dealer_is_the_signed_on_dealer(table, dealer, pit_boss):
    # given dealer-1 signed on
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    # when a pit boss who also deals opens betting
    round_ = round_open(table=table, actor=Actor.staff(_pit_boss_who_deals(pit_boss, dealer)))
    # then the round's dealer is dealer-1, not the pit boss
    assert Round.objects.get(pk=round_.pk).dealer_id == dealer.pk


@pytest.mark.django_db
def test_without_a_signed_on_dealer_the_round_dealer_is_who_opened_it(table, dealer):
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    assert Round.objects.get(pk=round_.pk).dealer_id == dealer.pk


# ------------------------------------------------------------------------ one dealer per table


@pytest.mark.django_db
def test_another_dealer_is_refused_at_a_signed_on_table_and_the_pit_boss_is_not(table, dealer, pit_boss):
    # given dealer-1 signed on to BJ1, alice's bet in a round on a virtual shoe
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    other = Actor.staff(staff_user("dealer", "dealer-2"))
    before = _written()
    # when dealer-2 opens betting, or shuffles: refused, nothing written
    refused("not_table_dealer", round_open, table=table, actor=other)
    refused("not_table_dealer", shoe_shuffle, table=table, actor=other)
    assert _written() == before
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    before = _written()
    # when dealer-2 closes betting or settles: refused, nothing written, the round as it was
    refused("not_table_dealer", round_close_betting, round_id=round_.pk, actor=other)
    refused("not_table_dealer", round_settle, round_id=round_.pk, actor=other)
    assert _written() == before
    assert Round.objects.get(pk=round_.pk).status == "betting"
    # and a pit boss (holding the dealer's role too) may close betting
    round_close_betting(round_id=round_.pk, actor=Actor.staff(_pit_boss_who_deals(pit_boss, dealer)))
    assert Round.objects.get(pk=round_.pk).status == "players"


@pytest.mark.django_db
def test_another_dealer_may_not_enter_a_card_at_a_physical_table(table, dealer, operator, pit_boss):
    # given BJ1 on a physical shoe, dealer-1 signed on, a round with alice's bet, betting closed
    physical(table, operator)
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    shoe_shuffle(table=table, actor=Actor.staff(dealer))
    alice = funded_player(table, 10_000)
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=Actor.staff(dealer))
    other = Actor.staff(staff_user("dealer", "dealer-2"))
    before = _written()
    version = Round.objects.get(pk=round_.pk).version
    # when dealer-2 enters a card: refused, no event, no misscan
    refused("not_table_dealer", card_enter, round_id=round_.pk, actor=other, card="TS")
    assert _written() == before
    refreshed = Round.objects.get(pk=round_.pk)
    assert (refreshed.version, refreshed.awaiting_correction) == (version, None)
    # and the card of a pit boss (holding the dealer's role too) is dealt
    card_enter(round_id=round_.pk, actor=Actor.staff(_pit_boss_who_deals(pit_boss, dealer)), card="TS")
    assert Round.objects.get(pk=round_.pk).version == version + 1
    assert Shoe.objects.filter(table=table, retired_at__isnull=True).get().kind == "physical"


@pytest.mark.django_db
def test_at_a_table_nobody_signed_on_to_any_dealer_acts(table, dealer):
    # the rule binds only while a dealer is signed on
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    other = staff_user("dealer", "dealer-2")
    round_ = round_open(table=table, actor=Actor.staff(other))
    assert round_.status == "betting"


# ---------------------------------------------------------------------------------------- race


@pytest.mark.django_db(transaction=True)
def test_two_dealers_signing_on_at_once_leave_one_open_spell(seeded):
    # given BJ1 and two dealers
    table = Table.objects.get(name="BJ1")
    dealers = [staff_user("dealer", "dealer-a"), staff_user("dealer", "dealer-b")]
    barrier = threading.Barrier(2)
    results: list[Any] = [None, None]

    def sign_on(index: int) -> None:
        try:
            barrier.wait()
            results[index] = dealer_sign_on(table=table, actor=Actor.staff(dealers[index]))
        except BaseException as error:  # reported below
            results[index] = error
        finally:
            connection.close()

    # when both sign on from two threads released together
    threads = [threading.Thread(target=sign_on, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    # then both succeed one after the other (the table lock serializes them): one open spell,
    # the second dealer's, and one change naming the first
    assert [isinstance(result, TableDealer) for result in results] == [True, True], results
    open_spells = list(TableDealer.objects.filter(table=table, signed_off_at__isnull=True))
    assert len(open_spells) == 1
    assert TableDealer.objects.filter(table=table).count() == 2
    changed = AuditRecord.objects.filter(action="table.dealer_changed").get()
    signed_on = AuditRecord.objects.filter(action="table.dealer_signed_on").get()
    assert changed.after["dealer"] == open_spells[0].dealer.username
    assert changed.before == {"dealer": signed_on.after["dealer"]}
    assert {signed_on.after["dealer"], changed.after["dealer"]} == {"dealer-a", "dealer-b"}


# ------------------------------------------------------------------ decisions from the dealer


def _insurance_offered(table: Table, dealer: Any) -> tuple[Any, Any, Any]:
    """Alice's main bet on box 1 against the dealer's ace: insurance on offer. (alice, bet, round)"""
    alice = funded_player(table, 10_000)
    as_alice, as_dealer = at_terminal(table, alice), Actor.staff(dealer)
    stack_shoe(table, dealer, ["TS", "AH", "9D", "7C"])
    box_take(table=table, box_number=1, actor=as_alice)
    dealer_sign_on(table=table, actor=as_dealer)
    round_ = round_open(table=table, actor=as_dealer)
    bet = bet_place(
        round_id=round_.pk, actor=as_alice, box_number=1, kind="main", stake_minor=1000, idempotency_key="m"
    )
    round_close_betting(round_id=round_.pk, actor=as_dealer)
    assert Round.objects.get(pk=round_.pk).status == "insurance"
    return alice, bet, round_


@pytest.mark.django_db
def test_the_dealer_records_a_players_insurance_where_the_table_says_so(table, dealer, operator):
    # given a table whose dealer records the players' decisions, insurance on offer
    table_settings_applied(table=table, operator=operator, settings={"dealer_records_decisions": True})
    alice, bet, round_ = _insurance_offered(table, dealer)

    # when the dealer records that alice takes insurance
    insurance_decide(round_id=round_.pk, actor=Actor.staff(dealer), bet_id=bet.pk, take=True)

    # then the insurance bet is alice's, half her stake, and the event names the dealer
    insurance = Bet.objects.get(round=round_, kind="insurance")
    assert (insurance.player_id, insurance.stake_minor, insurance.insures_id) == (alice.pk, 500, bet.pk)
    event = RoundEvent.objects.filter(round=round_, kind="insurance_taken").get()
    assert (event.actor_id, event.role) == (dealer.pk, "dealer")


@pytest.mark.django_db
def test_elsewhere_the_dealer_may_not_record_insurance_and_nothing_moves(table, dealer):
    # given a table where the players decide at their terminals, insurance on offer
    _, bet, round_ = _insurance_offered(table, dealer)
    before = _written()

    # when the dealer tries to record insurance for the player
    refused(
        "decisions_from_terminals",
        insurance_decide,
        round_id=round_.pk,
        actor=Actor.staff(dealer),
        bet_id=bet.pk,
        take=True,
    )

    # then no bet, event or audit record was written
    assert _written() == before
    assert not Bet.objects.filter(round=round_, kind="insurance").exists()
