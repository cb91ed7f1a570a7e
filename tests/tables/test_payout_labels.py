"""A payout line's rule in words: every rule text the engine writes has its words, in each
language, and a text it does not know is shown as it is."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.blackjack import settlement
from games.blackjack.settlement import NO_PEEK_ORIGINAL_STAKE_RULE
from tables.payout_labels import rule_label
from tests.games.blackjack_helpers import random_round

LANGUAGES = ("en", "hu", "pl", "ru")


def engine_rules(rounds: int) -> set[str]:
    """The rule texts of every payout line of ``rounds`` rounds of random legal play."""
    found: set[str] = set()
    for seed in range(rounds):
        _, final, _, _, _ = random_round(seed)
        found.update(line.rule for line in settlement(final))
    return found


def test_every_rule_the_engine_writes_has_its_words_in_each_language():
    # Given: the rule texts of 3,000 random rounds over the test rule variants
    # (main bets won, lost, pushed, busted, blackjacks at 3:2 and 6:5, dealer blackjacks with and
    # without a peek, both side bets, insurance, even money, surrender, bets behind returned), and
    # the 21+3 combinations too rare to be dealt in them
    rules = engine_rules(3000) | {
        "8 21+3 suited trips 100:1",
        "8 21+3 straight flush 40:1",
        "8 21+3 three of a kind 30:1",
    }
    assert len(rules) >= 27, sorted(rules)
    for language in LANGUAGES:
        with translation.override(language):
            # Then: each is in words, with its section, never the engine's text
            labels = {rule: rule_label(rule) for rule in rules}
            assert [rule for rule, label in labels.items() if label == rule] == []
            assert all(label.endswith(f"(§\u00a0{rule.split()[0]})") for rule, label in labels.items())
            if language != "en":
                with translation.override("en"):
                    english = {rule: rule_label(rule) for rule in rules}
                # every label is translated (a side bet's name may stay as it is)
                assert [rule for rule in rules if labels[rule] == english[rule]] == []


@pytest.mark.parametrize(
    ("rule", "english", "hungarian"),
    [
        (
            "7 higher total 1:1",
            "Higher total pays 1:1 (§\u00a07)",
            "A magasabb összeg 1:1-et fizet (§\u00a07)",
        ),
        ("7 blackjack 3:2", "Blackjack pays 3:2 (§\u00a07)", "Black Jack: kifizetés 3:2 (§\u00a07)"),
        ("8 21+3 flush 5:1", "21+3: flush pays 5:1 (§\u00a08)", "21+3: flush, kifizetés 5:1 (§\u00a08)"),
        ("8 perfect pairs: no combination", "Perfect Pairs: no combination (§\u00a08)", None),
        (
            NO_PEEK_ORIGINAL_STAKE_RULE,
            "Dealer blackjack, no peek: only the original stake is lost (§\u00a04.3)",
            None,
        ),
    ],
)
def test_a_rule_in_words(rule, english, hungarian):
    with translation.override("en"):
        assert rule_label(rule) == english
    if hungarian is not None:
        with translation.override("hu"):
            assert rule_label(rule) == hungarian


@pytest.mark.parametrize("rule", ["", "7", "settled by hand", "7 something new 2:1", "8 21+3 royal 100:1"])
def test_a_text_the_engine_does_not_write_is_shown_as_it_is(rule):
    assert rule_label(rule) == rule
