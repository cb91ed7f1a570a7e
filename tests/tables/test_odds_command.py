"""``manage.py odds``: JSON shape, readable table, the stored-rule-set hook, errors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings

from games.blackjack.rules import LIVE_AMERICAN, RuleSet, replace
from tables.management.commands.odds import resolve_ruleset


def stored_ruleset(name: str) -> RuleSet | None:
    """A stand-in for the live table's loader of stored rule sets."""
    if name == "stored-single-deck":
        return replace(LIVE_AMERICAN, name=name, decks=1, perfect_pairs=None)
    return None


def test_json_output_has_exactly_the_documented_shape() -> None:
    # given the live-american profile on one deck (to keep the test quick)
    out = StringIO()
    # when the command runs with --json
    call_command("odds", "--ruleset", "live-american", "--decks", "1", "--json", stdout=out)
    report = json.loads(out.getvalue())
    # then the keys and the exact fractions (counts over the C(52, 2) = 1326 pairs) are the documented ones
    assert list(report) == ["ruleset", "decks", "perfect_pairs", "twenty_one_plus_three", "main_game"]
    assert report["ruleset"] == "live-american"
    assert report["decks"] == 1
    assert report["perfect_pairs"] == {
        "paytable": {"perfect": 25, "coloured": 12, "mixed": 6},
        "outcomes": {"perfect": "0/1326", "coloured": "26/1326", "mixed": "52/1326", "none": "1248/1326"},
        "house_edge": "624/1326",
    }
    twenty_one = report["twenty_one_plus_three"]
    assert twenty_one["paytable"] == {
        "suited_trips": 100,
        "straight_flush": 40,
        "three_of_a_kind": 25,
        "straight": 10,
        "flush": 5,
    }
    assert list(twenty_one["outcomes"]) == [
        "suited_trips",
        "straight_flush",
        "three_of_a_kind",
        "straight",
        "flush",
        "none",
    ]
    assert twenty_one["house_edge"] == "4284/22100"
    assert list(report["main_game"]) == ["house_edge", "method"]
    edge = report["main_game"]["house_edge"]
    assert len(edge.split(".")[1]) == 6
    assert -0.002 < float(edge) < 0.002  # one deck with these rules is close to even


def test_stored_rule_set_hook_and_readable_table() -> None:
    # given a live-table loader that knows a stored rule set without Perfect Pairs
    with override_settings(ODDS_RULESET_LOADER="tests.tables.test_odds_command.stored_ruleset"):
        assert resolve_ruleset("stored-single-deck").decks == 1
        assert resolve_ruleset("home-polish").name == "home-polish"  # falls back to PROFILES
        out = StringIO()
        # when the command prints the table
        call_command("odds", "--ruleset", "stored-single-deck", stdout=out)
    text = out.getvalue()
    # then the side bet not offered is figured with the default paytable and says so
    assert "Rule set stored-single-deck, 1 decks" in text
    assert "Perfect Pairs (not offered: default paytable)" in text
    assert "house edge 47.0588% (624/1326)" in text
    assert "Main game house edge" in text


def test_unknown_rule_set_exits_2_with_the_error_on_stderr() -> None:
    err = StringIO()
    out = StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("odds", "--ruleset", "no-such-table", "--json", stdout=out, stderr=err)
    assert exit_info.value.code == 2
    assert err.getvalue().startswith("invalid_ruleset: unknown rule set 'no-such-table'")
    assert out.getvalue() == ""
