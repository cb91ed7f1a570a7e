"""The append-only event logs (``casino.event_log``): an append takes the sequences after the
owner's version, one moment and who recorded each event; the digest of an event is the one its
round's or deal's audit record carries, and does not change."""

from __future__ import annotations

import datetime as dt
import types

import pytest

from casino.actors import Actor
from casino.event_log import EventDraft, canonical_digest, event_digest, events_append
from casino.models import Table
from tables.models import RoundEvent
from tables.services import round_open
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, funded_player, stack_shoe


def test_an_event_s_digest_is_the_one_sealed_rounds_carry():
    # given an event recorded at 09:30 in UTC+1, with a payload beyond ASCII
    event = types.SimpleNamespace(
        sequence=3,
        kind="decision",
        payload={"action": {"kind": "hit", "box": 2}, "note": "é"},
        actor_id=7,
        actor_name="Dana Dealer",
        role="dealer",
        terminal_id=None,
        player_id=11,
        created_at=dt.datetime(2026, 1, 11, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))),
    )
    # then its digest is the one the audit chain holds for it (the encoding never changes)
    assert event_digest(event) == "2f131cbb61aec24f85bd30b335321b657ee2c42d2353cdfcd686d2187e7bace2"
    assert canonical_digest({"b": 1, "a": [1, "x"]}) == canonical_digest({"a": [1, "x"], "b": 1})


@pytest.mark.django_db
def test_an_append_follows_the_owner_s_version_at_one_moment_with_each_event_s_recorder(seeded):
    table = Table.objects.get(name="BJ1")
    dealer = staff_user("dealer", "dealer-1")
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bettor = at_terminal(table, funded_player(table, 10_000, name="Bob"))
    before = RoundEvent.objects.filter(round=round_).count()
    # when two events are appended after the round's version, the second one given by a player
    drafts = [EventDraft("note", {"n": 1}), EventDraft("note", {"n": 2}, actor=bettor)]
    events = events_append(RoundEvent, drafts, Actor.staff(dealer), after=round_.version, round=round_)
    # then they take the next sequences, at one moment, each with who recorded it
    stored = list(RoundEvent.objects.filter(round=round_, kind="note").order_by("sequence"))
    assert [event.sequence for event in stored] == [round_.version + 1, round_.version + 2]
    assert [event.payload for event in stored] == [{"n": 1}, {"n": 2}]
    assert stored[0].created_at == stored[1].created_at == events[0].created_at
    assert (stored[0].actor_id, stored[0].player_id) == (dealer.pk, None)
    assert (stored[1].actor_id, stored[1].player_id) == (None, bettor.player.pk)
    assert stored[1].terminal_id == bettor.terminal.pk
    assert [event_digest(event) for event in events] == [event_digest(event) for event in stored]
    assert RoundEvent.objects.filter(round=round_).count() == before + 2
    # and an append of nothing writes nothing
    assert events_append(RoundEvent, [], Actor.staff(dealer), after=round_.version + 2, round=round_) == []
    assert RoundEvent.objects.filter(round=round_).count() == before + 2
