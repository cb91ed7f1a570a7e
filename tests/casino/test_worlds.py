"""The demo casino is seeded once per worker database (tests/worlds.py), not once per test."""

from __future__ import annotations

from django.db import connection

from casino.models import AuditRecord, Casino, Table
from tests import worlds


def test_the_demo_seed_ran_once_for_this_worker_database(seeded):
    # given a test in the demo casino, after however many others on this worker
    current = worlds.worlds()
    # then it runs in the demo casino's database, which the seed ran on once (a seed run by the
    # seeded fixture for each test, or by a test on top of the demo casino, counts here too)
    assert connection.settings_dict["NAME"] == current.demo
    assert worlds.seed_runs[current.demo] == 1
    # and the seeded rows are there, the tables open, with one casino created by one seed
    assert Casino.objects.filter(code="demo").exists()
    assert Table.objects.exists()
    assert not Table.objects.filter(is_open=False).exists()
    assert AuditRecord.objects.filter(action="casino.created").count() == 1


def test_a_test_without_the_demo_casino_starts_from_the_empty_world(db):
    # given a test that does not ask for the demo casino
    # then its database is the empty one, where nothing is seeded
    assert connection.settings_dict["NAME"] == worlds.worlds().empty
    assert not Casino.objects.exists()
